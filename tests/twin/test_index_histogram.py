"""opgen's Histc (templates/kernel/index_lib/op_kernel/opgen_index_histogram.h; host
op_host/opgen_index_histogram_tiling.h) runs on the twin over several cores against
torch.histc on CPU: every element's bin bit for bit (values on the bin edges, max itself,
out-of-range values, NaN and inf skipped), min == max (the data's range, an empty range
widened as torch widens it), torch's float16 arithmetic (and its x86 bin 0 where the quotient
overflows), int32 x as torch.histc(x.float()), the same bits for any core count, and torch's
refusals (bins <= 0, max <= min, a range that is not finite).

The kernel counts exactly and rounds each count once to y's dtype; torch's float16 histogram
rounds per-thread partial counts, so above 2048 in a bin its result depends on its thread count
(test_fp16_counts_above_2048)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch
from twin_support import CPP, CXX, CXXFLAGS, INDEX_LIB_INCLUDES

pytestmark = pytest.mark.slow

DTYPES = {"float32": torch.float32, "float16": torch.float16, "int32": torch.int32}


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("index_histogram") / "driver"
    build = [
        CXX,
        *CXXFLAGS,
        *INDEX_LIB_INCLUDES,
        str(CPP / "index_histogram_driver.cpp"),
        "-o",
        str(exe),
    ]
    proc = subprocess.run(build, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return exe


def run(
    driver: Path, tmp: Path, x: torch.Tensor, bins: int, lo: float, hi: float, cores: int = 8
) -> tuple[torch.Tensor | None, str]:
    """Runs the kernel on x flattened; (y, output) or (None, output) when the tiling refuses."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "x.bin").write_bytes(x.contiguous().numpy().tobytes())
    dtype = str(x.dtype).removeprefix("torch.")
    args = [str(driver), dtype, str(bins), repr(lo), repr(hi), str(cores), str(x.numel()), str(tmp)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    if "REFUSED" in out:
        return None, out
    assert proc.returncode == 0 and "OK" in out, out
    raw = bytearray((tmp / "y.bin").read_bytes())
    return torch.frombuffer(raw, dtype=x.dtype).clone(), out


def golden(x: torch.Tensor, bins: int, lo: float, hi: float) -> torch.Tensor:
    """torch.histc; an int32 x as torch.histc(x.float()) (torch has no int kernel), cast back."""
    if x.dtype == torch.int32:
        return torch.histc(x.float(), bins, lo, hi).to(torch.int32)
    return torch.histc(x, bins, lo, hi)


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def data(n: int, dtype: torch.dtype, seed: int, scale: float = 3.0) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    if dtype == torch.int32:
        return torch.randint(-50, 50, (n,), generator=gen, dtype=torch.int32)
    return (torch.randn(n, generator=gen) * scale).to(dtype)


# (numel, bins, min, max)
CASES = [
    (5000, 10, -2.0, 2.0),
    (5000, 100, 0.0, 0.0),
    (3001, 7, -1.5, 4.25),
    (1, 3, 0.0, 0.0),
    (33, 1, -1.0, 1.0),
    (20000, 1000, -5.0, 5.0),
    (2590, 100, 0.0, 0.0),
]


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("case", CASES, ids=str)
def test_against_torch(driver, tmp_path, dtype, case):
    n, bins, lo, hi = case
    x = data(n, DTYPES[dtype], n + bins)
    y, out = run(driver, tmp_path, x, bins, lo, hi)
    assert y is not None, out
    assert same(y, golden(x, bins, lo, hi)), out


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_edges_max_and_out_of_range(driver, tmp_path, dtype):
    """Values on every bin edge as torch's linspace makes them, min and max themselves, their
    neighbours, values outside, NaN and +-inf: skipped or binned as torch bins them."""
    td = DTYPES[dtype]
    for bins, lo, hi in ((10, -1.0, 1.0), (7, 0.1, 0.7), (100, -3.3, 5.9), (3, 1.0, 1.0009765625)):
        edges = torch.linspace(lo, hi, bins + 1, dtype=td)
        around = torch.cat([edges, edges.nextafter(torch.tensor(-1e9, dtype=td))])
        around = torch.cat([around, edges.nextafter(torch.tensor(1e9, dtype=td))])
        extra = torch.tensor(
            [lo - 1, hi + 1, float("nan"), float("inf"), -float("inf"), lo, hi], dtype=td
        )
        x = torch.cat([around, extra])
        for cores in (1, 4):
            y, out = run(driver, tmp_path, x, bins, lo, hi, cores)
            assert y is not None, out
            assert same(y, torch.histc(x, bins, lo, hi)), (
                bins,
                lo,
                hi,
                y,
                torch.histc(x, bins, lo, hi),
            )


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_any_core_count_same_bits(driver, tmp_path, dtype):
    x = data(9000, DTYPES[dtype], 7)
    want = golden(x, 33, 0.0, 0.0)
    for cores in (1, 2, 5, 9):
        y, out = run(driver, tmp_path, x, 33, 0.0, 0.0, cores)
        assert y is not None and same(y, want), out


@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        ("float32", 3.0),
        ("float32", 1e30),
        ("float32", -2.5e-38),
        ("float32", 0.0),
        ("float16", 3.0),
        ("float16", -7.5),
        ("int32", 5),
        ("int32", 123456789),
    ],
)
def test_min_eq_max_all_equal(driver, tmp_path, dtype, value):
    """min == max and every element equal: torch widens the empty range (float: max(1, one ulp);
    float16: 1) before binning."""
    x = torch.full((3000,), value, dtype=DTYPES[dtype])
    for bins in (4, 5, 100):
        y, out = run(driver, tmp_path, x, bins, 0.0, 0.0)
        assert y is not None and same(y, golden(x, bins, 0.0, 0.0)), (bins, y)


def test_min_eq_max_given_nonzero(driver, tmp_path):
    """min == max other than 0 also means the data's range (torch compares them)."""
    x = data(4000, torch.float32, 3)
    y, out = run(driver, tmp_path, x, 17, 2.5, 2.5)
    assert y is not None and same(y, torch.histc(x, 17, 2.5, 2.5)), out


def test_fp16_overflowing_quotient_lands_in_bin_0(driver, tmp_path):
    """(elt - min) * bins above 65504 is inf in torch's float16 arithmetic; its int64 of inf on
    x86 indexes bin 0. The kernel counts there too (and computes the others in float16)."""
    x = torch.tensor([500.0, 999.0, 1000.0, 10.0, 0.0, 655.0], dtype=torch.float16)
    y, out = run(driver, tmp_path, x, 100, 0.0, 1000.0)
    assert y is not None and same(y, torch.histc(x, 100, 0.0, 1000.0)), (y, out)


def test_fp32_overflowing_quotient_lands_in_bin_0(driver, tmp_path):
    x = torch.tensor([5e36, 1e37, 1e35, 0.0])
    y, out = run(driver, tmp_path, x, 100, 0.0, 1e37)
    assert y is not None and same(y, torch.histc(x, 100, 0.0, 1e37)), (y, out)


def test_fp16_edges_overflow_counts_nothing(driver, tmp_path):
    """torch's float16 linspace of [-60000, 60000] overflows (NaN edges): nothing is counted."""
    x = torch.tensor([0.0, 100.0, -60000.0, 60000.0], dtype=torch.float16)
    for lo, hi in ((-60000.0, 60000.0), (0.0, 0.0)):
        y, out = run(driver, tmp_path, x, 4, lo, hi)
        assert y is not None and same(y, torch.histc(x, 4, lo, hi)), (y, out)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_data_range_with_nan_or_inf_counts_nothing(driver, tmp_path, bad):
    """torch raises (the range is not finite; the adapter refuses it); the kernel counts nothing."""
    x = data(3000, torch.float32, 5)
    x[1234] = bad
    with pytest.raises(RuntimeError, match="not finite"):
        torch.histc(x, 10, 0.0, 0.0)
    y, out = run(driver, tmp_path, x, 10, 0.0, 0.0)
    assert y is not None and same(y, torch.zeros(10)), out


def test_empty_x(driver, tmp_path):
    for lo, hi in ((0.0, 0.0), (-1.0, 1.0)):
        x = torch.empty(0)
        y, out = run(driver, tmp_path, x, 5, lo, hi)
        assert y is not None and same(y, torch.histc(x, 5, lo, hi)), out


def test_fp16_counts_above_2048(driver, tmp_path):
    """The kernel's count is exact, rounded once to float16; torch's equals it when its threads'
    partial counts stay below 2048 (with one thread its bin stops at 2048)."""
    x = torch.zeros(5000, dtype=torch.float16)
    y, out = run(driver, tmp_path, x, 1, 0.0, 1.0)
    assert y is not None and same(y, torch.tensor([5000.0], dtype=torch.float16)), out
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert torch.histc(x, 1, 0.0, 1.0).item() == 2048.0
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize(
    ("dtype", "bins", "lo", "hi", "message"),
    [
        ("float32", 0, -1.0, 1.0, "bins must be > 0"),
        ("float32", 5, 2.0, 1.0, "max must be larger than min"),
        ("float32", 5, 0.0, float("inf"), "not finite"),
        ("float32", 5, float("nan"), 1.0, "not finite"),
        ("float16", 5, 0.0, 70000.0, "c10::Half without overflow"),
        ("float32", 10_000_000, -1.0, 1.0, "bins above"),
    ],
)
def test_refusals(driver, tmp_path, dtype, bins, lo, hi, message):
    x = data(100, DTYPES[dtype], 1)
    y, out = run(driver, tmp_path, x, bins, lo, hi)
    assert y is None and message in out, out
    if "bins above" not in message:
        with pytest.raises(RuntimeError, match=message.replace("(", r"\(")):
            golden(x, bins, lo, hi)
