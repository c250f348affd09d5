"""opgen_index's 2-D pooling (templates/kernel/index_lib/op_kernel/opgen_index_pool.h and
templates/host/index_lib/op_host/opgen_index_pool_tiling.h): cpp/index_pool_driver.cpp tiles with
TileAvgPool2d / TileMaxPool2d and runs AvgPool2d / MaxPool2d on the twin's cores (pipe check on),
and the channels-last kinds (AvgPool2dNhwc / MaxPool2dNhwc, x and y NHWC, compared with torch's
pool(x.permute(0, 3, 1, 2), ...).permute(0, 2, 3, 1));
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
    nhwc = kind.endswith("_nhwc")
    shape = (x.shape[0], oh, ow, x.shape[3]) if nhwc else (*x.shape[:-2], oh, ow)
    y = torch.frombuffer(raw, dtype=bits).view(x.dtype).reshape(shape) if raw else None
    return proc, y if y is not None else torch.empty(shape, dtype=x.dtype)


def reference(kind: str, x: torch.Tensor, kernel, stride, padding, ceil_mode, cip) -> torch.Tensor:
    if kind.endswith("_nhwc"):  # the spelling opgen's grammar takes, verbatim
        nchw = x.permute(0, 3, 1, 2)
        return reference(kind[:3], nchw, kernel, stride, padding, ceil_mode, cip).permute(
            0, 2, 3, 1
        )
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
    used = int(proc.stdout.split()[4])
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
            nhwc = x.permute(0, 2, 3, 1).contiguous().to(dtype)
            check(exe, tmp_path, f"{kind}_nhwc", nhwc, (3, 3), (2, 2), (1, 1), True, False)


# ---- channels-last (NHWC) kinds ----

# (NHWC shape, kernel, stride, padding, ceil_mode)
NHWC_CASES = [
    ((2, 8, 8, 3), (2, 2), (2, 2), (0, 0), False),  # the corpus sample's: stride = kernel
    ((2, 7, 9, 5), (3, 3), (1, 1), (1, 1), False),
    ((1, 7, 9, 70), (3, 3), (2, 2), (1, 1), True),  # C over one 64-lane block, a tail
    ((2, 11, 13, 1), (3, 2), (2, 3), (1, 1), True),  # C = 1
    ((1, 5, 5, 8), (2, 2), (2, 2), (1, 1), True),  # ceil_mode: the last window would start in pad
    ((1, 1, 1, 33), (1, 1), (1, 1), (0, 0), False),  # 1x1 planes
    ((1, 6, 20, 4), (2, 7), (1, 3), (1, 3), False),  # a wide window, padded columns
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("kind", ["avg_nhwc", "max_nhwc"])
@pytest.mark.parametrize(
    "case", NHWC_CASES, ids=lambda c: "x".join(map(str, c[0])) + f"_k{c[1][0]}{c[1][1]}"
)
def test_nhwc_matches_torch(driver, tmp_path, dtype, kind, case):
    shape, kernel, stride, padding, ceil_mode = case
    x = (torch.randn(shape) * 4).to(DTYPES[dtype])
    for cip in (True, False) if kind == "avg_nhwc" else (True,):
        check(driver, tmp_path, kind, x, kernel, stride, padding, ceil_mode, cip)


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_nhwc_max_nan_inf_and_signed_zero(driver, tmp_path, dtype):
    x = torch.randn(1, 6, 7, 3)
    x[0, 0, 0, 0] = float("nan")  # a corner window, partly padded
    x[0, 3, 3, 1] = float("nan")
    x[0, :, :3, 2] = float("-inf")  # whole windows of -inf in one channel
    x[0, 4:, 4:, 0] = -0.0
    x[0, 5, 5, 0] = 0.0
    x = x.to(DTYPES[dtype])
    for kernel, stride, padding, ceil_mode in [
        ((3, 3), (1, 1), (1, 1), False),
        ((2, 2), (2, 2), (1, 1), True),
        ((2, 3), (2, 1), (0, 0), False),
    ]:
        check(driver, tmp_path, "max_nhwc", x, kernel, stride, padding, ceil_mode)


def test_nhwc_max_ties_of_signed_zeros(driver, tmp_path):
    # torch keeps the first of equal values in row-major order: -0 before +0 gives -0.
    x = torch.tensor([[[[-0.0, 0.0], [0.0, -0.0]], [[0.0, -0.0], [-0.0, 0.0]]]])  # [1, 2, 2, 2]
    proc, y = run_pool(driver, tmp_path, "max_nhwc", x, (2, 2), (1, 1))
    assert y is not None, proc.stdout
    assert torch.signbit(y).flatten().tolist() == [True, False]


def test_nhwc_avg_nan_and_inf(driver, tmp_path):
    x = torch.randn(1, 6, 6, 2)
    x[0, 1, 1, 0] = float("nan")
    x[0, 4, 4, 1] = float("inf")
    x[0, 5, 4, 1] = float("-inf")
    for cip in (True, False):
        check(driver, tmp_path, "avg_nhwc", x, (3, 3), (2, 2), (1, 1), True, cip)


@pytest.mark.parametrize("kind", ["avg_nhwc", "max_nhwc"])
@pytest.mark.parametrize("cores", [1, 3, 40])
def test_nhwc_core_counts(driver, tmp_path, kind, cores):
    x = torch.randn(2, 9, 10, 6)
    proc = check(driver, tmp_path, kind, x, (3, 3), (2, 2), (1, 1), True, False, cores=cores)
    pixels = 2 * 5 * 6  # the output's N * OH * OW, one chunk each
    per_core = -(-pixels // cores)
    assert int(proc.stdout.split()[4]) == -(-pixels // per_core)


def nhwc_ub_bytes(dtype_bytes: int, c: int, lanes: int, pixels: int, is_max: bool) -> int:
    """PoolNhwcUbBytes of the host header."""

    def up(v: int, to: int) -> int:
        return (v + to - 1) // to * to

    slot = up(min(c, lanes), 32 // dtype_bytes)
    masks = 2 * up(lanes // 8, 32) if is_max else 0
    return (
        pixels * slot * dtype_bytes
        + up(lanes * dtype_bytes, 32)
        + (3 if is_max else 2) * lanes * 4
        + masks
    )


@pytest.mark.parametrize("dtype", ["f32", "bf16"])
@pytest.mark.parametrize("kind", ["avg_nhwc", "max_nhwc"])
def test_nhwc_channels_in_chunks_and_pixels_per_load(driver, tmp_path, dtype, kind):
    # A UB that holds 128 lanes of a pixel and two pixels per load: C = 300 in three chunks (the
    # last 44 channels), the 3-wide window rows in loads of two and one; cores split the chunks.
    is_max = kind == "max_nhwc"
    nbytes = 4 if dtype == "f32" else 2
    ub = nhwc_ub_bytes(nbytes, 300, 128, 2, is_max) + (8192 if is_max else 0)
    x = torch.randn(2, 5, 6, 300).to(DTYPES[dtype])
    x[1, 2, 3, 299] = float("nan")
    for cores in (1, 7):
        proc, y = run_pool(
            driver, tmp_path, kind, x, (3, 3), (2, 2), (1, 1), cores=cores, ub_bytes=ub
        )
        assert y is not None, proc.stdout
        words = proc.stdout.split()
        assert (int(words[6]), int(words[8])) == (128, 2), proc.stdout
        ref = reference(kind, x, (3, 3), (2, 2), (1, 1), False, True)
        torch.testing.assert_close(y, ref, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("kind", ["avg_nhwc", "max_nhwc"])
def test_nhwc_ub_boundary(driver, tmp_path, kind):
    # 64 lanes and one pixel per load: exactly the bytes the host counts run; one byte less is
    # refused by the Tile function.
    is_max = kind == "max_nhwc"
    need = nhwc_ub_bytes(2, 100, 64, 1, is_max) + (8192 if is_max else 0)
    x = torch.randn(1, 4, 4, 100, dtype=torch.float16)
    proc, y = run_pool(driver, tmp_path, kind, x, (2, 2), (1, 1), cores=2, ub_bytes=need)
    assert y is not None, proc.stdout
    torch.testing.assert_close(y, reference(kind, x, 2, 1, 0, False, True), rtol=0, atol=0)
    proc, y = run_pool(driver, tmp_path, kind, x, (2, 2), (1, 1), cores=2, ub_bytes=need - 1)
    assert y is None and "do not fit in UB" in proc.stdout


def test_nhwc_empty_batch(driver, tmp_path):
    proc, y = run_pool(driver, tmp_path, "avg_nhwc", torch.randn(0, 4, 4, 3), (2, 2), (2, 2))
    assert y is not None and y.shape == (0, 2, 2, 3), proc.stdout


@pytest.mark.parametrize(
    ("shape", "kernel", "padding", "expected"),
    [
        ((1, 4, 4, 2), (3, 3), (2, 1), "pad should be at most half"),
        ((1, 2, 2, 2), (3, 3), (0, 0), "output size is too small"),
        ((4, 4, 2), (2, 2), (0, 0), "must be NHWC (rank 4)"),
        ((1, 4, 4, 0), (2, 2), (0, 0), "must be non-zero"),
    ],
)
def test_nhwc_refusals(driver, tmp_path, shape, kernel, padding, expected):
    proc, y = run_pool(driver, tmp_path, "max_nhwc", torch.zeros(shape), kernel, (1, 1), padding)
    assert y is None and proc.returncode == 3, proc.stdout
    assert expected in proc.stdout
    with pytest.raises(RuntimeError):  # torch refuses these too
        reference("max_nhwc", torch.zeros(shape), kernel, (1, 1), padding, False, True)
