// Host side of MatmulLeakyCustom: c = leaky_relu(op(a) @ op(b) + bias, alpha) (mode 0) or
// op(a) @ op(b) + bias (mode 1), op = optional transpose. The Matmul tiling comes from
// matmul_tiling::MultiCoreMatmulTiling split over the AIVs; the kernel is KERNEL_TYPE_MIX_AIC_1_2,
// so the block dim counts AI Cores (one AIC + two AIVs each).
#include "../op_kernel/matmul_leaky_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {

static matmul_tiling::DataType MmType(ge::DataType t)
{
    switch (t) {
        case ge::DT_FLOAT16: return matmul_tiling::DataType::DT_FLOAT16;
        case ge::DT_BF16: return matmul_tiling::DataType::DT_BF16;
        default: return matmul_tiling::DataType::DT_FLOAT;
    }
}

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MatmulLeakyCustomTilingData* tiling = context->GetTilingData<MatmulLeakyCustomTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const bool transA = *attrs->GetAttrPointer<bool>(0);
    const bool transB = *attrs->GetAttrPointer<bool>(1);
    const bool hasBias = *attrs->GetAttrPointer<bool>(2);
    const int64_t mode = *attrs->GetAttrPointer<int64_t>(3);
    const float alpha = *attrs->GetAttrPointer<float>(4);
    const int64_t order = *attrs->GetAttrPointer<int64_t>(5);
    const int64_t fixBaseM = *attrs->GetAttrPointer<int64_t>(6);
    const int64_t fixBaseN = *attrs->GetAttrPointer<int64_t>(7);
    const int64_t forcedBlockDim = *attrs->GetAttrPointer<int64_t>(8);  // tests: a wrong block dim

    const gert::Shape& aShape = context->GetInputShape(0)->GetOriginShape();
    const gert::Shape& bShape = context->GetInputShape(1)->GetOriginShape();
    const int32_t m = static_cast<int32_t>(transA ? aShape.GetDim(1) : aShape.GetDim(0));
    const int32_t k = static_cast<int32_t>(transA ? aShape.GetDim(0) : aShape.GetDim(1));
    const int32_t n = static_cast<int32_t>(transB ? bShape.GetDim(0) : bShape.GetDim(1));
    const ge::DataType aType = context->GetInputDesc(0)->GetDataType();
    const ge::DataType biasType = context->GetInputDesc(2)->GetDataType();
    const ge::DataType cType = context->GetOutputDesc(0)->GetDataType();

    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    matmul_tiling::MultiCoreMatmulTiling mm(platform);
    mm.SetDim(static_cast<int32_t>(platform.GetCoreNumAiv()));  // a mixed kernel splits over the AIVs
    mm.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, MmType(aType), transA);
    mm.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, MmType(aType), transB);
    mm.SetCType(mode != 1 ? matmul_tiling::TPosition::VECIN : matmul_tiling::TPosition::GM,
                mode != 1 ? matmul_tiling::CubeFormat::ND_ALIGN : matmul_tiling::CubeFormat::ND, MmType(cType));
    mm.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, MmType(biasType));
    mm.SetOrgShape(m, n, k);
    mm.SetShape(m, n, k);
    mm.EnableBias(hasBias);
    if (order == 1) {
        mm.SetTraverse(matmul_tiling::MatrixTraverse::FIRSTN);
    }
    if (fixBaseM > 0 || fixBaseN > 0) {
        mm.SetFixSplit(static_cast<int32_t>(fixBaseM), static_cast<int32_t>(fixBaseN), -1);
    }
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    // The epilogue holds the block twice (in and out) plus, for bfloat16 C, two float copies.
    const uint64_t cBytes = ge::GetSizeByDataType(cType);
    const uint64_t perElem = 2 * cBytes + (cType == ge::DT_BF16 ? 8 : 0);
    mm.SetBufferSpace(-1, -1, static_cast<int32_t>(ubSize / perElem * cBytes));
    if (mm.GetTiling(tiling->cubeTiling) == -1) {
        return ge::GRAPH_FAILED;
    }
    tiling->alpha = alpha;
    tiling->transA = transA ? 1 : 0;
    tiling->transB = transB ? 1 : 0;
    tiling->hasBias = hasBias ? 1 : 0;
    tiling->mode = static_cast<uint32_t>(mode);
    const uint32_t aicNum = platform.GetCoreNumAic();
    const uint32_t aivNum = platform.GetCoreNumAiv();
    context->SetBlockDim(forcedBlockDim > 0 ? static_cast<uint32_t>(forcedBlockDim)
                                            : platform.CalcTschBlockDim(static_cast<uint32_t>(tiling->cubeTiling.usedCoreNum),
                                                                        aicNum, aivNum));
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* a = context->GetInputShape(0);
    const gert::Shape* b = context->GetInputShape(1);
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const bool transA = *attrs->GetAttrPointer<bool>(0);
    const bool transB = *attrs->GetAttrPointer<bool>(1);
    if (a->GetDimNum() != 2 || b->GetDimNum() != 2) {
        return GRAPH_FAILED;
    }
    const int64_t ka = transA ? a->GetDim(0) : a->GetDim(1);
    const int64_t kb = transB ? b->GetDim(1) : b->GetDim(0);
    if (ka != kb) {
        return GRAPH_FAILED;
    }
    gert::Shape* c = context->GetOutputShape(0);
    c->SetDimNum(2);
    c->SetDim(0, transA ? a->GetDim(1) : a->GetDim(0));
    c->SetDim(1, transB ? b->GetDim(0) : b->GetDim(1));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MatmulLeakyCustom : public OpDef {
public:
    explicit MatmulLeakyCustom(const char* name) : OpDef(name)
    {
        // Columns: fp16 -> float, fp16 (half bias) -> fp16, bf16 -> bf16, bf16 (half bias) -> float,
        // float -> float.
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT16, ge::DT_BF16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT16, ge::DT_BF16, ge::DT_BF16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16, ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("transpose_a").AttrType(OPTIONAL).Bool(false);
        this->Attr("transpose_b").AttrType(OPTIONAL).Bool(false);
        this->Attr("has_bias").AttrType(OPTIONAL).Bool(true);
        this->Attr("mode").AttrType(OPTIONAL).Int(0);
        this->Attr("alpha").AttrType(OPTIONAL).Float(0.01f);
        this->Attr("iterate_order").AttrType(OPTIONAL).Int(0);
        this->Attr("base_m").AttrType(OPTIONAL).Int(0);
        this->Attr("base_n").AttrType(OPTIONAL).Int(0);
        this->Attr("block_dim").AttrType(OPTIONAL).Int(0);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MatmulLeakyCustom);
}  // namespace ops
