"""The index-op library's "loss" group (templates/kernel/index_lib/op_kernel/opgen_index_loss.h
and templates/host/index_lib/op_host/opgen_index_loss_tiling.h): NllLoss runs on the twin through
cpp/index_loss_driver.cpp (TileNllLoss, then the kernel on its cores) and is compared with
torch.nn.functional.nll_loss on CPU, bit for bit (the sum is torch's cascade): each reduction,
int32/int64 targets, ignored rows (ignore_index a class too), all ignored ('mean': NaN), x [C]
with a 0-d or [1] target, several cores and one, windows of rows, NaN/inf/-0 in x and weight."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from twin_support import CPP, CXX, CXXFLAGS, INDEX_LIB_INCLUDES

pytestmark = pytest.mark.slow

REDUCTIONS = ("none", "mean", "sum")


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    exe = tmp_path_factory.mktemp("index_loss") / "index_loss_driver"
    src = CPP / "index_loss_driver.cpp"
    proc = subprocess.run(
        [CXX, *CXXFLAGS, *INDEX_LIB_INCLUDES, str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return exe


def _dims(shape: tuple[int, ...]) -> str:
    return ",".join(str(d) for d in shape) if shape else "s"


def run(
    driver: Path,
    tmp_path: Path,
    x: torch.Tensor,
    target: torch.Tensor,
    weight: torch.Tensor,
    reduction: str,
    ignore_index: int = -100,
    cores: int = 8,
) -> tuple[subprocess.CompletedProcess, torch.Tensor | None]:
    (tmp_path / "x.bin").write_bytes(x.contiguous().numpy().tobytes())
    (tmp_path / "target.bin").write_bytes(target.contiguous().numpy().tobytes())
    (tmp_path / "weight.bin").write_bytes(weight.contiguous().numpy().tobytes())
    args = [str(target.element_size()), str(cores), _dims(tuple(x.shape))]
    args += [_dims(tuple(target.shape)), _dims(tuple(weight.shape)), str(ignore_index), reduction]
    proc = subprocess.run(
        [str(driver), *args, str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    if proc.returncode != 0:
        return proc, None
    y = np.frombuffer((tmp_path / "y.bin").read_bytes(), dtype=np.float32)
    return proc, torch.from_numpy(y.copy())


def same_bits(got: torch.Tensor, want: torch.Tensor) -> None:
    """Equal bit for bit, NaN where NaN (payloads aside), -0.0 and 0.0 told apart."""
    got = got.view(want.shape)
    assert torch.equal(torch.isnan(got), torch.isnan(want)), (got, want)
    keep = ~torch.isnan(want)
    assert torch.equal(got[keep], want[keep]), (got, want, (got - want).abs().max())
    assert torch.equal(torch.signbit(got[keep]), torch.signbit(want[keep])), (got, want)


def check(driver, tmp_path, x, target, weight, ignore_index=-100, cores=8) -> None:
    for reduction in REDUCTIONS:
        for dtype in (torch.int32, torch.int64):
            proc, got = run(
                driver, tmp_path, x, target.to(dtype), weight, reduction, ignore_index, cores
            )
            assert proc.returncode == 0, proc.stdout + proc.stderr
            want = F.nll_loss(
                x, target.long(), weight, reduction=reduction, ignore_index=ignore_index
            )
            same_bits(got, want)


def sample(n: int | None, c: int, seed: int, ignored: float = 0.2):
    gen = torch.Generator().manual_seed(seed)
    shape = (c,) if n is None else (n, c)
    x = torch.randn(shape, generator=gen)
    weight = torch.rand(c, generator=gen) * 2
    target = torch.randint(0, c, () if n is None else (n,), generator=gen)
    if n is not None and ignored > 0:
        drop = torch.rand(n, generator=gen) < ignored
        target[drop] = -100
    return x, target, weight


@pytest.mark.parametrize("n, c", [(1, 1), (7, 5), (37, 70), (64, 3), (65, 3), (300, 9), (1000, 4)])
def test_matches_torch(driver, tmp_path, n, c):
    x, target, weight = sample(n, c, n * 31 + c)
    check(driver, tmp_path, x, target, weight)


@pytest.mark.parametrize("cores", [1, 3, 40])
def test_core_count_gives_the_same_bits(driver, tmp_path, cores):
    """'none' rows split over the cores; 'sum' and 'mean' on one core in row order."""
    x, target, weight = sample(517, 13, 5)
    check(driver, tmp_path, x, target, weight, cores=cores)


def test_cascade_over_many_rows(driver, tmp_path):
    """More than 16^2 rows: torch's cascade folds two levels; values of mixed magnitudes make a
    plain running sum differ from it."""
    gen = torch.Generator().manual_seed(3)
    n = 5000
    x = torch.randn(n, 6, generator=gen) * torch.logspace(-3, 3, n).unsqueeze(1)
    target = torch.randint(0, 6, (n,), generator=gen)
    weight = torch.rand(6, generator=gen)
    check(driver, tmp_path, x, target, weight)
    loss = -(x[torch.arange(n), target] * weight[target])
    running = torch.zeros((), dtype=torch.float32)
    for v in loss:  # a naive float running sum: not torch's bits here, so the test has teeth
        running = running + v
    assert running != F.nll_loss(x, target, weight, reduction="sum")


def test_ignore_index_is_any_value(driver, tmp_path):
    """ignore_index a valid class: its rows give +0 and leave the mean's weights."""
    x, target, weight = sample(50, 4, 9, ignored=0)
    check(driver, tmp_path, x, target, weight, ignore_index=2)
    check(driver, tmp_path, x, target, weight, ignore_index=-1)


def test_all_ignored(driver, tmp_path):
    """'mean' of no counted row is 0 / 0 = NaN, as torch; 'none' zeros, 'sum' +0."""
    x, _, weight = sample(20, 3, 1)
    target = torch.full((20,), -100)
    check(driver, tmp_path, x, target, weight)
    _, got = run(driver, tmp_path, x, target.int(), weight, "mean")
    assert torch.isnan(got).all()


def test_one_dim_x(driver, tmp_path):
    """x [C] with a 0-d or a [1] target: 0-d for every reduction ('none' is torch's one-row sum:
    +0 for a product of -0); an ignored target: 'mean' NaN."""
    x, target, weight = sample(None, 6, 4)
    check(driver, tmp_path, x, target, weight)
    check(driver, tmp_path, x, target.reshape(1), weight)
    check(driver, tmp_path, x, torch.tensor(-100), weight)
    zero = torch.tensor([0.0, -0.0, 1.0])
    check(driver, tmp_path, zero, torch.tensor(1), torch.tensor([1.0, 2.0, 3.0]))


def test_specials(driver, tmp_path):
    """NaN, inf and -0 in x and weight go through as torch's products and sums (a -0 loss from
    'none', inf - inf = NaN in 'sum'), a zero weight sum gives inf or NaN in 'mean'."""
    x = torch.tensor(
        [[0.0, 1.0, 2.0], [-0.0, float("nan"), 1.0], [float("inf"), 2.0, 3.0], [1.0, 2.0, -0.0]]
    )
    weight = torch.tensor([2.0, 1.0, 0.0])
    for target in ([0, 0, 1, 2], [1, 2, 0, 0], [2, 2, 2, 2], [0, 1, 0, 2]):
        check(driver, tmp_path, x, torch.tensor(target), weight)
    x2 = torch.tensor([[float("inf"), 0.0], [0.0, float("-inf")]])
    check(driver, tmp_path, x2, torch.tensor([0, 1]), torch.tensor([1.0, -1.0]))


def test_out_of_range_target_reads_nothing(driver, tmp_path):
    """torch raises (the adapters refuse it first); the kernel reads nothing outside x or weight
    and counts the row as ignored."""
    x, _, weight = sample(4, 3, 2)
    target = torch.tensor([0, 3, -1, 1000000], dtype=torch.int32)
    for reduction in REDUCTIONS:
        proc, got = run(driver, tmp_path, x, target, weight, reduction)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        kept = torch.tensor([0, -100, -100, -100])
        same_bits(got, F.nll_loss(x, kept, weight, reduction=reduction))


@pytest.mark.parametrize(
    "x, target, weight, reduction, message",
    [
        ((2, 3, 4), (2, 4), (3,), "mean", "takes x [N, C] or [C]"),
        ((4, 3), (3,), (3,), "none", "target is [N]"),
        ((4, 3), (4, 1), (3,), "none", "target is [N]"),
        ((3,), (2,), (3,), "sum", "target is [N]"),
        ((4, 3), (4,), (2,), "mean", "weight is [C]"),
        ((4, 3), (4,), (1, 3), "mean", "weight is [C]"),
        ((4, 3), (4,), (3,), "avg", "reduction is 'none', 'mean' or 'sum'"),
    ],
)
def test_refusals(driver, tmp_path, x, target, weight, reduction, message):
    """What torch refuses (and K-dim x, which opgen does not run) is refused by TileNllLoss."""
    proc, _ = run(
        driver,
        tmp_path,
        torch.zeros(x),
        torch.zeros(target, dtype=torch.int32),
        torch.ones(weight),
        reduction,
    )
    assert proc.returncode == 3 and message in proc.stdout, proc.stdout + proc.stderr
