"""Every validation rule, each with a bad prototype and the message it must produce.

The rules come from msopgen (ascend-c.md §1.2, made errors where msopgen only warns and then
writes a broken project) and from opgen's own needs (names that reach C++, Python and aclnn).
"""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLES, SHARED_PROTOS, op

from opgen.frontend import prototype
from opgen.frontend.problems import PrototypeError


def problems_of(data) -> list[tuple[str, str]]:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(PrototypeError) as info:
        prototype.loads(text)
    return [(p.path, p.text()) for p in info.value.problems]


def only_problem(data) -> tuple[str, str]:
    found = problems_of(data)
    assert len(found) == 1, found
    return found[0]


def tensor(name, types=("fp16", "float"), **extra):
    return {"name": name, "param_type": "required", "format": ["ND"], "type": list(types), **extra}


# --- accepted inputs ---------------------------------------------------------------------------


SAMPLES = sorted(SHARED_PROTOS.glob("*.json")) + sorted(EXAMPLES.glob("*.json"))


def test_samples_are_present():
    assert len(SAMPLES) >= 5


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_shared_protos_and_examples_are_valid(path):
    proto = prototype.load(path)
    assert proto.ops


def test_single_object_and_tutorial_format():
    proto = prototype.load(SHARED_PROTOS / "gelu_custom.seed.json")
    (gelu,) = proto.ops
    assert gelu.op_type == "GELUCustom" and gelu.snake_name == "gelu_custom"
    assert gelu.inputs[0].dtypes == ("float16",) and gelu.inputs[0].formats == ("ND",)
    assert gelu.inputs[0].param_type == "required"  # the tutorial format has no param_type


@pytest.mark.parametrize(
    "alias, canonical",
    [
        ("fp16", "float16"),
        ("half", "float16"),
        ("float16", "float16"),
        ("float", "float32"),
        ("fp32", "float32"),
        ("float32", "float32"),
        ("bf16", "bfloat16"),
        ("bfloat16", "bfloat16"),
        ("double", "float64"),
        ("int8", "int8"),
        ("int16", "int16"),
        ("int32", "int32"),
        ("int64", "int64"),
        ("uint8", "uint8"),
        ("uint16", "uint16"),
        ("uint32", "uint32"),
        ("uint64", "uint64"),
        ("bool", "bool"),
    ],
)
def test_every_msopgen_dtype_alias_is_accepted(alias, canonical):
    data = op(input_desc=[tensor("x", [alias])], output_desc=[tensor("y", [alias])])
    (model,) = prototype.loads(json.dumps(data)).ops
    assert model.dtype_combinations == ((canonical, canonical),)


def test_language_is_ignored_and_format_defaults_to_nd():
    data = op(
        language="cpp",
        input_desc=[{"name": "x", "type": "fp16"}],
        output_desc=[{"name": "y", "type": "fp16"}],
    )
    (model,) = prototype.loads(json.dumps(data)).ops
    assert model.outputs[0].formats == ("ND",)


def test_kernel_name_disagreeing_with_the_rule_warns_and_uses_the_rule():
    data = op(op="GELUCustom", kernel_name="gelucustom")
    proto = prototype.loads(json.dumps(data))
    assert proto.ops[0].snake_name == "gelu_custom"
    assert any("looks the kernel up by the derived name" in w for w in proto.warnings)


def test_list_list_int_attr_is_accepted_without_aclnn():
    data = op(attr=[{"name": "pads", "param_type": "required", "type": "list_list_int"}])
    proto = prototype.loads(json.dumps(data))
    assert proto.ops[0].aclnn is None
    assert "int[][] pads" in proto.ops[0].torch_schema
    assert any("no aclnn API" in w for w in proto.warnings)


# --- JSON and schema level ---------------------------------------------------------------------


def test_syntax_error_reports_line_and_column():
    path, text = only_problem('[\n  {"op": "A",\n   "input_desc": [}\n]')
    assert path == "$" and "line 3, column" in text


def test_nan_is_rejected():
    _, text = only_problem('{"op": "A", "input_desc": [], "output_desc": [], "x": NaN}')
    assert "NaN is not valid JSON" in text


def test_duplicate_keys_are_rejected():
    _, text = only_problem('{"op": "A", "op": "B", "input_desc": [], "output_desc": []}')
    assert "duplicate key(s) in an object: op" in text


@pytest.mark.parametrize(
    "data, fragment",
    [
        ("42", "an op object or a list of op objects"),
        ("[]", "holds no op"),
    ],
)
def test_top_level_shape(data, fragment):
    assert fragment in only_problem(data)[1]


def test_misspelled_key_gets_did_you_mean():
    data = op()
    data["ouput_desc"] = data.pop("output_desc")
    found = problems_of([data])
    assert found == [
        (
            "$[0].ouput_desc",
            "unknown key 'ouput_desc': msopgen ignores it, so what "
            "it holds would be lost; did you mean 'output_desc'?",
        )
    ]


def test_misspelled_dtype_gets_path_value_and_suggestion():
    data = op(input_desc=[tensor("x"), tensor("y", ["fp61", "float"])])
    path, text = only_problem([data])
    assert path == "$[0].input_desc[1].type[0]"
    assert text == "unknown dtype: msopgen would drop it (got \"fp61\"); did you mean 'fp16'?"


@pytest.mark.parametrize(
    "dtype, fragment",
    [
        ("qint8", "no element type"),
        ("all", "list the dtypes explicitly"),
        ("float64", "write 'double'"),
    ],
)
def test_msopgen_dtypes_opgen_refuses_say_why(dtype, fragment):
    data = op(input_desc=[tensor("x", [dtype])], output_desc=[tensor("z", ["fp16"])])
    path, text = problems_of(data)[0]
    assert path == "$.input_desc[0].type[0]" and fragment in text


def test_unknown_format_gets_suggestion():
    data = op(input_desc=[tensor("x", format=["NDD"]), tensor("y")])
    path, text = only_problem(data)
    assert path == "$.input_desc[0].format[0]" and "did you mean 'ND'?" in text


def test_bad_param_type_gets_suggestion():
    data = op(input_desc=[tensor("x", param_type="requierd"), tensor("y")])
    path, text = only_problem(data)
    assert path == "$.input_desc[0].param_type"
    assert "did you mean 'required'?" in text


def test_attr_type_without_opattrdef_method_is_an_error():
    data = op(attr=[{"name": "names", "type": "list_string"}])
    path, text = only_problem(data)
    assert path == "$.attr[0].type" and "has no ops::OpAttrDef method" in text


@pytest.mark.parametrize("name", ["add-custom", "addCustom", "Add_Custom", "../Evil", ""])
def test_op_type_must_be_upper_camel_case(name):
    path, text = only_problem(op(op=name))
    assert path == "$.op" and "UpperCamelCase" in text


@pytest.mark.parametrize("outputs", [[], None], ids=["empty", "missing"])
def test_an_op_without_outputs_updates_its_inputs_in_place(outputs):
    data = op(output_desc=outputs or [])
    if outputs is None:
        del data["output_desc"]
    (m,) = prototype.loads(json.dumps(data)).ops
    assert m.outputs == () and m.in_place_only
    assert all(t.is_ref for t in m.inputs)
    # without a compute expression the placeholder kernel overwrites every input
    assert [(t.name, t.role, t.is_ref) for t in m.results] == [
        ("x", "output", True),
        ("y", "output", True),
    ]


def test_an_op_without_outputs_or_inputs_is_an_error():
    path, text = only_problem(op(input_desc=[], output_desc=[]))
    assert path == "$.output_desc" and "at least one input or output" in text


@pytest.mark.parametrize("param_type", ["optional", "dynamic"])
def test_an_op_without_outputs_takes_only_required_inputs(param_type):
    data = op(input_desc=[tensor("x"), tensor("y", param_type=param_type)], output_desc=[])
    path, text = only_problem(data)
    assert path == "$.input_desc[1].param_type"
    assert f"input 'y' is {param_type}" in text and "only for required inputs" in text


def test_an_op_without_outputs_cannot_have_x_and_x_ref_inputs():
    data = op(input_desc=[tensor("x"), tensor("x_ref")], output_desc=[])
    path, text = only_problem(data)
    assert path == "$.input_desc[0].name" and "calls the new value of 'x' x_ref" in text


def test_compute_of_an_op_without_outputs_names_the_inputs_it_overwrites():
    data = op(output_desc=[], opgen={"compute": {"x": "x + y"}})
    (m,) = prototype.loads(json.dumps(data)).ops
    assert [t.name for t in m.results] == ["x"]  # y is read only
    assert m.golden == {"x": "(x + y)"}

    path, text = only_problem(op(output_desc=[], opgen={"compute": {"z": "x + y"}}))
    assert path == "$.opgen.compute.z"
    assert "'z' is not an input of this op (it has no outputs" in text


def test_golden_of_an_op_without_outputs_needs_a_compute_of_that_input():
    data = op(output_desc=[], opgen={"compute": {"x": "x + y"}, "golden": {"y": "y * 2"}})
    path, text = only_problem(data)
    assert path == "$.opgen.golden.y" and "has a golden but no compute expression" in text


def test_empty_dtype_list_is_an_error():
    path, text = only_problem(op(input_desc=[tensor("x", []), tensor("y")]))
    assert path == "$.input_desc[0].type" and "lists no dtype" in text


def test_dtype_of_wrong_json_type():
    path, text = only_problem(op(input_desc=[tensor("x"), {"name": "y", "type": 16}]))
    assert path == "$.input_desc[1].type" and "a string or a list of strings" in text


@pytest.mark.parametrize(
    "attr_type, value, kind",
    [
        ("float", "abc", "a number"),
        ("int", 1.5, "an integer"),
        ("int", True, "an integer"),
        ("bool", 2, "true or false"),
        ("list_int", [1, "2"], "an integer"),
    ],
)
def test_default_value_must_match_the_attr_type(attr_type, value, kind):
    data = op(
        attr=[{"name": "a", "param_type": "optional", "type": attr_type, "default_value": value}]
    )
    path, text = only_problem(data)
    assert path.startswith("$.attr[0].default_value") and kind in text


# --- rules beyond the schema -------------------------------------------------------------------


def test_dtype_lists_must_have_equal_length():
    data = op(input_desc=[tensor("x"), tensor("y", ["fp16"])])
    path, text = only_problem(data)
    assert path == "$.input_desc[1].type"
    assert "lists 1 dtype(s) but $.input_desc[0] lists 2" in text


def test_dtype_lists_of_unequal_length_with_a_compute_are_a_problem_not_a_traceback():
    """The compute's checks that walk the dtype combinations (the literals' ranges, complex
    dtypes) wait for the lists to agree: was a ValueError from zip()."""
    data = op(input_desc=[tensor("x"), tensor("y", ["fp16"])], opgen={"compute": {"z": "x + y"}})
    path, text = only_problem(data)
    assert path == "$.input_desc[1].type"
    assert "lists 1 dtype(s) but $.input_desc[0] lists 2" in text


def test_a_golden_naming_a_torch_function_that_does_not_exist_is_a_problem():
    """Was accepted, and failed only when the generated tests ran it."""
    pytest.importorskip("torch")
    data = op(opgen={"golden": {"z": "torch.nn.functional.gelux(x) + y"}})
    path, text = only_problem(data)
    assert path == "$.opgen.golden.z"
    assert "'torch.nn.functional.gelux' is not a function of torch" in text
    assert "did you mean 'torch.nn.functional.gelu'?" in text
    data = op(opgen={"golden": {"z": "torch.special.erfx(x) + torch.addd(x, y)"}})
    assert "'torch.special.erfx' is not a function" in only_problem(data)[1]


@pytest.mark.parametrize(
    ("dtype", "compute", "number", "span"),
    [
        ("uint8", "clamp(x, -5, 5) + y", "-5", "0 to 255"),
        ("int8", "where(x > 200, x, y)", "200", "-128 to 127"),
        ("uint8", "where(x > 300, x, y)", "300", "0 to 255"),
    ],
)
def test_a_whole_number_out_of_an_integer_inputs_range_is_a_problem(dtype, compute, number, span):
    """torch converts it to the inputs' dtype, wrapping it (clamp(x, -5, 5) on uint8 clamps to
    [251, 5]), where the kernel computed with the number: was accepted."""
    ints = [tensor("x", [dtype]), tensor("y", [dtype])]
    data = op(
        input_desc=ints, output_desc=[tensor("z", [dtype])], opgen={"compute": {"z": compute}}
    )
    path, text = only_problem(data)
    assert path == "$.opgen.compute.z"
    assert (
        f"the number {number} does not fit in {dtype}, the dtype of x ($.input_desc[0].type)"
        in text
    )
    assert f"write a number from {span}" in text


def test_whole_numbers_in_range_and_beside_floats_are_accepted():
    ints = [tensor("x", ["uint8", "float"]), tensor("y", ["uint8", "float"])]
    data = op(
        input_desc=ints,
        output_desc=[tensor("z", ["uint8", "float"])],
        opgen={"compute": {"z": "clamp(x, 0, 5) + y"}},
    )
    assert prototype.loads(json.dumps(data)).ops
    mixed = [tensor("x", ["float"]), tensor("y", ["int8"])]
    data = op(
        input_desc=mixed,
        output_desc=[tensor("z", ["float"])],
        opgen={"compute": {"z": "x * 1000 + y"}},
    )
    assert prototype.loads(json.dumps(data)).ops


def test_format_list_is_one_or_one_per_dtype():
    data = op(input_desc=[tensor("x", format=["ND", "ND", "ND"]), tensor("y")])
    path, text = only_problem(data)
    assert path == "$.input_desc[0].format" and "3 formats for 2 dtypes" in text


def test_format_list_of_one_repeats():
    data = op(input_desc=[tensor("x", format=["NCHW"]), tensor("y", format=["ND", "NHWC"])])
    (model,) = prototype.loads(json.dumps(data)).ops
    assert model.inputs[0].formats == ("NCHW", "NCHW")
    assert model.inputs[1].formats == ("ND", "NHWC")


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("class", "keyword in C++ and Python"),
        ("template", "C++ keyword"),
        ("lambda", "Python keyword"),
        ("tiling", "reserved"),
        ("executor", "reserved"),
        ("x__y", "double underscore"),
    ],
)
def test_names_must_be_identifiers_in_cpp_and_python(name, fragment):
    path, text = only_problem(op(input_desc=[tensor(name), tensor("y")]))
    assert path == "$.input_desc[0].name" and fragment in text


def test_input_and_attr_names_are_unique():
    data = op(attr=[{"name": "x", "type": "int"}])
    path, text = only_problem(data)
    assert path == "$.attr[0].name" and "already used at $.input_desc[0].name" in text


def test_output_may_not_reuse_an_attr_name():
    data = op(attr=[{"name": "z", "type": "int"}])
    path, text = only_problem(data)
    assert path == "$.output_desc[0].name" and "is an attr name" in text


def test_output_names_are_unique():
    path, text = only_problem(op(output_desc=[tensor("z"), tensor("z")]))
    assert path == "$.output_desc[1].name" and "already used" in text


def test_names_differing_only_in_case_collide_in_dtype_macros():
    path, text = only_problem(op(input_desc=[tensor("x"), tensor("X")]))
    assert path == "$.input_desc[1].name" and "DTYPE_X" in text


def test_names_colliding_in_aclnn_are_rejected():
    path, text = only_problem(op(input_desc=[tensor("x1"), tensor("x_1")]))
    assert "both become the aclnn parameter 'x1'" in text


def test_names_colliding_with_aclnn_parameters_are_rejected():
    path, text = only_problem(op(input_desc=[tensor("x"), tensor("workspace_size")]))
    assert "aclnn parameter 'workspaceSize', which the aclnn API already has" in text


def test_repeated_dtype_combination_is_an_error():
    data = op(
        input_desc=[tensor("x", ["fp16", "half"]), tensor("y", ["fp16", "fp16"])],
        output_desc=[tensor("z", ["fp16", "fp16"])],
    )
    _, text = only_problem(data)
    assert "combination 1 (float16, float16, float16) repeats combination 0" in text


def test_optional_output_is_accepted():
    (m,) = prototype.loads(
        json.dumps(op(output_desc=[tensor("z"), tensor("mean", param_type="optional")]))
    ).ops
    assert [o.param_type for o in m.outputs] == ["required", "optional"]


def test_optional_in_place_output_is_still_an_error():
    path, text = only_problem(op(output_desc=[tensor("x", param_type="optional")]))
    assert path == "$.output_desc[0]" and "in-place output 'x' needs a required input" in text


def test_in_place_output_must_match_its_input():
    data = op(output_desc=[tensor("x", ["fp16", "bf16"])])
    path, text = only_problem(data)
    assert path == "$.output_desc[0].type" and "same dtypes as input 'x'" in text


def test_in_place_output_needs_a_required_input():
    data = op(
        input_desc=[tensor("x", param_type="optional"), tensor("y")], output_desc=[tensor("x")]
    )
    _, text = only_problem(data)
    assert "needs a required input" in text


def test_in_place_output_is_modelled_as_ref():
    data = op(output_desc=[tensor("x")])
    (model,) = prototype.loads(json.dumps(data)).ops
    assert model.inputs[0].is_ref and model.outputs[0].is_ref
    assert model.torch_schema == "add_custom(Tensor(a!) x, Tensor y) -> ()"
    assert [a.name for a in model.aclnn.args] == ["xRef", "y"]


def test_optional_attr_needs_a_default():
    data = op(attr=[{"name": "k", "param_type": "optional", "type": "int"}])
    path, text = only_problem(data)
    assert path == "$.attr[0]" and "needs a default_value" in text and ".Int(None)" in text


@pytest.mark.parametrize(
    "attr_type, value, fragment",
    [
        ("int", 2**63, "int64"),
        ("list_int", [1, -(2**63) - 1], "int64"),
        ("float", 1e39, "C++ float"),
        ("string", "a\x01b", "control character"),
    ],
)
def test_defaults_must_fit_their_cpp_type(attr_type, value, fragment):
    data = op(
        attr=[{"name": "a", "param_type": "optional", "type": attr_type, "default_value": value}]
    )
    path, text = only_problem(data)
    assert path == "$.attr[0].default_value" and fragment in text


def test_duplicate_op_types_are_rejected():
    found = problems_of([op(), op()])
    assert found == [
        (
            "$[1].op",
            "op 'AddCustom' is already defined at $[0].op (msopgen would keep only the last one)",
        )
    ]


def test_ops_sharing_a_file_name_are_rejected():
    found = problems_of([op(op="GeLU"), op(op="GeLu")])
    assert found[0][0] == "$[1].op" and "share the kernel and file name 'ge_lu'" in found[0][1]


def test_all_problems_are_reported_at_once_in_file_order():
    data = op(op="bad-name", input_desc=[tensor("x", ["fp61"]), tensor("class")])
    found = problems_of(data)
    assert [p for p, _ in found] == ["$.op", "$.input_desc[0].type[0]"]
    # the rule pass runs only on schema-valid ops, so fixing the schema errors shows the rest
    found = problems_of(op(input_desc=[tensor("x", ["fp16"]), tensor("class")]))
    assert [p for p, _ in found] == [
        "$.input_desc[1].name",
        "$.input_desc[1].type",
        "$.output_desc[0].type",
    ]


# --- the opgen block ---------------------------------------------------------------------------


def with_block(block, **overrides):
    return op(
        attr=[
            {"name": "alpha", "param_type": "optional", "type": "float", "default_value": 0.5},
            {"name": "dims", "param_type": "optional", "type": "list_int", "default_value": [1]},
        ],
        opgen=block,
        **overrides,
    )


@pytest.mark.parametrize(
    "expression, fragment",
    [
        ("x + w", "unknown name 'w'"),
        ("x * dims", "'dims' is a list_int attr"),
        ("erfinv(x)", "unknown function 'erfinv'"),
        ("x ** y", "'**' takes a constant exponent, not the tensor 'y'"),
        ("x ** (alpha * x)", "'**' takes a number or an expression of attrs as its exponent"),
        ("x ** 0", "a power of 0 is the constant 1"),
        ("x ** 65", "at most 64 in magnitude"),
        ("x ** (1 / 0)", "divides by zero"),
        ("clamp(x, 0)", "clamp() takes 3 arguments, got 2 (clamp(x, lo, hi))"),
        ("clamp(x, 0, y)", "bound hi, not the tensor expression 'y'"),
        ("exp(x, y)", "exp() takes 1 argument"),
        ("min(x)", "min() takes 2 arguments"),
        ("exp(x=y)", "takes no keyword arguments"),
        ("alpha * 2.0", "uses no input tensor"),
        ("x if y else y", "is not allowed"),
        ("x.exp()", "only plain function calls"),
        ("'a'", "the string 'a' may only be compared with a string attr"),
        ("True", "only numeric literals"),
        ("x +", "not a valid expression"),
        ("x // y", "is not allowed"),
    ],
)
def test_compute_whitelist(expression, fragment):
    path, text = only_problem(with_block({"compute": {"z": expression}}))
    assert path == "$.opgen.compute.z" and fragment in text


def test_compute_may_not_use_optional_inputs():
    data = with_block(
        {"compute": {"z": "x + y"}}, input_desc=[tensor("x"), tensor("y", param_type="optional")]
    )
    _, text = only_problem(data)
    assert "'y' is an optional input" in text


def test_compute_output_must_exist():
    path, text = only_problem(with_block({"compute": {"z": "x + y", "w": "x"}}))
    assert path == "$.opgen.compute.w" and "not an output of this op" in text


def test_compute_covers_every_output_or_none():
    data = with_block({"compute": {"z": "x + y"}}, output_desc=[tensor("z"), tensor("w")])
    path, text = only_problem(data)
    assert path == "$.opgen.compute" and "no expression for output(s) w" in text


@pytest.mark.parametrize(
    "expression, fragment",
    [
        ("torch.load('f')", "'torch.load' is not allowed"),
        ("os.system('ls')", "may be called"),
        ("x.__class__", "is not allowed here"),
        ("torch._C._foo(x)", "may be called"),
        ("(lambda: 1)()", "may be called"),
        ("x.add_(y)", "'x.add_' is not allowed: a golden may call these tensor methods"),
        ("x.numpy()", "'x.numpy' is not allowed"),
        ("x.shape.__len__()", "'x.shape.__len__' is not allowed"),
        ("x.grad", "is not allowed here"),
        ("torch.linalg.inv.__call__(x)", "may be called"),
        ("torch.ops.aten.add(x, y)", "may be called"),
        ("open('f')", "may be called"),
        ("torch.tanh(q)", "unknown name 'q'"),
        ("torch.add(*[x, y])", "*args"),
    ],
)
def test_golden_whitelist(expression, fragment):
    path, text = only_problem(with_block({"golden": {"z": expression}}))
    assert path == "$.opgen.golden.z" and fragment in text


def test_golden_accepts_torch_and_functional_calls_and_is_normalized():
    data = with_block(
        {
            "golden": {
                "z": "torch.nn.functional.leaky_relu(x,alpha) "
                "+ torch.where(y > 0, y, 0.0 * dims[0])"
            }
        }
    )
    (model,) = prototype.loads(json.dumps(data)).ops  # a list attr's item
    assert model.golden["z"].endswith("0.0 * dims[0])")
    data["opgen"]["golden"]["z"] = "torch.nn.functional.gelu(x, approximate='tanh') + y.grad"
    with pytest.raises(PrototypeError):  # a tensor attribute outside TENSOR_ATTRS
        prototype.loads(json.dumps(data))
    data["opgen"]["golden"]["z"] = "torch.nn.functional.gelu(x,approximate='tanh')+y*alpha"
    (model,) = prototype.loads(json.dumps(data)).ops
    assert model.golden["z"] == "torch.nn.functional.gelu(x, approximate='tanh') + y * alpha"


@pytest.mark.parametrize(
    "expression",
    [
        # LayerNorm's golden through torch's own layer_norm (issue #28)
        "torch.nn.functional.layer_norm(x, x.shape[-1:], y, y, alpha)",
        "x.to(torch.float32).sum(-1, keepdim=True) * y",
        "torch.linalg.vector_norm(x, ord=alpha, dim=-1, keepdim=True) + y[..., :1]",
        "x.float().amax(dim=(0, 1)) + y.shape[0]",
    ],
)
def test_golden_reads_shapes_and_calls_pure_tensor_methods_and_linalg(expression):
    (model,) = prototype.loads(json.dumps(with_block({"golden": {"z": expression}}))).ops
    assert model.golden["z"] == expression


def test_golden_defaults_to_the_compute_expression():
    (model,) = prototype.loads(
        json.dumps(with_block({"compute": {"z": "max(x, 0.0) + alpha * min(x, y) - sqrt(x) / 2"}}))
    ).ops
    assert model.golden["z"] == (
        "((torch.clamp(x, min=0.0) + (alpha * torch.minimum(x, y))) - (torch.sqrt(x) / 2.0))"
    )


# --- the precision level ("opgen": {"precision": ...}) ----------------------------------------


def test_precision_level_is_read_and_defaults_to_l0():
    proto = prototype.loads(
        json.dumps(
            [
                op(opgen={"compute": {"z": "x + y"}, "precision": "L1"}),
                op(op="SubCustom", opgen={"compute": {"z": "x - y"}}),
            ]
        )
    )
    assert [o.precision for o in proto.ops] == ["L1", "L0"]


def test_precision_level_outside_l0_to_l2_is_refused_with_a_suggestion():
    path, text = only_problem([op(opgen={"compute": {"z": "x + y"}, "precision": "l2"})])
    assert path == "$[0].opgen.precision"
    assert "must be one of L0, L1, L2" in text and "did you mean 'L2'?" in text


def test_precision_level_without_a_golden_warns_it_has_no_effect():
    proto = prototype.loads(json.dumps([op(opgen={"precision": "L2"})]))
    (warning,) = [w for w in proto.warnings if "precision" in w]
    assert warning.startswith("$[0].opgen.precision: L2 has no effect")


def test_an_attr_the_compute_expressions_never_read_warns():
    """softmax(x, dim=0) would compute the last axis's softmax: say so when generating."""
    attrs = [
        {"name": "dim", "param_type": "optional", "type": "int", "default_value": -1},
        {"name": "alpha", "param_type": "optional", "type": "float", "default_value": 2.0},
    ]
    proto = prototype.loads(json.dumps([op(attr=attrs, opgen={"compute": {"z": "x * alpha"}})]))
    (warning,) = [w for w in proto.warnings if "never read" in w]
    assert warning.startswith("$[0].attr: the compute expressions never read 'dim': ")
    read = prototype.loads(json.dumps([op(attr=attrs[1:], opgen={"compute": {"z": "x * alpha"}})]))
    assert not [w for w in read.warnings if "never read" in w]
    no_compute = prototype.loads(json.dumps([op(attr=attrs)]))  # the user's kernel reads them
    assert not [w for w in no_compute.warnings if "never read" in w]


# --- test shapes ("opgen": {"test_shapes": [...]}) -------------------------------------------


def test_test_shapes_are_read_per_input_in_input_order():
    proto = prototype.loads(
        json.dumps(
            [
                op(
                    opgen={
                        "compute": {"z": "x + y"},
                        "test_shapes": [{"y": [37], "x": [4, 37]}, {"x": [], "y": [0]}],
                    }
                )
            ]
        )
    )
    (add,) = proto.ops
    assert add.test_shapes == ({"x": (4, 37), "y": (37,)}, {"x": (), "y": (0,)})
    assert list(add.test_shapes[0]) == ["x", "y"]


def test_test_shapes_default_to_none():
    assert prototype.loads(json.dumps([op()])).ops[0].test_shapes == ()


def test_test_shapes_name_inputs_only_and_every_required_one():
    found = problems_of([op(opgen={"test_shapes": [{"x": [2], "yy": [2]}]})])
    assert found == [
        (
            "$[0].opgen.test_shapes[0]",
            "gives no shape for required input(s) y; a case gives every required input's shape",
        ),
        ("$[0].opgen.test_shapes[0].yy", "'yy' is not an input of this op; did you mean 'y'?"),
    ]


def test_test_shapes_dimensions_are_non_negative_integers():
    path, text = only_problem([op(opgen={"test_shapes": [{"x": [2, -1], "y": [2]}]})])
    assert path == "$[0].opgen.test_shapes[0].x[1]" and "minimum of 0" in text
