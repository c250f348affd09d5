"""Matmul ops (matmul(a, b) and an elementwise epilogue): the grammar, the prototype rules and
test cases (frontend/matmuls.py), the epilogue's lowering (planning/matmul.py) and the files the
matmul_op templates render. The end-to-end builds are in test_end_to_end.py (and
test_golden_only.py: a hand-written Matmul kernel)."""

from __future__ import annotations

import json
import re

import pytest
from conftest import op
from kernel_host import twin

from opgen.frontend import expr, matmuls, prototype
from opgen.frontend.problems import PrototypeError
from opgen.planning import matmul

SCOPE = {"tensors": {"a", "b", "bias"}, "scalars": {"alpha", "tb"}}
ATTR_TYPES = {"alpha": "float", "tb": "bool", "k": "int"}


def parse(text: str) -> expr.Node:
    return expr.parse_compute(text, SCOPE["tensors"], SCOPE["scalars"], {}, ATTR_TYPES)


def tensor(name: str, dtypes=("fp16", "bf16")) -> dict:
    return {"name": name, "param_type": "required", "format": ["ND"] * 2, "type": list(dtypes)}


def mm_op(compute: str, **overrides) -> dict:
    """A matmul op: a, b (fp16/bf16), bias (float), c (float/bf16), alpha and tb attrs."""
    raw = op(
        op="MatmulEpilogue",
        input_desc=[tensor("a"), tensor("b"), tensor("bias", ("float", "float"))],
        output_desc=[tensor("c", ("float", "bf16"))],
        attr=[
            {"name": "alpha", "param_type": "optional", "type": "float", "default_value": 0.01},
            {"name": "tb", "param_type": "optional", "type": "bool", "default_value": False},
        ],
    )
    raw["opgen"] = {"compute": {"c": compute}}
    raw.update(overrides)
    return raw


def load(raw: dict):
    return prototype.loads(json.dumps([raw])).ops[0]


def problems(raw: dict) -> list[str]:
    with pytest.raises(PrototypeError) as err:
        prototype.loads(json.dumps([raw]))
    return [f"{p.path}: {p.text()}" for p in err.value.problems]


# ---------------------------------------------------------------------------------------------
# the grammar
# ---------------------------------------------------------------------------------------------


def test_matmul_parses_with_literal_and_attr_transposes():
    node = parse("matmul(a, b, transpose_a=True, transpose_b=tb) + bias")
    mm = node.left
    assert mm == expr.Matmul("a", "b", True, "tb")
    assert mm.attrs == ("tb",)
    assert expr.show(node) == "matmul(a, b, transpose_a=True, transpose_b=tb) + bias"
    assert expr.to_torch(node) == (
        "(torch.matmul(torch.transpose(a, -2, -1), "
        "(torch.transpose(b, -2, -1) if tb else b)) + bias)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("matmul(a)", "matmul() takes two inputs"),
        ("matmul(a + bias, b)", "multiplies two inputs, not 'a + bias'"),
        ("matmul(a, b, transpose=True)", "takes the keywords transpose_a= and transpose_b="),
        ("matmul(a, b, transpose_b=k)", "transpose_b= takes True, False or a bool attr"),
        ("matmul(a, b, transpose_b=1)", "transpose_b= takes True, False or a bool attr"),
    ],
)
def test_matmul_refusals_name_the_form(text, message):
    with pytest.raises(expr.ExprError, match=re.escape(message)):
        parse(text)


# ---------------------------------------------------------------------------------------------
# the prototype rules
# ---------------------------------------------------------------------------------------------


def test_a_matmul_op_loads_with_opgens_test_cases_and_a_torch_golden():
    mm_op_model = load(mm_op("max(matmul(a, b) + bias, 0) + alpha * min(matmul(a, b) + bias, 0)"))
    assert mm_op_model.is_matmul and not mm_op_model.is_elementwise
    assert mm_op_model.matmul == expr.Matmul("a", "b")
    assert mm_op_model.test_shapes[0] == {"a": (37, 70), "b": (70, 45), "bias": (45,)}
    assert {"a": (2, 33, 20), "b": (2, 20, 17), "bias": (17,)} in mm_op_model.test_shapes
    assert "torch.matmul(a, b)" in mm_op_model.golden["c"]


def test_the_default_cases_follow_the_transpose_attrs_default():
    raw = mm_op("matmul(a, b, transpose_b=tb)")
    raw["attr"][1]["default_value"] = True
    case = load(raw).test_shapes[0]
    assert case["b"] == (45, 70) and case["a"] == (37, 70)


def test_a_transpose_attr_is_read():
    model = load(mm_op("matmul(a, b, transpose_b=tb) + bias"))
    assert [a.name for a in model.unread_attrs] == ["alpha"]


@pytest.mark.parametrize(
    ("compute", "message"),
    [
        ("matmul(a, b) + matmul(b, a)", "matmul(a, b), matmul(b, a): an op computes one product"),
        ("matmul(a, b) + a", "the epilogue reads a, an operand of matmul(a, b)"),
        ("matmul(a, b) - sum(bias)", "a reduction beside matmul()"),
    ],
)
def test_the_epilogue_rules(compute, message):
    found = problems(mm_op(compute))
    assert any(p.startswith("$[0].opgen.compute.c: ") and message in p for p in found), found


def test_a_matmul_op_has_one_output():
    raw = mm_op("matmul(a, b)")
    raw["output_desc"].append(tensor("d", ("float", "bf16")))
    raw["opgen"]["compute"]["d"] = "bias * 2"
    assert any("an op with a matmul has one output, not 2" in p for p in problems(raw))


def test_operand_and_epilogue_dtypes_are_checked_per_combination():
    raw = mm_op("matmul(a, b) + bias")
    raw["input_desc"][0]["type"] = ["int32", "bf16"]
    raw["input_desc"][1]["type"] = ["int32", "fp16"]
    raw["input_desc"][2]["type"] = ["int32", "float"]
    found = problems(raw)
    assert any(
        p.startswith(
            "$[0].input_desc[0].type[0]: matmul(a, b) multiplies float16, bfloat16, float32 "
            "on the cube unit (the Matmul API), not int32"
        )
        for p in found
    ), found
    assert any(
        p.startswith("$[0].input_desc[1].type[1]: matmul(a, b): b is float16, a bfloat16")
        for p in found
    ), found
    assert any(p.startswith("$[0].input_desc[2].type[0]: bias is int32") for p in found), found


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"a": [4, 5], "b": [6, 3], "bias": [3]}, "a's K (5) differs from b's (6)"),
        ({"a": [4, 5], "b": [2, 5, 3], "bias": [3]}, "a batched b takes an a of the same batch"),
        (
            {"a": [4, 5], "b": [5, 3], "bias": [4]},
            "bias [4]: the epilogue of a matmul takes [N] ([3])",
        ),
        ({"a": [5], "b": [5, 3], "bias": [3]}, "a and b are 2-D or 3-D"),
    ],
)
def test_test_shapes_multiply(case, message):
    raw = mm_op("matmul(a, b) + bias")
    raw["opgen"]["test_shapes"] = [case]
    found = problems(raw)
    assert any(p.startswith("$[0].opgen.test_shapes[0]: ") and message in p for p in found), found


def test_product_shape_follows_torch_matmul():
    assert matmuls.product_shape((4, 5), (5, 3), False, False) == (4, 3)
    assert matmuls.product_shape((5, 4), (3, 5), True, True) == (4, 3)
    assert matmuls.product_shape((2, 4, 5), (5, 3), False, False) == (2, 4, 3)
    assert matmuls.product_shape((2, 4, 5), (2, 5, 3), False, False) == (2, 4, 3)


# ---------------------------------------------------------------------------------------------
# the epilogue and the rendered files
# ---------------------------------------------------------------------------------------------

M = "matmul(a, b, transpose_b=tb)"
LEAKY = f"max({M} + bias, 0) + alpha * min({M} + bias, 0)"


def test_the_epilogue_is_the_expression_over_the_product():
    epilogue, product = matmul.epilogue_op(load(mm_op(LEAKY)))
    assert product == "product"
    assert [t.name for t in epilogue.inputs] == ["product", "bias"]
    assert epilogue.inputs[0].dtypes == ("float32", "float32")
    assert expr.show(epilogue.compute["c"]) == (
        "max(product + bias, 0) + alpha * min(product + bias, 0)"
    )


def test_the_matmul_data_names_each_runtime_choice():
    data = matmul.plan(load(mm_op(LEAKY)), twin.options(("ascend910b1",)))
    assert (data.a.transpose, data.a.attr, data.b.attr, data.b.attr_index) == (False, "", "tb", 1)
    assert data.b.may_transpose and not data.a.may_transpose
    fields = [f.name for f in data.tiling_fields]
    assert {"bTransposed", "biasFull", "alpha", "batch", "tileLength"} <= set(fields)
    assert [i.tile for i in data.inputs] == ["bias"] and not data.inputs[0].widen
    assert data.narrow_output  # c is bf16 in the second combination


def test_the_rendered_files_use_the_matmul_api():
    proto = prototype.loads(json.dumps([mm_op(LEAKY)]))
    files = {f.path: f.content.decode() for f in twin.render_files(proto, twin.options())}
    kernel = files["op_kernel/matmul_epilogue.cpp"]
    for needle in (
        "matmul::Matmul<AType, BType, CType, BiasType> matmulObj;",
        "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);",
        "CubeFormat::ND, DTYPE_B, true>",  # b's transpose is an attr: ISTRANS
        "matmulObj.SetTail(rows_, cols_);",
        "matmulObj.template GetTensorC<true>(product, false, true);",
    ):
        assert needle in kernel, needle
    # registered in the kernel entry, whose scope covers every Matmul call (on an AIV the macro's
    # client lives in the scope it is expanded in; on the AIC it returns from that function)
    entry = kernel[kernel.index("__global__") :]
    regist = "REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.matmulObj, &tilingData.cubeTiling);"
    assert kernel.count("REGIST_MATMUL_OBJ(") == 1 and regist in entry, entry
    assert entry.index(regist) < entry.index("op.Init(") < entry.index("op.Process();")
    host = files["op_host/matmul_epilogue.cpp"]
    for needle in (
        "matmul_tiling::MultiCoreMatmulTiling api(platform);",
        "api.GetTiling(cube)",
        "tiling->bTransposed = bT ? 1 : 0;",
        "SetInferShape(optiling::matmul_epilogue::InferShape)",
    ):
        assert needle in host, needle
    assert "AscendC::tiling::TCubeTiling cubeTiling;" in files["op_kernel/matmul_epilogue_tiling.h"]
    assert "MatmulEpilogueCompute(" in files["op_kernel/matmul_epilogue_epilogue.h"]
    own = {p for p in files if "matmul_epilogue" in p}
    assert own == {
        "op_host/matmul_epilogue.cpp",
        "op_kernel/matmul_epilogue.cpp",
        "op_kernel/matmul_epilogue_epilogue.h",
        "op_kernel/matmul_epilogue_tiling.h",
    }


def test_the_adapters_check_the_operands_as_the_kernel_takes_them():
    """The CPU adapter and the fake kernel (which the NPU adapter runs for the output shapes)
    refuse, with the reason, the shapes the host's ReadMatrices/EpilogueShape and TilingFunc
    refuse (was "InferShape/TilingFunc returned GRAPH_FAILED" alone, and torch.matmul's
    broadcasting on meta): tests/test_opgen_checks.py checks the helpers' messages."""
    proto = prototype.loads(json.dumps([mm_op(LEAKY)]))
    rendered = twin.render_files(proto, twin.options(), full=True)
    files = {f.path: f.content.decode() for f in rendered}
    cpu = next(text for path, text in files.items() if path.endswith("/csrc/ops.cpp"))
    call = (
        'opgen_torch::MatmulShapes("MatmulEpilogue", "a", a, "b", b, false, tb, {"bias"}, {bias});'
    )
    assert call in " ".join(cpu.split()), cpu
    fake = next(text for path, text in files.items() if path.endswith("/ops.py"))
    call = '_matmul_shapes("MatmulEpilogue", "a", a, "b", b, False, tb, {"bias": bias})'
    assert call in fake
    fake_body = fake[fake.index("def _matmul_epilogue_fake(") :]
    assert fake_body.index("_matmul_shapes(") < fake_body.index("_golden.matmul_epilogue(")


@pytest.mark.parametrize(
    "compute",
    [LEAKY, "matmul(a, b)", "matmul(a, b, transpose_a=True) * alpha + bias"],
    ids=["leaky", "plain", "transposed-a"],
)
def test_the_rendered_files_are_tidy(compute):
    from test_kernel_host_render import assert_tidy

    proto = prototype.loads(json.dumps([mm_op(compute)]))
    files = {f.path: f.content.decode() for f in twin.render_files(proto, twin.options())}
    assert_tidy({p: t for p, t in files.items() if "matmul_epilogue" in p})


def test_every_ascend_c_name_the_templates_use_is_in_asc_devkit():
    """The names of the Ascend C, Matmul, matmul_tiling and platform APIs in the rendered matmul
    files occur in asc-devkit's headers (tests/data/asc_devkit_names.tsv, written by
    bench/asc_devkit_names.py from a copy of the repository)."""
    from api_names import recorded_names, used_names

    missing = sorted(used_names() - set(recorded_names()))
    assert not missing, (
        f"{missing}: not recorded as asc-devkit names; run bench/asc_devkit_names.py on a copy "
        "of github.com/mirror-cann/asc-devkit (a name it cannot find is no Ascend C name)"
    )


def test_a_soc_without_the_mixed_matmul_is_refused():
    with pytest.raises(PrototypeError) as err:
        twin.render_files(
            prototype.loads(json.dumps([mm_op("matmul(a, b)")])),
            twin.options(("ascend910b1", "ascend310p3")),
        )
    (problem,) = err.value.problems
    assert problem.path == "$[0].opgen.compute.c"
    text = problem.text()
    assert "MatmulEpilogue: matmul(a, b) drives the Matmul API from the vector cores" in text
    assert "KERNEL_TYPE_MIX_AIC_1_2, Atlas A2/A3 only), which ascend310p lacks" in text


def test_a_long_call_of_a_lowered_step_is_wrapped_after_its_commas():
    """A step call longer than the line (long tile names: a matmul's product) is wrapped as
    cpp_call lays calls out, the commas inside a nested call kept; a short one is left alone."""
    from opgen.rendering.cpp_layout import cpp_long_calls

    code = (
        "    AscendC::Select(tmp0, bias.ReinterpretCast<uint8_t>(), tmp0, product, "
        "AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, f(a, b));\n"
        "    AscendC::Add(c, c, tmp0, count);"
    )
    assert cpp_long_calls(code) == (
        "    AscendC::Select(tmp0, bias.ReinterpretCast<uint8_t>(), tmp0, product,\n"
        "                    AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, f(a, b));\n"
        "    AscendC::Add(c, c, tmp0, count);"
    )
