"""The index library's cross group (templates/kernel/index_lib/op_kernel/opgen_index_cross.h,
templates/host/index_lib/op_host/opgen_index_cross_tiling.h) on the twin, against torch.cross:
the dim given or unset (CANN's -65530, torch's dim=None), x1 and x2 broadcast by torch's rules,
tails and several cores, float32/float16/int32/int8, on ascend910b (and two cases on ascend310b
and ascend950), run by cpp/index_cross_driver.cpp (the GM buffers are exactly the tensors, so an
access outside them fails the launch)."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import pytest
import torch
from twin_support import CPP, CXX, CXXFLAGS, INDEX_LIB_INCLUDES

pytestmark = pytest.mark.slow

DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "int32": torch.int32,
    "int8": torch.int8,
}
UNSET = -65530  # CANN's Cross/CrossV2 default dim: torch's dim=None
UB = 196608  # ascend910b's UB per vector core
CORES = 8


def _build(root: Path, arch: int) -> Path:
    exe = root / f"drv_{arch}"
    build = [CXX, *CXXFLAGS, f"-D__NPU_ARCH__={arch}", *INDEX_LIB_INCLUDES]
    build += [str(CPP / "index_cross_driver.cpp"), "-o", str(exe)]
    proc = subprocess.run(build, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return exe


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    """ascend910b's build (2201)."""
    return _build(tmp_path_factory.mktemp("index_cross"), 2201)


@pytest.fixture(scope="module")
def other_socs(tmp_path_factory) -> dict[int, Path]:
    """ascend310b (3002, the sample's other SoC) and ascend950 (3510)."""
    root = tmp_path_factory.mktemp("index_cross_socs")
    return {arch: _build(root, arch) for arch in (3002, 3510)}


def _data(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g) * 4).to(dtype)
    if dtype == torch.int32:  # products that overflow int32: torch wraps
        return torch.randint(-(2**31), 2**31 - 1, shape, generator=g, dtype=torch.int64).to(dtype)
    return torch.randint(-128, 128, shape, generator=g, dtype=torch.int64).to(dtype)


def run(
    exe: Path,
    tmp: Path,
    x1: torch.Tensor,
    x2: torch.Tensor,
    dim: int,
    ub: int = UB,
    cores: int = CORES,
) -> tuple[torch.Tensor, int] | str:
    """y and the cores used, or the driver's TILE line."""
    for name, t in (("x1", x1), ("x2", x2)):
        (tmp / f"{name}.bin").write_bytes(t.contiguous().view(torch.uint8).numpy().tobytes())
    tn = next(k for k, v in DTYPES.items() if v == x1.dtype)
    args = [str(exe), tn, str(dim), str(ub), str(cores)]
    for t in (x1, x2):
        args += [str(t.dim()), *map(str, t.shape)]
    args += [str(tmp / "x1.bin"), str(tmp / "x2.bin"), str(tmp / "y.bin")]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    line = proc.stdout.strip()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if not line.startswith("OK"):
        return line
    shape = torch.broadcast_shapes(x1.shape, x2.shape)
    raw = (tmp / "y.bin").read_bytes() if shape.numel() else b""
    y = torch.frombuffer(bytearray(raw), dtype=x1.dtype) if raw else torch.empty(0, dtype=x1.dtype)
    return y.reshape(shape), int(line.split("cores=")[1])


def torch_cross(x1: torch.Tensor, x2: torch.Tensor, dim: int) -> torch.Tensor:
    """The golden: torch.cross, dim=None for the unset dim (deprecated in torch, still defined:
    the first dim of x1 of size 3)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch.cross(x1, x2, dim=None if dim == UNSET else dim)


def _check(y: torch.Tensor, want: torch.Tensor) -> None:
    assert y.shape == want.shape
    if want.dtype == torch.float32:
        # torch's x86 kernel contracts one product into an FMA; opgen rounds both products
        torch.testing.assert_close(y, want, rtol=1e-5, atol=1e-5)
    else:  # float16 rounds each step as torch's Half does; int32 and int8 wrap as torch
        assert torch.equal(y.view(torch.uint8), want.contiguous().view(torch.uint8)), (y, want)


CASES = [
    # x1 shape, x2 shape, dim, note
    ((4, 3, 6, 5, 7, 8, 3), (1, 3, 1, 1, 1, 1, 1), UNSET, "the sample's golden: x2 broadcast"),
    ((1024, 4, 3), (1, 4, 3), 2, "the sample's test: last dim, x2 broadcast on dim 0"),
    ((37, 3), (37, 3), 1, "last dim, no broadcast, a run of 1"),
    ((3, 70), (3, 70), UNSET, "first dim, a tail"),
    ((2, 3, 5000), (2, 3, 5000), -2, "negative dim, several tiles per run"),
    ((5, 3, 4), (5, 3, 1), 1, "x2 broadcast on the last dim: runs of one element"),
    ((1, 3, 9), (6, 3, 9), UNSET, "x1 broadcast"),
    ((4, 1, 3, 7), (1, 5, 3, 1), 2, "both broadcast, across dims"),
    ((2, 3, 4, 3), (2, 3, 1, 3), UNSET, "two dims of size 3: the first"),
    ((2, 3, 4, 3), (2, 1, 4, 3), 3, "the second dim of size 3, x2 broadcast on the first"),
    ((6, 2, 3, 1, 7), (6, 1, 3, 5, 7), 2, "a mixed suffix: run after the middle dims"),
    ((3,), (3,), 0, "one vector"),
    ((0, 3), (1, 3), 1, "empty"),
]


@pytest.mark.parametrize("tn", list(DTYPES))
@pytest.mark.parametrize("s1,s2,dim,note", CASES)
def test_cross(driver, tmp_path, tn, s1, s2, dim, note):
    x1, x2 = _data(s1, DTYPES[tn], 1), _data(s2, DTYPES[tn], 2)
    got = run(driver, tmp_path, x1, x2, dim)
    assert not isinstance(got, str), got
    _check(got[0], torch_cross(x1, x2, dim))


def test_cores_and_small_tiles(driver, tmp_path):
    """Small tiles: several chunks per run, the units spread over the 8 cores."""
    x1, x2 = _data((3, 3, 1000), torch.float16, 3), _data((3, 3, 1000), torch.float16, 4)
    got = run(driver, tmp_path, x1, x2, 1, ub=1024 + 64 + 8 * 2 * 128)
    assert not isinstance(got, str), got
    _check(got[0], torch_cross(x1, x2, 1))
    assert got[1] == CORES  # 3 rows x 8 chunks of 128


def test_int8_wraps_as_torch(driver, tmp_path):
    """127 * 127 - (-128) * 127 wraps in int8 twice over: torch's value exactly."""
    x1 = torch.tensor([[127, -128, 127], [1, 2, 3]], dtype=torch.int8)
    x2 = torch.tensor([[127, 127, -128], [-128, 127, 5]], dtype=torch.int8)
    got = run(driver, tmp_path, x1, x2, 1)
    assert not isinstance(got, str), got
    _check(got[0], torch_cross(x1, x2, 1))


def test_float16_rounds_each_step(driver, tmp_path):
    """float16 products rounded before the difference, as torch's Half: equal bit for bit, where
    a float computation rounded once would differ."""
    x1, x2 = _data((4000, 3), torch.float16, 5), _data((4000, 3), torch.float16, 6)
    want = torch_cross(x1, x2, 1)
    once = torch_cross(x1.float(), x2.float(), 1).half()
    assert not torch.equal(want, once)  # the case tells the two apart
    got = run(driver, tmp_path, x1, x2, 1)
    assert not isinstance(got, str), got
    _check(got[0], want)


@pytest.mark.parametrize("arch", [3002, 3510])
@pytest.mark.parametrize("tn", list(DTYPES))
def test_other_socs(other_socs, tmp_path, arch, tn):
    """The sample's golden case and a last-dim one with x1 broadcast."""
    for s1, s2, dim in (((4, 3, 6, 5), (1, 3, 1, 1), UNSET), ((1, 9, 3), (7, 9, 3), -1)):
        x1, x2 = _data(s1, DTYPES[tn], 7), _data(s2, DTYPES[tn], 8)
        got = run(other_socs[arch], tmp_path, x1, x2, dim)
        assert not isinstance(got, str), got
        _check(got[0], torch_cross(x1, x2, dim))


REFUSED = [
    ((2, 3), (3,), UNSET, "one rank"),
    ((2, 4), (2, 4), UNSET, "no dimension of size 3 in x1"),
    ((4, 3), (4, 3), 2, "dim is outside x1's dims"),
    ((4, 3), (4, 3), -65529, "dim is outside x1's dims"),
    ((2, 3), (2, 1), 1, "size 3 along dim"),
    ((4, 3), (3, 3), 1, "do not broadcast"),
]


@pytest.mark.parametrize("s1,s2,dim,why", REFUSED)
def test_refused_as_torch(driver, tmp_path, s1, s2, dim, why):
    x1, x2 = _data(s1, torch.float32, 1), _data(s2, torch.float32, 2)
    with pytest.raises((RuntimeError, IndexError)):
        torch_cross(x1, x2, dim)
    got = run(driver, tmp_path, x1, x2, dim)
    assert isinstance(got, str) and got.startswith("TILE") and why in got, got
