"""opgen.planning.torch_ext: the data the PyTorch package templates print (op.torch)."""

from __future__ import annotations

import ast
import dataclasses
import json

import pytest
from conftest import render_files
from torch_ext import protos

from opgen import resources
from opgen.frontend import prototype
from opgen.frontend.options import Options
from opgen.planning import layout, torch_ext

OPTIONS = Options(package="my_ops", namespace="myns", vendor="my_ops")


def context(op_data):
    (op,) = prototype.loads(json.dumps(op_data)).ops
    return dataclasses.asdict(torch_ext.plan(op, OPTIONS))  # a dict, to index


def param(ctx, name):
    return next(p for p in ctx["params"] if p["name"] == name)


def cpp_params(ctx) -> str:
    """The C++ kernels' parameters, as the templates declare them."""
    return ", ".join(f"{p['cpp_type']} {p['cpp_name']}" for p in ctx["params"])


def rendered(op_data, path: str) -> str:
    """The text of one file of the project rendered for the op."""
    proto = prototype.loads(json.dumps(op_data))
    files = render_files(proto, OPTIONS, resources.templates_dir())
    return next(f.content.decode() for f in files if f.path == path)


def registration(op_data) -> str:
    """The statement that registers the op, at the end of its rendered ops.py."""
    return "_register" + rendered(op_data, "my_ops/ops.py").rsplit("\n_register", 1)[1].rstrip()


def fake_body(op_data) -> list[str]:
    """The statements of the op's fake kernel, in its rendered ops.py."""
    source = rendered(op_data, "my_ops/ops.py")
    tree = ast.parse(source)
    (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.endswith("_fake")]
    return [ast.get_source_segment(source, n) for n in fn.body]


def signature(source: str, function: str) -> str:
    """The parameters of a function of a rendered module, as its source writes each."""
    tree = ast.parse(source)
    (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
    args = fn.args.args
    defaults = [None] * (len(args) - len(fn.args.defaults)) + fn.args.defaults
    params = []
    for arg, default in zip(args, defaults, strict=True):
        text = arg.arg
        if arg.annotation is not None:
            text += ": " + ast.get_source_segment(source, arg.annotation)
        if default is not None:
            sep = "=" if arg.annotation is None else " = "
            text += sep + ast.get_source_segment(source, default)
        params.append(text)
    return ", ".join(params)


GELU = {
    "op": "GeluCustom",
    "input_desc": [protos.t("x", ("fp16", "float", "bf16"))],
    "output_desc": [protos.t("y", ("fp16", "float", "bf16"))],
    "opgen": {"compute": {"y": "x * sigmoid(x)"}},
}


def test_gelu_basics():
    ctx = context(GELU)
    assert ctx["qualname"] == "myns::gelu_custom"
    assert ctx["op_path"] == "torch.ops.myns.gelu_custom"
    assert ctx["schema_literal"] == '"gelu_custom(Tensor x) -> Tensor"'
    assert cpp_params(ctx) == "const at::Tensor& x"
    assert "\ndef gelu_custom(x: Tensor) -> Tensor:\n" in rendered(GELU, "my_ops/ops.py")
    assert "\n    return torch.ops.myns.gelu_custom.default(x)\n" in rendered(GELU, "my_ops/ops.py")
    assert [v["file"] for v in ctx["variants"]] == [
        "gelu_custom_float16.cpp",
        "gelu_custom_float32.cpp",
        "gelu_custom_bfloat16.cpp",
    ]
    assert ctx["variants"][2]["macros"] == [
        {"name": "DTYPE_X", "value": "bfloat16_t"},
        {"name": "ORIG_DTYPE_X", "value": "DT_BF16"},
        {"name": "DTYPE_Y", "value": "bfloat16_t"},
        {"name": "ORIG_DTYPE_Y", "value": "DT_BF16"},
    ]
    assert ctx["variants"][0]["ge_dtypes"] == ["DT_FLOAT16", "DT_FLOAT16"]
    assert ctx["differentiable"]
    assert ctx["fake"]["mode"] == "elementwise"
    assert ctx["npu"]["enabled"]
    assert ", ".join(ctx["npu"]["call_args"]) == "x_, out_"


def test_signature_defaults_follow_the_schema():
    assert signature(rendered(protos.ALL_ATTRS, "my_ops/ops.py"), "all_attrs_custom") == (
        "x: Tensor, bias: Tensor | None = None, alpha: float = 0.5, count: int = -3, "
        "flag: bool = True, mode: str = 'say \"hi\"\\\\ \\u00e9\\n', "
        "dims: Sequence[int] = (1, 2), scales: Sequence[float] = (0.25,), "
        "masks: Sequence[bool] = (True, False)"
    )
    # A default the schema had to drop (a later argument has none) is dropped in Python too.
    assert param(context(protos.NO_ACLNN), "scale")["py_default"] is None
    ops_py = rendered(protos.NO_ACLNN, "my_ops/ops.py")
    assert signature(ops_py, "_pads_custom_fake") == "x, scale, pads, level"
    assert (
        "        scale: float attr, default 2.0 in the kernel; the schema cannot keep it" in ops_py
    )
    assert (
        "\ndef pads_custom(x: Tensor, scale: float, pads: Sequence[Sequence[int]], level: int) "
        "-> Tensor:\n"
    ) in ops_py


def test_python_defaults_evaluate_to_the_prototype_values():
    ctx = context(protos.ALL_ATTRS)
    values = {
        p["name"]: ast.literal_eval(p["py_default"])
        for p in ctx["params"]
        if p["py_default"] is not None
    }
    assert values == {
        "bias": None,
        "alpha": 0.5,
        "count": -3,
        "flag": True,
        "mode": 'say "hi"\\ \u00e9\n',
        "dims": (1, 2),
        "scales": (0.25,),
        "masks": (True, False),
    }


def test_cpp_types_of_every_argument_kind():
    ctx = context(protos.ALL_ATTRS)
    assert cpp_params(ctx) == (
        "const at::Tensor& x, const c10::optional<at::Tensor>& bias, double alpha, "
        "int64_t count, bool flag, c10::string_view mode, at::IntArrayRef dims, "
        "at::ArrayRef<double> scales, const c10::List<bool>& masks"
    )
    assert param(ctx, "mode")["twin_value"] == "std::string(mode)"
    assert param(ctx, "scales")["twin_value"] == (
        "std::vector<float>(scales.begin(), scales.end())"
    )
    assert cpp_params(context(protos.CONCAT)) == "at::TensorList xs"
    assert cpp_params(context(protos.IN_PLACE)) == (
        "at::Tensor& x, const at::Tensor& y, double rate"
    )


def test_aclnn_call_order_optional_and_attrs():
    npu = context(protos.ALL_ATTRS)["npu"]
    # aclnn order: inputs (optional ones as <name>Optional), attrs, then the output.
    assert ", ".join(npu["call_args"]) == (
        "x_, biasOptional_, alpha_, count_, flag_, modeOptional_, "
        "dimsOptional_, scalesOptional_, masksOptional_, out_"
    )
    # how the adapter makes each aclnn argument (csrc_npu/<op>_npu.cpp prints the statements)
    assert [(a["name"], a["kind"], a["source"]) for a in npu["args"]] == [
        ("x", "tensor", "x"),
        ("biasOptional", "optional", "bias"),
        ("alpha", "attr", "alpha"),
        ("count", "attr", "count"),
        ("flag", "attr", "flag"),
        ("modeOptional", "string", "mode"),
        ("dimsOptional", "attr", "dims"),
        ("scalesOptional", "list_float", "scales"),
        ("masksOptional", "list_bool", "masks"),
    ]
    assert npu["uses_float_array"]


def test_aclnn_call_in_place_and_several_outputs():
    npu = context(protos.IN_PLACE)["npu"]
    assert ", ".join(npu["call_args"]) == "xRef_, y_, rate_, zOut_"
    assert [o["name"] for o in npu["outputs"]] == ["zOut"]  # returned; xRef is copied back
    # xRef is made contiguous, and copied back into x after the call
    assert npu["args"][0] == {
        "name": "xRef",
        "kind": "ref",
        "source": "x",
        "cpp_type": "at::Tensor&",
    }

    npu = context(protos.TWO_OUTPUTS)["npu"]
    assert ", ".join(npu["call_args"]) == "x_, y_, posOut_, negOut_"
    # Output dtypes come from the matched combination: inputs first, so outputs at 2 and 3;
    # the shape is x's and y's broadcast shape.
    assert [(o["name"], o["dtype_index"]) for o in npu["outputs"]] == [("posOut", 2), ("negOut", 3)]
    assert npu["broadcasts"] and npu["like"] == "x" and not npu["shapes_from_meta"]

    npu = context(protos.ONLY_IN_PLACE)["npu"]
    assert ", ".join(npu["call_args"]) == "xRef_, factor_"
    assert npu["outputs"] == []  # returns nothing


def test_not_elementwise_outputs_come_from_the_fake_kernel():
    npu = context(protos.REDUCE)["npu"]
    assert npu["shapes_from_meta"]
    assert npu["outputs"] == [
        {"name": "out", "is_list": False, "dtype_index": 1, "meta_index": None}
    ]
    assert npu["guard"] == "x" and npu["guard_required"]
    npu = context(protos.CONCAT)["npu"]
    assert ", ".join(npu["call_args"]) == "xs_, out_"
    assert npu["guard"] == "xs" and not npu["guard_required"]


def test_no_aclnn_no_adapter():
    npu = context(protos.NO_ACLNN)["npu"]
    assert not npu["enabled"]
    assert "list_list_int" in npu["reason"]


def test_reserved_cpp_names_are_renamed():
    ctx = context(protos.SHADOWING)
    assert cpp_params(ctx) == (
        "const at::Tensor& at_arg_, const at::Tensor& std_arg_, double result"
    )
    # Python keeps the schema names
    ops_py = rendered(protos.SHADOWING, "my_ops/ops.py")
    assert signature(ops_py, f"_{ctx['py_name']}_fake") == "at, std, result=1.0"
    assert ", ".join(ctx["npu"]["call_args"]) == "at_, std_, result_, out_"
    assert ctx["npu"]["guard"] == "at_arg_"


def test_cpu_context():
    cpu = context(protos.IN_PLACE)["cpu"]
    assert [(p["cpp_name"], p["cpp_literal"]) for p in cpu["host_inputs"]] == [
        ("x", '"x"'),
        ("y", '"y"'),
    ]
    assert cpu["attr_values"] == ["static_cast<float>(rate)"]
    assert cpu["updates"] == [{"target": "x", "index": 0}]  # x.copy_(outputs_[0])
    assert context(protos.CONCAT)["cpu"]["unsupported"][0].startswith('"ConcatCustom has a dynamic')
    assert 'TORCH_CHECK(false, "ConcatCustom has a dynamic' in rendered(
        protos.CONCAT, "my_ops/csrc/ops.cpp"
    )


def test_op_without_outputs():
    ctx = context(protos.NO_OUTPUTS)
    # only the input the compute writes is mutable
    assert ctx["schema"] == (
        "scatter_max_custom(Tensor(a!) var, Tensor updates, float scale=1.0) -> ()"
    )
    assert cpp_params(ctx) == "at::Tensor& var, const at::Tensor& updates, double scale"
    ops_py = rendered(protos.NO_OUTPUTS, "my_ops/ops.py")
    assert ") -> None:\n" in ops_py.split("def scatter_max_custom(", 1)[1]
    # the kernels' heads (the introspection op's mutates nothing: its var is const)
    ops_cpp = rendered(protos.NO_OUTPUTS, "my_ops/csrc/ops.cpp")
    npu_cpp = rendered(protos.NO_OUTPUTS, "my_ops/csrc_npu/scatter_max_custom_npu.cpp")
    params = "at::Tensor& var, const at::Tensor& updates, double scale"
    assert f"\nvoid scatter_max_custom_cpu({params})\n" in ops_cpp
    assert f"\nvoid scatter_max_custom_npu({params})\n" in npu_cpp
    assert f"\nstd::string scatter_max_custom_infer(const {params})\n" in ops_cpp
    assert "\n    torch.ops.myns.scatter_max_custom.default(var, updates, scale)\n" in ops_py
    # CPU twin: the kernel writes the inputs' GM; the input it updates is copied back
    cpu = ctx["cpu"]
    assert cpu["in_place_only"]
    assert cpu["updates"] == [{"target": "var", "index": 0}]  # var.copy_(updated_[0])
    # NPU: aclnn takes only the inputs and attrs; contiguous copies are written back
    npu = ctx["npu"]
    assert ", ".join(npu["call_args"]) == "var_, updates_, scale_"
    assert not npu["shapes_from_meta"] and npu["outputs"] == [] and not npu["needs_dtypes"]
    assert [a["kind"] for a in npu["args"]] == ["ref", "tensor", "attr"]
    # fake: updates broadcast into var (which cannot grow), nothing returned
    body = fake_body(protos.NO_OUTPUTS)
    assert ctx["fake"]["mode"] == "in_place" and body[-1] == "return None"
    assert (
        '_broadcast_shape("ScatterMaxCustom", ("var",), var=var, updates=updates)' in body
    ) and ctx["fake"]["broadcasts"]
    # golden: the new value of the overwritten input
    golden_py = rendered(protos.NO_OUTPUTS, "my_ops/golden.py")
    assert golden_py.endswith('"""\n    return torch.maximum(var, (updates * scale))\n')
    # autograd: the golden's, through the Autograd kernel of an op updating var in place
    assert ctx["differentiable"] and ctx["mutable"]
    assert registration(protos.NO_OUTPUTS) == (
        "_register_mutable(\n"
        '    "myns::scatter_max_custom",\n'
        '    "ScatterMaxCustom",\n'
        "    _scatter_max_custom_user,\n"
        "    _scatter_max_custom_fake,\n"
        '    ("var",),\n'
        "    _golden_backward(_golden.scatter_max_custom_formula),\n"
        ")"
    )
    assert ctx["register_comment"][0].startswith("ScatterMaxCustom updates var in place.")
    assert ctx["variants"][0]["outputs"] == []
    assert "        float16, float16 -> in place\n" in rendered(protos.NO_OUTPUTS, "my_ops/ops.py")
    assert ctx["nothing_returned"][0].startswith("Nothing: ScatterMaxCustom has no outputs")


def test_op_without_outputs_or_compute_updates_every_input():
    """Without a compute expression nothing says which inputs the op writes (opgen's placeholder
    kernel overwrites them all): every input is mutable and copied back."""
    data = {**protos.NO_OUTPUTS, "opgen": {}}
    ctx = context(data)
    assert ctx["schema"] == (
        "scatter_max_custom(Tensor(a!) var, Tensor(b!) updates, float scale=1.0) -> ()"
    )
    assert ctx["cpu"]["updates"] == [
        {"target": "var", "index": 0},
        {"target": "updates", "index": 1},
    ]


def test_optional_output_is_always_allocated_and_returned():
    ctx = context(protos.OPTIONAL_OUTPUT)
    assert ctx["schema"] == (
        "addcdiv_custom(Tensor x, Tensor t1, Tensor t2, float value=0.5) -> (Tensor, Tensor)"
    )
    assert [o["optional"] for o in ctx["returned"]] == [False, True]
    ops_py = rendered(protos.OPTIONAL_OUTPUT, "my_ops/ops.py")
    assert "        ratio: float16 or float32. Optional in the" in ops_py
    npu = ctx["npu"]
    assert ", ".join(npu["call_args"]) == "x_, t1_, t2_, value_, yOut_, ratioOut_"
    assert [o["name"] for o in npu["outputs"]] == ["yOut", "ratioOut"]
    assert ctx["fake"]["shape_from"] == "broadcast" and ctx["fake"]["like"] == "x"
    assert ctx["fake"]["returns"] == [
        {"index": 0, "is_list": False},
        {"index": 1, "is_list": False},
    ]
    assert "always allocates it" in ctx["readme_notes"][0]


def test_in_place_variant_macros():
    (variant, _) = context(protos.IN_PLACE)["variants"]
    assert [m["name"] for m in variant["macros"]] == [
        "DTYPE_X",
        "ORIG_DTYPE_X",
        "DTYPE_Y",
        "ORIG_DTYPE_Y",
        "DTYPE_X_REF",
        "ORIG_DTYPE_X_REF",
        "DTYPE_Z",
        "ORIG_DTYPE_Z",
    ]


@pytest.mark.parametrize(
    "proto, differentiable, reason",
    [
        (protos.ALL_ATTRS, True, ""),
        (protos.IN_PLACE, True, ""),  # through _register_mutable's Autograd kernel
        (protos.ONLY_IN_PLACE, True, ""),
        (protos.NO_OUTPUTS, True, ""),
        (protos.OPAQUE, False, "no golden"),
        (protos.REDUCE, True, ""),
    ],
)
def test_differentiability(proto, differentiable, reason):
    ctx = context(proto)
    assert ctx["differentiable"] is differentiable
    assert reason in ctx["not_differentiable_reason"]


@pytest.mark.parametrize(
    "proto, mutable, results",
    [
        (protos.IN_PLACE, True, '("x", 0)'),  # x's new value, then the op's return z
        (protos.ONLY_IN_PLACE, True, '("x",)'),
        (protos.NO_OUTPUTS, True, '("var",)'),  # updates is only read
        ({**protos.NO_OUTPUTS, "opgen": {}}, True, '("var", "updates")'),  # no compute: both
        (protos.ALL_ATTRS, False, None),
        (protos.TWO_OUTPUTS, False, None),
        (protos.REDUCE, False, None),
    ],
)
def test_only_ops_updating_inputs_get_the_mutable_registration(proto, mutable, results):
    """An op that updates inputs in place (a ref output, or no outputs) is registered by
    _register_mutable (its Autograd kernel), with what it computes in the golden's order; the
    others by _register, as before."""
    ctx = context(proto)
    assert ctx["mutable"] is mutable
    call = registration(proto)
    if mutable:
        assert call.startswith("_register_mutable(") and results in call
        assert f'"{proto["op"]}"' in call  # the op type, for its messages
    else:
        assert call.startswith("_register(") and "_register_mutable" not in call


def test_an_op_updating_inputs_without_a_backward_says_why():
    """No golden (no compute): no backward, and _register_mutable gets the reason, which its
    Autograd kernel raises with when inputs require grad."""
    data = {**protos.ONLY_IN_PLACE, "opgen": {}}
    ctx = context(data)
    assert ctx["mutable"] and not ctx["differentiable"]
    call = registration(data)
    assert "_golden_backward" not in call
    assert 'reason="it has no golden expression for every output to differentiate"' in call
    assert ctx["register_comment"][0].startswith("No backward from opgen: it has no golden")
    assert "refuses inputs that require grad" in " ".join(ctx["register_comment"])


def test_a_long_reason_is_split_into_string_pieces():
    long = "a_very_long_name_for_the_accumulated_running_value"
    data = {
        **protos.IN_PLACE,
        "input_desc": [protos.t(long), protos.t("y")],
        "output_desc": [protos.t(long), protos.t("z")],
        "opgen": {"golden": {long: f"torch.heaviside({long}, y)", "z": f"{long} * y"}},
    }
    assert registration(data).endswith(
        "    reason=(\n"
        f'        "the golden of output {long} calls "\n'
        '        "torch.heaviside, which torch has no derivative for"\n'
        "    ),\n"
        ")"
    )


@pytest.mark.parametrize(
    "golden, differentiable",
    [
        ("torch.ge(x, y).to(x.dtype)", False),
        ("(x >= y).float()", False),
        ("x != y", False),
        ("torch.isnan(x)", False),
        ("torch.ge(x, y) * x", True),
        ("torch.where(x > y, x, y)", True),
    ],
)
def test_a_comparison_golden_has_no_backward(golden, differentiable):
    """GreaterEqual with outputs in the inputs' float dtype: torch's result carries no gradient,
    so opgen registers no backward (its gradcheck would find no differentiable output)."""
    data = {
        "op": "GreaterEqualCustom",
        "input_desc": [protos.t("x"), protos.t("y")],
        "output_desc": [protos.t("z")],
        "opgen": {"golden": {"z": golden}},
    }
    ctx = context(data)
    assert ctx["differentiable"] is differentiable
    if not differentiable:
        assert ctx["not_differentiable_reason"] == (
            "every output's golden is a comparison, whose result has no gradient"
        )


def test_fake_kernels():
    # the body before the return statement, which ops.py prints from shape_from and returns
    fake = context(protos.TWO_OUTPUTS)["fake"]
    assert fake_body(protos.TWO_OUTPUTS)[:2] == [
        'dtypes_ = _output_dtypes("SplitSignCustom", _SPLIT_SIGN_CUSTOM_DTYPES, x, y)',
        'shape_ = _broadcast_shape("SplitSignCustom", x=x, y=y)',
    ]
    assert fake["shape_from"] == "broadcast" and [r["index"] for r in fake["returns"]] == [0, 1]
    fake = context(protos.IN_PLACE)["fake"]
    body = fake_body(protos.IN_PLACE)
    assert body[1] == 'shape_ = _broadcast_shape("AccumulateCustom", ("x",), x=x, y=y)'
    assert fake["returns"] == [{"index": 1, "is_list": False}]  # x is updated in place
    fake = context(protos.ONLY_IN_PLACE)["fake"]
    assert fake_body(protos.ONLY_IN_PLACE) == [
        '_output_dtypes("ScaleInplaceCustom", _SCALE_INPLACE_CUSTOM_DTYPES, x)',
        "return None",
    ]
    assert fake["shape_from"] and fake["returns"] == []  # return None
    reduce = context(protos.REDUCE)["fake"]
    assert "results_ = _golden.row_sum_custom(x, dim)" in fake_body(protos.REDUCE)
    assert reduce["shape_from"] == "golden"
    # no compute, no golden: the op is the user's, and nothing tells its output shapes
    opaque = context(protos.OPAQUE)["fake"]
    assert opaque["mode"] == "none"
    assert "OpaqueCustom has no compute and no golden expression" in fake_body(protos.OPAQUE)[0]
    # ... unless it has a list output, whose length nothing tells
    chunks_no_golden = {**protos.CHUNKS, "opgen": {}}
    unknown = context(chunks_no_golden)["fake"]
    assert unknown["mode"] == "none"
    (raised,) = fake_body(chunks_no_golden)
    assert "my_ops/overrides/chunk_custom.py" in raised.replace('"\n        "', "")


def test_elementwise_inputs_broadcast_everywhere():
    # the fake kernel, the CPU kernel and the NPU adapter broadcast the inputs of an op with a
    # compute expression, refusing shapes that do not broadcast with the same message
    assert (
        rendered(protos.TWO_OUTPUTS, "my_ops/csrc/ops.cpp").count(
            '\n    opgen_torch::BroadcastShape("SplitSignCustom", {"x", "y"}, {x, y});\n'
        )
        == 1
    )
    assert (
        "\n    const std::vector<int64_t> broadcast_shape_ =\n"
        '        opgen_npu::BroadcastShape("SplitSignCustom", {"x", "y"}, {x, y});\n'
    ) in rendered(protos.TWO_OUTPUTS, "my_ops/csrc_npu/split_sign_custom_npu.cpp")
    assert 'shape_ = _broadcast_shape("SplitSignCustom", x=x, y=y)' in fake_body(protos.TWO_OUTPUTS)
    # an op that updates x in place: y broadcasts into x, which cannot grow (input 0 of the
    # broadcast, checked after it)
    assert context(protos.IN_PLACE)["cpu"]["shape_checks"] == [
        {"args": ['"AccumulateCustom"', '{"x", "y"}', "{x, y}", "{0}"], "helper": "BroadcastShape"}
    ]
    assert (
        "\n    const std::vector<int64_t> broadcast_shape_ =\n"
        '        opgen_npu::BroadcastShape("AccumulateCustom", {"x", "y"}, {x, y}, {0});\n'
    ) in rendered(protos.IN_PLACE, "my_ops/csrc_npu/accumulate_custom_npu.cpp")
    # one input, or no compute (the user's kernel decides): nothing to check
    for proto in (protos.ONLY_IN_PLACE, protos.OPAQUE, protos.REDUCE):
        assert context(proto)["cpu"]["shape_checks"] == []


def test_converter():
    conv = context(protos.ALL_ATTRS)["converter"]
    assert [i["literal"] for i in conv["inputs"]] == ['"x"', '"bias"']
    assert [(a["builder"], a["name"]) for a in conv["attrs"]] == [
        ("Float", "alpha"),
        ("Int", "count"),
        ("Bool", "flag"),
        ("Str", "mode"),
        ("ListInt", "dims"),
        ("ListFloat", "scales"),
        ("ListBool", "masks"),
    ]
    assert [o["literal"] for o in conv["outputs"]] == ['"y"']
    assert conv["returns_node"]
    conv = context(protos.IN_PLACE)["converter"]
    assert [o["literal"] for o in conv["outputs"]] == ['"x"', '"z"']
    assert conv["returned"] == [1] and not conv["returns_node"]
    assert context(protos.ONLY_IN_PLACE)["converter"]["returned"] == []


def test_user_strings_are_escaped_for_cpp():
    ctx = context(protos.ALL_ATTRS)
    literal = ctx["schema_literal"]
    assert literal.startswith('"all_attrs_custom(') and literal.endswith('"')
    assert '\\"say \\\\\\"hi\\\\\\"\\\\\\\\ \\303\\251\\\\n\\"' in literal


def test_long_signatures_are_wrapped():
    ops_py = rendered(protos.ALL_ATTRS, "my_ops/ops.py")
    lines = ops_py.split("\ndef all_attrs_custom(", 1)[1].split(":\n    ", 1)[0].split("\n")
    assert lines[0] == ""  # one parameter a line
    assert lines[-1] == ") -> Tensor"
    assert all(len(line) <= layout.LINE for line in lines)


def test_names_that_would_replace_module_names():
    ctx = context({**protos.OPAQUE, "op": "Torch"})
    assert ctx["py_name"] == "torch_op"
    ctx = context({**protos.OPAQUE, "op": "Ops"})
    assert ctx["py_name"] == "ops" and not ctx["exported"]
