"""A string attr choosing an output's expression and with it its shape ("compute": {"z":
{"reduction": {"none": ..., "mean": ..., "sum": ...}}}, torch's MseLoss): the rules opgen
validate applies (frontend/choices.py), the tree it lowers to, and what each generated file does
with the attr (host TilingFunc/InferShape, the adapters, the fake kernel, the tests)."""

from __future__ import annotations

import json
import types

import pytest
import torch
from conftest import op
from kernel_host import twin

from opgen.frontend import expr, prototype
from opgen.frontend.problems import PrototypeError
from opgen.planning.tests import text_attr_cases

SQUARE = "(x - y) ** 2"
CHOICES = {
    "none": SQUARE,
    "mean": f"mean({SQUARE}, dim=None)",
    "sum": f"sum({SQUARE}, dim=None)",
}
REDUCTION = {
    "name": "reduction",
    "param_type": "optional",
    "type": "string",
    "default_value": "mean",
}
VALUES = {"reduction": ["none", "mean", "sum"]}


def mse(choices=None, values=VALUES, attrs=(REDUCTION,), key="reduction", **block):
    """An MseLoss over x and y whose shape the string attr reduction chooses."""
    opgen = {"compute": {"z": {key: CHOICES if choices is None else choices}}, **block}
    if values is not None:
        opgen["values"] = values
    return op(attr=list(attrs), opgen=opgen)


def problems_of(data) -> list[tuple[str, str]]:
    with pytest.raises(PrototypeError) as info:
        prototype.loads(json.dumps(data))
    return [(p.path, p.text()) for p in info.value.problems]


# --- the rules ---------------------------------------------------------------------------------


def test_the_choice_lowers_to_reductions_over_attr_chosen_axes():
    (model,) = prototype.loads(json.dumps(mse())).ops
    tree = model.compute["z"]
    axes = expr.Axes(dims=(), text="reduction", none=("none",))
    square = expr.Pow(expr.BinOp("-", expr.Tensor("x"), expr.Tensor("y")), 2)
    total = expr.Reduce("sum", square, axes, False, True)
    mean = expr.Reduce("mean", square, axes, False, True)
    # 'none' is the sum over no axis, as 'sum' is over every axis: one branch for both
    assert tree == expr.Call("where", (expr.TextCompare("==", "reduction", "mean"), mean, total))
    assert model.is_row and model.row_axes == axes
    assert model.unread_attrs == ()
    assert "no axis where reduction is 'none'" in expr.show(tree)


def test_the_default_golden_is_torch_s_choice_in_python():
    (model,) = prototype.loads(json.dumps(mse())).ops
    golden = model.golden["z"]
    assert golden == (
        "(x - y) ** 2 if reduction == 'none' else torch.mean((x - y) ** 2, dim=None) "
        "if reduction == 'mean' else torch.sum((x - y) ** 2, dim=None)"
    )


@pytest.mark.parametrize(
    "data, path, message",
    [
        (
            mse({**CHOICES, "avg": CHOICES["mean"]}),
            "compute.z.reduction.avg",
            "'avg' is not one of the values of 'reduction' ('none', 'mean', 'sum')",
        ),
        (
            mse({k: v for k, v in CHOICES.items() if k != "sum"}),
            "compute.z.reduction",
            "has no expression for reduction='sum'",
        ),
        (mse(values=None), "compute.z.reduction", "whose accepted values are not declared"),
        (mse(key="reductoin"), "compute.z.reductoin", "'reductoin' is not an attr of this op"),
        (
            mse(
                key="n",
                attrs=[REDUCTION, {**REDUCTION, "name": "n", "type": "int", "default_value": 1}],
            ),
            "compute.z.n",
            "'n' is an attr of type int; a choice of expressions takes a string attr",
        ),
        (
            mse({**CHOICES, "sum": f"sum({SQUARE}, dim=0)"}),
            "compute.z.reduction.sum",
            "reduces dim=0 where another choice of 'reduction' reduces dim=None",
        ),
        (
            mse({**CHOICES, "sum": f"sum({SQUARE}, dim=None, keepdim=True)"}),
            "compute.z.reduction.sum",
            "keepdim=False, so that the attr picks the output's shape",
        ),
        (
            mse({**CHOICES, "sum": f"x - sum({SQUARE}, dim=None)"}),
            "compute.z.reduction.sum",
            "mixes reduced values with the elements beside them",
        ),
        (
            mse({k: SQUARE for k in CHOICES}),
            "compute.z.reduction",
            "every choice of 'reduction' has the same shape",
        ),
        (
            mse({**CHOICES, "sum": "sum((x - y) ** 2, dim=None"}),
            "compute.z.reduction.sum",
            "compute expression: not a valid expression",
        ),
        (
            mse(
                values={"reduction": ["none", "sum"]},
                choices={"none": SQUARE, "sum": CHOICES["sum"]},
            ),
            "values.reduction",
            "the default of 'reduction', 'mean', is not one of its values",
        ),
    ],
)
def test_bad_choices_are_refused_naming_the_attr_and_value(data, path, message):
    found = problems_of(data)
    assert any(p == f"$.opgen.{path}" and message in text for p, text in found), found


def test_a_choice_is_keyed_by_one_attr():
    data = mse()
    data["opgen"]["compute"]["z"]["other"] = CHOICES
    ((path, text),) = problems_of(data)
    assert path == "$.opgen.compute.z"
    assert "keyed by one string attr" in text


# --- what the generated op does ----------------------------------------------------------------


@pytest.fixture(scope="module")
def files():
    proto = prototype.loads(json.dumps(mse()))
    rendered = twin.render_files(proto, twin.options(), full=True)
    return {f.path: f.content.decode() for f in rendered}


def test_the_host_reduces_no_axis_for_none(files):
    host = files["op_host/add_custom.cpp"]
    tiling_func, infer_shape = host.split("static ge::graphStatus InferShape")[:2]
    dims = (
        'opgen::RowDims dims = opgen::NoAxesWhen(opgen::AttrText(context->GetAttrs(), 0, "mean"), '
        '{"none"},'
    )
    for part in (tiling_func, infer_shape):
        assert dims in part
        assert 'opgen::AttrOneOf("AddCustom", "reduction"' in part
    # the choice of mean and sum: the host's flag, as for where(reduction == "mean", ...)
    assert 'std::strcmp(reductionAttr, "mean") == 0 ? 1.0 : 0.0' in tiling_func
    assert "opgen::SetRowOutputShape(context, 0, *rows, true, false, dims)" in infer_shape


def test_the_adapters_and_the_fake_kernel_read_the_attr_for_the_axes(files):
    cpu = files["p/csrc/ops.cpp"]
    assert 'opgen_torch::OneOf(reduction, {"none"})' in cpu
    assert cpu.index('AttrOneOf("AddCustom"') < cpu.index("RowShapes(")
    ops = files["p/ops.py"]
    assert '_row_shapes("AddCustom", (), reduction in ("none",), x=x, y=y)' in ops
    assert ops.index("_attr_one_of(") < ops.index("_row_shapes(")


def test_the_tests_pass_each_value_over_every_shape(files):
    tests = files["tests/test_add_custom.py"]
    assert "def test_precision_reduction_values(dtypes, shape, value):" in tests
    assert "def test_fake_kernel_matches_host_infer_reduction_values(dtypes, value):" in tests
    assert "AddCustom: reduction='undeclared' is not one of its values" in tests
    (case,) = text_attr_cases(prototype.loads(json.dumps(mse())).ops[0])
    assert case.shapes


def test_the_fake_kernel_checks_shapes_by_the_attr(files):
    module = types.ModuleType("support")
    exec(compile(files["p/_support.py"], "_support.py", "exec"), module.__dict__)

    def check(x, y, none):
        try:
            module._row_shapes(
                "AddCustom",
                (),
                none,
                x=torch.empty(x, device="meta"),
                y=torch.empty(y, device="meta"),
            )
        except RuntimeError as exc:
            return str(exc)
        return None

    # no axis: any shape, the other input the same one (no row of x to broadcast); empty is fine
    assert check((4, 37, 5), (4, 37, 5), True) is None
    assert check((0, 3), (0, 3), True) is None
    assert check((), (), True) is None
    assert check((4, 37), (37,), True) == (
        "AddCustom: y has shape [37]; a row op's inputs take x's shape [4, 37]"
    )
    # every axis: the row rule, rows of 0 elements refused
    assert check((4, 37), (4, 37), False) is None
    assert "or its row [4, 37]" in check((4, 37), (37,), False)
    assert "rows of 0 elements" in check((0, 3), (0, 3), False)
