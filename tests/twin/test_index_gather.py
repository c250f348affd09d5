"""The index library's gather group (templates/kernel/index_lib/op_kernel/opgen_index_gather.h,
templates/host/index_lib/op_host/opgen_index_gather_tiling.h) on the twin, against torch:
index_select, gather, roll and one_hot, run over all their cores by cpp/index_gather_driver.cpp
(tiled by the Tile* host functions; the GM buffers are exactly the tensors, so an access outside
them fails the launch)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch
from twin_support import CPP, CXX, CXXFLAGS, INDEX_LIB_INCLUDES

pytestmark = pytest.mark.slow


DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int8": torch.int8,
    "uint8": torch.uint8,
    "int16": torch.int16,
    "int32": torch.int32,
    "int64": torch.int64,
}
UB = 196608  # ascend910b's UB per vector core
CORES = 8
LAST_CORES = [0]  # the cores the last run used


@pytest.fixture(scope="module")
def drivers(tmp_path_factory) -> dict[int, Path]:
    """A build per SoC family that runs the group: ascend910b (2201), ascend310b (3002: the 8-bit
    UB Gather, no UB->UB DataCopy), ascend950 (3510)."""
    out = {}
    root = tmp_path_factory.mktemp("index_gather")
    for arch in (2201, 3002, 3510):
        exe = root / f"drv_{arch}"
        build = [CXX, *CXXFLAGS, f"-D__NPU_ARCH__={arch}", *INDEX_LIB_INCLUDES]
        build += [str(CPP / "index_gather_driver.cpp"), "-o", str(exe)]
        proc = subprocess.run(build, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        out[arch] = exe
    return out


def _data(shape: tuple[int, ...], dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g).to(dtype)
    lo, hi = (0, 255) if dtype == torch.uint8 else (-100, 100)
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


def _raw(t: torch.Tensor) -> bytes:
    t = t.contiguous()
    return t.view(torch.uint8).numpy().tobytes() if t.numel() else b""


def run(
    exe: Path,
    tmp: Path,
    kind: str,
    x: torch.Tensor,
    index: torch.Tensor | None,
    dim: int,
    int0: int,
    out_dtype: str,
    out_shape: tuple[int, ...],
    ub: int = UB,
    cores: int = CORES,
    roll_lists: tuple[list[int], list[int]] | None = None,
) -> torch.Tensor | str:
    """Runs one kind; returns y, or the driver's TILE/ERR line. roll_lists: roll's shifts and
    dims as lists (HostArgs' shiftCount/dimCount path) instead of (int0, dim)."""
    (tmp / "x.bin").write_bytes(_raw(x))
    ifile = "-"
    itype = "int32"
    if index is not None:
        (tmp / "i.bin").write_bytes(_raw(index))
        ifile = str(tmp / "i.bin")
        itype = "int64" if index.dtype == torch.int64 else "int32"
    if kind == "one_hot":
        itype = "int64" if x.dtype == torch.int64 else "int32"
    ishape = list(index.shape) if index is not None else []
    args = [str(exe), kind, out_dtype, itype, str(dim), str(int0), str(ub), str(cores)]
    args += [str(x.dim()), *map(str, x.shape), str(len(ishape)), *map(str, ishape)]
    args += [str(tmp / "x.bin"), ifile, str(tmp / "y.bin")]
    if roll_lists is not None:
        for values in roll_lists:
            args += [str(len(values)), *map(str, values)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    line = proc.stdout.strip()
    LAST_CORES[0] = int(line.split("cores=")[1]) if line.startswith("OK") else 0
    assert proc.returncode == 0, proc.stdout + proc.stderr
    if not line.startswith("OK"):
        return line
    raw = (tmp / "y.bin").read_bytes() if (tmp / "y.bin").exists() else b""
    dt = DTYPES[out_dtype]
    y = (
        torch.frombuffer(bytearray(raw), dtype=torch.uint8)
        if raw
        else torch.empty(0, dtype=torch.uint8)
    )
    return y.view(dt).reshape(out_shape) if raw else torch.empty(out_shape, dtype=dt)


def _same(y: torch.Tensor | str, want: torch.Tensor) -> None:
    assert not isinstance(y, str), y
    assert y.shape == want.shape
    assert torch.equal(
        y.view(torch.uint8) if y.numel() else y,
        want.contiguous().view(torch.uint8) if want.numel() else want,
    ), (y, want)


INDEX_SELECT_CASES = [
    # x shape, dim, index length, note
    ((7, 33), 0, 5, "rows with a tail"),
    ((1,), 0, 1, "1 element"),
    ((4, 50, 3), 1, 40, "middle dim, several cores"),
    ((6, 37), 1, 20, "last dim"),
    ((300, 129), 0, 64, "many rows over 8 cores"),
    ((50, 3), 0, 600, "an index longer than the kernel's window of 256"),
]


@pytest.mark.parametrize("tn", list(DTYPES))
@pytest.mark.parametrize("itn", ["int32", "int64"])
@pytest.mark.parametrize("shape,dim,n,note", INDEX_SELECT_CASES)
def test_index_select(drivers, tmp_path, tn, itn, shape, dim, n, note):
    x = _data(shape, DTYPES[tn])
    g = torch.Generator().manual_seed(1)
    index = torch.randint(0, shape[dim], (n,), generator=g).to(DTYPES[itn])  # duplicates likely
    want = torch.index_select(x, dim, index)
    y = run(drivers[2201], tmp_path, "index_select", x, index, dim, 0, tn, tuple(want.shape))
    _same(y, want)
    units = n * torch.Size(shape[:dim]).numel()  # a unit is a row of y
    assert LAST_CORES[0] == min(CORES, units)


def test_index_select_small_tiles_and_duplicates(drivers, tmp_path):
    x = _data((3, 1000), torch.float32)
    index = torch.tensor([2, 2, 0, 1, 2], dtype=torch.int32)
    want = torch.index_select(x, 0, index)
    y = run(
        drivers[2201],
        tmp_path,
        "index_select",
        x,
        index,
        0,
        0,
        "float32",
        tuple(want.shape),
        ub=1024 + 2048 + 512,
    )
    _same(y, want)


def test_embedding_table(drivers, tmp_path):
    """A [V, D] embedding table looked up with int32 ids (F.embedding is index_select on dim 0)."""
    table = _data((1000, 96), torch.float16)
    ids = torch.tensor([5, 999, 0, 5, 123, 777, 5], dtype=torch.int32)
    want = torch.nn.functional.embedding(ids.long(), table)
    y = run(drivers[2201], tmp_path, "index_select", table, ids, 0, 0, "float16", tuple(want.shape))
    _same(y, want)


GATHER_CASES = [
    ((5, 37), 1, 20),  # last dim, tail
    ((5, 37), 1, 60),  # last dim, index longer than x's dim (repeats)
    ((1,), 0, 1),  # 1 element
    ((6, 9, 5), 1, 4),  # middle dim
    ((8, 7), 0, 12),  # first dim
    ((64, 130), 1, 130),  # several cores, 8-byte/1-byte tails
]


@pytest.mark.parametrize("tn", list(DTYPES))
@pytest.mark.parametrize("itn", ["int32", "int64"])
@pytest.mark.parametrize("shape,dim,n", GATHER_CASES)
def test_gather(drivers, tmp_path, tn, itn, shape, dim, n):
    x = _data(shape, DTYPES[tn])
    ishape = list(shape)
    ishape[dim] = n
    g = torch.Generator().manual_seed(2)
    index = torch.randint(0, shape[dim], tuple(ishape), generator=g).to(DTYPES[itn])
    want = torch.gather(x, dim, index.long())
    y = run(drivers[2201], tmp_path, "gather", x, index, dim, 0, tn, tuple(want.shape))
    _same(y, want)


@pytest.mark.parametrize("arch", [3002, 3510])
@pytest.mark.parametrize("tn", ["int8", "uint8", "float16", "bfloat16", "int64"])
@pytest.mark.parametrize("itn", ["int32", "int64"])
def test_other_socs(drivers, tmp_path, arch, tn, itn):
    """ascend310b / ascend950: 8-bit data through the UB Gather itself (elsewhere the scalar
    unit), and the other kinds."""
    x = _data((9, 70), DTYPES[tn])
    g = torch.Generator().manual_seed(3)
    index = torch.randint(0, 70, (9, 45), generator=g).to(DTYPES[itn])
    want = torch.gather(x, 1, index.long())
    _same(run(drivers[arch], tmp_path, "gather", x, index, 1, 0, tn, tuple(want.shape)), want)
    rows = torch.randint(0, 9, (13,), generator=g).to(DTYPES[itn])
    want = torch.index_select(x, 0, rows)
    _same(run(drivers[arch], tmp_path, "index_select", x, rows, 0, 0, tn, tuple(want.shape)), want)
    want = torch.roll(x, -31, 1)
    _same(run(drivers[arch], tmp_path, "roll", x, None, 1, -31, tn, tuple(want.shape)), want)
    want = torch.nn.functional.one_hot(rows.long(), 11).to(DTYPES[tn])
    _same(run(drivers[arch], tmp_path, "one_hot", rows, None, 0, 11, tn, tuple(want.shape)), want)


def test_gather_small_tiles(drivers, tmp_path):
    x = _data((3, 200), torch.float32)
    index = torch.randint(0, 200, (3, 200), generator=torch.Generator().manual_seed(4))
    want = torch.gather(x, 1, index)
    y = run(
        drivers[2201],
        tmp_path,
        "gather",
        x,
        index,
        1,
        0,
        "float32",
        tuple(want.shape),
        ub=1024 + 4096,
    )
    _same(y, want)


def test_gather_refusals(drivers, tmp_path):
    x = _data((4, 6), torch.float32)
    smaller = torch.zeros((3, 2), dtype=torch.int64)
    y = run(drivers[2201], tmp_path, "gather", x, smaller, 1, 0, "float32", (3, 2))
    assert isinstance(y, str) and y.startswith("TILE Gather: index.size(d) differs"), y
    big = _data((4, 100000), torch.float32)
    idx = torch.zeros((4, 3), dtype=torch.int64)
    y = run(drivers[2201], tmp_path, "gather", big, idx, 1, 0, "float32", (4, 3))
    assert isinstance(y, str) and "does not fit" in y, y


ROLL_CASES = [
    ((10,), 0, 3),
    ((10,), 0, -3),
    ((10,), 0, 23),  # larger than the dim
    ((10,), 0, -27),
    ((1,), 0, 5),
    ((4, 33, 5), 1, 7),  # middle dim
    ((6, 130), 1, -1),  # last dim, several cores
    ((130, 7), 0, 129),  # first dim
    ((3, 5), 1, 0),
]


@pytest.mark.parametrize("tn", list(DTYPES))
@pytest.mark.parametrize("shape,dim,shift", ROLL_CASES)
def test_roll(drivers, tmp_path, tn, shape, dim, shift):
    x = _data(shape, DTYPES[tn])
    want = torch.roll(x, shift, dim)
    y = run(drivers[2201], tmp_path, "roll", x, None, dim, shift, tn, tuple(want.shape))
    _same(y, want)


def test_roll_small_tiles(drivers, tmp_path):
    x = _data((2, 3000), torch.float16)
    want = torch.roll(x, 1234, 1)
    y = run(
        drivers[2201],
        tmp_path,
        "roll",
        x,
        None,
        1,
        1234,
        "float16",
        tuple(want.shape),
        ub=1024 + 1024,
    )
    _same(y, want)


ROLL_LIST_CASES = [
    # x shape, shifts, dims (torch.roll's lists: one pass over the composed shifts)
    ((4, 33, 5), [1, -2], [0, 2]),
    ((6, 130), [3, -1], [0, 1]),  # several cores
    ((3, 50, 9), [3, -2], [0, -1]),
    ((3, 50, 9), [7, 4, 100], [1, 1, 0]),  # one dim twice: the shifts add
    ((5, 4, 3, 2), [1, 2, 1], [0, 1, 2]),  # the last dim unshifted: runs of [axis, inner]
    ((5, 7), [0, 0], [0, 1]),  # a copy
    ((130, 7), [129, 3], [0, 1]),
    ((1, 1), [3, 3], [0, 1]),
    ((4, 9), [5], []),  # no dims: x flattened
]


@pytest.mark.parametrize("tn", ["float32", "float16", "int8", "int64"])
@pytest.mark.parametrize("shape,shifts,dims", ROLL_LIST_CASES)
def test_roll_lists(drivers, tmp_path, tn, shape, shifts, dims):
    x = _data(shape, DTYPES[tn])
    want = torch.roll(x, shifts, dims)
    lists = (shifts, dims)
    y = run(drivers[2201], tmp_path, "roll", x, None, 0, 0, tn, shape, roll_lists=lists)
    _same(y, want)


def test_roll_complex64_as_words(drivers, tmp_path):
    """complex64 moves as an 8-byte word."""
    x = torch.randn((6, 11), dtype=torch.complex64)
    want = torch.roll(x, [2, -3], [0, 1])
    y = run(
        drivers[2201],
        tmp_path,
        "roll",
        x.view(torch.int64),
        None,
        0,
        0,
        "int64",
        (6, 11),
        roll_lists=([2, -3], [0, 1]),
    )
    assert not isinstance(y, str), y
    assert torch.equal(y.view(torch.complex64), want)


@pytest.mark.parametrize(
    "shifts,dims,why",
    [
        ([1, 2], [0], "shifts and dims must align"),
        ([1, 2], [], "shifts and dims must align"),
        ([], [], "shifts is empty"),
        ([1], [2], "outside x's dims"),
        ([1], [-3], "outside x's dims"),
    ],
)
def test_roll_lists_refused(drivers, tmp_path, shifts, dims, why):
    x = _data((4, 5), torch.float32)
    y = run(
        drivers[2201], tmp_path, "roll", x, None, 0, 0, "float32", (4, 5), roll_lists=(shifts, dims)
    )
    assert isinstance(y, str) and y.startswith("TILE Roll") and why in y, y
    with pytest.raises((RuntimeError, IndexError)):  # torch refuses them too
        torch.roll(x, shifts, dims)


@pytest.mark.parametrize("out", ["int64", "int32", "float32", "float16", "int8"])
@pytest.mark.parametrize("itn", ["int32", "int64"])
@pytest.mark.parametrize(
    "shape,classes", [((7,), 5), ((1,), 1), ((4, 9), 13), ((100,), 40), ((3000,), 3)]
)
def test_one_hot(drivers, tmp_path, out, itn, shape, classes):
    ids = torch.randint(0, classes, shape, generator=torch.Generator().manual_seed(5)).to(
        DTYPES[itn]
    )
    want = torch.nn.functional.one_hot(ids.long(), classes).to(DTYPES[out])
    y = run(drivers[2201], tmp_path, "one_hot", ids, None, 0, classes, out, tuple(want.shape))
    _same(y, want)


def test_one_hot_classes_beyond_ids_and_small_tiles(drivers, tmp_path):
    """num_classes larger than any id, rows longer than a tile."""
    ids = torch.tensor([0, 3, 2, 3], dtype=torch.int64)
    want = torch.nn.functional.one_hot(ids, 700)
    y = run(
        drivers[2201],
        tmp_path,
        "one_hot",
        ids,
        None,
        0,
        700,
        "int64",
        tuple(want.shape),
        ub=1024 + 2048 + 512,
    )
    _same(y, want)


def test_out_of_range_indices_stay_inside(drivers, tmp_path):
    """A bad index reads and writes nothing outside the tensors (the twin fails any GM access
    outside them) and gives 0 rows / elements / a zero one_hot row."""
    x = _data((5, 40), torch.float32)
    bad = torch.tensor([1, -1, 5, 1000000, 4], dtype=torch.int64)
    y = run(drivers[2201], tmp_path, "index_select", x, bad, 0, 0, "float32", (5, 40))
    assert not isinstance(y, str), y
    assert torch.equal(y[0], x[1]) and torch.equal(y[4], x[4])
    assert torch.count_nonzero(y[1:4]) == 0
    for big, itype in ((2**31 + 5, torch.int64), (2**31 - 1, torch.int32)):
        # int32 along the last axis: vector offsets (Maxs/Mins/Muls/Adds); int64: the scalar unit
        gidx = torch.tensor([[0, -3, 39, 40, big]] * 5, dtype=itype)
        y = run(drivers[2201], tmp_path, "gather", x, gidx, 1, 0, "float32", (5, 5))
        assert not isinstance(y, str), y
        assert torch.equal(y[:, 0], x[:, 0]) and torch.equal(y[:, 2], x[:, 39])
        assert torch.count_nonzero(y[:, [1, 3, 4]]) == 0
    gidx = torch.tensor([[0, -2147483648], [4, 5]], dtype=torch.int32)  # dim 0: the scalar unit
    x2 = x[:, :2].contiguous()
    y = run(drivers[2201], tmp_path, "gather", x2, gidx, 0, 0, "float32", (2, 2))
    assert not isinstance(y, str), y
    assert y[0, 0] == x2[0, 0] and y[1, 0] == x2[4, 0] and y[0, 1] == 0 and y[1, 1] == 0
    ids = torch.tensor([2, -1, 7], dtype=torch.int32)
    y = run(drivers[2201], tmp_path, "one_hot", ids, None, 0, 4, "int64", (3, 4))
    assert not isinstance(y, str), y
    assert y.tolist() == [[0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]


def test_several_cores(drivers, tmp_path):
    x = _data((64, 130), torch.float32)
    index = torch.randint(0, 130, (64, 130), generator=torch.Generator().manual_seed(6))
    y = run(drivers[2201], tmp_path, "gather", x, index, 1, 0, "float32", (64, 130))
    _same(y, torch.gather(x, 1, index))
    assert LAST_CORES[0] == CORES
    y = run(drivers[2201], tmp_path, "roll", x, None, 0, -5, "float32", (64, 130))
    _same(y, torch.roll(x, -5, 0))
    assert LAST_CORES[0] == CORES


@pytest.mark.parametrize(
    "arch,needle",
    [(2002, "DataCopyPad is missing on this SoC"), (1001, "DataCopyPad is missing on this SoC")],
)
def test_refused_socs(tmp_path, arch, needle):
    """ascend310p / ascend910 have no working DataCopyPad (ascend910 no UB Gather either): the
    header does not compile there, naming the API."""
    build = [CXX, *CXXFLAGS, f"-D__NPU_ARCH__={arch}", *INDEX_LIB_INCLUDES, "-fsyntax-only"]
    build.append(str(CPP / "index_gather_driver.cpp"))
    proc = subprocess.run(build, capture_output=True, text=True)
    assert proc.returncode != 0 and needle in proc.stderr, proc.stderr[-2000:]


def test_empty_tensors(drivers, tmp_path):
    exe = drivers[2201]
    x = _data((0, 5), torch.float32)
    _same(run(exe, tmp_path, "roll", x, None, 1, 3, "float32", (0, 5)), torch.roll(x, 3, 1))
    x = _data((4, 5), torch.float32)
    empty = torch.zeros((0,), dtype=torch.int64)
    want = torch.index_select(x, 0, empty)
    _same(run(exe, tmp_path, "index_select", x, empty, 0, 0, "float32", tuple(want.shape)), want)
    gidx = torch.zeros((4, 0), dtype=torch.int64)
    want = torch.gather(x, 1, gidx)
    _same(run(exe, tmp_path, "gather", x, gidx, 1, 0, "float32", tuple(want.shape)), want)
    want = torch.nn.functional.one_hot(empty, 3)
    _same(run(exe, tmp_path, "one_hot", empty, None, 0, 3, "int64", tuple(want.shape)), want)
