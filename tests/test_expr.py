"""The compute tree and the default golden it yields."""

from __future__ import annotations

import math

import pytest

from opgen.frontend import expr


def parse(text):
    return expr.parse_compute(text, {"x", "y"}, {"alpha", "n"})


def test_tree_shape_and_tensor_flags():
    node = parse("0.5 * x * (1 + tanh(x ** 3))")
    assert isinstance(node, expr.BinOp) and node.op == "*" and node.is_tensor
    assert expr.names_in(node) == {"x"}
    assert parse("-alpha * x").left == expr.Neg(expr.Scalar("alpha"))


@pytest.mark.parametrize(
    "text",
    [
        "0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))",
        "max(x, 0.0) + alpha * min(x, 0.0)",
        "x * sigmoid(x)",
        "rsqrt(abs(x) + 1)",
        "reciprocal(1 + exp(-x))",
        "relu(x - y) / y",
        "log(sqrt(x * x + 1))",
        "min(alpha, x) + max(y, n)",
        "x ** 2 + y ** 4",
        "sign(x - 1) * floor(y * 3) + ceil(x) - erf(y)",
        "log1p(x) + expm1(-y)",
        "clamp(x, 0.5, alpha * 8) + clamp(alpha, 0, 1)",
        "x ** -1.5 + y ** 3.7 + x ** (1 / 3)",
        "x ** 7 - y ** -2",
        "where(x > y, x, y * 2) + (x <= 1.7) * 3",
        "where(x == 0.3, y, where(x > 1, 1.0, 0.0))",
        "where(x - 1.7, 1, y) + where(alpha > 0, x, y) + (alpha < n)",
        "(x != y) + (1 >= x)",
    ],
)
def test_default_golden_computes_the_same_function(text):
    torch = pytest.importorskip("torch")
    golden = expr.to_torch(parse(text))
    x = torch.tensor([0.3, 1.7, 2.5], dtype=torch.float64)
    y = torch.tensor([1.1, 0.4, 3.0], dtype=torch.float64)
    env = {"x": x, "y": y, "alpha": 0.25, "n": 2}
    fn = {
        "exp": math.exp,
        "log": math.log,
        "sqrt": math.sqrt,
        "rsqrt": lambda v: v**-0.5,
        "abs": abs,
        "reciprocal": lambda v: 1 / v,
        "tanh": math.tanh,
        "sigmoid": lambda v: 1 / (1 + math.exp(-v)),
        "relu": lambda v: max(v, 0.0),
        "min": min,
        "max": max,
        "sign": lambda v: float((v > 0) - (v < 0)),
        "floor": math.floor,
        "ceil": math.ceil,
        "erf": math.erf,
        "log1p": math.log1p,
        "expm1": math.expm1,
        "clamp": lambda v, lo, hi: min(max(v, lo), hi),
        "where": lambda c, a, b: a if c else b,
    }
    for i in range(3):
        scalar_env = {**fn, "x": float(x[i]), "y": float(y[i]), "alpha": 0.25, "n": 2}
        expected = eval(text, {"__builtins__": {}}, scalar_env)  # test data only
        got = eval(golden, {"torch": torch}, env)[i]  # as in the generated golden module
        assert math.isclose(float(got), expected, rel_tol=1e-12)


def test_comparisons_and_where_parse_and_show():
    node = parse("where(x == 0, y, where(x > 0, 1.0, 0.0))")
    assert node == expr.Call(
        "where",
        (
            expr.Compare("==", expr.Tensor("x"), expr.Const(0.0)),
            expr.Tensor("y"),
            expr.Call(
                "where",
                (
                    expr.Compare(">", expr.Tensor("x"), expr.Const(0.0)),
                    expr.Const(1.0),
                    expr.Const(0.0),
                ),
            ),
        ),
    )
    assert expr.show(node) == "where(x == 0, y, where(x > 0, 1, 0))"
    assert expr.show(parse("(x > y) * 2 + (x + 1 <= y)")) == "(x > y) * 2 + (x + 1 <= y)"
    # torch's bool + bool is a logical or: inside arithmetic a comparison is a number
    assert expr.to_torch(parse("(x > y) + (x < y)")) == "(((x > y) * 1) + ((x < y) * 1))"
    assert expr.to_torch(parse("x > y")) == "(x > y)"  # a bool output's golden stays bool


@pytest.mark.parametrize(
    "text, message",
    [
        ("0 < x < 1", "chains comparisons"),
        ("x in y", "compares with < <= > >= == != only"),
        ("where(x, y)", r"where\(\) takes 3 arguments, got 2 \(where\(cond, a, b\)\)"),
    ],
)
def test_comparison_errors_say_what_to_write(text, message):
    with pytest.raises(expr.ExprError, match=message):
        parse(text)


def test_index_parses_an_int_or_an_int_attr_dim():
    tree = expr.parse_compute(
        "where(index(-1) <= index(-2) + diagonal, x, 0)",
        {"x"},
        {"diagonal"},
        attr_types={"diagonal": "int"},
    )
    indexes = [n for n in expr.walk(tree) if isinstance(n, expr.Index)]
    assert [n.dim for n in indexes] == [-1, -2]
    assert all(n.is_tensor for n in indexes)
    assert expr.show(tree) == "where(index(-1) <= index(-2) + diagonal, x, 0)"
    by_attr = expr.parse_compute("x * index(d)", {"x"}, {"d"}, attr_types={"d": "int"})
    assert by_attr.right == expr.Index("d")


@pytest.mark.parametrize(
    "text, message",
    [
        ("x * index(p)", "'p' is a float attr; index() takes an int attr"),
        ("x * index(x)", "'x' is no attr"),
        ("x * index(1.5)", "index() takes an int (up to 64) or an int attr as its dim"),
        ("x * index()", "index() takes one argument, the dim"),
        ("x * index(-1, -2)", "index() takes one argument, the dim"),
        ("index(-1) + 1", "uses no input tensor"),
    ],
)
def test_index_errors_say_what_to_write(text, message):
    with pytest.raises(expr.ExprError) as info:
        expr.parse_compute(text, {"x"}, {"p"}, attr_types={"p": "float"})
    assert message in str(info.value)


def test_index_has_no_default_golden():
    tree = expr.parse_compute("x * index(-1)", {"x"}, set())
    with pytest.raises(expr.ExprError, match="index\\(-1\\) has no default golden"):
        expr.to_torch(tree)


def test_an_index_dim_attr_is_read():
    tree = expr.parse_compute("x * index(d)", {"x"}, {"d"}, attr_types={"d": "int"})
    assert expr.names_in(tree) == {"x", "d"}
