#include "../op_kernel/heaviside_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t TILE_BYTES = 4096;  // a multiple of 256 bytes: CompareScalar compares whole repeats

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    HeavisideCustomTilingData* tiling = context->GetTilingData<HeavisideCustomTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    const uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    const uint32_t alignElems = BLOCK_BYTES / typeSize;
    const uint32_t coreNum = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv();
    // Whole 32-byte blocks per core, as evenly as the cores allow; no core left without elements.
    const uint64_t blocks = (totalLength + alignElems - 1) / alignElems;
    const uint64_t perCore = (blocks + coreNum - 1) / coreNum * alignElems;
    tiling->totalLength = static_cast<uint32_t>(totalLength);
    tiling->blockLength = static_cast<uint32_t>(perCore);
    tiling->tileLength = TILE_BYTES / typeSize;
    context->SetBlockDim(perCore == 0 ? 0 : static_cast<uint32_t>((totalLength + perCore - 1) / perCore));
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class HeavisideCustom : public OpDef {
public:
    explicit HeavisideCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("values").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(HeavisideCustom);
}  // namespace ops
