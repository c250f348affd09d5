"""The index-op library's "select" group (templates/kernel/index_lib/op_kernel/opgen_index_select.h
and templates/host/index_lib/op_host/opgen_index_select_tiling.h): ArgMax, ArgMin, TopK and Sort
run on the twin through cpp/index_select_driver.cpp (Tile<Kind>, then the kernel on its cores)
and compared with torch on CPU: tails, one element, several cores, rows over several tiles,
float/half/bfloat16, int32/int64 indexes, ties, NaN, +-inf, -0.0, k = 1 and k = the row; MaxDim
and MinDim (torch.max/min(x, dim): values and indices), and the arg kinds of int8, uint8, int16
and int32 x (int32 beyond float's exact range)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from twin_support import CPP, CXX, CXXFLAGS, INDEX_LIB_INCLUDES

pytestmark = pytest.mark.slow

DTYPES = {"float": torch.float32, "half": torch.float16, "bfloat16": torch.bfloat16}
INT_DTYPES = {"int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16, "int32": torch.int32}
ALL_DTYPES = {**DTYPES, **INT_DTYPES}
WORDS = {1: torch.uint8, 2: torch.int16, 4: torch.int32}  # x's raw bytes by element size
INDEX = {4: torch.int32, 8: torch.int64}


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("index_select") / "index_select_driver"
    src = CPP / "index_select_driver.cpp"
    proc = subprocess.run(
        [CXX, *CXXFLAGS, *INDEX_LIB_INCLUDES, str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return exe


def run(
    driver: Path,
    tmp_path: Path,
    kind: str,
    x: torch.Tensor,
    ints: tuple[int, int] = (0, 0),
    out_bytes: int = 8,
    cores: int = 8,
    ub: int | None = None,
    env: dict[str, str] | None = None,
    dim: int = -1,
) -> tuple[subprocess.CompletedProcess, torch.Tensor | None, torch.Tensor | None]:
    dtype = {v: k for k, v in ALL_DTYPES.items()}[x.dtype]
    raw = x.contiguous().view(WORDS[x.element_size()]).numpy()
    (tmp_path / "x.bin").write_bytes(raw.tobytes())
    dims = ",".join(str(d) for d in x.shape)
    args = [kind, dtype, str(out_bytes), str(cores), dims, str(dim % x.dim() if x.dim() else 0)]
    args += [str(ints[0]), str(ints[1]), str(tmp_path / "x.bin"), str(tmp_path / "out")]
    if ub is not None:
        args.append(str(ub))
    for stale in ("out.values", "out.indices"):
        (tmp_path / stale).unlink(missing_ok=True)
    proc = subprocess.run(
        [str(driver), *args], capture_output=True, text=True, timeout=300, env=env
    )
    if proc.returncode != 0:
        return proc, None, None
    indices = None
    if (tmp_path / "out.indices").exists():
        idx = np.frombuffer((tmp_path / "out.indices").read_bytes(), dtype=f"int{out_bytes * 8}")
        indices = torch.from_numpy(idx.copy())
    values = None
    if (tmp_path / "out.values").exists():
        bits = np.frombuffer((tmp_path / "out.values").read_bytes(), dtype=raw.dtype)
        values = torch.from_numpy(bits.copy()).view(x.dtype)
    return proc, values, indices


def ok(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr


def same_values(got: torch.Tensor, want: torch.Tensor, signs: bool = True) -> None:
    """Equal, NaN where NaN (payloads aside); with signs, -0.0 and 0.0 told apart."""
    g, w = got.float(), want.float()
    assert torch.equal(torch.isnan(g), torch.isnan(w)), (got, want)
    keep = ~torch.isnan(w)
    assert torch.equal(g[keep], w[keep]), (got, want)
    if signs:
        assert torch.equal(torch.signbit(g[keep]), torch.signbit(w[keep])), (got, want)


def sample(shape: tuple[int, ...], dtype: torch.dtype, seed: int, specials: bool) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    x = torch.randint(-40, 40, shape, generator=gen).float() / 4  # many ties
    if specials and x.numel() > 4:
        flat = x.view(-1)
        picks = torch.randperm(flat.numel(), generator=gen)[: max(4, flat.numel() // 50)]
        choices = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0])
        flat[picks] = choices[torch.arange(picks.numel()) % 5]
    return x.to(dtype)


ARG_SHAPES = [(1,), (7,), (3, 1), (5, 33), (9, 200), (40, 65), (2, 20000), (1, 70001), ()]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["argmax", "argmin"])
@pytest.mark.parametrize("specials", [False, True])
def test_arg(driver, tmp_path, dtype, kind, specials):
    for n, shape in enumerate(ARG_SHAPES):
        x = sample(shape, DTYPES[dtype], n, specials)
        for out_bytes in (4, 8):
            proc, _, got = run(driver, tmp_path, kind, x, out_bytes=out_bytes)
            ok(proc)
            want = getattr(torch, kind)(x.float(), dim=-1 if x.dim() else None)
            assert torch.equal(got.view(want.shape).long(), want), (shape, got, want)
            assert got.dtype == INDEX[out_bytes]


def test_arg_nan_rules(driver, tmp_path):
    """The first NaN wins for both, also when it comes in a later tile than a larger value."""
    x = torch.zeros(3, 20000)
    x[0, 5] = float("nan")
    x[0, 9] = float("nan")
    x[1, 0] = float("inf")
    x[1, 15000] = float("nan")
    x[2, 10] = -0.0
    x[2, 15000] = 1.0
    for kind in ("argmax", "argmin"):
        proc, _, got = run(driver, tmp_path, kind, x)
        ok(proc)
        assert got.tolist() == getattr(torch, kind)(x, dim=-1).tolist()


def test_arg_small_ub_many_tiles(driver, tmp_path):
    """A small UB: tiles of 64..; the running best across 100 tiles keeps the first index."""
    x = sample((3, 6400), torch.float32, 7, True)
    x[1] = 2.0  # all ties
    for kind in ("argmax", "argmin"):
        proc, _, got = run(driver, tmp_path, kind, x, ub=16384)
        ok(proc)
        assert "tile" in proc.stdout
        assert got.tolist() == getattr(torch, kind)(x, dim=-1).tolist()


def check_topk(x: torch.Tensor, k: int, largest: bool, values, indices) -> None:
    want_v, _ = torch.topk(x.float(), k, dim=-1, largest=largest, sorted=True)
    # torch orders equal values (0.0 and -0.0 too) as it likes: the values compare equal, the
    # indices are the stable sort's (the kernel is stable), and the values are x's at them
    same_values(values.view(want_v.shape), want_v.to(x.dtype), signs=False)
    idx = indices.view(want_v.shape).long()
    stable = torch.sort(x.float(), dim=-1, descending=largest, stable=True).indices[..., :k]
    assert torch.equal(idx, stable)
    same_values(values.view(want_v.shape), torch.gather(x, -1, idx))


SORT_SHAPES = [(1,), (5,), (4, 31), (3, 32), (6, 33), (5, 100), (9, 129), (2, 1000), (1, 3000)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("specials", [False, True])
def test_topk(driver, tmp_path, dtype, specials):
    for n, shape in enumerate(SORT_SHAPES):
        x = sample(shape, DTYPES[dtype], 100 + n, specials)
        row = shape[-1]
        for k, largest in (
            (1, True),
            (1, False),
            (row, True),
            (row, False),
            ((row + 1) // 2, n % 2 == 0),
        ):
            proc, values, indices = run(
                driver, tmp_path, "topk", x, (k, int(largest)), 4 + 4 * (n % 2)
            )
            ok(proc)
            check_topk(x, k, largest, values, indices)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort(driver, tmp_path, dtype):
    for n, shape in enumerate(SORT_SHAPES):
        x = sample(shape, DTYPES[dtype], 200 + n, True)
        for descending in (True, False):
            proc, values, indices = run(driver, tmp_path, "sort", x, (int(descending), 0))
            ok(proc)
            want = torch.sort(x.float(), dim=-1, descending=descending, stable=True)
            same_values(values.view(x.shape), want.values.to(x.dtype))
            assert torch.equal(indices.view(x.shape), want.indices)


def test_nan_order(driver, tmp_path):
    """NaN above +inf: first when descending, last when ascending; NaN among infs and pads."""
    x = torch.tensor([[1.0, float("inf"), float("nan"), -float("inf"), float("nan"), float("inf")]])
    for descending in (True, False):
        proc, values, indices = run(driver, tmp_path, "sort", x, (int(descending), 0))
        ok(proc)
        want = torch.sort(x, dim=-1, descending=descending, stable=True)
        same_values(values.view(x.shape), want.values)
        assert indices.view(x.shape).tolist() == want.indices.tolist()
    proc, values, indices = run(driver, tmp_path, "topk", x, (2, 1))
    ok(proc)
    assert indices.tolist() == [2, 4] and torch.isnan(values).all()


def test_topk_indices_only(driver, tmp_path):
    """A nullptr values output is not written (the driver passes none)."""
    x = sample((7, 50), torch.float32, 3, False)
    proc, values, indices = run(driver, tmp_path, "topk", x, (5, -1))
    ok(proc)
    assert values is None
    want = torch.sort(x, dim=-1, descending=True, stable=True).indices[:, :5]
    assert torch.equal(indices.view(7, 5), want)


def test_cores(driver, tmp_path):
    """Rows split over 1, 3 and 48 cores give the same results."""
    x = sample((50, 70), torch.float16, 5, True)
    for cores in (1, 3, 48):
        proc, _, got = run(driver, tmp_path, "argmax", x, cores=cores)
        ok(proc)
        assert got.tolist() == torch.argmax(x.float(), dim=-1).tolist()
        proc, values, indices = run(driver, tmp_path, "topk", x, (3, 0), cores=cores)
        ok(proc)
        check_topk(x, 3, False, values, indices)


def test_refusals(driver, tmp_path):
    x = torch.zeros(4, 5)
    proc, _, _ = run(driver, tmp_path, "topk", x, (2, 1), dim=0)
    assert proc.returncode == 3 and "move dim last" in proc.stdout
    proc, _, _ = run(driver, tmp_path, "sort", x, (1, 0), dim=0)
    assert proc.returncode == 3 and "move dim last" in proc.stdout
    proc, _, _ = run(driver, tmp_path, "topk", x, (6, 1))
    assert proc.returncode == 3 and "k is outside" in proc.stdout
    proc, _, _ = run(driver, tmp_path, "sort", torch.zeros(1, 9000), (1, 0))
    assert proc.returncode == 3 and "8160" in proc.stdout
    proc, _, _ = run(driver, tmp_path, "sort", torch.zeros(1, 3000), (1, 0), ub=65536)
    assert proc.returncode == 3 and "does not fit in UB" in proc.stdout


def test_scalar_pipe_events(driver, tmp_path):
    """With OPGEN_TWIN_CCE_AUTO_SYNC=0 the twin checks the scalar unit's accesses too (a build
    without --cce-auto-sync): the kernels set their V_S/S_V/S_MTE3/MTE3_S events themselves."""
    env = {**os.environ, "OPGEN_TWIN_CCE_AUTO_SYNC": "0"}
    x = sample((5, 300), torch.float16, 11, True)
    for kind, ints in (("argmax", (0, 0)), ("argmin", (0, 0)), ("topk", (7, 0)), ("sort", (1, 0))):
        proc, values, indices = run(driver, tmp_path, kind, x, ints, cores=3, ub=13312, env=env)
        if kind.startswith("arg"):
            ok(proc)
            assert indices.tolist() == getattr(torch, kind)(x.float(), dim=-1).tolist()
    proc, values, indices = run(driver, tmp_path, "topk", x, (7, 0), cores=3, env=env)
    ok(proc)
    check_topk(x, 7, False, values, indices)


UNIT = """
#include "kernel_operator.h"
#include "opgen_index_select.h"
using opgen_index::IndexTiling;
template void opgen_index::%s<float, int64_t>(GM_ADDR, GM_ADDR, GM_ADDR, const IndexTiling&);
"""


@pytest.mark.parametrize(
    ("kind", "arch", "needle"),
    [
        ("Sort", 2002, "Sort32 and MrgSort"),
        ("TopK", 1001, "Sort32 and MrgSort"),
        ("Sort", 2201, None),
        ("TopK", 3510, None),
        ("TopK", 3002, None),
    ],
)
def test_socs_without_the_apis(tmp_path, kind, arch, needle):
    """TopK/Sort on ascend910 / ascend310p: a static_assert naming the missing APIs."""
    unit = tmp_path / "unit.cpp"
    unit.write_text(UNIT % kind)
    proc = subprocess.run(
        [CXX, *CXXFLAGS, *INDEX_LIB_INCLUDES, f"-D__NPU_ARCH__={arch}", "-fsyntax-only", str(unit)],
        capture_output=True,
        text=True,
    )
    if needle is None:
        assert proc.returncode == 0, proc.stderr[-3000:]
    else:
        assert proc.returncode != 0 and needle in proc.stderr, proc.stderr[-3000:]


ARG_UNIT = """
#include "kernel_operator.h"
#include "opgen_index_select.h"
template void opgen_index::ArgMax<%s, int32_t>(GM_ADDR, GM_ADDR, const opgen_index::IndexTiling&);
"""


@pytest.mark.parametrize(
    ("dtype", "arch", "needle"),
    [
        ("float", 3510, "ReduceMax/ReduceMin with calIndex"),
        ("half", 2002, "DataCopyPad"),
        ("int64_t", 2201, "x is half, bfloat16, float, int8, uint8, int16 or int32"),
        ("int32_t", 2201, None),
        ("uint8_t", 2201, None),
        ("half", 3002, None),
    ],
)
def test_argmax_refusals(tmp_path, dtype, arch, needle):
    """ArgMax where the APIs are missing (Ascend 950's level-2 ReduceMax in opgen's catalog,
    310P's DataCopyPad) and for an int64 x: a static_assert saying why; int32 and uint8 compile."""
    unit = tmp_path / "unit.cpp"
    unit.write_text(ARG_UNIT % dtype)
    proc = subprocess.run(
        [CXX, *CXXFLAGS, *INDEX_LIB_INCLUDES, f"-D__NPU_ARCH__={arch}", "-fsyntax-only", str(unit)],
        capture_output=True,
        text=True,
    )
    if needle is None:
        assert proc.returncode == 0, proc.stderr[-3000:]
    else:
        assert proc.returncode != 0 and needle in proc.stderr, proc.stderr[-3000:]


@pytest.mark.parametrize("arch", [3002, 3510])
def test_other_socs(tmp_path, arch):
    """310B (every kind) and Ascend 950 (TopK/Sort: no level-2 ReduceMax in opgen's catalog) run
    the same kernels on the twin's rules for that SoC."""
    exe = tmp_path / "driver"
    flags = [f"-D__NPU_ARCH__={arch}"] + (["-DINDEX_SELECT_SORT_ONLY"] if arch == 3510 else [])
    src = str(CPP / "index_select_driver.cpp")
    proc = subprocess.run(
        [CXX, *CXXFLAGS, *INDEX_LIB_INCLUDES, *flags, src, "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    x = sample((6, 150), torch.float16, 21, True)
    proc, values, indices = run(exe, tmp_path, "topk", x, (9, 1), cores=4)
    ok(proc)
    check_topk(x, 9, True, values, indices)
    proc, values, indices = run(exe, tmp_path, "sort", x, (0, 0), out_bytes=4, cores=4)
    ok(proc)
    want = torch.sort(x.float(), dim=-1, descending=False, stable=True)
    same_values(values.view(x.shape), want.values.half())
    assert torch.equal(indices.view(x.shape).long(), want.indices)
    if arch == 3002:
        proc, _, got = run(exe, tmp_path, "argmin", x, cores=4)
        ok(proc)
        assert got.tolist() == torch.argmin(x.float(), dim=-1).tolist()
        for dtype in ("uint8", "int32"):  # 310B's Cast table has uint8 -> half (Cast.md)
            xi = int_sample((6, 150), INT_DTYPES[dtype], 22)
            for dim in (0, 1):
                proc, values, indices = run(exe, tmp_path, "max", xi, cores=4, dim=dim)
                ok(proc)
                check_max("max", xi, dim, values, indices)


def test_longest_rows(driver, tmp_path):
    """The longest rows Tile* accepts on the default chip (196608 bytes of UB) run, through
    four merge passes (runs of 32 up to 2048 records), and one element more is refused."""
    for dtype, out_bytes, row in ((torch.float32, 8, 3776), (torch.float16, 4, 5056)):
        x = sample((2, row), dtype, row, True)
        proc, values, indices = run(driver, tmp_path, "sort", x, (0, 0), out_bytes=out_bytes)
        ok(proc)
        want = torch.sort(x.float(), dim=-1, descending=False, stable=True)
        same_values(values.view(x.shape), want.values.to(dtype))
        assert torch.equal(indices.view(x.shape).long(), want.indices)
        proc, _, _ = run(driver, tmp_path, "sort", sample((1, row + 1), dtype, 1, False))
        assert proc.returncode == 3 and "does not fit in UB" in proc.stdout


@pytest.mark.parametrize("dtype", DTYPES)
def test_arg_over_other_dims(driver, tmp_path, dtype):
    """A dim with axes after it: each column's running best; ties, NaN (the first), +-inf,
    -0.0; chunks of columns over several cores, a chunk's tail, and a small UB (many chunks)."""
    cases = [((4, 5, 3), 1), ((3, 7, 130), 1), ((6, 2, 9), 0), ((2, 33, 4, 70), 1), ((50, 3), 0)]
    for n, (shape, dim) in enumerate(cases):
        x = sample(shape, DTYPES[dtype], 300 + n, True)
        for kind in ("argmax", "argmin"):
            for out_bytes, ub in ((8, None), (4, 16384)):
                proc, _, got = run(driver, tmp_path, kind, x, out_bytes=out_bytes, ub=ub, dim=dim)
                ok(proc)
                want = getattr(torch, kind)(x.float(), dim=dim)
                assert torch.equal(got.view(want.shape).long(), want), (shape, dim, kind)


def test_arg_columns_nan_and_pipes(driver, tmp_path):
    """Column mode: the first NaN down a column wins over an earlier +inf / -inf and stays; run
    also with the scalar unit's events checked (OPGEN_TWIN_CCE_AUTO_SYNC=0)."""
    x = torch.zeros(2, 6, 70)
    x[0, 1, 5] = float("nan")
    x[0, 3, 5] = float("nan")
    x[0, 0, 7] = float("inf")
    x[0, 4, 7] = float("nan")
    x[1, 0, 9] = -float("inf")
    x[1, 5, 9] = float("nan")
    x[1, 2, 11] = -0.0
    env = {**os.environ, "OPGEN_TWIN_CCE_AUTO_SYNC": "0"}
    for kind in ("argmax", "argmin"):
        proc, _, got = run(driver, tmp_path, kind, x, dim=1, env=env, cores=2)
        ok(proc)
        assert got.view(2, 70).tolist() == getattr(torch, kind)(x, dim=1).tolist()


def softmax_sample(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Quarters in [-10, 10): distinct values have distinct softmax values (their exps differ by
    far more than a rounding), equal ones equal softmax values (ties in index order)."""
    gen = torch.Generator().manual_seed(seed)
    return (torch.randint(-40, 40, shape, generator=gen).float() / 4).to(dtype)


def check_softmax_sorted(x: torch.Tensor, k: int, descending: bool, values, indices) -> None:
    """The first k of torch.softmax(x, -1) sorted (stable: ties lower index first): values
    within float's rounding of torch's (half/bfloat16: torch's T values, equal), indices equal."""
    probs = torch.softmax(x, dim=-1)
    want = torch.sort(probs, dim=-1, descending=descending, stable=True)
    want_v, want_i = want.values[..., :k], want.indices[..., :k]
    got_v = values.view(want_v.shape)
    if x.dtype == torch.float32:
        torch.testing.assert_close(got_v, want_v, rtol=1e-6, atol=1e-7, equal_nan=True)
    else:
        torch.testing.assert_close(got_v.float(), want_v.float(), rtol=0, atol=0, equal_nan=True)
    assert torch.equal(indices.view(want_i.shape).long(), want_i), (x, indices, want_i)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_topk(driver, tmp_path, dtype):
    """RowPrologue::kSoftmax: topk(softmax(x, -1), k) and sort(softmax(x, -1)) as torch's, both
    orders, int32/int64 indexes, k = 1 and the whole row, rows from 1 to 3000 over 8 cores."""
    for n, shape in enumerate(SORT_SHAPES):
        x = softmax_sample(shape, DTYPES[dtype], 400 + n)
        row = shape[-1]
        for k, largest in (
            (1, True),
            (row, False),
            ((row + 1) // 2, n % 2 == 0),
            (min(4, row), True),
        ):
            out_bytes = 4 + 4 * (n % 2)
            proc, values, indices = run(
                driver, tmp_path, "softmax_topk", x, (k, int(largest)), out_bytes
            )
            ok(proc)
            check_softmax_sorted(x, k, largest, values, indices)
        proc, values, indices = run(driver, tmp_path, "softmax_sort", x, (n % 2, 0))
        ok(proc)
        check_softmax_sorted(x, row, n % 2 == 1, values, indices)


def test_softmax_topk_specials(driver, tmp_path):
    """A NaN or +inf in a row, or a row of -inf, makes the row's softmax NaN (torch's); the NaN
    row sorts in index order. Other rows: -inf gives 0, a huge spread gives exact zeros (ties)."""
    inf, nan = float("inf"), float("nan")
    x = torch.tensor(
        [
            [1.0, nan, 2.0, 0.5, -1.0],
            [1.0, inf, 2.0, 0.5, -1.0],
            [-inf, -inf, -inf, -inf, -inf],
            [1.0, -inf, 2.0, -inf, 3.0],
            [-200.0, 0.0, -300.0, 5.0, -250.0],
            [-0.0, 0.0, -0.0, 0.0, 0.0],
        ]
    )
    for k, largest in ((5, True), (3, False)):
        proc, values, indices = run(driver, tmp_path, "softmax_topk", x, (k, int(largest)), 8, 3)
        ok(proc)
        check_softmax_sorted(x, k, largest, values, indices)


def test_softmax_topk_scalar_pipe_events(driver, tmp_path):
    """The prologue's scalar reads (the max, the sum) wait for the vector unit and back."""
    env = {**os.environ, "OPGEN_TWIN_CCE_AUTO_SYNC": "0"}
    for dtype in (torch.float32, torch.float16):
        x = softmax_sample((5, 300), dtype, 12)
        proc, values, indices = run(driver, tmp_path, "softmax_topk", x, (7, 1), cores=3, env=env)
        ok(proc)
        check_softmax_sorted(x, 7, True, values, indices)


SOFTMAX_UNIT = """
#include "kernel_operator.h"
#include "opgen_index_select.h"
template void opgen_index::TopK<float, int32_t, opgen_index::RowPrologue::kSoftmax>(
    GM_ADDR, GM_ADDR, GM_ADDR, const opgen_index::IndexTiling&);
"""


@pytest.mark.parametrize(("arch", "needle"), [(3510, "softmax prologue"), (2201, None)])
def test_softmax_topk_socs(tmp_path, arch, needle):
    """The softmax prologue needs the float ReduceMax/ReduceSum: Ascend 950 (Sort32 but no
    level-2 ReduceMax in opgen's catalog) is refused by a static_assert."""
    unit = tmp_path / "unit.cpp"
    unit.write_text(SOFTMAX_UNIT)
    proc = subprocess.run(
        [CXX, *CXXFLAGS, *INDEX_LIB_INCLUDES, f"-D__NPU_ARCH__={arch}", "-fsyntax-only", str(unit)],
        capture_output=True,
        text=True,
    )
    if needle is None:
        assert proc.returncode == 0, proc.stderr[-3000:]
    else:
        assert proc.returncode != 0 and needle in proc.stderr, proc.stderr[-3000:]


def int_sample(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    """Many ties, the dtype's extremes; int32 values that differ by less than float's step above
    2^24 (a float path would tie them: 2^30 + 1 > 2^30 but both are 2^30 in float)."""
    gen = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    if dtype == torch.int32:
        x = torch.randint(-3, 4, shape, generator=gen) + (2**30) * torch.randint(
            -1, 2, shape, generator=gen
        )
    else:
        lo, hi = max(info.min, -20), min(info.max, 20)
        x = torch.randint(lo, hi + 1, shape, generator=gen)
    flat = x.view(-1)
    if flat.numel() > 4:
        picks = torch.randperm(flat.numel(), generator=gen)[: max(2, flat.numel() // 50)]
        flat[picks] = torch.tensor([info.min, info.max])[torch.arange(picks.numel()) % 2]
    return x.to(dtype)


def any_sample(shape: tuple[int, ...], dtype: str, seed: int) -> torch.Tensor:
    if dtype in INT_DTYPES:
        return int_sample(shape, INT_DTYPES[dtype], seed)
    return sample(shape, DTYPES[dtype], seed, True)


def check_max(kind: str, x: torch.Tensor, dim: int, values, indices) -> None:
    """torch.max/min(x, dim) (torch.argmax/argmin for the arg kinds): the first index of the
    best, NaN the best; the values x's own (-0.0 and NaN as there)."""
    if kind in ("argmax", "argmin"):
        want = getattr(torch, kind)(x, dim=dim)
        assert torch.equal(indices.view(want.shape).long(), want), (kind, x.dtype, dim)
        return
    want = getattr(torch, kind)(x, dim=dim)
    if indices is not None:
        got = indices.view(want.indices.shape).long()
        assert torch.equal(got, want.indices), (kind, x.dtype, dim, got, want.indices)
    if values is not None:
        if x.is_floating_point():
            same_values(values.view(want.values.shape), want.values)
        else:
            assert torch.equal(values.view(want.values.shape), want.values), (kind, x.dtype)


MAX_CASES = [(k, d) for k in ("max", "min") for d in ALL_DTYPES] + [
    (k, d)
    for k in ("argmax", "argmin")
    for d in INT_DTYPES  # the float ones: test_arg
]


@pytest.mark.parametrize(("kind", "dtype"), MAX_CASES)
def test_max_min_rows(driver, tmp_path, kind, dtype):
    """torch.max/min(x, -1) (MaxDim/MinDim) of every dtype, and argmax/argmin of the integer
    ones: tails, one element, rows over several tiles (70001), a 0-d x, both index widths."""
    for n, shape in enumerate(ARG_SHAPES):
        x = any_sample(shape, dtype, 400 + n)
        out_bytes = 4 + 4 * (n % 2)
        proc, values, indices = run(driver, tmp_path, kind, x, out_bytes=out_bytes)
        ok(proc)
        check_max(kind, x, -1 if x.dim() else 0, values, indices)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_max_min_other_dims(driver, tmp_path, dtype):
    """A dim with axes after it (the column kernels, int32's on the scalar unit): chunks over
    cores, a chunk's tail, a small UB."""
    cases = [((4, 5, 3), 1), ((3, 7, 130), 1), ((6, 2, 9), 0), ((2, 33, 4, 70), 1), ((50, 3), 0)]
    kinds = ("max", "min", "argmax", "argmin") if dtype in INT_DTYPES else ("max", "min")
    for n, (shape, dim) in enumerate(cases):
        x = any_sample(shape, dtype, 500 + n)
        for kind in kinds:
            for out_bytes, ub in ((8, None), (4, 16384)):
                proc, values, indices = run(
                    driver, tmp_path, kind, x, out_bytes=out_bytes, ub=ub, dim=dim
                )
                ok(proc)
                check_max(kind, x, dim, values, indices)


def test_max_int32_beyond_float(driver, tmp_path):
    """int32 values a float would round together: 2^30 + 1 beats 2^30 (float: a tie, index 0)."""
    x = torch.tensor([[2**30, 2**30 + 1, 2**30 - 1], [-(2**31), 2**31 - 1, 2**31 - 2]])
    for kind in ("max", "min"):
        for dim in (0, 1):
            proc, values, indices = run(driver, tmp_path, kind, x.int(), out_bytes=8, dim=dim)
            ok(proc)
            check_max(kind, x.int(), dim, values, indices)
    proc, _, got = run(driver, tmp_path, "argmax", x.int(), out_bytes=4)
    ok(proc)
    assert got.tolist() == [1, 1]


def test_max_one_part(driver, tmp_path):
    """A nullptr output is not written: values alone, indices alone (rows and columns)."""
    x = sample((7, 50, 3), torch.float16, 13, True)
    for dim in (1, 2):
        proc, values, indices = run(driver, tmp_path, "max", x, (0, -1), dim=dim)
        ok(proc)
        assert values is None
        check_max("max", x, dim, None, indices)
        proc, values, indices = run(driver, tmp_path, "min", x, (-1, 0), dim=dim)
        ok(proc)
        assert indices is None
        check_max("min", x, dim, values, None)


def test_max_scalar_pipe_events(driver, tmp_path):
    """MaxDim/MinDim with the scalar unit's events checked (OPGEN_TWIN_CCE_AUTO_SYNC=0): float
    and uint8 (vector), int32 (scalar), rows and columns, over several tiles."""
    env = {**os.environ, "OPGEN_TWIN_CCE_AUTO_SYNC": "0"}
    for dtype in ("float", "uint8", "int32"):
        for shape, dim in (((5, 300), 1), ((3, 40, 70), 1)):
            x = any_sample(shape, dtype, 600)
            for kind in ("max", "min"):
                proc, values, indices = run(
                    driver, tmp_path, kind, x, cores=3, ub=16384, env=env, dim=dim
                )
                ok(proc)
                check_max(kind, x, dim, values, indices)


def test_max_nan_and_signed_zero(driver, tmp_path):
    """The first NaN is both the max and the min, its value NaN; -0.0 and 0.0 tie (the first,
    with its sign)."""
    x = torch.tensor(
        [
            [1.0, float("nan"), float("inf"), float("nan")],
            [-0.0, 0.0, -1.0, -0.0],
            [0.0, -0.0, 0.0, -2.0],
            [-float("inf"), 3.0, 3.0, float("nan")],
        ]
    )
    for kind in ("max", "min"):
        for dim in (0, 1):
            proc, values, indices = run(driver, tmp_path, kind, x, dim=dim)
            ok(proc)
            check_max(kind, x, dim, values, indices)


MISUSE_UNIT = """
#include "kernel_operator.h"
void F(const AscendC::LocalTensor<float>& f, const AscendC::LocalTensor<uint8_t>& u)
{
    %s;
}
"""


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        # int8/uint8 reach float through half (the kernel's WidenToFloat): no direct Cast
        ("AscendC::Cast(f, u, AscendC::RoundMode::CAST_NONE, 64)", "(src, dst) type pair"),
        ("AscendC::Cast(u, f, AscendC::RoundMode::CAST_RINT, 64)", "(src, dst) type pair"),
        # the column kernels zero a 1-byte x's tile as int16 words
        ("AscendC::Duplicate(u, static_cast<uint8_t>(0), 64)", "Duplicate does not support"),
        # int32 x cannot take the level-2 ReduceMax (the kernels' scalar path)
        (
            "AscendC::ReduceMax(f.ReinterpretCast<int32_t>(), f.ReinterpretCast<int32_t>(), "
            "f.ReinterpretCast<int32_t>(), 64, true)",
            "ReduceMax does not support",
        ),
    ],
)
def test_twin_refuses_what_the_integer_paths_avoid(tmp_path, call, needle):
    """The APIs the integer arg kernels go around are refused by the twin as the docs say."""
    unit = tmp_path / "unit.cpp"
    unit.write_text(MISUSE_UNIT % call)
    proc = subprocess.run(
        [CXX, *CXXFLAGS, "-fsyntax-only", str(unit)], capture_output=True, text=True
    )
    assert proc.returncode != 0 and needle in proc.stderr, proc.stderr[-3000:]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_topk_and_sort_of_small_ints(driver, tmp_path, dtype):
    """int8/uint8/int16 x sort their exact float keys: torch's values, a stable sort's indices
    (ties in index order), k = 1 and k = the row, both directions, rows past one run of 32."""
    for n, shape in enumerate(SORT_SHAPES):
        x = int_sample(shape, INT_DTYPES[dtype], 700 + n)
        row = shape[-1]
        for k, largest in ((1, True), (row, False), ((row + 1) // 2, n % 2 == 0)):
            proc, values, indices = run(driver, tmp_path, "topk", x, (k, int(largest)), 4)
            ok(proc)
            want = torch.sort(x, dim=-1, descending=largest, stable=True)
            assert torch.equal(values.view(*shape[:-1], k), want.values[..., :k])
            assert torch.equal(indices.view(*shape[:-1], k).long(), want.indices[..., :k])
        proc, values, indices = run(driver, tmp_path, "sort", x, (0, 0))
        ok(proc)
        want = torch.sort(x, dim=-1, stable=True)
        assert torch.equal(values.view(shape), want.values)
        assert torch.equal(indices.view(shape), want.indices)


def test_topk_of_int32_is_not_built(driver, tmp_path):
    """int32 x has no TopK/Sort (a float key would round it): the driver has none to launch."""
    proc, _, _ = run(driver, tmp_path, "sort", torch.arange(10, dtype=torch.int32), (0, 0))
    assert proc.returncode == 4 and "no sort of this dtype" in proc.stdout
