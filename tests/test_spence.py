"""spence(x): scipy.special.spence (Spence's dilogarithm, the integral from 1 to x of
log(t) / (1 - t) dt, Li2(1 - x); NaN for x < 0). torch has no such function: the generated
golden is _support's _spence (mpmath's polylog(2, 1 - x) per element), and the kernel computes
cephes' spence.c in float with vector instructions, Compare and Select (lower._spence). The rules,
the lowering and the golden (quick), then the kernel on the CPU twin against mpmath over a wide
range: the pieces' boundaries 0.5, 1, 1.5 and 2, 0, tiny and huge values, negatives, NaN and
+-inf (slow; one shared build)."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
from pathlib import Path

import mpmath
import numpy as np
import pytest
import torch
from kernel_host import protos, twin
from kernel_host.step import step_body

from opgen.compiler import checks
from opgen.compiler.lower import LoweringError
from opgen.frontend import expr, functions, prototype
from opgen.frontend.options import Options
from opgen.planning import kernel
from opgen.planning.torch_ext import is_differentiable

FLOATS = ("float", "fp16", "bf16")
ROOT = Path(__file__).resolve().parent.parent
SUPPORT = ROOT / "templates" / "torch_ext" / "project" / "{{ project.package }}" / "_support.py"


def spence_op(compute: str = "spence(x)", types=FLOATS, op_type="SpenceCustom") -> dict:
    return protos.op(
        op_type, [protos.tensor("x", types)], [protos.tensor("y", types)], compute={"y": compute}
    )


def lowered(data: dict, socs=("ascend910b1",)):
    """The kernel's compute data, or the error the compiler's checks find first."""
    op = prototype.loads(json.dumps(data)).ops[0]
    options = Options("p", "p", "p", socs=socs)
    error = checks.op_error(op, options.soc_short_names)
    if error is not None:
        raise error
    return kernel.plan(op, options).compute


def reference(x: float) -> float:
    """scipy.special.spence(x) by mpmath's 53-bit polylog (not mpmath.fp, which the generated
    golden uses): NaN for x < 0, +inf and NaN, as scipy's cephes gives."""
    if not 0.0 <= x < math.inf:
        return math.nan
    return float(mpmath.polylog(2, 1 - mpmath.mpf(x)))


# --- the rules, the lowering and the golden -----------------------------------------------------


def test_spence_lowers_to_cephes_pieces_with_compare_and_select():
    body = step_body(lowered(spence_op()))
    calls = re.findall(r"AscendC::(\w+)\(", body)
    assert calls.count("Ln") == 2  # log(x) and log(1 - xr)
    assert calls.count("Div") == 2  # 1 / x and A(w) / B(w)
    # xr, log(xr), w (two), the reflection, the inversion, NaN outside the domain (two)
    assert calls.count("Select") == 8 and calls.count("Compares") == 6
    # cephes' coefficients, rounded to float once by the compiler
    assert "4.6512858607399003e-05f" in body and "0.0006909904889125533f" in body
    assert "1.6449340668482264f" in body  # pi^2 / 6
    assert body.count('__builtin_nanf("")') == 2  # x < 0, +inf, NaN


def test_spence_of_an_integer_type_is_refused():
    with pytest.raises(LoweringError, match=r"spence\(\) needs a float type"):
        lowered(spence_op(types=("int32",)))


def test_spence_on_a_soc_without_compare_and_select_is_refused_naming_the_apis():
    with pytest.raises(
        LoweringError,
        match=r"output 'y': spence\(\) selects cephes' pieces with Compare, Compares and Select's "
        r"tensor modes, which ascend910 lacks",
    ):
        lowered(spence_op(), socs=("ascend910b1", "ascend910a"))


@pytest.mark.parametrize(
    "compute, message",
    [
        ("spence(2)", "spence() takes a tensor, not the number or attr '2'"),
        ("spence(k)", "spence() takes a tensor, not the number or attr 'k'"),
        ("spence(x, x)", "spence() takes 1 argument, got 2 (spence(x), of a float tensor"),
    ],
)
def test_spence_of_a_number_or_attr_is_refused_by_the_grammar(compute, message):
    with pytest.raises(expr.ExprError) as info:
        expr.parse_compute(compute, {"x"}, {"k": "float"})
    assert message in str(info.value)


def test_the_default_golden_is_supports_spence_without_a_derivative():
    op = prototype.loads(protos.text(spence_op("spence(x) * 2 + x"))).ops[0]
    assert op.golden["y"] == "((_spence(x) * 2.0) + x)"
    ok, why = is_differentiable(op)
    assert not ok and "calls _spence, which computes each element by mpmath" in why


def support_spence():
    """_support.py's _spence, loaded from the template (copied as it is into every project)."""
    spec = importlib.util.spec_from_file_location("opgen_support_template", SUPPORT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._spence


def test_the_golden_is_scipys_spence_by_mpmath():
    spence = support_spence()
    pi2 = math.pi**2
    known = [
        (0.0, pi2 / 6),
        (-0.0, pi2 / 6),
        (1.0, 0.0),
        (2.0, -pi2 / 12),  # Li2(-1)
        (0.5, pi2 / 12 - math.log(2) ** 2 / 2),  # Li2(1/2)
        (-1.0, math.nan),
        (-math.inf, math.nan),
        (math.inf, math.nan),  # scipy's (cephes: 1 / inf = 0, log(0) * log(1))
        (math.nan, math.nan),
    ]
    x = torch.tensor([k for k, _ in known], dtype=torch.float64)
    got = spence(x)
    assert got.dtype == torch.float64
    want = torch.tensor([v for _, v in known], dtype=torch.float64)
    torch.testing.assert_close(got, want, equal_nan=True, rtol=1e-15, atol=0)
    # against mpmath's 53-bit polylog and the rules of the function's definition
    wide = torch.tensor([1e-30, 1e-5, 0.3, 0.999, 1.001, 1.7, 3.0, 1e3, 1e30, 3e38])
    want = torch.tensor([reference(v) for v in wide.tolist()], dtype=torch.float64)
    torch.testing.assert_close(spence(wide.double()), want, rtol=1e-14, atol=0)
    assert spence(wide).dtype == torch.float32
    assert spence(torch.tensor([[0.5, 0.5], [2.0, 0.5]], dtype=torch.float16)).shape == (2, 2)
    assert spence(torch.tensor([1, 2], dtype=torch.int8)).dtype == torch.float32
    assert spence(torch.empty(0)).shape == (0,)
    # a fake kernel runs an op's golden for its shapes (sum(spence(x)) computes by rows)
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        assert spence(torch.empty(3, 4, dtype=torch.float16)).shape == (3, 4)
    meta = spence(torch.empty(2, 5, device="meta"))
    assert (meta.shape, meta.device.type, meta.dtype) == ((2, 5), "meta", torch.float32)
    # the function's own value (never folded: the grammar refuses a number argument) agrees
    assert functions.SPENCE.fold(2.0) == pytest.approx(-pi2 / 12, rel=1e-15)
    assert math.isnan(functions.SPENCE.fold(-1.0)) and math.isnan(functions.SPENCE.fold(math.inf))


# --- the kernel on the CPU twin, against mpmath -------------------------------------------------


# the other SoCs with Compares and Select's tensor modes: ascend310p (no DataCopyPad: tails in
# whole blocks; Select's reserved UB) and ascend310b
OTHER_SOCS = {
    "npu2002": twin.KernelSet("npu2002", ("-D__NPU_ARCH__=2002",)),
    "npu3002": twin.KernelSet("npu3002", ("-D__NPU_ARCH__=3002",)),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("spence")
    socs = ("ascend910b1", "ascend310p3", "ascend310b1")
    ctx = twin.render_project(protos.text(spence_op()), base / "project", socs=socs)
    sets = (twin.KernelSet("default"), *OTHER_SOCS.values())
    builds = [twin.OpBuild(base / "project", op, sets) for op in ctx["ops"]]
    cache = os.environ.get("OPGEN_TEST_CACHE")
    return twin.build(builds, base / "build", Path(cache) if cache else None), base


def run_spence(built, dtype: str, x: np.ndarray, **kw) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's y and the input as stored in `dtype`, both float64."""
    result, base = built
    out = twin.run(result.driver, "SpenceCustom", [(dtype, x)], workdir=base, **kw)
    assert out["ok"], f"{out['stage']}: {out['error']}"
    (y,) = out["outputs"]
    return y["values"], np.asarray(out["inputs"][0], dtype=np.float64).reshape(x.shape)


def wide_values() -> np.ndarray:
    """Each piece and its boundaries (0.5, 1, 1.5, 2) with their float32 neighbours, 0, tiny and
    huge values, negatives, NaN and +-inf."""
    f32 = np.float32
    edges = [0.5, 1.0, 1.5, 2.0]
    near = [np.nextafter(f32(e), f32(d)) for e in edges for d in (0, 4)]
    return np.concatenate(
        [
            np.array([0.0, -0.0, *edges, *near], dtype=np.float64),
            np.linspace(0, 4, 2001),
            1 + np.logspace(-7, -1, 50),
            1 - np.logspace(-7, -1, 50),
            np.logspace(-45, 38.5, 400),  # subnormals to FLT_MAX
            [1e-40, 1.17549435e-38, 3.4028234e38],
            [-1e-40, -0.5, -1.0, -2.5, -1e30, -np.inf, np.inf, np.nan],
        ]
    )


def relative_errors(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    want = np.array([reference(v) for v in x])
    assert np.array_equal(np.isnan(y), np.isnan(want)), x[np.isnan(y) != np.isnan(want)]
    finite = ~np.isnan(want)
    return np.abs(y[finite] - want[finite]) / np.maximum(np.abs(want[finite]), 1e-30)


@pytest.mark.slow
def test_twin_spence_in_float32_is_within_a_few_ulp_of_mpmath(built):
    x = wide_values()
    y, stored = run_spence(built, "float32", x)
    errors = relative_errors(y, stored)
    assert errors.max() < 2**-18, stored[~np.isnan(y)][errors.argmax()]
    assert y[0] == y[1] == np.float32(math.pi**2 / 6)  # 0 and -0
    one = np.flatnonzero(stored == 1.0)[0]
    assert y[one] == 0.0 and not np.signbit(y[one])  # cephes' 0.0, not -0.0
    assert np.isnan(y[np.isinf(stored)]).all()  # -inf (x < 0) and +inf (scipy's NaN)


@pytest.mark.slow
@pytest.mark.parametrize("dtype, bound", [("float16", 2**-10), ("bfloat16", 2**-7)])
def test_twin_spence_in_half_computes_in_float_and_rounds_once(built, dtype, bound):
    x = wide_values()
    y, stored = run_spence(built, dtype, x)
    assert relative_errors(y, stored).max() <= bound


@pytest.mark.slow
def test_twin_spence_over_several_cores_and_a_tail(built):
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(0, 10, 5000), rng.uniform(-1, 0.1, 1001)])
    y, stored = run_spence(built, "float32", x)
    assert relative_errors(y, stored).max() < 2**-18


def test_the_generated_tests_draw_spences_four_pieces_without_negatives():
    """[0, 4]: every piece of cephes' (below 0.5, to 1.5, to 2, beyond), no NaN outputs in the
    ordinary cases (opcheck compares eager and traced outputs without equal_nan); the boundary
    cases draw +0 and positive values."""
    from opgen.planning.tests import tensor_args

    op = prototype.loads(protos.text(spence_op())).ops[0]
    (x,) = tensor_args(op, ["ascend910b1"])
    assert (x.low, x.high, x.positive) == ("0.0", "4.0", True)
    assert "spence()" in x.why
    logged = prototype.loads(protos.text(spence_op("log(x) + spence(x)"))).ops[0]
    assert tensor_args(logged, ["ascend910b1"])[0].low == "0.5"  # log() of it first


@pytest.mark.slow
@pytest.mark.parametrize("kernel_set", OTHER_SOCS)
def test_twin_spence_on_ascend310p_and_ascend310b_is_as_accurate(built, kernel_set):
    x = np.concatenate([wide_values(), np.random.default_rng(6).uniform(0, 10, 3001)])
    y, stored = run_spence(built, "float32", x, kernel_set=kernel_set)
    assert relative_errors(y, stored).max() < 2**-18
    y16, stored16 = run_spence(built, "float16", x[:1037], kernel_set=kernel_set)
    assert relative_errors(y16, stored16).max() <= 2**-10
