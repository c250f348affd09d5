"""The lowering of compute expressions to Ascend C vector calls (opgen/compiler/lower.py).

Most checks execute the emitted compute step with a small interpreter (tests/kernel_host/interp.py)
and compare it with a direct evaluation of the expression, so they test what the code computes,
not how it is spelled; the rest check the instruction choice, the temporaries, the SoC rules and
the errors.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_host import interp
from kernel_host.step import step_body, step_signature

from opgen.compiler import checks
from opgen.compiler.lower import LoweringError
from opgen.frontend import expr, prototype
from opgen.frontend.options import Options
from opgen.frontend.problems import PrototypeError
from opgen.planning import kernel

ATTRS = [
    {"name": "a", "param_type": "optional", "type": "float", "default_value": 0.75},
    {"name": "k", "param_type": "optional", "type": "int", "default_value": 3},
    {"name": "flag", "param_type": "optional", "type": "bool", "default_value": True},
]


def make_op(
    compute: dict[str, str],
    types=("float",),
    inputs=("x", "y"),
    attrs=ATTRS,
    outputs=None,
    fast_math=False,
):
    outputs = outputs or list(compute)
    data = {
        "op": "LowerTestCustom",
        "input_desc": [{"name": n, "type": list(types), "format": ["ND"]} for n in inputs],
        "output_desc": [{"name": n, "type": list(types), "format": ["ND"]} for n in outputs],
        "attr": list(attrs),
        "opgen": {"compute": compute, **({"fast_math": True} if fast_math else {})},
    }
    return prototype.loads(json.dumps(data)).ops[0]


def context(op, socs=("ascend910b1",)):
    """The kernel's data, or the error the compiler's checks find first."""
    options = Options("p", "p", "p", socs=tuple(socs))
    error = checks.op_error(op, options.soc_short_names)
    if error is not None:
        raise error
    return kernel.plan(op, options)


def compute(text: str, socs=("ascend910b1",), **kw) -> dict:
    return context(make_op({"z": text}, **kw), socs).compute


def calls(c: dict) -> list[str]:
    return re.findall(r"AscendC::(\w+)\(", step_body(c))


def evaluate(node: expr.Node, env: dict[str, np.ndarray | float]) -> np.ndarray | float:
    """The expression in float64 numpy (the reference for the interpreter)."""
    if isinstance(node, (expr.Tensor, expr.Scalar)):
        return env[node.name]
    if isinstance(node, expr.Const):
        return node.value
    if isinstance(node, expr.Neg):
        return -evaluate(node.arg, env)
    if isinstance(node, expr.BinOp):
        a, b = evaluate(node.left, env), evaluate(node.right, env)
        if node.op == "/":
            return np.divide(a, b)
        return {"+": a + b, "-": a - b, "*": a * b}[node.op]
    if isinstance(node, expr.Pow):
        return evaluate(node.base, env) ** node.exponent
    if isinstance(node, expr.Compare):
        a, b = evaluate(node.left, env), evaluate(node.right, env)
        return np.asarray(
            {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[
                node.op
            ],
            dtype=np.float64,
        )
    if node.func == "where":
        c, a, b = (evaluate(x, env) for x in node.args)
        return np.where(np.asarray(c) != 0, a, b)
    fn = {
        "exp": np.exp,
        "log": np.log,
        "sqrt": np.sqrt,
        "rsqrt": lambda v: 1 / np.sqrt(v),
        "abs": np.abs,
        "reciprocal": lambda v: 1 / v,
        "tanh": np.tanh,
        "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
        "relu": lambda v: np.maximum(v, 0),
        "min": np.minimum,
        "max": np.maximum,
        "sign": np.sign,
        "floor": np.floor,
        "ceil": np.ceil,
        "log1p": np.log1p,
        "expm1": np.expm1,
        "erf": np.vectorize(math.erf, otypes=[np.float64]),
        "clamp": lambda v, lo, hi: np.minimum(np.maximum(v, lo), hi),
    }[node.func]
    return fn(*(evaluate(a, env) for a in node.args))


def tiling_values(op, ctx) -> dict:
    values = {
        a.name if a.name not in ("tileLength",) else "attr_" + a.name: a.default for a in op.attrs
    }
    scope = {
        "exp": math.exp,
        "log": math.log,
        "sqrt": math.sqrt,
        "tanh": math.tanh,
        "rsqrt": lambda v: 1 / math.sqrt(v),
        "reciprocal": lambda v: 1 / v,
        "abs": abs,
        "sigmoid": lambda v: 1 / (1 + math.exp(-v)),
        "relu": lambda v: max(v, 0.0),
        "min": min,
        "max": max,
        "sign": lambda v: float((v > 0) - (v < 0)),
        "floor": math.floor,
        "ceil": math.ceil,
        "log1p": math.log1p,
        "expm1": math.expm1,
        "erf": math.erf,
        "clamp": lambda v, lo, hi: min(max(v, lo), hi),
        **{a.name: float(a.default) for a in op.attrs},
    }
    for h in ctx.host_scalars:  # `text` is the scalar subexpression in Python syntax
        values[h.field] = eval(h.text, {"__builtins__": {}}, scope)
    values["tmpBytes"] = 0
    return values


def check_meaning(op, socs=("ascend910b1",), arch=None, seed=0, lo=0.5, hi=2.0):
    """Run the emitted step on random inputs; compare every output with the expression."""
    ctx = context(op, socs)
    rng = np.random.default_rng(seed)
    inputs = {t.name: rng.uniform(lo, hi, 64) for t in op.inputs}
    if all(d.startswith("int") for t in op.inputs for d in t.dtypes):
        inputs = {name: np.round(v) for name, v in inputs.items()}  # an integer op's values
    tiles = dict(inputs)
    for t in op.outputs:
        tiles[f"{t.name}_ref" if t.is_ref else t.name] = np.full(64, np.nan)
    out = interp.run(step_body(ctx.compute), tiles, tiling_values(op, ctx.compute), arch)
    env = {**inputs, **{a.name: float(a.default) for a in op.attrs}}
    for t in op.outputs:
        got = out[f"{t.name}_ref" if t.is_ref else t.name]
        np.testing.assert_allclose(
            got, evaluate(op.compute[t.name], env), rtol=1e-9, err_msg=f"output {t.name}"
        )
    return out


# ---------------------------------------------------------------------------------------------
# instruction choice
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("x + y", ["Add"]),
        ("x - y", ["Sub"]),
        ("x * y", ["Mul"]),
        ("x / y", ["Div"]),
        ("x + 2", ["Adds"]),
        ("2 + x", ["Adds"]),
        ("x - 2", ["Adds"]),
        ("2 - x", ["Muls", "Adds"]),  # scalar - tensor: negate, then add
        ("3 * x", ["Muls"]),
        ("x / 4", ["Muls"]),  # by the reciprocal
        ("4 / x", ["Duplicate", "Div"]),  # exactly: Reciprocal misses the precision standard
        ("1 / x", ["Duplicate", "Div"]),
        ("-x", ["Muls"]),
        ("x ** 2", ["Mul"]),
        ("x ** 3", ["Mul", "Mul"]),
        ("x ** 4", ["Mul", "Mul"]),  # (x * x) squared
        ("exp(x)", ["Exp"]),
        ("log(x)", ["Ln"]),
        ("sqrt(x)", ["Sqrt"]),
        ("rsqrt(x)", ["Duplicate", "Div", "Sqrt"]),  # sqrt(1 / x), no Rsqrt
        ("abs(x)", ["Abs"]),
        ("reciprocal(x)", ["Duplicate", "Div"]),
        # min/max/relu/clamp/sign compare and select: NaN and -0 as torch (torch_special_values)
        ("relu(x)", ["Compares", "Duplicate", "Select"]),
        ("min(x, y)", ["Compare", "Compare", "Select", "Select"]),  # x > y, then y != y (NaN)
        ("max(x, 0.0)", ["Compares", "Duplicate", "Select"]),
        ("min(1.5, x)", ["Compares", "Duplicate", "Select"]),
        ("tanh(x)", ["Tanh"]),
        ("sigmoid(x)", ["Sigmoid"]),
        ("sign(x)", ["Compares", "Duplicate", "Select", "Compares", "Duplicate", "Select", "Sub"]),
        ("floor(x)", ["Floor"]),
        ("ceil(x)", ["Ceil"]),
        ("erf(x)", ["Erf"]),
        ("clamp(x, 0.75, a * 2)", ["Compares", "Duplicate", "Select"] * 2),
        ("log1p(x)", ["Mins", "Adds", "Adds", "Sub", "Div", "Adds", "Ln", "Add"]),
        # (u - 1) + m * c: one FusedMulAdd
        (
            "expm1(x)",
            ["Exp", "Maxs", "Mins", "Ln", "Sub", "Maxs", "Mins", "Adds", "Muls", "FusedMulAdd"],
        ),
        ("x ** 0.5", ["Sqrt"]),
        ("x ** -0.5", ["Duplicate", "Div", "Sqrt"]),
        ("x ** 3.7", ["Power"]),
        ("x ** -1.5", ["Power"]),
        ("x ** (1 / 3)", ["Power"]),
        ("x ** 5", ["Mul", "Mul", "Mul"]),  # (x * x) squared, times x
        ("x ** 8", ["Mul", "Mul", "Mul"]),  # ((x * x) squared) squared
        ("x ** -1", ["Duplicate", "Div"]),
        ("x ** -3", ["Mul", "Mul", "Duplicate", "Div"]),
    ],
)
def test_instruction_choice(text, expected):
    c = compute(text)
    assert calls(c) == expected
    check_meaning(make_op({"z": text}))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("rsqrt(x)", ["Rsqrt"]),
        ("reciprocal(x)", ["Reciprocal"]),
        ("1 / x", ["Reciprocal"]),
        ("4 / x", ["Reciprocal", "Muls"]),
        ("a / (x + 1)", ["Adds", "Reciprocal", "Muls"]),
        ("x / y", ["Div"]),  # tensor / tensor stays Div
    ],
)
def test_fast_math_opts_into_rsqrt_and_reciprocal(text, expected):
    op = make_op({"z": text}, fast_math=True)
    assert calls(context(op).compute) == expected
    check_meaning(op)


def test_fast_math_warns_with_the_precision_consequence():
    def warnings(compute: str) -> list[str]:
        data = {
            "op": "FastCustom",
            "input_desc": [{"name": "x", "type": ["float"]}],
            "output_desc": [{"name": "y", "type": ["float"]}],
            "opgen": {"compute": {"y": compute}, "fast_math": True},
        }
        return [w for w in prototype.loads(json.dumps(data)).warnings if "fast_math" in w]

    (used,) = warnings("rsqrt(x) + 2 / x")
    assert used.startswith(
        "$.opgen.fast_math: a number / a tensor, rsqrt() use the Rsqrt/Reciprocal instructions"
    )
    assert "double-thousandth for float16, double-ten-thousandth for float32" in used
    assert warnings("x * 2") == [
        "$.opgen.fast_math: has no effect: the compute expressions use "
        "no rsqrt(), reciprocal() or number / tensor"
    ]


def test_scalar_operands_are_folded_constants_or_tiling_fields():
    assert "AscendC::Muls(z, x, 0.25f, count);" in step_body(compute("x / 4"))
    assert "AscendC::Adds(z, x, -2.0f, count);" in step_body(compute("x - 2"))
    assert "AscendC::Muls(z, x, 6.0f, count);" in step_body(compute("x * (2 * 3)"))
    assert "AscendC::Muls(z, x, 1.0f, count);" in step_body(compute("x * exp(0)"))
    assert "tiling.a * 2.0f" in step_body(compute("x * (a * 2)"))
    assert "1.0f / tiling.a" in step_body(compute("x / a"))
    # an int attr and a bool attr become floats for a float op
    assert "static_cast<float>(tiling.k)" in step_body(compute("x * k"))
    assert "static_cast<float>(tiling.flag)" in step_body(compute("x * flag"))


def test_math_of_attrs_runs_on_the_host():
    op = make_op({"z": "x * exp(a) + y * sqrt(k)"})
    ctx = context(op)
    host = ctx.compute.host_scalars
    assert [h.text for h in host] == ["exp(a)", "sqrt(k)"]
    assert "std::exp(static_cast<double>(tiling->a))" in host[0].expr
    assert next(f for f in ctx.tiling_fields if f.name == "scalar0").type == "float"
    assert "tiling.scalar0" in step_body(ctx.compute)
    check_meaning(op)


def test_new_functions_of_attrs_run_on_the_host():
    op = make_op(
        {
            "z": "x * sign(a) + clamp(k, 0, 2) + erf(a) + a ** 1.5 + floor(a) "
            "+ log1p(a) * expm1(a) - ceil(a)"
        }
    )
    ctx = context(op)
    exprs = " ".join(h.expr for h in ctx.compute.host_scalars)
    for fn in ("std::erf", "std::pow", "std::floor", "std::log1p", "std::expm1", "std::ceil"):
        assert fn in exprs
    check_meaning(op)


def test_constant_operands_of_new_functions_fold():
    assert "AscendC::Muls(z, x, -1.0f, count);" in step_body(compute("x * sign(-3)"))
    assert "AscendC::Adds(z, x, 2.0f, count);" in step_body(compute("x + clamp(5, 0, 2)"))
    assert "AscendC::Muls(z, x, 8.0f, count);" in step_body(compute("x * 4 ** 1.5"))
    assert "AscendC::Adds(z, x, 3.0f, count);" in step_body(compute("x + floor(3.7)"))


@pytest.mark.parametrize(
    "text",
    [
        "log1p(x)",
        "expm1(x)",
        "x ** 3.7",
        "x ** -1.5",
        "sign(x) * x",
        "floor(x * 3) + ceil(y)",
        "erf(x) - clamp(y, 0.8, 1.2)",
        "x ** 7 + y ** -2",
    ],
)
def test_new_functions_compute_what_they_say(text):
    op = make_op({"z": text})
    for socs, arch in ((("ascend910b1",), None), (("ascend910b1", "ascend310b1"), 3002)):
        if "floor" in text or "ceil" in text or "erf" in text:
            if arch is not None:
                continue  # no fallback: an error (test_missing_floor_ceil_erf_are_errors)
        check_meaning(op, socs=socs, arch=arch)
    check_meaning(op, lo=0.001, hi=0.01)  # near 0, where log1p and expm1 need care


def test_sign_falls_back_to_exact_basic_apis():
    op = make_op({"z": "sign(x)"})
    c = context(op, ("ascend910a",)).compute
    assert calls(c) == ["Muls", "Muls", "Maxs", "Mins"] and not c.shared_tmp
    assert "ascend910 has no Sign API: Sign computed through Muls, Maxs and Mins" in step_body(c)
    ctx = context(op, ("ascend910a",))
    tiles = {
        "x": np.array([-3e38, -1.5, -1e-38, -1e-45, 0.0, 1e-45, 2e-30, 7.0, 3e38]),
        "z": np.full(9, np.nan),
    }
    with np.errstate(over="ignore"):
        out = interp.run(step_body(ctx.compute), tiles, tiling_values(op, ctx.compute))
    np.testing.assert_array_equal(out["z"], np.sign(tiles["x"]))


def test_integer_sign_and_clamp_use_maxs_and_mins():
    c = compute("sign(x) + clamp(y, -3, k)", types=("int32",))
    assert calls(c) == ["Maxs", "Mins", "Maxs", "Mins", "Add"]
    check_meaning(make_op({"z": "sign(x) + clamp(y, -3, k)"}, types=("int32",)), lo=-9, hi=9)


def test_power_without_the_api_goes_through_ln_and_exp():
    c = compute("x ** 3.7", socs=("ascend910b1", "ascend310b1"))
    assert "#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3002)" in step_body(c)
    assert "ascend310b has no Power API: Power computed through Ln and Exp" in step_body(c)
    assert c.shared_tmp_live_nodes == 6 and c.shared_tmp_min_bytes == 1792


def test_shared_tmp_takes_the_largest_need_of_the_apis():
    c = compute("erf(x) + ceil(y)")
    assert c.shared_tmp_apis == ["Ceil", "Erf"]
    assert (c.shared_tmp_live_nodes, c.shared_tmp_min_bytes) == (3, 768)
    assert "3 floats per element" in c.scratch_note


@pytest.mark.parametrize(
    "text, socs, lacking",
    [
        ("floor(x)", ("ascend910a",), "ascend910 lacks"),
        ("ceil(x) + y", ("ascend910b1", "ascend310b1"), "ascend310b lacks"),
        ("erf(x)", ("ascend910a", "ascend310b1"), "ascend310b, ascend910 lack"),
    ],
)
def test_missing_floor_ceil_erf_are_errors(text, socs, lacking):
    with pytest.raises(LoweringError, match=f"output 'z'.*needs the \\w+ API, which {lacking}"):
        compute(text, socs=socs)
    compute("floor(x)", socs=("ascend310b1",))  # 310B has Floor


def test_constant_errors_name_the_output():
    with pytest.raises(LoweringError, match="output 'z'.*divides by zero"):
        compute("x / (1 - 1)")
    with pytest.raises(LoweringError, match="output 'z'.*'log\\(-1\\)' has no finite value"):
        compute("x * log(-1)")


@pytest.mark.parametrize(
    "text, operands",
    [
        ("x + y * x", ("1.0f", "y", "x")),
        ("y * x + x", ("1.0f", "y", "x")),
        ("x - y * x", ("-1.0f", "y", "x")),
    ],
)
def test_a_multiply_add_is_one_fused_multiply_add_where_the_soc_has_it(text, operands):
    """As torch's CPU kernels: rounded once, no overflow of the product where the sum is
    finite. FusedMulAdd is documented for Atlas A2/A3, 310P's AI Core and 200I/500 A2
    (asc-devkit FusedMulAdd.md), not for the training series: ascend910 multiplies and adds."""
    one, factor, addend = operands
    for socs in (("ascend910b1",), ("ascend310p3",), ("ascend310b1",)):
        c = compute(text, socs=socs)
        assert calls(c) == ["Muls", "FusedMulAdd"], socs
        assert f"AscendC::Muls(z, x, {one}, count);" in step_body(c)
        assert f"AscendC::FusedMulAdd(z, {factor}, {addend}, count);" in step_body(c)
    assert calls(compute(text, socs=("ascend910a",)))[-2:] in (["Mul", "Add"], ["Mul", "Sub"])
    both = step_body(compute(text, socs=("ascend910b1", "ascend910a")))
    assert "#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001)" in both
    assert "ascend910 has no FusedMulAdd API: FusedMulAdd computed through Mul and Add" in both
    assert "#if" not in step_body(compute(text, socs=("ascend910b1", "ascend310p3", "ascend310b1")))
    op = make_op({"z": text})
    check_meaning(op)
    check_meaning(op, socs=("ascend910b1", "ascend910a"), arch=1001)


# torch.lerp's own formula (tests/data/precision/trials.json) and the corpus's Lerp
# (tests/data/corpus_opgen/wenyi1989__AscendC/Lerp__Lerp.json)
LERPS = (
    "where(abs(weight) < 0.5, start + weight * (end - start),"
    " end - (end - start) * (1.0 - weight))",
    "where(weight < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))",
)


@pytest.mark.parametrize("soc", ["ascend910b1", "ascend310p3", "ascend310b1"])
@pytest.mark.parametrize("text", LERPS, ids=["torch", "corpus"])
def test_lerp_fuses_both_branches_where_the_soc_has_fused_multiply_add(text, soc):
    """Each branch is one FusedMulAdd, as torch.lerp's: unfused, (end - start) * (1 - weight)
    overflows float32 where torch's result is finite (start 1, end 3.4e38, weight -1)."""
    op = make_op({"z": text}, inputs=("start", "end", "weight"))
    step = step_body(context(op, (soc,)).compute)
    assert calls(context(op, (soc,)).compute).count("FusedMulAdd") == 2, step
    assert "#if" not in step and "AscendC::Mul(" not in step
    check_meaning(op, socs=(soc,), lo=-2, hi=2)


def test_products_of_scalars_and_integer_sums_are_not_fused():
    assert "FusedMulAdd" not in step_body(compute("x + 2 * y"))  # Muls, then Add
    assert "FusedMulAdd" not in step_body(compute("x + y * y", types=("int32",)))


# ---------------------------------------------------------------------------------------------
# temporaries
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, temps",
    [
        ("exp(x) + exp(y)", 0),  # both exps run in place in the dead input tiles
        ("exp(log(sqrt(x)))", 0),
        ("tanh(x)", 0),  # straight into the output
        ("tanh(x) + x", 0),  # tanh into the output tile, then add x in place
        ("0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))", 1),  # gelu
        # FusedMulAdd writes a tile apart from its operands (x * y + x and the last sum)
        ("(x * y + x) * (y * x - y) + (x - y) * (x + y)", 2),
    ],
)
def test_temporaries(text, temps):
    op = make_op({"z": text}, inputs=[n for n in ("x", "y") if n in text])
    assert context(op).compute.temps == temps
    check_meaning(op, lo=-2, hi=2) if "log" not in text else check_meaning(op)


def test_common_subexpressions_are_computed_once():
    op = make_op({"s": "exp(x) * 2 + y", "d": "exp(x) - y"})
    c = context(op).compute
    assert calls(c).count("Exp") == 1
    check_meaning(op)


def test_an_output_equal_to_an_input_or_another_output_is_copied():
    op = make_op({"s": "x", "d": "exp(y)", "e": "exp(y)"})
    c = context(op).compute
    assert calls(c).count("Exp") == 1
    assert calls(c).count("Muls") == 2  # the copies: multiply by one
    check_meaning(op)


def test_scratch_declarations_follow_the_tiling_layout():
    c = compute("(x * y + x) * (y * x - y) + (x - y) * (x + y) * tanh(x)")
    body = step_body(c)
    assert "const AscendC::LocalTensor<float> tmp0 = scratch.ReinterpretCast<float>();" in body
    assert (
        f"= scratch[{c.temps} * tiling.tmpBytes];" in body or "= scratch[tiling.tmpBytes];" in body
    )
    assert c.shared_tmp and c.shared_tmp_apis == ["Tanh"]
    assert c.shared_tmp_min_bytes == 256 and c.shared_tmp_live_nodes == 1


# ---------------------------------------------------------------------------------------------
# SoC rules
# ---------------------------------------------------------------------------------------------


def test_tanh_on_a_soc_without_the_api_goes_through_exp():
    text = "tanh(x) * 2"
    c = compute(text, socs=("ascend910a",))
    assert "Tanh" not in calls(c) and "Exp" in calls(c)
    assert "#if" not in step_body(c) and not c.shared_tmp
    check_meaning(make_op({"z": text}), socs=("ascend910a",), lo=-3, hi=3)
    assert "Tanh" not in calls(compute(text, socs=("ascend310b1",)))
    assert "Tanh" in calls(compute(text, socs=("ascend910b2", "ascend910_9391", "ascend310p3")))


@pytest.mark.parametrize("text", ["tanh(x)", "sigmoid(x)"])
def test_exp_forms_divide_exactly_and_saturate(text):
    """Without the API, tanh/sigmoid go through Exp and Div, never Reciprocal (which misses the
    precision standard), and stay right where exp overflows or underflows."""
    c = compute(text, socs=("ascend310b1",))
    assert "Exp" in calls(c) and "Div" in calls(c)
    assert "Reciprocal" not in calls(c) and "Rsqrt" not in calls(c)
    with np.errstate(over="ignore"):  # exp overflows to inf for the large inputs
        check_meaning(make_op({"z": text}), socs=("ascend310b1",), lo=-800, hi=800)


@pytest.mark.parametrize(
    "text, note",
    [
        ("0.5 * x * (1 + tanh(x * 0.8))", "1 + tanh(v) = 2 / (exp(-2v) + 1)"),
        ("(tanh(x) + 1) * x", "1 + tanh(v) = 2 / (exp(-2v) + 1)"),
        ("x * (1 - tanh(x))", "1 - tanh(v) = 2 / (exp(2v) + 1)"),
    ],
)
def test_one_plus_tanh_without_the_api_does_not_cancel(text, note):
    """Through Exp, 1 + tanh(v) as 1 + (-2 / (exp(2v) + 1) + 1) loses every digit where tanh(v)
    nears -1 (GELU's 1 + tanh for x < -3 misses the float32 standard on 910A); it is computed
    as 2 / (exp(-2v) + 1), one Exp and one Div, no Add of 1 after the Div."""
    c = compute(text, socs=("ascend910a",))
    assert note in step_body(c) and calls(c).count("Exp") == 1 and calls(c).count("Div") == 1
    div = step_body(c).index("AscendC::Div(")
    assert "AscendC::Adds(" not in step_body(c)[div:]
    with np.errstate(over="ignore"):
        check_meaning(make_op({"z": text}), socs=("ascend910a",), lo=-8, hi=8)
    assert note not in step_body(compute(text))  # with the Tanh API, Tanh


def test_sigmoid_is_missing_only_on_310b():
    assert "Sigmoid" in calls(compute("sigmoid(x)", socs=("ascend910a",)))
    assert "Sigmoid" not in calls(compute("sigmoid(x)", socs=("ascend310b1",)))


def test_mixed_socs_get_both_sequences_under_npu_arch():
    text = "tanh(x) * sigmoid(y)"
    c = compute(text, socs=("ascend910b1", "ascend910a", "ascend310b1"))
    assert (
        "#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 3002)"
        in step_body(c)
    )
    assert c.soc_variants and c.shared_tmp  # the API branch still needs its scratch
    op = make_op({"z": text})
    socs = ("ascend910b1", "ascend910a", "ascend310b1")
    for arch in (None, 1001, 3002, 2201):
        out = check_meaning(op, socs=socs, arch=arch, lo=-3, hi=3)
        api = arch not in (1001, 3002)
        assert ("Tanh" in out["__calls__"]) == api


@pytest.mark.parametrize(
    "socs", [("ascend910b1", "bs9sx1aa"), ("ascend910a", "ascend910b1", "bs9sx1aa")]
)
def test_a_target_without_npu_arch_lacking_an_api_takes_the_fallback_everywhere(socs):
    """bs9sx1a lacks FusedMulAdd and documents no __NPU_ARCH__: no #if can pick it out (the
    branch was `__NPU_ARCH__ == None`, or sorting None with 1001 raised), so every target
    computes a * b + c through Mul and Add."""
    c = compute("x * y + x", socs=socs)
    assert not c.soc_variants and "#if" not in step_body(c) and "None" not in step_body(c)
    assert "FusedMulAdd" not in calls(c) and "Mul" in calls(c)
    assert "FusedMulAdd" in calls(compute("x * y + x", socs=("ascend910b1",)))


# ---------------------------------------------------------------------------------------------
# integer and mixed types
# ---------------------------------------------------------------------------------------------


def test_integer_ops_use_only_integer_instructions():
    op = make_op(
        {"z": "relu(x - y) * 3 + max(x, 2) - abs(y) * k + x ** 2"}, types=("int16", "int32")
    )
    c = context(op).compute
    assert c.template_params == ["T"]
    assert "Relu" not in calls(c)  # no int16 Relu: Maxs(0) instead
    assert "Abs" not in calls(c)  # |y| = max(y, -y)
    assert "static_cast<T>(tiling.k)" in step_body(c)
    assert "static_cast<T>(3)" in step_body(c)
    out = check_meaning(op, lo=-50, hi=50)
    assert not {"Cast", "Exp", "Div"} & set(out["__calls__"])


def test_one_integer_type_is_spelled_out():
    c = compute("x * 3 + y", types=("int32",))
    assert c.template_params == [] and "const AscendC::LocalTensor<int32_t>& z" in step_signature(c)
    assert "AscendC::Muls(" in step_body(c) and ", 3, count);" in step_body(c)
    c16 = compute("x * 3 + y", types=("int16",))
    assert "static_cast<int16_t>(3)" in step_body(c16)  # Muls(const T&) deduces T from both


def test_float_and_int_combinations_share_a_template():
    c = compute("x + y", types=("fp16", "int32", "float", "bf16"))
    assert c.template_params == ["T"]
    assert "AscendC::Add(z, x, y, count);" in step_body(c)


@pytest.mark.parametrize(
    "text, types, reason",
    [
        ("x / y", ("int32",), "integer vector division"),
        ("exp(x)", ("int32",), "exp\\(\\) needs a float type"),
        ("x * a", ("int32",), "float attr 'a' cannot scale an integer tensor"),
        ("x * 0.5", ("int16",), "not an integer"),
        ("x + y", ("double",), "dtype float64 has no Ascend C vector arithmetic"),
        ("x + y", ("bool",), "a bool output takes a comparison"),
        ("sign(x)", ("bool",), "a bool output takes a comparison"),
        ("where(x > y, x, y)", ("int16",), "compares or selects"),
        ("floor(x)", ("int32",), "floor\\(\\) needs a float type"),
        ("log1p(x)", ("int32",), "log1p\\(\\) needs a float type"),
        ("x ** 2.5", ("int32",), "non-integer exponent"),
        ("x ** -2", ("int16",), "negative exponent"),
    ],
)
def test_unsupported_types_raise_an_error_naming_the_output(text, types, reason):
    with pytest.raises(LoweringError, match="compute expression of output 'z'.*" + reason):
        compute(text, types=types)


def test_a_compare_on_int16_blames_only_the_int16_combinations():
    """int16 and int32 combinations (torch.fmax's NaN rule, on integers): the message was two
    run together ("... or float dtypes, int16_t, which ...") and named int32_t too."""
    with pytest.raises(LoweringError) as info:
        compute("where(x != x, y, max(x, y))", types=("int16", "int32"))
    message = str(info.value)
    assert "int32_t dtype combinations" not in message and "float dtypes, int16_t" not in message
    assert (
        "compares or selects, but the op's dtype combinations that compute in int16_t do (one "
        "compute step serves every combination), which asc-devkit's Compare and Select do not "
        "take" in message
    )
    assert message.endswith("give those combinations int32 or float dtypes, or an op of their own")
    with pytest.raises(LoweringError, match="but the op computes in int16_t, which asc-devkit"):
        compute("where(x != x, y, max(x, y))", types=("int16",))


def test_mixed_dtype_combination_is_rejected():
    data = {
        "op": "MixCustom",
        "input_desc": [
            {"name": "x", "type": ["fp16"], "format": "ND"},
            {"name": "i", "type": ["int32"], "format": "ND"},
        ],
        "output_desc": [{"name": "z", "type": ["fp16"], "format": "ND"}],
        "opgen": {"compute": {"z": "x + i"}},
    }
    op = prototype.loads(json.dumps(data)).ops[0]
    with pytest.raises(LoweringError, match="x is float16, i is int32.*mixes int32 with other"):
        context(op)


def int_compare_op(compute: dict[str, str], types=("int32",), out_types=("bool",), inputs="xy"):
    data = {
        "op": "CmpCustom",
        "input_desc": [{"name": n, "type": list(types), "format": "ND"} for n in inputs],
        "output_desc": [{"name": o, "type": list(out_types), "format": "ND"} for o in compute],
        "attr": [{"name": "k", "param_type": "optional", "type": "int", "default_value": 3}],
        "opgen": {"compute": compute},
    }
    return prototype.loads(json.dumps(data)).ops[0]


INT_COMPARISONS = {
    "ne": "x != y",
    "ge": "x >= y",
    "lt": "x < y",
    "le": "x <= y",
    "gt": "x > y",
    "eq": "x == y",
    "ks": "k <= x",
    "kn": "x != k",
}


def test_int32_comparisons_into_bool_lower_to_the_integer_library_and_mean_them():
    """NotEqual/GreaterEqual/... on int32 into bool: opgen_kernel.h's CompareMask (EQ of max/min,
    Not for the complements) and Choose, each with a scratch tile none of its operands use;
    ties included."""
    op = int_compare_op(INT_COMPARISONS)
    c = context(op).compute
    body = step_body(c)
    assert c.type == "int32_t" and c.int_compares
    # against a tile and against the attr k: the library's CompareMask takes either
    assert "opgen_kernel::CompareMask(" in body and "tiling.k), AscendC::CMPMODE::NE" in body
    assert "AscendC::Compare(" not in body and "AscendC::Select(" not in body
    rng = np.random.default_rng(1)
    x, y = rng.integers(-4, 5, 256).astype(float), rng.integers(-4, 5, 256).astype(float)
    tiles = {"x": x, "y": y, **{o: np.full(256, np.nan) for o in INT_COMPARISONS}}
    out = interp.run(body, tiles, tiling_values(op, c))
    for name, text in INT_COMPARISONS.items():
        want = evaluate(op.compute[name], {"x": x, "y": y, "k": 3.0})
        np.testing.assert_array_equal(out[name], want, err_msg=f"{name}: {text}")


def test_int32_where_selects_exactly_through_choose():
    op = int_compare_op(
        {"a": "where(x > k, x, y)", "b": "where(x < y, 7, -x)", "c": "where(x == y, k, x)"},
        out_types=("int32",),
    )
    c = context(op).compute
    assert step_body(c).count("opgen_kernel::Choose(") == 3
    rng = np.random.default_rng(2)
    x, y = rng.integers(-6, 7, 128).astype(float), rng.integers(-6, 7, 128).astype(float)
    tiles = {"x": x, "y": y, **{o: np.full(128, np.nan) for o in "abc"}}
    out = interp.run(step_body(c), tiles, tiling_values(op, c))
    for name in "abc":
        want = evaluate(op.compute[name], {"x": x, "y": y, "k": 3.0})
        np.testing.assert_array_equal(out[name], want, err_msg=name)


def test_a_template_step_over_float_and_int32_compares_through_the_library():
    """GreaterEqual over float16/float32/int8/int32 with outputs in the inputs' dtype (a real
    prototype's form): one template step, through the library (which views the mask tile as
    bits, a dependent name there)."""
    op = int_compare_op(
        {"z": "x >= y"},
        types=("float16", "float32", "int8", "int32"),
        out_types=("float16", "float32", "int8", "int32"),
    )
    c = context(op).compute
    assert c.mode == "template"
    assert "opgen_kernel::CompareMask(tmp0, x, y, AscendC::CMPMODE::GE, cmpCount, tmp1);" in (
        step_body(c)
    )


@pytest.mark.parametrize(
    "text", ["max(x, y) - min(x, y)", "sign(x) + relu(y)", "min(x, 1) + max(2, y)"]
)
def test_a_template_step_over_float_and_int32_propagates_nan_as_torch(text):
    """max/min/sign/relu in a step templated over int32 and float (int8 computes in
    float): compare and select, as a float step does, so a float NaN propagates (the instructions
    let it lose: max(x, y) - min(x, y) was 0 for a NaN x); the int32 values stay exact."""
    op = int_compare_op(
        {"z": text}, types=("int32", "int8", "float32"), out_types=("int32", "int8", "float32")
    )
    c = context(op).compute
    assert c.mode == "template" and "opgen_kernel::CompareMask(" in step_body(c)
    x = np.array([np.nan, 1.0, -0.0, 3.0, -4.0, np.nan] * 16)
    y = np.array([2.0, np.nan, 0.0, 3.0, 5.0, np.nan] * 16)
    out = interp.run(step_body(c), {"x": x, "y": y, "z": np.full(96, 7.0)}, tiling_values(op, c))
    want = evaluate_torch(text, torch.tensor(x), torch.tensor(y)).numpy()
    np.testing.assert_array_equal(out["z"], want)


def evaluate_torch(text: str, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """max/min/sign/relu expressions as torch computes them."""

    def bound(f):
        return lambda a, b: f(torch.as_tensor(a, dtype=x.dtype), torch.as_tensor(b, dtype=x.dtype))

    names = {"max": bound(torch.maximum), "min": bound(torch.minimum), "sign": torch.sign}
    names["relu"] = torch.relu
    return eval(text, {"__builtins__": {}}, {**names, "x": x, "y": y})  # noqa: S307


def test_a_template_sign_without_int32_compare_is_refused():
    """On a target without Compare's int32_t form (ascend310p) a template step keeps the
    instructions, where sign() has no one form for float and int32."""
    op = int_compare_op(
        {"z": "sign(x)"}, types=("float32", "int32"), out_types=("float32", "int32")
    )
    with pytest.raises(LoweringError, match="sign\\(\\) computes differently"):
        context(op, socs=("ascend310p3",))


@pytest.mark.parametrize("a", [0.5, 2.0])
def test_where_on_an_attr_condition_selects_by_a_host_flag(a):
    """where(a > 1.0, ...): the host computes the condition, the kernel fills a tile with it and
    selects, so an inf in the branch not taken stays out (no a * flag + b * (1 - flag))."""
    op = make_op({"z": "where(a > 1.0, exp(x) * 1e38, y)"})
    c = context(op).compute
    assert "AscendC::Duplicate(" in step_body(c) and "AscendC::Select(" in step_body(c)
    x, y = np.linspace(0.5, 2.0, 64), np.linspace(-1.0, 1.0, 64)
    tiling = {**tiling_values(op, c), "a": a}
    tiling.update({h.field: (1.0 if a > 1.0 else 0.0) for h in c.host_scalars})
    out = interp.run(step_body(c), {"x": x, "y": y, "z": np.full(64, np.nan)}, tiling)
    want = np.exp(x) * 1e38 if a > 1.0 else y
    np.testing.assert_allclose(out["z"], want, rtol=1e-12)


def test_int16_comparisons_are_refused_naming_the_type():
    op = int_compare_op({"z": "x >= y"}, types=("int16",))
    with pytest.raises(LoweringError, match="int16_t, which asc-devkit's Compare and Select"):
        context(op)


@pytest.mark.parametrize("soc", ["ascend310p3", "ascend310b1"])
def test_int32_comparisons_are_refused_for_a_soc_without_int32_compare(soc):
    op = int_compare_op({"z": "x != y"})
    with pytest.raises(LoweringError, match="Compare.s int32_t form .* and Not, which ascend310"):
        context(op, socs=(soc,))


def test_lowering_error_is_a_value_error():
    assert issubclass(LoweringError, ValueError)


# ---------------------------------------------------------------------------------------------
# names
# ---------------------------------------------------------------------------------------------


def test_parameter_names_avoid_tensor_names():
    op = make_op(
        {"tmp0": "exp(count) * scratch + offset", "op": "tanh(count + offset)"},
        inputs=("count", "scratch", "offset"),
        attrs=(),
    )
    c = context(op).compute
    assert "uint32_t count1" in step_signature(c) and "& scratch1" in step_signature(c)
    assert "count1);" in step_body(c)
    check_meaning(op, lo=-1, hi=1)


def test_no_compute_expression_gives_a_loud_placeholder():
    data = {
        "op": "StubCustom",
        "input_desc": [{"name": "x", "type": ["fp16", "int8"], "format": "ND"}],
        "output_desc": [{"name": "y", "type": ["fp16", "int8"], "format": "ND"}],
    }
    ctx = context(prototype.loads(json.dumps(data)).ops[0])
    c = ctx.compute
    assert not c.has_expression and c.temps == 0
    assert "TODO(opgen)" in step_body(c) and "zeros" in step_body(c)
    assert c.template_params == ["TY", "TX"]  # float vs int8 per combination
    assert "AscendC::Duplicate(y.template ReinterpretCast<uint16_t>()" in step_body(c)


# ---------------------------------------------------------------------------------------------
# random expressions: the emitted step computes the expression
# ---------------------------------------------------------------------------------------------

_LEAVES = st.sampled_from(["x", "y", "a", "k", "flag", "0.5", "2", "1.25"])


def _tree(children):
    unary = st.tuples(st.sampled_from(["exp", "tanh", "sigmoid", "abs", "relu", "-"]), children)
    binary = st.tuples(st.sampled_from(["+", "-", "*", "/", "min", "max"]), children, children)
    power = st.tuples(st.just("**"), children, st.integers(2, 4))
    return st.one_of(unary, binary, power)


def _text(t) -> str:
    if isinstance(t, str):
        return t
    if t[0] == "**":
        return f"({_text(t[1])}) ** {t[2]}"
    if len(t) == 2:
        return f"-({_text(t[1])})" if t[0] == "-" else f"{t[0]}({_text(t[1])})"
    if t[0] in ("min", "max"):
        return f"{t[0]}({_text(t[1])}, {_text(t[2])})"
    return f"({_text(t[1])}) {t[0]} ({_text(t[2])})"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.recursive(_LEAVES, _tree, max_leaves=10), st.recursive(_LEAVES, _tree, max_leaves=6))
def test_random_expressions_compute_what_they_say(t1, t2):
    texts = {"s": f"x + ({_text(t1)})", "d": f"({_text(t2)}) * y"}  # each reads a tensor
    op = make_op(texts)
    with np.errstate(all="ignore"):
        env = {
            "x": np.linspace(0.5, 2, 8),
            "y": np.linspace(2, 0.5, 8),
            "a": 0.75,
            "k": 3.0,
            "flag": 1.0,
        }
        ref = [evaluate(op.compute[o], env) for o in ("s", "d")]
        if not all(np.all(np.isfinite(r)) and np.max(np.abs(r)) < 1e30 for r in ref):
            return  # overflowing expressions say nothing about the lowering
        try:
            for socs, arch in ((("ascend910b1",), None), (("ascend910b1", "ascend910a"), 1001)):
                check_meaning(op, socs=socs, arch=arch)
        except LoweringError as exc:  # only constant-folding failures are expected here
            assert "finite" in str(exc) or "zero" in str(exc)


def test_show_round_trips_through_the_parser():
    for text in [
        "0.5 * x * (1 + tanh(x))",
        "x - (y - 1)",
        "-(x + y)",
        "(x ** 2) ** 2",
        "x / (y * 2)",
        "min(x, -y) ** 3",
        "x ** -1.5 + clamp(y, -1, 2) * sign(x)",
        "-x ** 0.5",
    ]:
        tree = expr.parse_compute(text, {"x", "y"}, set())
        again = expr.parse_compute(expr.show(tree), {"x", "y"}, set())
        assert again == tree, expr.show(tree)
    assert not math.isnan(0.0)


# ---------------------------------------------------------------------------------------------
# comparisons, where() and bool outputs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "where(x == y, x, y * 2)",
        "where(x > 1, 1.0, 0.0)",
        "where(1 < x, x, 3)",  # a number on the left: the comparison is turned around
        "where(x <= y, 2, y)",  # a number where the mask is set: Duplicate, then Select
        "where(x != 1.5, x, a)",
        "(x >= y) * 3 + (x < 1)",
        "where(x == 1, y, where(x > 1, 1.0, 0.0))",  # Heaviside
        "where(x * y, x, y)",  # any tensor condition: nonzero is true
        "where(x > a, x, y) + where(x > a, y, x)",  # one mask for both
    ],
)
def test_comparisons_and_where_compute_what_they_say(text):
    op = make_op({"z": text})
    out = check_meaning(op, lo=0.5, hi=2.0)
    ties = check_meaning(op, lo=1.0, hi=1.0)  # every comparison meets equal operands
    assert out["__calls__"] and ties["__calls__"]


def test_one_mask_per_condition():
    c = compute("where(x > a, x, y) + where(x > a, y, x)")
    assert calls(c).count("Compares") == 1 and calls(c).count("Select") == 2


def test_compare_counts_whole_blocks_and_the_tiling_follows():
    c = compute("where(x > y, x, y)")
    assert "const uint32_t cmpCount = (count + 63) / 64 * 64;" in step_body(c)
    assert "AscendC::CMPMODE::GT, cmpCount);" in step_body(c)
    assert "AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, count);" in step_body(c)
    assert (c.align_elems, c.reserved_ub) == (64, 8192)
    plain = compute("x + y")
    assert (plain.align_elems, plain.reserved_ub) == (0, 0)
    assert "cmpCount" not in step_body(plain)


def test_comparisons_are_refused_on_ascend910_naming_it():
    with pytest.raises(LoweringError, match=r"output 'z'.*ascend910 lacks.*Select.md"):
        compute("where(x > 0, x, y)", socs=("ascend910b1", "ascend910a"))
    for soc in ("ascend310p3", "ascend310b1", "ascend950pr"):
        assert "Select" in calls(compute("where(x > 0, x, y)", socs=(soc,)))


def test_an_int32_comparison_is_a_number_in_arithmetic():
    check_meaning(make_op({"z": "(x > y) + x * (x == y)"}, types=("int32",)))


def bool_output_op(text: str):
    return prototype.loads(
        json.dumps(
            {
                "op": "BoolOutCustom",
                "input_desc": [
                    {"name": "x", "type": ["float16"], "format": ["ND"]},
                    {"name": "y", "type": ["float16"], "format": ["ND"]},
                ],
                "output_desc": [{"name": "z", "type": ["bool"], "format": ["ND"]}],
                "opgen": {"compute": {"z": text}},
            }
        )
    ).ops[0]


def test_a_bool_output_takes_a_comparison():
    with pytest.raises(LoweringError, match=r"a bool output takes a comparison.*'x \+ 1'"):
        context(bool_output_op("x + 1"))
    ctx = context(bool_output_op("x > y"))
    assert calls(ctx.compute) == ["Compare", "Duplicate", "Select"]
    assert [t.through_half for t in ctx.streamed] == [False, False, True]


def test_byte_dtypes_compute_in_float_through_half():
    op = prototype.loads(
        json.dumps(
            {
                "op": "ByteCustom",
                "input_desc": [
                    {"name": "q", "type": ["int8", "uint8"], "format": ["ND", "ND"]},
                    {"name": "m", "type": ["bool", "bool"], "format": ["ND", "ND"]},
                ],
                "output_desc": [
                    {"name": "z", "type": ["float16", "float"], "format": ["ND", "ND"]}
                ],
                "opgen": {"compute": {"z": "where(m, q * 0.5, -1)"}},
            }
        )
    ).ops[0]
    ctx = context(op)
    assert ctx.compute.mode == "float"
    assert [t.through_half for t in ctx.streamed] == [True, True, False]
    assert "const AscendC::LocalTensor<float>& q" in step_signature(ctx.compute)


def byte_output_op(text: str):
    return prototype.loads(
        json.dumps(
            {
                "op": "ByteOutCustom",
                "input_desc": [
                    {"name": "a", "type": ["int8"], "format": ["ND"]},
                    {"name": "b", "type": ["int8"], "format": ["ND"]},
                ],
                "output_desc": [{"name": "z", "type": ["int8"], "format": ["ND"]}],
                "opgen": {"compute": {"z": text}},
            }
        )
    ).ops[0]


@pytest.mark.parametrize(
    "text, ok",
    [
        ("where(a > b, a, b)", True),
        ("floor(a * 2.5) + b", True),
        ("max(a, b) * 2 - 1", True),
        ("a * 2.5", False),
        ("a / b", False),
        ("exp(a)", False),
    ],
)
def test_byte_outputs_take_integer_values(text, ok):
    if ok:
        assert context(byte_output_op(text)).compute.mode == "float"
    else:
        with pytest.raises(LoweringError, match=r"output 'z': where a is int8, b is int8, the "):
            context(byte_output_op(text))


def mixed_op(text: str, types=("float", "fp16", "int32", "int8")):
    return make_op({"z": text}, types=types, attrs=[])


def test_mixed_float_and_integer_combinations_judge_each_combination():
    """x + y is integer-valued where the inputs are int8 or int32: each combination computes in
    its own type (float, float, int32_t, float through half)."""
    c = context(mixed_op("x + y")).compute
    assert c.mode == "template" and calls(c) == ["Add"]


@pytest.mark.parametrize(
    "text, fragment",
    [
        # float-valued in the int8 combination: the advice is a float output, not floor()
        ("x / y", "give that combination a float output dtype"),
        # floor() has no int32 form: the message names the int32 combinations
        ("floor(x / y)", "the op's int32_t dtype combinations compute in that integer type"),
        # torch wraps x + y in int8 before max() sees it
        ("max(x + y, 0)", "'x + y' may leave -128..127 (it spans -256..254) before max()"),
        ("x + y >= 3", "before 'x + y >= 3'"),
        # beyond 2^22 the float computation of the int8 combination is no longer exact
        ("x * y * x * y", "may reach 268435456 in magnitude"),
    ],
)
def test_mixed_combinations_refuse_with_advice_that_works(text, fragment):
    with pytest.raises(LoweringError, match=re.escape(fragment)):
        context(mixed_op(text))


def test_float_valued_byte_output_without_integer_combinations_suggests_floor():
    with pytest.raises(LoweringError, match=r"or wrap it in floor\(\) or ceil\(\)"):
        context(mixed_op("x / y", types=("float", "int8")))
    assert context(mixed_op("floor(x / y)", types=("float", "int8"))).compute.mode == "float"


@pytest.mark.parametrize(
    "text", ["x + y", "x * y - abs(x) + 3", "clamp(x, 0, 3) + y", "max(x, y) - min(x, y)"]
)
def test_wrapping_byte_arithmetic_is_accepted(text):
    # clamp(x, -3, 3) is refused: torch clamps uint8 to [253, 3], -3 wrapped
    # (test_prototype_rules.py::test_a_whole_number_out_of_an_integer_inputs_range_is_a_problem)
    assert context(mixed_op(text, types=("int8", "uint8"))).compute.mode == "float"


SPECIAL_X = [math.nan, 1.0, -0.0, 0.0, math.inf, -math.inf, -2.0, 0.5, math.nan, -0.0]
SPECIAL_Y = [1.0, math.nan, 0.0, -0.0, 1.0, 1.0, math.nan, -math.inf, math.nan, -0.0]


@pytest.mark.parametrize(
    "text, torch_op",
    [
        ("max(x, y)", lambda x, y: torch.maximum(x, y)),
        ("min(x, y)", lambda x, y: torch.minimum(x, y)),
        ("relu(x)", lambda x, y: torch.relu(x)),
        ("max(x, 0.0)", lambda x, y: torch.clamp_min(x, 0.0)),
        ("min(0.25, x)", lambda x, y: torch.clamp_max(x, 0.25)),
        ("clamp(x, -1, 1)", lambda x, y: torch.clamp(x, -1, 1)),
        ("sign(x)", lambda x, y: torch.sign(x)),
        (
            "max(x, y) - min(y, x) + sign(y)",
            lambda x, y: torch.maximum(x, y) - torch.minimum(y, x) + torch.sign(y),
        ),
    ],
)
def test_nan_inf_and_signed_zero_come_out_as_torchs(text, torch_op):
    """The emitted step, run with the instructions' NaN rule (a NaN loses, as on the twin),
    gives torch's results: NaN propagates, sign(NaN) and sign(-0) are 0, and -0 stays -0 where
    torch keeps it (signbits compared too)."""
    op = make_op({"z": text})
    ctx = context(op, ("ascend910b1",))
    tiles = {"x": np.array(SPECIAL_X), "y": np.array(SPECIAL_Y), "z": np.full(10, np.nan)}
    with np.errstate(invalid="ignore"):
        got = interp.run(step_body(ctx.compute), tiles, tiling_values(op, ctx.compute))["z"]
    # float32, the compute type (torch's float64 kernels keep the other zero of a tie)
    want = (
        torch_op(
            torch.tensor(SPECIAL_X, dtype=torch.float32),
            torch.tensor(SPECIAL_Y, dtype=torch.float32),
        )
        .double()
        .numpy()
    )
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)  # a NaN's sign bit is no result
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


def test_without_compare_and_select_min_max_keep_the_instructions_and_say_so():
    """ascend910 (910A) has no Compare/Select tensor modes: max stays Max, NaN is not
    propagated there, and the op's warning says so."""
    ctx = context(make_op({"z": "max(x, y) + relu(x)"}), ("ascend910a",))
    assert calls(ctx.compute) == ["Max", "Relu", "Add"]
    assert any("do not propagate NaN" in w and "max/relu" in w for w in ctx.compute.warnings)


FLOOR_EDGES = [3e9, -3e9, 1e20, math.inf, -math.inf, 2.5, -2.5, math.nan, 8388607.5, -0.0]


@pytest.mark.parametrize("func", ["floor", "ceil"])
def test_floor_and_ceil_stay_exact_beyond_the_310p_domain(func):
    """ascend310p's Floor/Ceil take |x| <= 2147483647 only (the twin and the interpreter
    saturate beyond it, as through int32): with 310P among the targets the step selects x where
    |x| >= 2^23 (integral already), so huge values, +-inf and NaN come out as torch's."""
    op = make_op({"z": f"{func}(x)"})
    tiles = {
        "x": np.array(FLOOR_EDGES),
        "y": np.zeros(len(FLOOR_EDGES)),
        "z": np.full(len(FLOOR_EDGES), np.nan),
    }
    want = getattr(torch, func)(torch.tensor(FLOOR_EDGES, dtype=torch.float64)).numpy()
    guarded = context(op, ("ascend310p3",))
    got = interp.run(step_body(guarded.compute), tiles, tiling_values(op, guarded.compute), 2002)[
        "z"
    ]
    np.testing.assert_array_equal(got, want)
    bare = context(op, ("ascend910b1",))  # no guard: wrong on 310P
    assert calls(bare.compute) == [func.capitalize()]
    got = interp.run(step_body(bare.compute), tiles, tiling_values(op, bare.compute), 2002)["z"]
    assert not np.array_equal(got, want)


# -- ** with an exponent of attrs (LpNorm's p) ----------------------------------------------------


def test_an_attr_exponent_is_the_power_api_with_the_host_s_scalar():
    op = make_op({"z": "abs(x) ** a + x ** (1.0 / a)"})
    tree = op.compute["z"]
    assert expr.show(tree) == "abs(x) ** a + x ** (1 / a)"
    assert expr.to_torch(tree) == ("(torch.pow(torch.abs(x), a) + torch.pow(x, (1.0 / a)))")
    body = step_body(context(op).compute)
    assert "AscendC::Power(z, y, tiling.a, sharedTmp, count);" in body  # y holds abs(x)
    assert "AscendC::Power(y, x, 1.0f / tiling.a, sharedTmp, count);" in body
    assert op.unread_attrs == tuple(a for a in op.attrs if a.name != "a")


@pytest.mark.parametrize(
    "text, message",
    [
        ("x ** y", "'**' takes a constant exponent, not the tensor 'y'"),
        ("x ** (a * y)", "'**' takes a number or an expression of attrs as its exponent"),
        ("a ** a", "a power of numbers and attrs needs a tensor in it"),
    ],
)
def test_an_exponent_with_a_tensor_is_refused(text, message):
    with pytest.raises(PrototypeError) as info:
        make_op({"z": text})
    assert any(message in p.text() for p in info.value.problems), info.value.problems


def test_an_attr_exponent_needs_the_power_api_naming_the_soc_without_it():
    # exp(p * ln(x)) would be NaN for a negative x where torch's pow of an integral p is not
    with pytest.raises(LoweringError, match="needs the Power API .* which ascend310b lacks"):
        compute("x ** a", socs=("ascend910b1", "ascend310b1"))
    assert "Power" in calls(compute("x ** a", socs=("ascend310p3",)))


def index_op(compute: str, types=("float",), golden="torch.tril(x, diagonal)", reduce=False):
    data = {
        "op": "TrilCustom",
        "input_desc": [{"name": "x", "type": list(types), "format": ["ND"]}],
        "output_desc": [{"name": "y", "type": list(types), "format": ["ND"]}],
        "attr": [{"name": "diagonal", "type": "int", "default_value": 0}],
        "opgen": {"compute": {"y": compute}, **({"golden": {"y": golden}} if golden else {})},
    }
    return prototype.loads(json.dumps(data)).ops[0]


TRIL = "where(index(-1) <= index(-2) + diagonal, x, 0)"


def test_index_lowers_to_create_vec_index_and_axis_index():
    k = context(index_op(TRIL))
    c = k.compute
    body = step_body(c)
    assert body.count("AscendC::CreateVecIndex(") == 2
    assert body.count("opgen_kernel::AxisIndex(") == 2
    assert "opgen_kernel::IndexStart(offset, tiling.index0Period)" in body
    assert "uint64_t offset" in step_signature(c)
    assert [a.dim for a in c.index_axes] == [-1, -2]
    fields = {f.name: f.type for f in k.tiling_fields}
    for name in ("index0StrideInv", "index0Period", "index1PeriodInv"):
        assert fields[name] == "float"


def test_an_op_without_index_keeps_its_step_signature():
    c = compute("x + y")
    assert "offset" not in step_signature(c)
    assert c.offset == "" and c.index_axes == ()


def test_index_is_refused_where_create_vec_index_is_missing():
    with pytest.raises(LoweringError, match="CreateVecIndex API, which ascend310p lacks"):
        context(index_op(TRIL), socs=("ascend310p3",))


def test_index_is_refused_on_an_integer_op():
    with pytest.raises(LoweringError, match="computes in float"):
        context(index_op("x * index(-1)", types=("int32",), golden="x"))


def test_index_is_refused_in_a_row_op():
    with pytest.raises(LoweringError, match="index\\(-1\\) is for elementwise ops"):
        context(index_op("x * index(-1) - sum(x)", golden="x"))


def test_index_needs_a_golden():
    with pytest.raises(PrototypeError) as info:
        index_op(TRIL, golden=None)
    assert any("has no default golden" in p.text() for p in info.value.problems)


def test_an_attr_only_index_reads_is_not_unread():
    data = {
        "op": "MaskCustom",
        "input_desc": [{"name": "x", "type": ["float"], "format": ["ND"]}],
        "output_desc": [{"name": "y", "type": ["float"], "format": ["ND"]}],
        "attr": [{"name": "d", "type": "int", "default_value": 0}],
        "opgen": {"compute": {"y": "x * index(d)"}, "golden": {"y": "x"}},
    }
    op = prototype.loads(json.dumps(data)).ops[0]
    assert op.unread_attrs == ()
    host = context(op).compute
    assert [a.dim for a in host.index_axes] == ["d"]


@pytest.mark.parametrize(
    "text, types, out, reason",
    [
        # torch computes int8 x * y in int8 (wrapping) and converts only then: 100 * 100 + 0
        # is 16.0, the kernel's float gave 10000.0
        ("x * y + x - y", ("int8",), "float32", "torch computes 'x \\* y' in int8"),
        ("x + y", ("uint8",), "float16", "torch computes 'x \\+ y' in uint8"),
        ("max(x, y) - min(x, y)", ("int8",), "float32", "in int8"),
        ("abs(x) * 0.5", ("int8",), "float32", "'abs\\(x\\)' in int8"),  # abs(-128) is -128
        ("-x + y * 0.5", ("int8",), "float32", "'-x' in int8"),
        ("x + y", ("bool",), "float32", "True \\+ True is True"),
        # torch refuses `-` of a bool: bool - bool, -bool, a comparison's value
        ("x - y", ("bool",), "float32", "'x - y' applies `-` to a bool value"),
        ("-x", ("bool",), "float32", "'-x' applies `-` to a bool value"),
        ("(x > y) - (x < y)", ("float32",), "float32", "applies `-` to a bool value"),
    ],
)
def test_what_torch_computes_in_a_narrow_integer_or_refuses_is_refused(text, types, out, reason):
    """A float output of int8/uint8/bool inputs: a part torch computes in the inputs' dtype and
    that may leave its range (torch wraps it, the kernel's float does not), and `-` of a bool
    (torch raises), are refused naming the output; int8/uint8 outputs wrap their result."""
    op = int_compare_op({"z": text}, types=types, out_types=(out,))
    with pytest.raises(LoweringError, match="compute expression of output 'z'.*" + reason):
        context(op)


@pytest.mark.parametrize(
    "text, types, out",
    [
        ("x * y + x - y", ("int8",), "int8"),  # an int8 output wraps as torch
        ("x * 1.0 * y + x - y", ("int8",), "float32"),  # torch computes it in float
        ("where(x > y, x, y) * 0.5", ("int8",), "float32"),
        ("x * y", ("bool",), "float32"),  # and of two bools: 0 or 1
        ("x - y", ("float32",), "float32"),
    ],
)
def test_integer_parts_that_stay_in_range_are_accepted(text, types, out):
    context(int_compare_op({"z": text}, types=types, out_types=(out,)))
