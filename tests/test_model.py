"""Derived signatures: the aclnn API (CANN's aclnn generator rules) and the PyTorch schema."""

from __future__ import annotations

import json

import pytest
from conftest import op

from opgen.frontend import prototype


def model(**overrides):
    (m,) = prototype.loads(json.dumps(op(**overrides))).ops
    return m


def t(name, param_type="required", types=("fp16",)):
    return {"name": name, "param_type": param_type, "format": ["ND"], "type": list(types)}


def attr(name, attr_type, default=None):
    entry = {
        "name": name,
        "type": attr_type,
        "param_type": "required" if default is None else "optional",
    }
    if default is not None:
        entry["default_value"] = default
    return entry


def test_add_custom_signatures():
    m = model(input_desc=[t("x"), t("y")], output_desc=[t("z")])
    assert m.aclnn.prototype() == (
        "aclnnStatus aclnnAddCustomGetWorkspaceSize(const aclTensor *x, const aclTensor *y, "
        "const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)"
    )
    assert m.torch_schema == "add_custom(Tensor x, Tensor y) -> Tensor"


def test_aclnn_argument_rules():
    m = model(
        op="NormCustom",
        input_desc=[t("x"), t("gamma_in", "optional"), t("parts", "dynamic"), t("residual")],
        output_desc=[t("y_out"), t("residual")],
        attr=[
            attr("epsilon", "float", 1e-5),
            attr("mode", "string", "fast"),
            attr("axes", "list_int", [1]),
            attr("group_count", "int"),
            attr("flags", "list_bool", [True]),
            attr("keep", "bool", False),
            attr("scales", "list_float"),
        ],
    )
    got = [(a.name, a.c_type, a.role) for a in m.aclnn.args]
    assert got == [
        ("x", "const aclTensor *", "input"),
        ("gammaInOptional", "const aclTensor *", "input"),
        ("parts", "const aclTensorList *", "input"),
        ("residualRef", "aclTensor *", "input"),
        ("epsilon", "double", "attr"),  # optional scalar attrs keep their name
        ("modeOptional", "char *", "attr"),  # optional string/list attrs get "Optional"
        ("axesOptional", "const aclIntArray *", "attr"),
        ("groupCount", "int64_t", "attr"),
        ("flagsOptional", "const aclBoolArray *", "attr"),
        ("keep", "bool", "attr"),
        ("scales", "const aclFloatArray *", "attr"),
        ("yOutOut", "const aclTensor *", "output"),  # several outputs (the ref counts too)
    ]
    assert m.aclnn.name == "aclnnNormCustom"


def test_two_outputs_are_named_out():
    m = model(input_desc=[t("x"), t("y")], output_desc=[t("z"), t("w")])
    assert [a.name for a in m.aclnn.args if a.role == "output"] == ["zOut", "wOut"]
    assert m.torch_schema == "add_custom(Tensor x, Tensor y) -> (Tensor, Tensor)"


def test_torch_schema_types_and_defaults():
    m = model(
        input_desc=[t("x"), t("bias", "optional"), t("parts", "dynamic")],
        output_desc=[t("z")],
        attr=[
            attr("n", "int"),
            attr("alpha", "float", 0.01),
            attr("mode", "string", 'a"b\\c'),
            attr("dims", "list_int", [1, 2]),
            attr("ws", "list_float", [0.5]),
            attr("fs", "list_bool", [True, False]),
            attr("on", "bool", True),
            attr("k", "int", -3),
        ],
    )
    assert m.torch_schema == (
        "add_custom(Tensor x, Tensor? bias, Tensor[] parts, int n, float alpha=0.01, "
        'str mode="a\\"b\\\\c", int[] dims=[1, 2], float[] ws=[0.5], bool[] fs=[True, False], '
        "bool on=True, int k=-3) -> Tensor"
    )


def test_default_before_a_required_argument_is_dropped_with_a_warning():
    data = op(
        input_desc=[t("x"), t("y")],
        output_desc=[t("z")],
        attr=[attr("alpha", "float", 1.0), attr("n", "int")],
    )
    proto = prototype.loads(json.dumps(data))
    assert (
        proto.ops[0].torch_schema == "add_custom(Tensor x, Tensor y, float alpha, int n) -> Tensor"
    )
    assert any("cannot keep the default of 'alpha'" in w for w in proto.warnings)


def test_optional_tensor_gets_none_default_when_trailing():
    m = model(input_desc=[t("x"), t("y", "optional")], output_desc=[t("z")])
    assert m.torch_schema == "add_custom(Tensor x, Tensor? y=None) -> Tensor"


def test_schemas_parse_with_torch():
    torch = pytest.importorskip("torch")
    m = model(
        input_desc=[t("x"), t("bias", "optional")],
        output_desc=[t("x"), t("w")],
        attr=[
            attr("mode", "string", "tan\nh"),
            attr("dims", "list_int", [1, 2]),
            attr("eps", "float", 1e-12),
            attr("pads", "list_list_int", None),
        ],
    )
    assert "pads" in m.torch_schema
    schema = torch._C.parse_schema(m.torch_schema)
    assert [a.name for a in schema.arguments] == ["x", "bias", "mode", "dims", "eps", "pads"]
    assert schema.arguments[0].alias_info.is_write


def test_optional_output_signatures():
    # InstanceNorm-like: the optional output keeps the output naming rules (out / <name>Out)
    # and is a nullable `const aclTensor *`; the PyTorch op always returns it.
    m = model(input_desc=[t("x")], output_desc=[t("y"), t("mean", "optional")])
    assert m.aclnn.prototype() == (
        "aclnnStatus aclnnAddCustomGetWorkspaceSize(const aclTensor *x, const aclTensor *yOut, "
        "const aclTensor *meanOut, uint64_t *workspaceSize, aclOpExecutor **executor)"
    )
    assert m.torch_schema == "add_custom(Tensor x) -> (Tensor, Tensor)"
    single = model(input_desc=[t("x")], output_desc=[t("y", "optional")])
    assert [a.name for a in single.aclnn.args] == ["x", "out"]
    assert single.torch_schema == "add_custom(Tensor x) -> Tensor"


def test_op_without_outputs_signatures():
    m = model(
        input_desc=[t("var", types=("fp16", "float")), t("index_data", types=("int32", "int32"))],
        output_desc=[],
        attr=[attr("axis", "int", 0)],
    )
    # aclnn: only inputs and attrs; no same-name output, so no <name>Ref (ascend-c.md §5)
    assert m.aclnn.prototype() == (
        "aclnnStatus aclnnAddCustomGetWorkspaceSize(const aclTensor *var, "
        "const aclTensor *indexData, int64_t axis, uint64_t *workspaceSize, "
        "aclOpExecutor **executor)"
    )
    # PyTorch: every tensor input mutable, nothing returned
    assert m.torch_schema == ("add_custom(Tensor(a!) var, Tensor(b!) index_data, int axis=0) -> ()")
    assert m.as_json()["dtypes"] == [["float16", "int32"], ["float32", "int32"]]


def test_op_without_outputs_schema_parses_with_torch():
    torch = pytest.importorskip("torch")
    m = model(input_desc=[t("x"), t("y")], output_desc=[])
    schema = torch._C.parse_schema(m.torch_schema)
    assert [a.alias_info.is_write for a in schema.arguments] == [True, True]
    assert schema.returns == []


def test_dtype_combinations_are_columns():
    m = model(
        input_desc=[t("x", types=("fp16", "float")), t("y", types=("bf16", "int32"))],
        output_desc=[t("z", types=("fp16", "float"))],
    )
    assert m.dtype_combinations == (
        ("float16", "bfloat16", "float16"),
        ("float32", "int32", "float32"),
    )
