#include "../op_kernel/add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t UB_TENSORS = 3;  // x, y, z

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    AddCustomTilingData* tiling = context->GetTilingData<AddCustomTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const uint64_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    const uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    const uint32_t alignElems = BLOCK_BYTES / typeSize;

    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    // Split 32-byte blocks over the cores; the first `remainder` cores get one extra block.
    const uint64_t totalBlocks = (totalLength + alignElems - 1) / alignElems;
    const uint32_t usedCores = static_cast<uint32_t>(totalBlocks < coreNum ? totalBlocks : coreNum);
    const uint64_t blocksPerCore = usedCores == 0 ? 0 : totalBlocks / usedCores;
    const uint32_t remainder = usedCores == 0 ? 0 : static_cast<uint32_t>(totalBlocks % usedCores);

    uint64_t tileLength = ubSize / (BUFFER_NUM * UB_TENSORS * typeSize);
    tileLength = tileLength / alignElems * alignElems;

    tiling->totalLength = static_cast<uint32_t>(totalLength);
    tiling->formerNum = remainder;
    tiling->formerLength = static_cast<uint32_t>((blocksPerCore + 1) * alignElems);
    tiling->tailLength = static_cast<uint32_t>(blocksPerCore * alignElems);
    tiling->tileLength = static_cast<uint32_t>(tileLength);
    context->SetBlockDim(usedCores);
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* x1Shape = context->GetInputShape(0);
    gert::Shape* yShape = context->GetOutputShape(0);
    *yShape = *x1Shape;
    return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustom : public OpDef {
public:
    explicit AddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(AddCustom);
}  // namespace ops
