"""The generated projects' precision helper (tests/precision.py) implements the CANN standard, and
op_testing.py's boundary values are what the docstrings say."""

from __future__ import annotations

import importlib.util
import math
import sys
import types

import pytest
from conftest import EXAMPLES, render_files

from opgen.frontend import prototype
from opgen.frontend.options import Options
from opgen.resources import templates_dir

torch = pytest.importorskip("torch")


def load_rendered(tmp_path_factory, name: str):
    proto = prototype.load(EXAMPLES / "gelu_custom.json")
    files = render_files(proto, Options("p", "p", "p"), templates_dir())
    (source,) = [f for f in files if f.path == f"tests/{name}.py"]
    path = tmp_path_factory.mktemp(name) / f"{name}.py"
    path.write_bytes(source.content)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def precision(tmp_path_factory):
    return load_rendered(tmp_path_factory, "precision")


@pytest.fixture(scope="module")
def op_testing(tmp_path_factory, precision):
    sys.modules.setdefault("p", types.ModuleType("p"))  # the package it imports (not built)
    return load_rendered(tmp_path_factory, "op_testing")


def golden(n=10_000):
    return torch.linspace(-3, 3, n, dtype=torch.float64)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_correctly_rounded_output_passes(precision, dtype):
    g = golden(10_001)  # through zero: the small-value domain is judged by absolute error
    result = precision.measure(g.to(dtype), g)
    assert result.passed and result.rule == "threshold", result.report()
    assert result.metrics.small_count > 0


def test_the_numbers_are_the_cann_ones(precision):
    assert precision.THRESHOLD[torch.float16] == 2**-10
    assert precision.THRESHOLD[torch.bfloat16] == 2**-7
    assert precision.THRESHOLD[torch.float32] == 2**-13
    assert precision.SMALL_VALUE[torch.float16] == (2**-11, 2**-16)
    assert precision.SMALL_VALUE[torch.bfloat16] == (2**-8, 2**-16)
    assert precision.SMALL_VALUE[torch.float32] == (2**-14, 2**-30)
    assert precision.RATIO_LEVELS == {"L0": (10, 2, 2), "L1": (5, 1.5, 1.5), "L2": (2, 1.2, 1.2)}


def test_relative_error_is_the_standards(precision):
    g = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)
    a = torch.tensor([1.0, -2.0, 0.5 + 2**-20], dtype=torch.float32)
    m = precision.metrics(a, g, torch.float32)
    assert m.mare == pytest.approx(2**-20 / (0.5 + 1e-7))
    assert m.mere == pytest.approx(2**-20 / (0.5 + 1e-7) / 3)


def test_a_systematic_error_fails_on_mere(precision):
    g = golden() + 5.0
    actual = (g * (1 + 2e-3)).to(torch.float16)  # 2e-3 relative: MERE > 2^-10
    result = precision.measure(actual, g)
    assert not result.passed and "MERE" in result.reason
    assert "threshold standard failed" in result.reason and "no ratio standard" in result.reason


def test_a_single_bad_element_fails_on_mare_and_reports_it(precision):
    g = golden() + 5.0
    actual = g.clone().to(torch.float32)
    actual[1234] += 1.0
    result = precision.measure(actual, g, benchmark=g.to(torch.float32))
    assert not result.passed and "MARE" in result.reason
    assert result.worst_index == (1234,)
    text = result.report()
    for part in (
        "max abs error",
        "max rel error",
        "MERE",
        "MARE",
        "RMSE",
        "small-value errors",
        "worst element (1234,)",
        "threshold standard failed",
        "ratio standard (L0) against torch in the dtype failed",
        "MARE ratio",
        "benchmark (torch in float32)",
    ):
        assert part in text, (part, text)


def test_small_values_are_judged_by_absolute_error(precision):
    g = torch.full((100,), 1e-6, dtype=torch.float64)  # below 2^-14: the small-value domain
    close = (g + 5e-10).to(torch.float32)  # 5e-4 relative, but |error| < 2^-30
    result = precision.measure(close, g)
    assert result.passed and result.metrics.small_count == 100, result.report()
    far = (g + 1e-8).to(torch.float32)
    result = precision.measure(far, g)
    assert not result.passed and result.metrics.small_errors == 100
    assert "small-value error" in result.reason


def cancellation_cases():
    """x + 2 * other * other and lerp over [-4, 4]: goldens near zero by cancellation."""
    gen = torch.Generator().manual_seed(0)

    def draw():
        return torch.empty(400_000, dtype=torch.float64).uniform_(-4, 4, generator=gen).float()

    x, other = draw(), draw()
    axpy = (x + 2 * other * other, x.double() + 2 * other.double() ** 2, x + 2 * other * other)
    start, end, weight = draw(), draw(), draw()
    lerp = (
        start + weight * (end - start),
        torch.lerp(start.double(), end.double(), weight.double()),
        torch.lerp(start, end, weight),
    )
    return {"x + 2 * other * other": axpy, "lerp": lerp}


@pytest.mark.parametrize("case", ["x + 2 * other * other", "lerp"])
def test_cancellation_passes_by_the_ratio_standard(precision, case):
    """A correct float32 implementation fails the threshold standard near zero, as torch's own
    does; the ratio standard against torch in float32 passes it."""
    actual, g, bench = cancellation_cases()[case]
    assert not precision.measure(actual, g).passed  # the threshold standard alone
    assert not precision.measure(bench, g).passed  # torch's own float32 result too
    result = precision.measure(actual, g, benchmark=bench)
    assert result.passed and result.rule == "ratio L0", result.report()
    assert "threshold standard failed" in result.reason


@pytest.mark.parametrize("case", ["x + 2 * other * other", "lerp"])
def test_a_tenth_of_a_percent_error_fails_both_standards(precision, case):
    actual, g, bench = cancellation_cases()[case]
    result = precision.measure(actual * (1 + 1e-3), g, benchmark=bench)
    assert not result.passed and result.rule == "ratio L0"
    assert "MERE ratio" in result.reason and "MERE" in result.reason


def test_levels_are_stricter_in_turn(precision):
    g = golden() + 5.0
    bench = (g * (1 + 1e-3)).float()  # the threshold standard fails
    actual = (g * (1 + 1.4e-3)).float()  # every ratio 1.4: within L0 and L1, not L2
    results = {
        level: precision.measure(actual, g, benchmark=bench, level=level)
        for level in ("L0", "L1", "L2")
    }
    assert results["L0"].passed and results["L1"].passed, results["L0"].report()
    assert not results["L2"].passed and "MERE ratio 1.4 > 1.2" in results["L2"].reason
    with pytest.raises(ValueError, match="L3"):
        precision.measure(actual, g, benchmark=bench, level="L3")


def test_an_exact_benchmark_is_floored_at_the_unit_roundoff(precision):
    g = torch.tensor([1.0 + 2**-30] * 8, dtype=torch.float64)
    exact = g.float()
    within = exact.clone()
    within[0] = 1.0 + 2**-22  # 4 u off: the threshold fails? no: far below T; use MARE only
    result = precision.measure(within, g, benchmark=exact)
    assert result.passed and all(math.isfinite(v) for v in result.ratios.values())


def test_special_values_compare_positions_and_signs(precision):
    g = torch.tensor([math.inf, -math.inf, math.nan, 1.0, 1e300], dtype=torch.float64)
    good = torch.tensor([math.inf, -math.inf, math.nan, 1.0, math.inf])  # 1e300: inf in float32
    assert precision.measure(good, g).passed
    for i, wrong in enumerate([-math.inf, math.inf, 0.0, math.inf, 3.0e38]):
        bad = good.clone()
        bad[i] = wrong
        result = precision.measure(bad, g)
        assert not result.passed and result.rule == "special values", (i, result.report())
        assert result.worst_index == (i,)


def test_overflow_where_the_golden_is_finite_fails(precision):
    """The naive softplus log(1 + exp(x)) at x = 89 in float32."""
    x = torch.tensor([1.0, 89.0, 100.0])
    g = torch.nn.functional.softplus(x.double())
    naive = torch.log(1 + torch.exp(x))
    result = precision.measure(naive, g, benchmark=torch.nn.functional.softplus(x))
    assert not result.passed and "special values: 2 element(s)" in result.reason


def lerp_extremes(values: list[float], weights: list[float]):
    """torch's two-branch lerp, unfused in float32, on every (start, end, weight) of `values`
    and `weights`; its float64 golden; torch.lerp in float32 (fused). Near the largest float32,
    end - start overflows in both, and the unfused products overflow where the fused ones do not
    (start 1, end 3.4e38, weight -1: -3.4e38)."""
    start, end, weight = torch.cartesian_prod(
        torch.tensor(values), torch.tensor(values), torch.tensor(weights)
    ).T
    g = torch.lerp(start.double(), end.double(), weight.double())
    unfused = torch.where(
        weight.abs() < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight)
    )
    return unfused, g, torch.lerp(start, end, weight)


BIG = 3.4028234663852886e38  # float32's largest


def test_special_values_within_the_benchmarks_count_pass(precision):
    """Where torch in the dtype overflows too, as many mismatches as its (times the level's
    MERE ratio limit) pass; the verdict on the other measures says both counts."""
    unfused, g, torch_lerp = lerp_extremes(
        [1.0, 88.0, -BIG, BIG, BIG / 2, -BIG / 2], [-1.0, 0.25, 0.75, 2.0]
    )
    mine = precision.metrics(unfused, g, torch.float32).special_mismatches
    theirs = precision.metrics(torch_lerp, g, torch.float32).special_mismatches
    assert theirs < mine <= 2 * theirs, (mine, theirs)
    result = precision.measure(unfused, g, benchmark=torch_lerp)
    assert result.passed, result.report()
    assert f"special values: {mine} mismatch(es), torch in the dtype {theirs}" in result.reason


def test_special_values_beyond_the_benchmarks_count_fail_naming_both(precision):
    unfused, g, torch_lerp = lerp_extremes([1.0, 2.0, 3.0, 88.0, -BIG, BIG], [-1.0, 0.25])
    mine = precision.metrics(unfused, g, torch.float32).special_mismatches
    theirs = precision.metrics(torch_lerp, g, torch.float32).special_mismatches
    assert mine > 2 * theirs > 0, (mine, theirs)
    result = precision.measure(unfused, g, benchmark=torch_lerp)
    assert not result.passed and result.rule == "special values"
    assert (
        f"special values: {mine} element(s) NaN or inf where the golden is not, or finite "
        f"(or the other sign) where it is NaN or inf, where torch in float32 has {theirs} "
        f"(L0 allows 2 x as many: {2 * theirs})"
    ) in result.reason
    assert f"special-value mismatches {theirs}" in result.report()  # the benchmark's line
    strict = precision.measure(unfused, g, benchmark=torch_lerp, level="L2")
    assert "L2 allows 1.2 x as many" in strict.reason


def test_special_values_without_a_benchmark_allow_none(precision):
    unfused, g, _ = lerp_extremes([1.0, 88.0, -BIG, BIG], [-1.0])
    result = precision.measure(unfused, g)
    assert not result.passed and "no benchmark to compare with (no benchmark)" in result.reason


def test_integers_must_be_exact(precision):
    g = torch.arange(10, dtype=torch.float64)
    assert precision.measure(g.to(torch.int32), g).passed
    bad = g.to(torch.int32)
    bad[3] += 1
    result = precision.measure(bad, g)
    assert not result.passed and result.worst_index == (3,)


def test_integer_goldens_wrap_as_torch_integer_arithmetic(precision):
    """int8 100 + 100 is -56 in torch: the float64 golden 200 wraps into the dtype's range."""
    x = torch.tensor([100, -100, 127, 5], dtype=torch.int8)
    golden = x.double() + x.double()
    assert precision.measure(x + x, golden).passed
    u = torch.tensor([200, 255, 0], dtype=torch.uint8)
    assert precision.measure(u * u + 3, u.double() * u.double() + 3).passed
    saturated = torch.tensor([127, -128, 127, 10], dtype=torch.int8)
    assert not precision.measure(saturated, golden).passed


def test_empty_and_shape_mismatch(precision):
    assert precision.measure(torch.empty(0), torch.empty(0, dtype=torch.float64)).passed
    with pytest.raises(AssertionError, match="shape"):
        precision.measure(torch.zeros(3), torch.zeros(4, dtype=torch.float64))


def test_nan_where_the_golden_has_none_fails(precision):
    g = golden() + 5.0
    actual = g.clone().float()
    actual[7] = float("nan")
    result = precision.measure(actual, g)
    assert not result.passed and result.worst_index == (7,)


def test_record_for_the_report(precision, tmp_path, monkeypatch):
    import json

    record = tmp_path / "record.jsonl"
    monkeypatch.setattr(precision, "RECORD", str(record))
    g = golden(5000)
    with pytest.raises(AssertionError, match="case one"):
        precision.assert_precision((g * 1.01).float(), g, what="case one")
    precision.assert_precision(g.float(), g, what="case two")
    entries = [json.loads(line) for line in record.read_text().splitlines()]
    assert [e["what"] for e in entries] == ["case one", "case two"]
    assert [e["passed"] for e in entries] == [False, True]
    assert len(entries[0]["sample"]["golden_abs"]) == precision.RECORD_SAMPLES


# ---------------------------------------------------------------------------------------------
# boundary values (op_testing.py)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_boundary_values_cover_the_dtype(op_testing, dtype):
    info = torch.finfo(dtype)
    extremes = op_testing.boundary_values(dtype, "extremes")
    assert info.max in extremes and -info.max in extremes
    assert 89.0 in extremes or dtype == torch.float16  # float32's exp overflows above 88.7
    assert all(math.isfinite(v) for v in extremes)
    tiny = op_testing.boundary_values(dtype, "tiny")
    assert info.tiny * info.eps in tiny and info.tiny in tiny  # smallest subnormal and normal
    assert [math.copysign(1, v) for v in tiny if v == 0] == [1.0, -1.0]
    special = op_testing.boundary_values(dtype, "special")
    assert math.inf in special and -math.inf in special and any(math.isnan(v) for v in special)
    assert not any(math.isnan(v) for v in op_testing.boundary_values(dtype, "special", nan=False))
    positive = op_testing.boundary_values(dtype, "tiny", positive=True)
    assert positive and all(v > 0 or math.copysign(1, v) > 0 for v in positive)


def test_boundary_args_combine_the_inputs(op_testing):
    spec = op_testing.OpSpec(
        "T",
        None,
        None,
        None,
        args=[
            op_testing.TensorArg("x", -4, 4),
            op_testing.TensorArg("y", 0.5, 4, positive=True),
            op_testing.TensorArg("n", -10, 10),
            op_testing.AttrArg("alpha", 0.5),
        ],
    )
    args = op_testing.boundary_args(spec, (torch.float32, torch.float32, torch.int32), "special")
    x, y, n, alpha = args
    nx = len(op_testing.boundary_values(torch.float32, "special"))
    ny = len(op_testing.boundary_values(torch.float32, "special", positive=True))
    assert x.numel() == y.numel() == n.numel() == nx * ny and alpha == 0.5
    pairs = {(str(a), str(b)) for a, b in zip(x.tolist(), y.tolist(), strict=True)}
    assert len(pairs) == nx * ny  # every combination
    assert n.dtype == torch.int32 and bool((n.abs() <= 10).all())


def test_the_golden_of_one_list_output_is_one_output(op_testing):
    """A golden returning a tuple is one output when the op has one (a dynamic output, as
    torch.chunk gives), several outputs when it has several."""
    x = torch.arange(4.0)
    one = op_testing.OpSpec(
        "SplitCustom",
        None,
        None,
        lambda t: torch.chunk(t, 2),
        outputs=[op_testing.Output("y", returned=0)],
    )
    assert [len(o) for o in one.golden_outputs([x])] == [2]
    two = op_testing.OpSpec(
        "TwoCustom",
        None,
        None,
        lambda t: (t + 1, t * 2),
        outputs=[op_testing.Output("a", returned=0), op_testing.Output("b", returned=1)],
    )
    a, b = two.golden_outputs([x])
    assert torch.equal(a, x + 1) and torch.equal(b, x * 2)
