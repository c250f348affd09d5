#include <cstring>

#include "../op_kernel/gelu_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    GeluCustomTilingData* tiling = context->GetTilingData<GeluCustomTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const char* approximate = context->GetAttrs()->GetStr(0);
    if (approximate == nullptr || std::strcmp(approximate, "tanh") != 0) {
        return ge::GRAPH_FAILED;  // only the tanh approximation is implemented
    }
    const uint64_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    const uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    const uint32_t alignElems = BLOCK_BYTES / typeSize;

    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const uint64_t totalBlocks = (totalLength + alignElems - 1) / alignElems;
    const uint32_t usedCores = static_cast<uint32_t>(totalBlocks < coreNum ? totalBlocks : coreNum);
    const uint64_t blocksPerCore = usedCores == 0 ? 0 : totalBlocks / usedCores;
    const uint32_t remainder = usedCores == 0 ? 0 : static_cast<uint32_t>(totalBlocks % usedCores);

    // UB per element: in/out queues (double buffered) + 3 float scratch tiles + Tanh scratch
    // (its max size for float is one float per element).
    const uint64_t bytesPerElem = BUFFER_NUM * 2 * typeSize + 3 * sizeof(float) + sizeof(float);
    uint64_t tileLength = (ubSize - 1024) / bytesPerElem;
    tileLength = tileLength / alignElems * alignElems;
    uint32_t maxTmp = 0;
    uint32_t minTmp = 0;
    AscendC::GetTanhMaxMinTmpSize(ge::Shape({static_cast<int64_t>(tileLength)}), sizeof(float), false, maxTmp, minTmp);

    tiling->totalLength = static_cast<uint32_t>(totalLength);
    tiling->formerNum = remainder;
    tiling->formerLength = static_cast<uint32_t>((blocksPerCore + 1) * alignElems);
    tiling->tailLength = static_cast<uint32_t>(blocksPerCore * alignElems);
    tiling->tileLength = static_cast<uint32_t>(tileLength);
    tiling->tmpBufSize = maxTmp;
    context->SetBlockDim(usedCores);
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = ascendcPlatform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* xShape = context->GetInputShape(0);
    gert::Shape* yShape = context->GetOutputShape(0);
    *yShape = *xShape;
    return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class GeluCustom : public OpDef {
public:
    explicit GeluCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16, ge::DT_BF16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("approximate").AttrType(OPTIONAL).String("tanh");
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        OpAICoreConfig aicoreConfig;
        aicoreConfig.DynamicShapeSupportFlag(true).DynamicCompileStaticFlag(true);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b", aicoreConfig);
    }
};
OP_ADD(GeluCustom);
}  // namespace ops
