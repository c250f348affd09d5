"""opgen_index's 2-D pooling (templates/kernel/index_lib/op_kernel/opgen_index_pool.h and
templates/host/index_lib/op_host/opgen_index_pool_tiling.h): cpp/index_pool_driver.cpp tiles with
TileAvgPool2d / TileMaxPool2d and runs AvgPool2d / MaxPool2d on the twin's cores (pipe check on);
the results must equal torch.nn.functional.avg_pool2d / max_pool2d on the CPU (NaN, -inf, signed
zeros, ceil_mode's dropped last window, count_include_pad both ways), and the Tile functions must
refuse what torch refuses or the UB cannot hold."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from twin_support import CPP, CXX, CXXFLAGS, INDEX_LIB_INCLUDES

torch = pytest.importorskip("torch")
F = torch.nn.functional

pytestmark = pytest.mark.slow

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("index_pool") / "index_pool_driver"
    cmd = [CXX, *CXXFLAGS, *INDEX_LIB_INCLUDES, str(CPP / "index_pool_driver.cpp"), "-o", str(exe)]
    proc = subprocess.run([*cmd, "-lpthread"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


def run_pool(
    driver: Path,
    tmp_path: Path,
    kind: str,
    x: torch.Tensor,
    kernel: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int] = (0, 0),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    cores: int = 8,
    ub_bytes: int = 0,
) -> tuple[subprocess.CompletedProcess, torch.Tensor | None]:
    """Runs the driver; returns its process and the output (None when it did not run)."""
    dtype = next(name for name, dt in DTYPES.items() if dt == x.dtype)
    bits = torch.int16 if x.element_size() == 2 else torch.int32
    (tmp_path / "x.bin").write_bytes(x.contiguous().view(bits).numpy().tobytes())
    flags = [*kernel, *stride, *padding, int(ceil_mode), int(count_include_pad)]
    args = [kind, dtype, cores, ub_bytes, *flags, tmp_path / "x.bin", tmp_path / "y.bin", *x.shape]
    proc = subprocess.run([str(driver), *map(str, args)], capture_output=True, text=True)
    if proc.returncode != 0:
        return proc, None
    oh, ow = (int(v) for v in proc.stdout.split()[1:3])
    raw = bytearray((tmp_path / "y.bin").read_bytes())
    shape = (*x.shape[:-2], oh, ow)
    y = torch.frombuffer(raw, dtype=bits).view(x.dtype).reshape(shape) if raw else None
    return proc, y if y is not None else torch.empty(shape, dtype=x.dtype)


def reference(kind: str, x: torch.Tensor, kernel, stride, padding, ceil_mode, cip) -> torch.Tensor:
    if kind == "avg":
        return F.avg_pool2d(x, kernel, stride, padding, ceil_mode, cip)
    return F.max_pool2d(x, kernel, stride, padding, 1, ceil_mode)


def check(
    driver, tmp_path, kind, x, kernel, stride, padding=(0, 0), ceil_mode=False, cip=True, cores=8
):
    proc, y = run_pool(driver, tmp_path, kind, x, kernel, stride, padding, ceil_mode, cip, cores)
    assert y is not None, proc.stdout + proc.stderr
    ref = reference(kind, x, kernel, stride, padding, ceil_mode, cip)
    assert y.shape == ref.shape
    # The same order of additions and one division as torch's CPU kernel: the same bits (NaN
    # payloads aside), signed zeros included.
    torch.testing.assert_close(y, ref, rtol=0, atol=0, equal_nan=True)
    assert torch.equal(torch.signbit(y), torch.signbit(ref)) or bool(ref.isnan().any())
    return proc


# (shape, kernel, stride, padding, ceil_mode)
CASES = [
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0), False),
    ((2, 3, 7, 9), (3, 3), (1, 1), (1, 1), False),
    ((1, 2, 7, 9), (3, 3), (2, 2), (1, 1), True),
    ((2, 5, 11, 13), (3, 2), (2, 3), (1, 1), True),
    ((3, 1, 1), (1, 1), (1, 1), (0, 0), False),  # CHW, 1x1 planes
    ((1, 2, 5, 150), (2, 3), (1, 2), (1, 1), False),  # rows wider than one compare block
    ((1, 1, 5, 5), (2, 2), (2, 2), (1, 1), True),  # ceil_mode: the last window would start in pad
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("kind", ["avg", "max"])
@pytest.mark.parametrize(
    "case", CASES, ids=lambda c: "x".join(map(str, c[0])) + f"_k{c[1][0]}{c[1][1]}"
)
def test_matches_torch(driver, tmp_path, dtype, kind, case):
    shape, kernel, stride, padding, ceil_mode = case
    x = (torch.randn(shape) * 4).to(DTYPES[dtype])
    for cip in (True, False) if kind == "avg" else (True,):
        check(driver, tmp_path, kind, x, kernel, stride, padding, ceil_mode, cip)


@pytest.mark.parametrize("cores", [1, 3, 40])
def test_core_counts(driver, tmp_path, cores):
    x = torch.randn(2, 3, 9, 10)
    proc = check(driver, tmp_path, "avg", x, (3, 3), (2, 2), (1, 1), True, False, cores=cores)
    used = int(proc.stdout.split()[-1])
    assert used == min(cores, 2 * 3 * 5)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_max_nan_inf_and_signed_zero(driver, tmp_path, dtype):
    x = torch.randn(1, 2, 6, 7)
    x[0, 0, 0, 0] = float("nan")  # a corner window, partly padded
    x[0, 0, 3, 3] = float("nan")
    x[0, 1, :, :3] = float("-inf")  # whole windows of -inf, and padded ones
    x[0, 1, 4:, 4:] = -0.0
    x[0, 1, 5, 5] = 0.0
    x = x.to(DTYPES[dtype])
    for kernel, stride, padding, ceil_mode in [
        ((3, 3), (1, 1), (1, 1), False),
        ((2, 2), (2, 2), (1, 1), True),
        ((2, 3), (2, 1), (0, 0), False),
    ]:
        check(driver, tmp_path, "max", x, kernel, stride, padding, ceil_mode)


def test_max_ties_of_signed_zeros(driver, tmp_path):
    # torch keeps the first of equal values in row-major order: -0 before +0 gives -0.
    x = torch.tensor([[[[-0.0, 0.0], [0.0, -0.0]], [[0.0, -0.0], [-0.0, 0.0]]]])
    proc, y = run_pool(driver, tmp_path, "max", x, (2, 2), (1, 1))
    assert y is not None, proc.stdout
    assert torch.signbit(y).flatten().tolist() == [True, False]


def test_avg_nan_and_inf(driver, tmp_path):
    x = torch.randn(1, 1, 6, 6)
    x[0, 0, 1, 1] = float("nan")
    x[0, 0, 4, 4] = float("inf")
    x[0, 0, 5, 4] = float("-inf")
    for cip in (True, False):
        check(driver, tmp_path, "avg", x, (3, 3), (2, 2), (1, 1), True, cip)


def test_empty_batch(driver, tmp_path):
    proc, y = run_pool(driver, tmp_path, "max", torch.randn(0, 2, 4, 4), (2, 2), (2, 2))
    assert y is not None and y.shape == (0, 2, 2, 2), proc.stdout


@pytest.mark.parametrize(
    ("shape", "kernel", "stride", "padding", "expected"),
    [
        ((1, 1, 4, 4), (3, 3), (1, 1), (2, 1), "pad should be at most half"),
        ((1, 1, 2, 2), (3, 3), (1, 1), (0, 0), "output size is too small"),
        ((1, 1, 4, 4), (0, 2), (1, 1), (0, 0), "kernel_size must be greater than zero"),
        ((1, 1, 4, 4), (2, 2), (0, 1), (0, 0), "stride must be greater than zero"),
        ((4, 4), (2, 2), (2, 2), (0, 0), "rank 3 or 4"),
        ((1, 0, 4, 4), (2, 2), (2, 2), (0, 0), "must be non-zero"),
    ],
)
def test_refusals(driver, tmp_path, shape, kernel, stride, padding, expected):
    proc, y = run_pool(driver, tmp_path, "avg", torch.zeros(shape), kernel, stride, padding)
    assert y is None and proc.returncode == 3, proc.stdout
    assert expected in proc.stdout
    if len(shape) >= 3 and 0 not in shape:  # torch refuses these too
        with pytest.raises(RuntimeError):
            reference("avg", torch.zeros(shape), kernel, stride, padding, False, True)


def pool_ub_bytes(dtype_bytes: int, w: int, ow: int, kh: int, kw: int) -> int:
    """PoolUbBytes of the host header, for the UB boundary below."""

    def up(v: int, to: int) -> int:
        return (v + to - 1) // to * to

    out = up(ow, 64)
    return (
        kh * up(w, 32 // dtype_bytes) * dtype_bytes
        + kh * (up(w, 8) + 16) * 4
        + kw * out * 4
        + 5 * out * 4
        + 2 * up(out // 8, 32)
        + up(out * dtype_bytes, 32)
    )


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_ub_boundary(driver, tmp_path, kind):
    # Exactly the bytes the host counts (max: and Select's 8 KB): the kernel's buffers fit (the
    # twin's TPipe and Select hold it to the UB size); one byte less: refused by the Tile function.
    x = torch.randn(1, 1, 4, 300, dtype=torch.float16)
    need = pool_ub_bytes(2, 300, 298, 3, 3) + (8192 if kind == "max" else 0)
    proc, y = run_pool(driver, tmp_path, kind, x, (3, 3), (1, 1), cores=2, ub_bytes=need)
    assert y is not None, proc.stdout
    torch.testing.assert_close(y, reference(kind, x, 3, 1, 0, False, True), rtol=0, atol=0)
    proc, y = run_pool(driver, tmp_path, kind, x, (3, 3), (1, 1), cores=2, ub_bytes=need - 1)
    assert y is None and "do not fit in UB" in proc.stdout


def build_for_arch(tmp_path: Path, arch: int, *flags: str) -> subprocess.CompletedProcess:
    exe = tmp_path / f"index_pool_driver_{arch}"
    cmd = [
        CXX,
        *CXXFLAGS,
        f"-D__NPU_ARCH__={arch}",
        *INDEX_LIB_INCLUDES,
        str(CPP / "index_pool_driver.cpp"),
    ]
    return subprocess.run(
        [*cmd, *flags, "-o", str(exe), "-lpthread"], capture_output=True, text=True
    )


@pytest.mark.parametrize("arch", [1001, 2002])
def test_socs_without_the_apis_refuse_at_compile_time(tmp_path, arch):
    proc = build_for_arch(tmp_path, arch, "-fsyntax-only")
    assert proc.returncode != 0
    assert "opgen_index pooling needs DataCopyPad, Gather, Compare and Select" in proc.stderr


@pytest.mark.parametrize("arch", [3002, 3510])
def test_other_socs(tmp_path, arch):
    proc = build_for_arch(tmp_path, arch)
    assert proc.returncode == 0, proc.stderr
    exe = tmp_path / f"index_pool_driver_{arch}"
    x = torch.randn(2, 3, 7, 9)
    x[0, 0, 2, 2] = float("nan")
    for dtype in DTYPES.values():
        for kind in ("avg", "max"):
            check(exe, tmp_path, kind, x.to(dtype), (3, 3), (2, 2), (1, 1), True, False)
