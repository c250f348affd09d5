"""A string attr compared with a string literal in compute (where(reduction == "mean", ...)),
its declared values ("opgen": {"values"}), and what the generated op makes of them: the host's
strcmp flag and checks, the adapters' and the fake kernel's refusals, the tests of each value."""

from __future__ import annotations

import json

import pytest
from conftest import op
from kernel_host import twin

from opgen.frontend import expr, prototype
from opgen.frontend.problems import PrototypeError
from opgen.planning.tests import text_attr_cases

ATTR_TYPES = {"reduction": "string", "p": "float"}

GRAD = "2 * (x - y)"
MEAN = f"{GRAD} / sum(where(x == x, 1, 1), dim=None)"
COMPUTE = f'where(reduction == "mean", {MEAN}, {GRAD})'
REDUCTION = {
    "name": "reduction",
    "param_type": "optional",
    "type": "string",
    "default_value": "mean",
}
VALUES = {"reduction": ["none", "mean", "sum"]}


def mse(compute=COMPUTE, values=VALUES, attr=REDUCTION, **block):
    """An MseLossGrad-like op over x and y choosing its formula by the string attr reduction."""
    opgen = {"compute": {"z": compute}, **block}
    if values is not None:
        opgen["values"] = values
    return op(attr=[attr], opgen=opgen)


def parse(text):
    return expr.parse_compute(
        text, {"x", "y"}, {"p"}, {"reduction": "is a string attr"}, ATTR_TYPES
    )


def problems_of(data) -> list[tuple[str, str]]:
    with pytest.raises(PrototypeError) as info:
        prototype.loads(json.dumps(data))
    return [(p.path, p.text()) for p in info.value.problems]


# --- the expression ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ['reduction == "mean"', '"mean" == reduction'])
def test_a_string_attr_compares_with_a_literal_either_side_first(text):
    tree = parse(f"where({text}, x, y)")
    assert tree.args[0] == expr.TextCompare("==", "reduction", "mean")
    assert not tree.args[0].is_tensor
    assert expr.show(tree) == 'where(reduction == "mean", x, y)'
    assert expr.to_torch(tree) == "(x if (reduction == 'mean') else y)"
    assert expr.names_in(tree) == {"x", "y", "reduction"}


def test_not_equal_is_kept():
    tree = parse("where(reduction != 'sum', x, 0)")
    assert tree.args[0] == expr.TextCompare("!=", "reduction", "sum")


@pytest.mark.parametrize(
    "text, message",
    [
        ('where(reduction < "mean", x, y)', "orders strings: compare a string attr with == or !="),
        ('where(reduction >= "mean", x, y)', "orders strings"),
        ("where(reduction == x, x, y)", "compare a string attr with a string literal"),
        ("where(reduction == p, x, y)", "compare a string attr with a string literal"),
        ('where("a" == "b", x, y)', "compare a string attr with a string literal"),
        ('x + "mean"', "may only be compared with a string attr"),
        ("where(reduction, x, y)", "'reduction' is a string attr"),
        ("x * reduction", "'reduction' is a string attr"),
    ],
)
def test_other_uses_of_strings_are_refused(text, message):
    with pytest.raises(expr.ExprError, match=message):
        parse(text)


def test_a_golden_may_choose_on_an_attr():
    text = 'x.numel() if reduction == "mean" else 1'
    assert expr.parse_golden(text, {"x", "reduction"}) == "x.numel() if reduction == 'mean' else 1"


# --- the prototype's rules ---------------------------------------------------------------------


def test_the_declared_values_reach_the_model():
    (model,) = prototype.loads(json.dumps(mse())).ops
    (attr,) = model.attrs
    assert attr.values == ("none", "mean", "sum")
    assert model.checked_attrs == (attr,)
    assert model.unread_attrs == ()  # a compared attr is read


def test_a_compared_string_attr_needs_declared_values():
    ((path, text),) = problems_of(mse(values=None))
    assert path == "$.opgen.compute.z"
    assert "reduction == \"mean\" compares the string attr 'reduction'" in text
    assert '"values": {"reduction": [...]}' in text


def test_a_compared_literal_must_be_a_declared_value():
    ((path, text),) = problems_of(mse(compute=COMPUTE.replace('"mean"', '"maen"')))
    assert path == "$.opgen.compute.z"
    assert "'maen' is not one of the values of 'reduction' ('none', 'mean', 'sum')" in text
    assert "could never hold" in text and "did you mean 'mean'" in text


def test_the_default_must_be_a_declared_value():
    ((path, text),) = problems_of(mse(attr={**REDUCTION, "default_value": "avg"}))
    assert path == "$.opgen.values.reduction"
    assert "the default of 'reduction', 'avg', is not one of its values" in text


def test_a_required_attr_has_no_default_to_check():
    attr = {"name": "reduction", "param_type": "required", "type": "string"}
    (model,) = prototype.loads(json.dumps(mse(attr=attr))).ops
    assert model.attrs[0].values == ("none", "mean", "sum")


@pytest.mark.parametrize(
    "values, message",
    [
        ({"reduce": ["mean"]}, "'reduce' is not an attr of this op"),
        ({"p": ["1"]}, "'p' is a float attr; values lists a string attr's values"),
    ],
)
def test_values_name_a_compared_string_attr(values, message):
    data = mse(values={**VALUES, **values})
    data["attr"].append(
        {"name": "p", "param_type": "optional", "type": "float", "default_value": 1}
    )
    found = problems_of(data)
    assert any(message in text for _, text in found), found


def test_values_of_an_attr_no_compute_compares_are_refused():
    data = mse(compute=GRAD)
    ((path, text),) = problems_of(data)
    assert path == "$.opgen.values.reduction"
    assert "no compute expression compares 'reduction'" in text


@pytest.mark.parametrize(
    "values", [{"reduction": []}, {"reduction": ["mean", "mean"]}, {"reduction": "mean"}]
)
def test_the_schema_takes_a_list_of_distinct_strings(values):
    found = problems_of(mse(values=values))
    assert any(path.startswith("$.opgen.values.reduction") for path, _ in found), found


# --- what the generated op does ----------------------------------------------------------------


@pytest.fixture(scope="module")
def files():
    proto = prototype.loads(json.dumps(mse()))
    rendered = twin.render_files(proto, twin.options(), full=True)
    return {f.path: f.content.decode() for f in rendered}


def test_the_host_computes_the_flag_and_checks_the_value(files):
    host = files["op_host/add_custom.cpp"]
    tiling_func, infer_shape = host.split("static ge::graphStatus InferShape")[:2]
    read = 'const char* reductionAttr = opgen::AttrText(context->GetAttrs(), 0, "mean");'
    check = 'opgen::AttrOneOf("AddCustom", "reduction", reductionAttr, {"none", "mean", "sum"})'
    assert read in tiling_func and check in tiling_func
    assert 'std::strcmp(reductionAttr, "mean") == 0 ? 1.0 : 0.0' in tiling_func
    assert (
        'opgen::AttrOneOf("AddCustom", "reduction", opgen::AttrText(context->GetAttrs(), 0, '
        '"mean"), {"none", "mean", "sum"})' in infer_shape
    )
    # InferShape is the op's own (the shared InferShapeLikeInput checks no attr)
    assert "SetInferShape(optiling::add_custom::InferShape)" in host


def test_the_kernel_selects_by_the_flag(files):
    compute = files["op_kernel/add_custom_compute.h"]
    assert "AscendC::Duplicate(" in compute and "tiling.scalar0" in compute
    assert "AscendC::CMPMODE::NE" in compute


def test_the_adapters_and_the_fake_kernel_refuse_other_values(files):
    check = 'AttrOneOf("AddCustom", "reduction", reduction, {"none", "mean", "sum"});'
    assert f"opgen_torch::{check}" in files["p/csrc/ops.cpp"]
    assert f"opgen_npu::{check}" in files["p/csrc_npu/add_custom_npu.cpp"]
    ops = files["p/ops.py"]
    assert '_attr_one_of("AddCustom", "reduction", reduction, ("none", "mean", "sum"))' in ops


def test_the_tests_pass_each_value_and_an_undeclared_one(files):
    tests = files["tests/test_add_custom.py"]
    assert '@pytest.mark.parametrize("value", ["none", "mean", "sum"])' in tests
    assert "def test_precision_reduction_values(dtypes, value):" in tests
    assert 'SPEC.with_attr("reduction", "undeclared")' in tests
    assert "AddCustom: reduction='undeclared' is not one of its values" in tests
    # the converter test passes a declared value other than the default
    assert '"reduction": {"type": "string", "value": "none"}' in tests


def test_an_undeclared_name_for_the_refusal_avoids_the_values():
    values = {"reduction": ["mean", "undeclared"]}
    proto = prototype.loads(json.dumps(mse(values=values)))
    (case,) = text_attr_cases(proto.ops[0])
    assert case.undeclared == '"undeclared_"'


# --- an attr no compute compares, declared with its default alone ------------------------------


def test_an_uncompared_attr_may_declare_its_default_alone():
    """InstanceNorm's data_format: the kernel computes 'NHWC' only, so the op declares that one
    value and refuses every other on every path (not only in the PyTorch op)."""
    (model,) = prototype.loads(json.dumps(mse(compute=GRAD, values={"reduction": ["mean"]}))).ops
    (attr,) = model.attrs
    assert model.checked_attrs == (attr,) and attr.values == ("mean",)
    assert model.unread_attrs == ()  # checked by value, not by the unread-attr default check
    assert model.fixed_attrs == ()


REQUIRED = {"name": "reduction", "param_type": "required", "type": "string"}


@pytest.mark.parametrize(
    "values, attr",
    [
        ({"reduction": ["none"]}, REDUCTION),
        ({"reduction": ["mean", "sum"]}, REDUCTION),
        ({"reduction": ["mean"]}, {**REQUIRED}),
    ],
)
def test_an_uncompared_attr_declares_no_value_but_its_default(values, attr):
    ((path, text),) = problems_of(mse(compute=GRAD, values=values, attr=attr))
    assert path == "$.opgen.values.reduction"
    assert "no compute expression compares 'reduction'" in text
    assert "unless they are its default alone" in text


def test_the_generated_op_refuses_another_value_of_an_uncompared_attr():
    proto = prototype.loads(json.dumps(mse(compute=GRAD, values={"reduction": ["mean"]})))
    rendered = twin.render_files(proto, twin.options(), full=True)
    files = {f.path: f.content.decode() for f in rendered}
    host = files["op_host/add_custom.cpp"]
    tiling_func, infer_shape = host.split("static ge::graphStatus InferShape")[:2]
    check = 'opgen::AttrOneOf("AddCustom", "reduction", reductionAttr, {"mean"})'
    assert check in tiling_func
    assert '"reduction", opgen::AttrText(context->GetAttrs(), 0, "mean"), {"mean"})' in infer_shape
    assert (
        'opgen_torch::AttrOneOf("AddCustom", "reduction", reduction, {"mean"});'
        in files["p/csrc/ops.cpp"]
    )
    assert '_attr_one_of("AddCustom", "reduction", reduction, ("mean",))' in files["p/ops.py"]
    assert 'SPEC.with_attr("reduction", "undeclared")' in files["tests/test_add_custom.py"]
