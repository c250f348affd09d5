"""The kernel and host templates (templates/kernel/op, templates/host/op).

Render checks read the generated files for their meaning (entry signature, DTYPE_ macros, OpDef
lines, attrs, SoCs, includes, ownership, tidiness). The slow checks compile every generated kernel
(all dtype variants) and host file against the CPU twin (opgen/twin), link them into one driver
and run the ops end to end against float64 torch goldens, judged by MERE/MARE.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import render_files
from kernel_host import protos, twin

from opgen.compiler.lower import SELECT_RESERVED_UB
from opgen.frontend import prototype
from opgen.frontend.catalog import SOC_SHORT_NAMES
from opgen.frontend.problems import PrototypeError
from opgen.rendering import render
from opgen.rendering.cpp_layout import cpp_comment
from opgen.resources import templates_dir

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED = ROOT / "tests" / "data" / "protos"  # copies of ../shared/protos
OWNERS = {
    "op_kernel/{snake}.cpp": "generated",
    "op_kernel/{snake}_tiling.h": "generated",
    "op_kernel/{snake}_compute.h": "user",
    "op_host/{snake}.cpp": "generated",
    "op_host/{snake}_tiling_policy.h": "user",
}
# an op without a compute expression (model.Op.user_computed): its own files
USER_OWNERS = {
    "op_kernel/{snake}.cpp": "generated",
    "op_kernel/{snake}_tiling.h": "user",
    "op_kernel/{snake}_kernel.h": "user",
    "op_host/{snake}.cpp": "generated",
    "op_host/{snake}_tiling_policy.h": "user",
    "op_host/{snake}_infer.h": "user",
}

# Code lines (see _code_lines) the files of two ops may have in common.
SHARED_LINES_LIMIT = 40  # issue #9's goal

_RENDERED: dict[tuple[str, tuple[str, ...]], dict[str, str]] = {}


def rendered(text: str, socs: tuple[str, ...] = ("ascend910b1",)) -> dict[str, str]:
    """path -> text of the files the kernel and host templates render (cached per session)."""
    key = (text, socs)
    if key not in _RENDERED:
        files = twin.render_files(prototype.loads(text), twin.options(socs))
        _RENDERED[key] = {f.path: f.content.decode() for f in files}
    return _RENDERED[key]


def example(name: str) -> str:
    return (EXAMPLES / name).read_text()


def flat(text: str) -> str:
    """`text` with every run of whitespace made one space (wrapped lines joined)."""
    return re.sub(r"\s+", " ", text)


def without_bf16(text: str) -> str:
    """The prototype without its bfloat16 combinations, which 310P and 910A cannot run."""
    data = json.loads(text)
    for op in data if isinstance(data, list) else [data]:
        tensors = op.get("input_desc", []) + op.get("output_desc", [])
        keep = (
            [
                i
                for i in range(len(tensors[0]["type"]))
                if not any(t["type"][i] in ("bf16", "bfloat16") for t in tensors)
            ]
            if tensors and isinstance(tensors[0].get("type"), list)
            else None
        )
        for t in tensors if keep is not None else []:
            t["type"] = [t["type"][i] for i in keep]
            if isinstance(t.get("format"), list) and len(t["format"]) > 1:
                t["format"] = [t["format"][i] for i in keep]
    return json.dumps(data)


def ours(files: dict[str, str]) -> dict[str, str]:
    """The C++ files of the kernel and host templates (per op and per project)."""
    return {p: t for p, t in files.items() if re.match(r"op_(kernel|host)/\w+\.(cpp|h)$", p)}


# ---------------------------------------------------------------------------------------------
# render: meaning of the generated files
# ---------------------------------------------------------------------------------------------

E2E_COMPARE_WHERE = (EXAMPLES.parent / "tests" / "data" / "e2e" / "compare_where.json").read_text()
# its float and byte ops: the int32 comparisons are Atlas A2/A3 only (refused for 310P)
E2E_FLOAT_COMPARE_WHERE = json.dumps(
    [
        op
        for op in json.loads(E2E_COMPARE_WHERE)
        if "int32" not in {d for t in op["input_desc"] for d in t["type"]}
    ]
)

ALL_PROTOS = {
    "gelu": example("gelu_custom.json"),
    "add": example("add_custom.json"),
    "leaky_relu": example("leaky_relu_custom.json"),
    **{p.stem: p.read_text() for p in sorted(SHARED.glob("*.json"))},
    "silu": protos.text(protos.SILU),
    "recip": protos.text(protos.RECIP),
    "two_out": protos.text(protos.TWO_OUT),
    "inplace": protos.text(protos.INPLACE),
    "in_place_only": protos.text(protos.IN_PLACE_ONLY, protos.IN_PLACE_STUB),
    "optional_out": protos.text(protos.OPTIONAL_OUT),
    "int_mix": protos.text(protos.INT_MIX),
    "optional_dynamic": protos.text(protos.OPTIONAL_DYNAMIC),
    "all_attrs": protos.text(protos.ALL_ATTRS),
    "dynamic_out": protos.text(protos.DYNAMIC_OUT),
    "name_clash": protos.text(protos.NAME_CLASH),
}


@pytest.mark.parametrize("name", sorted(ALL_PROTOS))
def test_every_op_gets_six_files_with_the_right_owner(name):
    text = ALL_PROTOS[name]
    files = rendered(text)
    for op in prototype.loads(text).ops:
        for pattern, owner in (USER_OWNERS if op.user_computed else OWNERS).items():
            path = pattern.format(snake=op.snake_name)
            assert path in files, path
            assert render.owner_of(files[path].encode()) == owner, path


@pytest.mark.parametrize(
    "socs",
    [("ascend910b1",), ("ascend310p3",), ("ascend910b1", "ascend310p3", "ascend910a")],
    ids=["910b", "310p", "910b-310p-910a"],
)
@pytest.mark.parametrize("name", sorted(ALL_PROTOS))
def test_generated_code_is_tidy(name, socs):
    proto = ALL_PROTOS[name] if "ascend910b1" in socs else without_bf16(ALL_PROTOS[name])
    assert_tidy(ours(rendered(proto, socs)))


@pytest.mark.parametrize(
    "socs", [("ascend910b1",), ("ascend310p3", "ascend910b1")], ids=["910b", "310p-910b"]
)
def test_comparison_and_byte_code_is_tidy(socs):
    """Compare/Select steps, the through-half streams and casts, the tiling policy's block
    alignment and UB reserve, and a long expression's header comment."""
    proto = E2E_FLOAT_COMPARE_WHERE if "ascend310p3" in socs else E2E_COMPARE_WHERE
    files = ours(rendered(proto, socs))
    assert "WidenThroughHalf" in files["op_kernel/opgen_kernel.h"]
    assert "COMPARE_BLOCK_ELEMS" in files["op_host/heaviside_custom_tiling_policy.h"]
    assert_tidy(files)


def assert_tidy(files: dict[str, str]) -> None:
    for path, text in files.items():
        assert text.endswith("\n") and not text.endswith("\n\n"), path
        assert "\n\n\n" not in text, f"{path}: double blank line"
        assert not re.search(r"\{\{ | \}\}|\{%|%\}", text), f"{path}: template residue"
        assert "\t" not in text, path
        for n, line in enumerate(text.splitlines(), 1):
            assert line == line.rstrip(), f"{path}:{n}: trailing whitespace"
            assert len(line) <= 120, f"{path}:{n}: {len(line)} characters"
        lines = text.splitlines()
        for n, (line, after) in enumerate(zip(lines, lines[1:], strict=False), 1):
            opens = line.endswith("{") and not line.startswith("namespace")
            assert not (opens and not after), f"{path}:{n}: blank line after an opening brace"
            closes = after.strip().startswith("}") and not after.startswith("}  // namespace")
            assert not (closes and not line), f"{path}:{n}: blank line before a closing brace"
        assert "UnknownShapeFormat" not in text


def test_gelu_kernel():
    files = rendered(ALL_PROTOS["gelu"])
    kernel = files["op_kernel/gelu_custom.cpp"]
    assert (
        'extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, '
        "GM_ADDR workspace, GM_ADDR tiling)"
    ) in flat(kernel)
    assert (
        kernel.index('#include "kernel_operator.h"')
        < kernel.index('#include "gelu_custom_tiling.h"')
        < kernel.index('#include "gelu_custom_compute.h"')
    )
    assert kernel.index("REGISTER_TILING_DEFAULT(GeluCustomTilingData);") < kernel.index(
        "GET_TILING_DATA_WITH_STRUCT(GeluCustomTilingData, tilingData, tiling);"
    )
    assert kernel.index('#include "opgen_kernel.h"') < kernel.index(
        '#include "gelu_custom_tiling.h"'
    )
    for needle in [
        "class KernelGeluCustom : public "
        "opgen_kernel::ElementwiseKernel<KernelGeluCustom, GeluCustomTilingData> {",
        "opgen_kernel::InStream<DTYPE_X, GELU_CUSTOM_BUFFER_NUM> xIn_;",
        "opgen_kernel::OutStream<DTYPE_Y, GELU_CUSTOM_BUFFER_NUM> yOut_;",
        "if (InitCore(tiling)) {",
        "xIn_.Init(pipe_, x, share_, tiling.tileLength);",
        "xIn_.CopyIn(offset, count);",
        "const auto xView = xIn_.Load(count);",
        "const auto yView = yOut_.Alloc();",
        "GeluCustomCompute(yView, xView, scratch_, count, tiling_);",
        "yOut_.Store(yView, count);",
        "xIn_.Free();",
        "yOut_.CopyOut(offset, count);",
    ]:
        assert needle in kernel, needle
    # the pipeline itself is the project's shared header
    shared = files["op_kernel/opgen_kernel.h"]
    assert render.owner_of(shared.encode()) == "generated"
    for needle in [
        "#ifndef OPGEN_KERNEL_H",
        "namespace opgen_kernel {",
        "AscendC::TQue<POSITION, BUFFERS> queue_;",
        "class InStream : public StreamBuffers<T, AscendC::TPosition::VECIN, BUFFERS, C> {",
        "class OutStream : public StreamBuffers<T, AscendC::TPosition::VECOUT, BUFFERS, C> {",
        "using CalcBuf = AscendC::TBuf<AscendC::TPosition::VECCALC>;",
        "gm_.SetGlobalBuffer(reinterpret_cast<__gm__ T*>(gm) + share.offset, share.length);",
        "AscendC::GetBlockIdx()",
        "AscendC::DataCopyPad(dst, src, params, padParams);",
        "AscendC::Cast(wide, tile, AscendC::RoundMode::CAST_NONE, count);",
        "AscendC::Cast(tile, result, AscendC::RoundMode::CAST_RINT, count);",
        "AscendC::Cast(tile, result, AscendC::RoundMode::CAST_NONE, count);",
        "queue_.EnQue(tile);",
        "queue_.FreeTensor(tile_);",
        "kernel.CopyIn(done, count);",
        "kernel.Compute(count);",
        "kernel.CopyOut(done, count);",
    ]:
        assert needle in shared, needle
    assert set(re.findall(r"DTYPE_\w+", kernel)) == {"DTYPE_X", "DTYPE_Y"}
    tiling = files["op_kernel/gelu_custom_tiling.h"]
    assert "#ifndef GELU_CUSTOM_TILING_H" in tiling and "struct GeluCustomTilingData {" in tiling
    for field in (
        "totalLength",
        "blockLength",
        "tileLength",
        "tmpCount",
        "tmpBytes",
        "sharedTmpBytes",
    ):
        assert re.search(rf"\b(uint32_t|uint64_t) {field};", tiling), field
    step = files["op_kernel/gelu_custom_compute.h"]
    assert "AscendC::Tanh(" in step and "sharedTmp" in step
    assert "y = 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))" in step


def test_gelu_host():
    host = rendered(ALL_PROTOS["gelu"])["op_host/gelu_custom.cpp"]
    for needle in [
        '#include "../op_kernel/gelu_custom_tiling.h"',
        '#include "opgen_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "gelu_custom_tiling_policy.h"',
        "namespace optiling {\nnamespace gelu_custom {",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "context->GetTilingData<GeluCustomTilingData>()",
        "!opgen::ReadFacts(context, context->GetRequiredInputShape(0), facts)",
        "!opgen::AddTensor(facts, context->GetRequiredInputDesc(0), GELU_CUSTOM_BUFFER_NUM) ||",
        "!opgen::AddTensor(facts, context->GetOutputDesc(0), GELU_CUSTOM_BUFFER_NUM)) {",
        "return opgen::ApplyPlan(context, facts, PlanTiling(facts), *tiling);",
        "class GeluCustom : public OpDef {",
        '        this->Input("x")\n            .ParamType(REQUIRED)\n'
        "            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16})\n"
        "            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});",
        "// Every output has the shape and the dtype of x.\n"
        "        this->SetInferShape(optiling::opgen::InferShapeLikeInput<0>)\n"
        "            .SetInferDataType(optiling::opgen::InferDataTypeLikeInput<0>);",
        "this->AICore().SetTiling(optiling::gelu_custom::TilingFunc);",
        'this->AICore().AddConfig("ascend910b");',
        "OP_ADD(GeluCustom);",
    ]:
        assert needle in host, needle
    shared = rendered(ALL_PROTOS["gelu"])["op_host/opgen_tiling.h"]
    assert render.owner_of(shared.encode()) == "generated"
    for needle in [
        "#ifndef OPGEN_TILING_H",
        "namespace optiling {\nnamespace opgen {",
        '#include "tiling/platform/platform_ascendc.h"',
        "struct TilingFacts {",
        "struct ScratchNeeds {",
        "struct TilingPlan {",
        "inline TilingPlan DefaultPlan(const TilingFacts& facts, const ScratchNeeds& scratch,",
        "inline bool AddTensor(TilingFacts& facts, ge::DataType dtype, uint32_t buffers)",
        "platform.GetCoreNumAiv()",
        "platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, facts.ubSize);",
        "context->SetBlockDim(plan.blockDim);",
        "workspaces[0] = platform.GetLibApiWorkSpaceSize();",
    ]:
        assert needle in shared, needle
    project = rendered(ALL_PROTOS["gelu"])
    assert "op_host/gelu_custom_tiling_base.h" not in project  # the policy includes the shared one
    policy = project["op_host/gelu_custom_tiling_policy.h"]
    assert '#include "opgen_tiling.h"' in policy
    assert "namespace gelu_custom {\n\n// " in policy and "\nusing namespace opgen;\n" in policy
    assert "constexpr uint32_t TMP_COUNT = 1;" in policy
    assert "constexpr uint32_t SHARED_TMP_LIVE_NODES = 1;" in policy
    assert "constexpr uint32_t SHARED_TMP_MIN_BYTES = 256;" in policy
    assert "#include <" in policy and "kernel_operator" not in policy  # host-only C++


def test_outputs_like_an_input_register_the_shared_inference():
    gelu = rendered(ALL_PROTOS["gelu"])["op_host/gelu_custom.cpp"]
    assert "static ge::graphStatus InferShape(" not in gelu
    assert "static ge::graphStatus InferDataType(" not in gelu
    shared = rendered(ALL_PROTOS["gelu"])["op_host/opgen_tiling.h"]
    assert "inline ge::graphStatus InferShapeLikeInput(gert::InferShapeContext* context)" in shared
    assert "context->SetOutputDataType(i, dtype);" in shared
    # an output whose dtype is not its input's keeps functions of the op's own
    to_float = protos.op(
        "ToFloatCustom",
        [protos.tensor("x", ("fp16", "float"))],
        [protos.tensor("y", ("float", "float"))],
    )
    text = json.dumps([{**to_float, "opgen": {"compute": {"y": "x * 2.0"}}}])
    host = rendered(text)["op_host/to_float_custom.cpp"]
    assert "SetInferShape(optiling::opgen::" not in host and "InferDataTypeLikeInput" not in host
    assert "static ge::graphStatus InferShape(gert::InferShapeContext* context)" in host
    assert "context->SetOutputDataType(0, ge::DT_FLOAT);" in host
    assert "return opgen::InferShapeLikeInput<0>(context);" in host
    assert (
        "this->SetInferShape(optiling::to_float_custom::InferShape)\n"
        "            .SetInferDataType(optiling::to_float_custom::InferDataType);"
    ) in host


def test_add_computes_per_combination_type():
    files = rendered(ALL_PROTOS["add"])
    step = files["op_kernel/add_custom_compute.h"]
    assert "template <typename T>" in step and "AscendC::Add(z, x, y, count);" in step
    kernel = files["op_kernel/add_custom.cpp"]
    assert (
        "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)"
        in flat(kernel)
    )
    assert (
        ".DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32})"
        in files["op_host/add_custom.cpp"]
    )


def test_leaky_relu_attr_reaches_the_kernel_through_tiling():
    files = rendered(ALL_PROTOS["leaky_relu"])
    assert re.search(
        r"float negative_slope; +// attr negative_slope",
        files["op_kernel/leaky_relu_custom_tiling.h"],
    )
    host = files["op_host/leaky_relu_custom.cpp"]
    assert 'this->Attr("negative_slope").AttrType(OPTIONAL).Float(0.01f);' in host
    assert "attrs->GetFloat(0)" in host
    assert (
        "tiling->negative_slope = negativeSlopeAttr != nullptr ? *negativeSlopeAttr : 0.01f;"
        in host
    )
    assert "tiling.negative_slope" in files["op_kernel/leaky_relu_custom_compute.h"]


def test_attrs_of_every_type():
    files = rendered(ALL_PROTOS["all_attrs"])
    host = files["op_host/all_attrs_custom.cpp"]
    for line in [
        'this->Attr("i_req").AttrType(REQUIRED).Int();',
        'this->Attr("f_opt").AttrType(OPTIONAL).Float(0.01f);',
        'this->Attr("b_opt").AttrType(OPTIONAL).Bool(true);',
        'this->Attr("s_opt").AttrType(OPTIONAL).String("a \\"quoted\\" \\\\ path\\012");',
        'this->Attr("li_opt").AttrType(OPTIONAL).ListInt({1, 2});',
        'this->Attr("lf_opt").AttrType(OPTIONAL).ListFloat({0.5f, -1.25f});',
        'this->Attr("lb_opt").AttrType(OPTIONAL).ListBool({true, false});',
        'this->Attr("lli_opt").AttrType(OPTIONAL).ListListInt({{1, 2}, {3}});',
        'this->Attr("s_req").AttrType(REQUIRED).String();',
        'this->Attr("tileLength").AttrType(OPTIONAL).Int(7);',
    ]:
        assert line in host, line
    tiling = files["op_kernel/all_attrs_custom_tiling.h"]
    fields = re.findall(r"^    (\w+) (\w+);", tiling, re.M)
    # scalar attrs only (strings and lists stay on the host), widest first; an attr named like
    # a base field gets a prefix
    assert fields[6:] == [
        ("int64_t", "i_req"),
        ("int64_t", "attr_tileLength"),
        ("float", "f_opt"),
        ("bool", "b_opt"),
    ]
    assert "attrs->GetInt(0)" in host and "attrs->GetInt(9)" in host
    assert "if (iReqAttr == nullptr) {\n        return ge::GRAPH_FAILED;" in host


def test_in_place_output():
    files = rendered(ALL_PROTOS["inplace"])
    kernel = files["op_kernel/scale_inplace_custom.cpp"]
    assert (
        "void scale_inplace_custom(GM_ADDR x, GM_ADDR x_ref, GM_ADDR workspace, GM_ADDR tiling)"
    ) in flat(kernel)
    assert "DTYPE_X_REF" in kernel and "xRefOut_.Init(pipe_, x_ref," in kernel
    host = files["op_host/scale_inplace_custom.cpp"]
    assert host.count('this->Input("x")') == 1 and host.count('this->Output("x")') == 1


def test_op_without_outputs_writes_its_inputs_back():
    files = rendered(ALL_PROTOS["in_place_only"])
    kernel = files["op_kernel/accumulate_custom.cpp"]
    # the entry has only the inputs; acc is read and written back through the same address
    assert (
        "void accumulate_custom(GM_ADDR acc, GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)"
        in flat(kernel)
    )
    assert "accIn_.Init(pipe_, acc," in kernel and "accRefOut_.Init(pipe_, acc," in kernel
    assert "xRefOut_" not in kernel  # x is only read
    assert "OutStream<DTYPE_ACC," in kernel
    assert set(re.findall(r"DTYPE_\w+", kernel)) == {"DTYPE_ACC", "DTYPE_X"}
    step = files["op_kernel/accumulate_custom_compute.h"]
    assert "const AscendC::LocalTensor<float>& acc_ref," in step
    host = files["op_host/accumulate_custom.cpp"]
    assert "this->Output(" not in host and host.count("this->Input(") == 2
    # x broadcasts into acc, which cannot grow: InferShape checks their shapes, no output's
    assert "Inputs acc and x broadcast into acc, which AccumulateCustom updates in place." in host
    assert "return opgen::InferShapeBroadcastInto(context, inputs, updated);" in host
    assert "const gert::StorageShape* outShape = context->GetRequiredInputShape(0);" in host
    assert "no dtype to set" in host
    assert "SetOutputDataType" not in host and "GetOutputShape" not in host
    # the UB budget counts the write-back stream too (acc twice)
    assert host.count("context->GetRequiredInputDesc(0)") == 2
    # without compute, the placeholder overwrites every input (zeros)
    stub = files["op_kernel/scatter_stub_custom.cpp"]
    assert "varRefOut_.Init(pipe_, var," in stub and "idxRefOut_.Init(pipe_, idx," in stub
    assert "OutStream<DTYPE_IDX," in stub


def test_optional_output_is_declared_optional_and_computed():
    files = rendered(ALL_PROTOS["optional_out"])
    host = files["op_host/addcdiv_custom.cpp"]
    assert 'this->Output("ratio")\n            .ParamType(OPTIONAL)' in host
    assert "context->GetOutputDesc(1)" in host  # its UB share is budgeted
    kernel = files["op_kernel/addcdiv_custom.cpp"]
    assert (
        "void addcdiv_custom(GM_ADDR x, GM_ADDR t1, GM_ADDR t2, GM_ADDR y, GM_ADDR ratio, "
        "GM_ADDR workspace, GM_ADDR tiling)"
    ) in flat(kernel)
    assert "ratioOut_.Init(pipe_, ratio," in kernel and "is not streamed" not in kernel


def test_optional_and_dynamic_inputs_are_passed_but_not_streamed():
    files = rendered(ALL_PROTOS["optional_dynamic"])
    kernel = files["op_kernel/opt_dyn_custom.cpp"]
    assert (
        "void opt_dyn_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR extras, GM_ADDR y, GM_ADDR z, "
        "GM_ADDR workspace, GM_ADDR tiling)"
    ) in flat(kernel)
    assert "// bias (optional input) is not streamed" in kernel
    assert "// extras (dynamic input) is not streamed" in kernel
    assert set(re.findall(r"DTYPE_\w+", kernel)) == {"DTYPE_X", "DTYPE_Y", "DTYPE_Z"}
    host = files["op_host/opt_dyn_custom.cpp"]
    assert ".ParamType(OPTIONAL)" in host and ".ParamType(DYNAMIC)" in host
    # the required input y is IR input 3: by IR index, not by instance
    assert "context->GetRequiredInputDesc(3)" in host


def test_dynamic_output_of_an_op_without_compute():
    """An op without compute whose first output is a list: the user's skeletons, with every
    instance of the list typed and the output after it found by its instance index."""
    files = rendered(ALL_PROTOS["dynamic_out"])
    assert "op_kernel/dyn_out_custom_compute.h" not in files
    infer = files["op_host/dyn_out_custom_infer.h"]
    assert (
        "const gert::AnchorInstanceInfo* partsInfo = context->GetIrOutputInstanceInfo(0);" in infer
    )  # the list output's instances
    assert "context->SetOutputDataType(OutputIndex(context, 1), " in infer  # y comes after it
    assert "inline size_t OutputIndex(const gert::ExtendedKernelContext* context" in infer
    kernel = files["op_kernel/dyn_out_custom_kernel.h"]
    assert "AscendC::ListTensorDesc partsList_;" in kernel


@pytest.mark.parametrize("name", ["add_custom.msopgen", "gelu_custom.seed"])
def test_prototypes_without_compute(name):
    """The user's kernel and InferShape are marked placeholders; the generated host code
    registers the user's InferShape and assumes no shape rule."""
    files = rendered(ALL_PROTOS[name])
    op = prototype.loads(ALL_PROTOS[name]).ops[0]
    assert f"op_kernel/{op.snake_name}_compute.h" not in files
    kernel = files[f"op_kernel/{op.snake_name}_kernel.h"]
    assert "PLACEHOLDER" in kernel and "TODO(opgen)" in kernel and "DO NOT EDIT" not in kernel
    infer = files[f"op_host/{op.snake_name}_infer.h"]
    assert f"#define {op.snake_name.upper()}_INFER_SHAPE_NOT_WRITTEN  // !!! PLACEHOLDER" in infer
    host = files[f"op_host/{op.snake_name}.cpp"]
    assert f"SetInferShape(optiling::{op.snake_name}::InferShape)" in host
    assert "LikeInput" not in host and "ReadFacts" not in host


def test_soc_short_names_and_tanh_rule():
    socs = ("ascend910b1", "ascend310p3", "ascend910a")
    files = rendered(ALL_PROTOS["gelu"], socs)
    host = files["op_host/gelu_custom.cpp"]
    assert re.findall(r'AddConfig\("(\w+)"', host) == ["ascend910b", "ascend310p", "ascend910"]
    step = files["op_kernel/gelu_custom_compute.h"]
    assert "#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001)" in step
    assert "AscendC::Exp(" in step and "AscendC::Tanh(" in step
    # 310P and 910A lack DataCopyPad: opgen_kernel.h selects the block-copied tails for them
    shared = files["op_kernel/opgen_kernel.h"]
    assert "#if defined(__NPU_ARCH__) && !OPGEN_SOC_HAS_DATACOPYPAD(__NPU_ARCH__)" in shared
    assert "#if OPGEN_BLOCK_TAILS" in shared and "AscendC::DataCopyPad(" in shared  # 910B's
    # gelu without bfloat16, which 910A cannot run
    gelu = json.loads(ALL_PROTOS["gelu"])
    for t in gelu[0]["input_desc"] + gelu[0]["output_desc"]:
        t["type"] = t["type"][:2]
    only_910a = rendered(json.dumps(gelu), ("ascend910a",))["op_kernel/gelu_custom_compute.h"]
    assert "AscendC::Tanh(" not in only_910a and "#if defined" not in only_910a
    assert "ascend910 has no Tanh API: computed through Exp" in only_910a


@pytest.mark.parametrize("socs", [("ascend310p3",), ("ascend910a",), ("ascend310p3", "ascend910a")])
def test_socs_without_datacopypad_never_call_it(socs):
    ops = protos.text(*(json.loads(ALL_PROTOS[n])[0] for n in ("gelu", "add")))
    files = rendered(without_bf16(ops), socs)
    kernel = {path: text for path, text in files.items() if path.startswith("op_kernel/")}
    # CMakeLists.txt, the library (opgen_kernel.h, opgen_broadcast.h, opgen_soc.h), three per op
    assert len(kernel) == 10
    # the ops' own files; the library's DataCopyPad is compiled only where it exists
    # (test_kernel_library.py)
    library = ("op_kernel/opgen_kernel.h", "op_kernel/opgen_broadcast.h", "op_kernel/opgen_soc.h")
    assert not [p for p, text in kernel.items() if "DataCopyPad(" in text and p not in library]


def test_names_that_clash_with_generated_identifiers():
    files = rendered(ALL_PROTOS["name_clash"])
    kernel = files["op_kernel/name_clash_custom.cpp"]
    assert "op1.Init(" in kernel  # the kernel object is not called `op`, a tensor's name


def test_several_ops_in_one_project_with_all_templates():
    text = protos.text(
        *(json.loads(ALL_PROTOS[n])[0] for n in ("gelu", "add", "leaky_relu")), protos.SILU
    )
    rendered_files = render_files(prototype.loads(text), twin.options(), templates_dir())
    files = {f.path: f.content.decode() for f in rendered_files}
    for snake in ("gelu_custom", "add_custom", "leaky_relu_custom", "silu_custom"):
        assert f"op_kernel/{snake}.cpp" in files and f"op_host/{snake}.cpp" in files
    hosts = [t for p, t in files.items() if p.startswith("op_host/") and p.endswith(".cpp")]
    assert (
        len({re.search(r"namespace optiling \{\nnamespace (\w+)", h).group(1) for h in hosts}) == 4
    )


def _code_lines(files: dict[str, str], snake: str) -> Counter:
    """The code lines of an op's op_kernel/<op>*.cpp and op_host/<op>* files: stripped, without
    blank lines, comments, #includes and lines of braces and punctuation only."""
    lines: Counter = Counter()
    for path, text in files.items():
        if not (
            re.fullmatch(rf"op_kernel/{snake}\w*\.cpp", path)
            or re.fullmatch(rf"op_host/{snake}\w*\.\w+", path)
        ):
            continue
        for line in text.splitlines():
            s = line.strip()
            if s and not s.startswith(("//", "#include")) and not re.fullmatch(r"[{}();,]*", s):
                lines[s] += 1
    return lines


def test_two_ops_share_their_helpers_instead_of_repeating_them():
    """What every op needs lives in the project's opgen_kernel.h and opgen_tiling.h, once."""
    text = protos.text(*(json.loads(ALL_PROTOS[n])[0] for n in ("gelu", "leaky_relu")))
    files = rendered(text)
    gelu, leaky = _code_lines(files, "gelu_custom"), _code_lines(files, "leaky_relu_custom")
    shared = sum((gelu & leaky).values())
    # 233 before the shared headers; the rest is what two x -> y ops have in common by nature
    # (tensor names, OpDef lines, namespaces, the policy's and base header's fixed lines).
    assert shared <= SHARED_LINES_LIMIT, sorted((gelu & leaky).elements())
    assert "op_kernel/opgen_kernel.h" in files and "op_host/opgen_tiling.h" in files


def test_lowering_error_surfaces_from_render():
    data = json.loads(ALL_PROTOS["gelu"])
    for t in data[0]["input_desc"] + data[0]["output_desc"]:
        t["type"] = ["double"]
    with pytest.raises(PrototypeError) as raised:
        rendered(json.dumps(data))
    (problem,) = raised.value.problems
    assert problem.path == "$[0].opgen.compute.y"
    assert re.match(r"GeluCustom: compute expression of output 'y'.*float64", problem.text())


# ---------------------------------------------------------------------------------------------
# twin: compile everything, run against float64 goldens
# ---------------------------------------------------------------------------------------------

BROKEN_POLICY = """    TilingPlan plan = DefaultPlan(facts, scratch, MIN_ELEMS_PER_CORE);
    plan.tileLength += 1;  // deliberately not a multiple of 32 bytes
    plan.tmpBytes = plan.tileLength * facts.computeBytes;
    return plan;"""


def _renamed(data: dict, op_type: str) -> dict:
    return {**data, "op": op_type}


NPU2002 = twin.KernelSet("npu2002", ("-D__NPU_ARCH__=2002",))  # ascend310p
NPU1001 = twin.KernelSet("npu1001", ("-D__NPU_ARCH__=1001",))  # ascend910a
TAILS_OPS = [
    json.loads(ALL_PROTOS["gelu"])[0],
    json.loads(ALL_PROTOS["add"])[0],
    protos.INPLACE,
    protos.IN_PLACE_ONLY,
    protos.INT_MIX,
]


@pytest.fixture(scope="session")
def twin_ops(tmp_path_factory):
    """Render the run ops into two projects, patch a broken policy, build one driver."""
    base = tmp_path_factory.mktemp("kernel_host")
    ops = [json.loads(ALL_PROTOS[n])[0] for n in ("add", "gelu", "leaky_relu")]
    stub = _renamed(json.loads(ALL_PROTOS["add_custom.msopgen"])[0], "AddStubCustom")
    broken = _renamed(json.loads(ALL_PROTOS["gelu"])[0], "GeluBrokenCustom")
    ops += [
        protos.SILU,
        protos.RECIP,
        protos.TWO_OUT,
        protos.INPLACE,
        protos.INT_MIX,
        protos.ALL_ATTRS,
        protos.NAME_CLASH,
        protos.OPTIONAL_DYNAMIC,
        protos.IN_PLACE_ONLY,
        protos.IN_PLACE_STUB,
        protos.OPTIONAL_OUT,
        stub,
        broken,
    ]
    main = twin.render_project(protos.text(*ops), base / "main")
    policy = base / "main" / "op_host" / "gelu_broken_custom_tiling_policy.h"
    good = "    return DefaultPlan(facts, scratch, MIN_ELEMS_PER_CORE);"
    assert good in policy.read_text()
    policy.write_text(policy.read_text().replace(good, BROKEN_POLICY))
    # Tanh and Sigmoid are missing on ascend310b: both sequences, compiled twice
    mixed = twin.render_project(
        protos.text(protos.TANH_SIGMOID), base / "mixed", socs=("ascend910b1", "ascend310b1")
    )
    # tails without DataCopyPad: the ops again, for 910B, 310P and 910A, compiled for each
    renamed = [_renamed(op, op["op"].replace("Custom", "TailsCustom")) for op in TAILS_OPS]
    tails = twin.render_project(
        protos.text(*renamed), base / "tails", socs=("ascend910b1", "ascend310p3", "ascend910a")
    )
    builds = [
        twin.OpBuild(
            base / "main",
            op,
            (twin.KernelSet("default"), NPU2002, NPU1001)
            if op["op_type"] == "GeluCustom"
            else (twin.KernelSet("default"),),
        )
        for op in main["ops"]
    ]
    builds.append(
        twin.OpBuild(
            base / "mixed",
            mixed["ops"][0],
            (twin.KernelSet("default"), twin.KernelSet("npu3002", ("-D__NPU_ARCH__=3002",))),
        )
    )
    builds += [
        twin.OpBuild(base / "tails", op, (twin.KernelSet("default"), NPU2002, NPU1001))
        for op in tails["ops"]
    ]
    cache = os.environ.get("OPGEN_TEST_CACHE")
    result = twin.build(builds, base / "build", Path(cache) if cache else None)
    models = {op.op_type: op for ctx in (main, mixed, tails) for op in ctx["proto"].ops}
    return result, models, base


@pytest.mark.slow
def test_twin_build_is_warning_free(twin_ops):
    result, _, _ = twin_ops
    print("compile seconds:", json.dumps(result.seconds, indent=1))
    generated = [
        f"{name}: {text}"
        for name, text in result.warnings.items()
        if "/main/" in text or "/mixed/" in text
    ]
    assert not generated, "\n".join(generated)


RANGES = {
    "GeluCustom": (-3, 3),
    "RecipCustom": (-3, 3),
    "LeakyReluCustom": (-2, 2),
    "SiluCustom": (-6, 6),
    "ScaleInplaceCustom": (-1, 1),
    "TanhSigmoidCustom": (-3, 3),
    "IntMixCustom": (-90, 90),
}
RANGES.update({op.replace("Custom", "TailsCustom"): r for op, r in RANGES.items()})
SHAPES = {"empty": (0,), "one": (1,), "unaligned": (3, 37), "multi_core": (5001,)}


def _cases():
    cases = []
    runs = {
        "AddCustom": ["float16", "float32", "bfloat16", "int32"],
        "GeluCustom": ["float16", "float32", "bfloat16"],
        "LeakyReluCustom": ["float16", "float32"],
        "SiluCustom": ["float16", "float32", "bfloat16"],
        "RecipCustom": ["float32", "float16"],
        "TwoOutCustom": ["float16", "float32"],
        "ScaleInplaceCustom": ["float32", "float16"],
        "AccumulateCustom": ["float32", "float16"],
        "AddcdivCustom": ["float32", "float16"],
        "IntMixCustom": ["int16", "int32"],
        "TanhSigmoidCustom": ["float32", "float16"],
        "NameClashCustom": ["float32"],
    }
    for op, dtypes in runs.items():
        for dtype in dtypes:
            for shape in SHAPES:
                cases.append(pytest.param(op, dtype, shape, id=f"{op}-{dtype}-{shape}"))
    return cases


def _attrs(op_type: str) -> list:
    op_type = op_type.replace("TailsCustom", "Custom")
    return {
        "ScaleInplaceCustom": [("f", 0.5)],
        "LeakyReluCustom": [("f", 0.2)],
        "TwoOutCustom": [("f", 0.25), ("i", 4), ("b", False)],
    }.get(op_type, [])


def _attr_values(model, given: list) -> dict:
    values = {}
    for k, a in enumerate(model.attrs):
        values[a.name] = given[k][1] if k < len(given) and given[k][0] != "default" else a.default
    return values


def run_and_judge(twin_ops, op_type, dtype, values, attrs=(), kernel_set="default", **kw):
    result, models, base = twin_ops
    model = models[op_type]
    inputs = [(dtype, values[t.name]) for t in model.inputs]
    out = twin.run(
        result.driver, op_type, inputs, list(attrs), kernel_set=kernel_set, workdir=base, **kw
    )
    assert out["ok"], f"{out['stage']}: {out['error']}"
    stored = {t.name: v for t, v in zip(model.inputs, out["inputs"], strict=True)}
    attr_values = _attr_values(model, list(attrs))
    produced = out["outputs"]
    if model.in_place_only:  # the kernel's results are the inputs it overwrote
        updated = dict(zip([t.name for t in model.inputs], out["updated_inputs"], strict=True))
        produced = [updated[t.name] for t in model.results]
        written = {t.name for t in model.results}
        for t in model.inputs:
            if t.name not in written:  # read only: left as it was
                np.testing.assert_array_equal(updated[t.name]["values"], stored[t.name])
    for t, o in zip(model.results, produced, strict=True):
        expected = twin.golden(model, t.name, stored, attr_values)
        assert o["dtype"] == dtype and list(o["values"].shape) == list(expected.shape)
        if dtype in twin.THRESHOLDS:
            mere, mare = twin.precision(o["values"], expected)
            limit = twin.THRESHOLDS[dtype]
            assert mere < limit and mare < 10 * limit, (
                f"{op_type}/{t.name} {dtype}: MERE {mere:.3g} MARE {mare:.3g} (T = {limit:.3g})"
            )
        else:  # integers: exact
            np.testing.assert_array_equal(o["values"], expected)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("op_type, dtype, shape", _cases())
def test_twin_numerics(twin_ops, op_type, dtype, shape):
    rng = np.random.default_rng(zlib.crc32(f"{op_type}/{dtype}/{shape}".encode()))
    lo, hi = RANGES.get(op_type, (0.5, 2.0))
    model = twin_ops[1][op_type]
    if dtype.startswith("int"):
        values = {
            t.name: rng.integers(lo, hi, SHAPES[shape]).astype(np.float64) for t in model.inputs
        }
    else:
        values = {t.name: rng.uniform(lo, hi, SHAPES[shape]) for t in model.inputs}
    out = run_and_judge(twin_ops, op_type, dtype, values, _attrs(op_type))
    if shape != "multi_core":
        assert out["block_dim"] == 1
    else:
        assert out["block_dim"] == 5  # at least MIN_ELEMS_PER_CORE (1024) elements per core


@pytest.mark.slow
@pytest.mark.parametrize(
    "op_type, dtype",
    [
        ("GeluCustom", "float16"),
        ("TwoOutCustom", "float32"),
        ("AddCustom", "int32"),
        ("SiluCustom", "bfloat16"),
    ],
)
def test_twin_many_tiles_per_core(twin_ops, op_type, dtype):
    """A small UB and four cores: every core runs several tiles, the last one a short tail.
    TwoOutCustom's min/max compare and select (NaN as torch), and Select's tensor modes keep 8 KB
    of UB for themselves (SELECT_RESERVED_UB): its UB is that much larger."""
    rng = np.random.default_rng(1)
    lo, hi = RANGES.get(op_type, (0.5, 2.0))
    model = twin_ops[1][op_type]
    gen = (
        (lambda: rng.integers(-1000, 1000, 9999).astype(np.float64))
        if dtype == "int32"
        else (lambda: rng.uniform(lo, hi, 9999))
    )
    ub = 8192 + (SELECT_RESERVED_UB if op_type == "TwoOutCustom" else 0)
    out = run_and_judge(
        twin_ops,
        op_type,
        dtype,
        {t.name: gen() for t in model.inputs},
        _attrs(op_type),
        cores=4,
        ub=ub,
    )
    assert out["block_dim"] == 4


@pytest.mark.slow
def test_twin_more_than_cores_times_tiles_on_the_default_platform(twin_ops):
    rng = np.random.default_rng(2)
    out = run_and_judge(twin_ops, "GeluCustom", "float32", {"x": rng.uniform(-3, 3, 400_000)})
    assert out["block_dim"] == 40


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_twin_exp_fallback_on_310b(twin_ops, dtype):
    """The __NPU_ARCH__ == 3002 branch (no Tanh/Sigmoid API) computes the same function."""
    rng = np.random.default_rng(3)
    run_and_judge(
        twin_ops, "TanhSigmoidCustom", dtype, {"x": rng.uniform(-3, 3, 2000)}, kernel_set="npu3002"
    )


@pytest.mark.slow
def test_twin_default_attrs(twin_ops):
    rng = np.random.default_rng(4)
    values = {"x": rng.uniform(0.5, 2, 300), "y": rng.uniform(0.5, 2, 300)}
    run_and_judge(twin_ops, "TwoOutCustom", "float16", values, [("default", None)] * 3)
    run_and_judge(
        twin_ops,
        "AllAttrsCustom",
        "float32",
        {"x": rng.uniform(-1, 1, 300)},
        [
            ("i", 5),
            ("default", None),
            ("default", None),
            ("default", None),
            ("default", None),
            ("default", None),
            ("default", None),
            ("default", None),
            ("s", "text"),
            ("i", 3),
        ],
    )


@pytest.mark.slow
def test_twin_op_without_outputs_updates_its_inputs(twin_ops):
    """The placeholder of an op without outputs overwrites every input (zeros); with a
    compute expression the overwritten input holds the golden (test_twin_numerics)."""
    result, _, base = twin_ops
    rng = np.random.default_rng(6)
    out = twin.run(
        result.driver,
        "ScatterStubCustom",
        [("float32", rng.uniform(1, 2, 100)), ("int32", np.arange(100.0))],
        workdir=base,
    )
    assert out["ok"], out["error"]
    assert out["outputs"] == []
    assert [u["values"].tolist() for u in out["updated_inputs"]] == [[0.0] * 100] * 2


@pytest.mark.slow
def test_twin_user_op_fails_until_its_infer_shape_is_written(twin_ops):
    """An op without compute is the user's: its placeholder InferShape fails on the twin, so
    nothing assumes a shape for it."""
    result, _, base = twin_ops
    rng = np.random.default_rng(5)
    out = twin.run(
        result.driver,
        "AddStubCustom",
        [("float16", rng.uniform(1, 2, 100)), ("float16", rng.uniform(1, 2, 100))],
        workdir=base,
    )
    assert not out["ok"] and "InferShape of AddStubCustom returned GRAPH_FAILED" in out["error"]


@pytest.mark.slow
def test_twin_infer_shape_broadcasts_or_refuses_inputs_of_different_shapes(twin_ops):
    """AddCustom broadcasts x and y (torch's rules): shapes that do not broadcast fail its
    InferShape (GRAPH_FAILED) before the kernel could read y out of bounds or leave z half
    written; (3, 1) and (1, 3) give (3, 3)."""
    result, _, base = twin_ops
    for x, y in [
        (np.ones(4), np.ones(3)),
        (np.ones(3), np.ones(4)),
        (np.ones((2, 3)), np.ones((3, 2))),
    ]:
        out = twin.run(result.driver, "AddCustom", [("float32", x), ("float32", y)], workdir=base)
        assert not out["ok"] and out["stage"] == "infer_shape", out
    x, y = np.arange(3.0).reshape(3, 1), 10 * np.arange(3.0).reshape(1, 3)
    out = twin.run(result.driver, "AddCustom", [("float32", x), ("float32", y)], workdir=base)
    assert out["ok"], out["error"]
    np.testing.assert_array_equal(out["outputs"][0]["values"], x + y)
    same = twin.run(
        result.driver,
        "AddCustom",
        [("float32", np.ones((2, 3))), ("float32", np.ones((2, 3)))],
        workdir=base,
    )
    assert same["ok"], same["error"]


@pytest.mark.slow
def test_twin_in_place_op_broadcasts_into_the_tensor_it_updates(twin_ops):
    """AccumulateCustom (acc = acc + alpha * x, no outputs) broadcasts x into acc: a row x or a
    one-element x updates every element of acc; an x that would grow acc fails InferShape
    before the kernel could write acc out of bounds."""
    result, _, base = twin_ops
    acc = np.arange(6.0).reshape(2, 3)
    for x in (np.array([10.0, 20.0, 30.0]), np.array([7.0]), np.full((2, 3), 4.0)):
        out = twin.run(
            result.driver, "AccumulateCustom", [("float32", acc), ("float32", x)], workdir=base
        )
        assert out["ok"], out["error"]
        np.testing.assert_array_equal(out["updated_inputs"][0]["values"], acc + 0.5 * x)
    for acc_shape, x_shape in [((3,), (2, 3)), ((3, 1), (1, 3)), ((2, 3), (3, 2))]:
        out = twin.run(
            result.driver,
            "AccumulateCustom",
            [("float32", np.ones(acc_shape)), ("float32", np.ones(x_shape))],
            workdir=base,
        )
        assert not out["ok"] and out["stage"] == "infer_shape", (acc_shape, x_shape, out)


@pytest.mark.slow
def test_twin_catches_a_tile_that_is_not_32_byte_aligned(twin_ops):
    result, _, base = twin_ops
    out = twin.run(
        result.driver, "GeluBrokenCustom", [("float32", np.linspace(-1, 1, 3000))], workdir=base
    )
    assert not out["ok"] and out["stage"] == "launch"
    assert "not 32-byte aligned" in out["error"], out["error"]


# Element counts for the block-copied tails (ascend310p, ascend910a): shorter than one block,
# whole blocks, a partial last block, 3-D, and with 4 cores and a small UB: a last core's share
# shorter than a block (3 x 1024 + 5), several tiles per core with a short last one.
TAIL_SHAPES = {
    "one": (1,),
    "31": (31,),
    "37": (37,),
    "3d": (3, 5, 17),
    "blocks": (64,),
    "share_joins": (3 * 1024 + 5,),
    "multi_core": (5001,),
    "many_tiles": (9999,),
}
TAIL_RUNS = {
    "GeluTailsCustom": ["float16", "float32"],
    "AddTailsCustom": ["float16", "int32"],
    "ScaleInplaceTailsCustom": ["float32"],
    "AccumulateTailsCustom": ["float16"],
    "IntMixTailsCustom": ["int16"],
}


@pytest.mark.slow
@pytest.mark.parametrize("kernel_set", ["npu2002", "npu1001", "default"])
@pytest.mark.parametrize("op_type, dtype", [(op, d) for op, ds in TAIL_RUNS.items() for d in ds])
def test_twin_tails_without_datacopypad(twin_ops, op_type, dtype, kernel_set):
    """Every tail size, on one core or several, in place or not, computes the golden with the
    block-copied tails of 310P/910A (and with DataCopyPad, the same kernel for 910B)."""
    model = twin_ops[1][op_type]
    lo, hi = RANGES.get(op_type, (0.5, 2.0))
    for name, shape in TAIL_SHAPES.items():
        rng = np.random.default_rng(zlib.crc32(f"{op_type}/{dtype}/{name}".encode()))
        if dtype.startswith("int"):
            values = {t.name: rng.integers(lo, hi, shape).astype(np.float64) for t in model.inputs}
        else:
            values = {t.name: rng.uniform(lo, hi, shape) for t in model.inputs}
        small = {"cores": 4, "ub": 8192} if name in ("share_joins", "many_tiles") else {}
        out = run_and_judge(
            twin_ops, op_type, dtype, values, _attrs(op_type), kernel_set=kernel_set, **small
        )
        if name == "share_joins":
            assert out["block_dim"] == 4  # the fourth core's 5 elements go to the third


# Broadcasts read each way (opgen_kernel.h's BroadcastInStream): rows, one element, strided,
# over several tiles and cores (a small UB), and shorter than a block.
BROADCAST_SHAPES = {
    "rows": ((300, 37), (37,)),
    "rows_3d": ((9, 5, 40), (5, 40)),
    "rows_whole_blocks": ((300, 64), (64,)),
    "rows_tail_tiles": ((101, 24), (24,)),
    "one_element": ((5001,), (1,)),
    "one_element_first": ((1,), (999,)),
    "strided": ((7, 1, 33), (1, 5, 33)),
    "strided_tiny": ((3, 1), (1, 2)),
}


@pytest.mark.slow
@pytest.mark.parametrize("kernel_set", ["npu2002", "npu1001", "default"])
@pytest.mark.parametrize("dtype", ["float16", "int32"])
def test_twin_broadcasts_with_and_without_datacopypad(twin_ops, dtype, kernel_set):
    """AddTailsCustom with inputs of different shapes: the broadcast result, with the
    block-copied tails of 310P/910A (a row read once per core, by DataCopy when it is whole
    32-byte blocks, else element by element; a tile with a block-copied tail element by
    element) and with DataCopyPad."""
    for name, shapes in BROADCAST_SHAPES.items():
        rng = np.random.default_rng(zlib.crc32(f"{dtype}/{name}".encode()))
        values = {
            n: rng.integers(0, 100, s).astype(np.float64)
            if dtype == "int32"
            else rng.uniform(0.5, 2.0, s)
            for n, s in zip(("x", "y"), shapes, strict=True)
        }
        run_and_judge(
            twin_ops, "AddTailsCustom", dtype, values, kernel_set=kernel_set, cores=4, ub=8192
        )


@pytest.mark.slow
def test_twin_every_length_in_place_without_datacopypad(twin_ops):
    """An op that overwrites its input, at every length up to two tiles and a bit (4 KiB of UB:
    tiles of 144 float16 elements, blocks of 16): no element is computed from its own result."""
    rng = np.random.default_rng(7)
    for n in range(1, 320):
        values = {"acc": rng.uniform(0.5, 2.0, n), "x": rng.uniform(0.5, 2.0, n)}
        run_and_judge(
            twin_ops,
            "AccumulateTailsCustom",
            "float16",
            values,
            [("f", 0.5)],
            kernel_set="npu2002",
            cores=1,
            ub=4096,
        )


@pytest.mark.slow
@pytest.mark.parametrize("kernel_set", ["npu2002", "npu1001"])
def test_the_library_chooses_block_tails_by_npu_arch(twin_ops, kernel_set):
    """The kernel of a 910B-only project, built for 310P or 910A, copies its tails in whole
    blocks there (opgen_kernel.h chooses by __NPU_ARCH__, so it never calls DataCopyPad where
    the twin would refuse it): every length runs and passes."""
    for n in (1, 37, 64, 1000):
        values = {"x": np.linspace(-3, 3, n)}
        run_and_judge(twin_ops, "GeluCustom", "float32", values, kernel_set=kernel_set)


def test_no_compute_step_calls_the_imprecise_instructions():
    step = rendered(ALL_PROTOS["recip"])["op_kernel/recip_custom_compute.h"]
    assert "AscendC::Div(" in step and "AscendC::Sqrt(" in step
    # Not in any compute step, for any SoC family (Tanh/Sigmoid through Exp included).
    one_per_family = tuple({SOC_SHORT_NAMES[s]: s for s in reversed(SOC_SHORT_NAMES)}.values())
    steps = 0
    for name, text in ALL_PROTOS.items():
        for soc in one_per_family:
            try:
                files = rendered(text, (soc,))
            except PrototypeError:  # a compute expression or a dtype the SoC cannot run
                continue
            for path, code in files.items():
                if path.endswith("_compute.h"):
                    steps += 1
                    assert "Rsqrt(" not in code and "Reciprocal(" not in code, (name, soc, path)
    assert steps > 90


# ---------------------------------------------------------------------------------------------
# twin: the richer compute grammar (sign, floor, ceil, clamp, log1p, expm1, erf, real powers)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def grammar_ops(tmp_path_factory):
    """One project for ascend910b1 + ascend310b1 (built with and without __NPU_ARCH__ == 3002,
    where Sign and Power are missing) and one for ascend910b1 (Floor, Ceil, Erf)."""
    base = tmp_path_factory.mktemp("grammar")
    mixed = twin.render_project(
        protos.text(protos.LOG1P_EXPM1, protos.POWERS, protos.SIGN_CLAMP),
        base / "mixed",
        socs=("ascend910b1", "ascend310b1"),
    )
    plain = twin.render_project(protos.text(protos.ROUNDING), base / "plain")
    sets = (twin.KernelSet("default"), twin.KernelSet("npu3002", ("-D__NPU_ARCH__=3002",)))
    builds = [twin.OpBuild(base / "mixed", op, sets) for op in mixed["ops"]]
    builds += [twin.OpBuild(base / "plain", op) for op in plain["ops"]]
    cache = os.environ.get("OPGEN_TEST_CACHE")
    result = twin.build(builds, base / "build", Path(cache) if cache else None)
    models = {op.op_type: op for ctx in (mixed, plain) for op in ctx["proto"].ops}
    return result, models, base


def _near_zero(rng, n):
    """Both signs, magnitudes from 1e-6 to 1e-1: where log1p(x) and expm1(x) lose digits
    computed naively (log(1 + x), exp(x) - 1)."""
    return rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-6, -1, n)


GRAMMAR_CASES = [
    # op, dtypes, value ranges (name -> generator of n values)
    (
        "Log1pExpm1Custom",
        ("float32", "float16", "bfloat16"),
        lambda rng, n: {"x": rng.uniform(-0.9, 4, n)},
    ),
    ("Log1pExpm1Custom", ("float32",), lambda rng, n: {"x": _near_zero(rng, n)}),
    ("PowersCustom", ("float32", "float16"), lambda rng, n: {"x": rng.uniform(0.5, 2.5, n)}),
    (
        "SignClampCustom",
        ("float32", "float16"),
        lambda rng, n: {"x": rng.uniform(-3, 3, n), "y": rng.uniform(-2, 2, n)},
    ),
    (
        "RoundingCustom",
        ("float32", "float16", "bfloat16"),
        lambda rng, n: {"x": rng.uniform(-3, 3, n)},
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("kernel_set", ["default", "npu3002"])
@pytest.mark.parametrize("case", range(len(GRAMMAR_CASES)))
def test_twin_grammar_numerics(grammar_ops, case, kernel_set):
    """Every new construct meets the precision standard against torch in float64, on the API
    branch and on the 310B branch (Sign and Power through basic APIs)."""
    op_type, dtypes, gen = GRAMMAR_CASES[case]
    if op_type == "RoundingCustom" and kernel_set != "default":
        pytest.skip("Floor, Ceil and Erf have no 310B branch: the project targets ascend910b1")
    for dtype in dtypes:
        rng = np.random.default_rng(zlib.crc32(f"{op_type}/{dtype}/{case}".encode()))
        values = gen(rng, 5001)
        if op_type == "SignClampCustom":
            values["x"][:3] = 0.0  # sign(0) = 0
        run_and_judge(
            grammar_ops,
            op_type,
            dtype,
            values,
            [("f", 0.5)] if op_type == "SignClampCustom" else [],
            kernel_set=kernel_set,
        )


@pytest.mark.parametrize("count", [0, 1, 3, 8])
@pytest.mark.parametrize("indent", [0, 4, 8])
def test_the_cpp_list_filter_wraps_as_cpp_wrap_does(count, indent):
    """`items | cpp_list(head, tail, indent, each)`, which the templates print signatures, calls
    and list declarations with, is cpp_layout.cpp_wrap of the items formatted by `each`."""
    from opgen.rendering.cpp_layout import cpp_wrap
    from opgen.rendering.template_context import cpp_list

    for width in (7, 19, 31, 45):
        names = [f"{'x' * (width - k)}{k}" for k in range(count)]
        for head, tail in [("__aicore__ inline void Init(", ")"), ("ReluCompute(", ");")]:
            expected = cpp_wrap(head, [f"GM_ADDR {n}" for n in names], tail, indent=" " * indent)
            assert cpp_list(names, head, tail, indent, "GM_ADDR {}") == expected


def test_the_templates_see_opgens_filters():
    """copier's environment, through opgen's extension, has the filters the templates use."""
    import jinja2

    from opgen.rendering.template_context import ProjectContext

    env = jinja2.Environment(extensions=[ProjectContext])
    text = "Every tensor is a UB tile of `count` elements in its compute type " * 3
    assert env.from_string("{{ t | cpp_comment }}").render(t=text) == cpp_comment(text)
    rendered = env.from_string('{{ [1, 2] | cpp_list("int a[] = {", "};", 4) }}').render()
    assert rendered == "    int a[] = {1, 2};"
