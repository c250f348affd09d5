// MacroAddCustom: z = x + y (tiling key 1) or z = x + alpha * y (key 2), written like an msopgen
// project with macro tiling: the TilingFunc fills the BEGIN_TILING_DATA_DEF class and saves it
// into the raw tiling buffer.
#include "macro_add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t UB_TENSORS = 3;  // x, y, z

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    MacroAddTilingData tiling;
    const uint32_t totalLength = static_cast<uint32_t>(context->GetInputTensor(0)->GetShapeSize());
    const uint32_t typeSize = ge::GetSizeByDataType(context->GetInputDesc(0)->GetDataType());
    const uint32_t alignElems = BLOCK_BYTES / typeSize;
    const float* alpha = context->GetAttrs()->GetFloat(0);
    const int64_t* tileCap = context->GetAttrs()->GetInt(1);

    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const uint32_t totalBlocks = (totalLength + alignElems - 1) / alignElems;
    const uint32_t usedCores = totalBlocks < coreNum ? totalBlocks : coreNum;
    const uint32_t blocksPerCore = usedCores == 0 ? 0 : totalBlocks / usedCores;
    const uint32_t formerNum = usedCores == 0 ? 0 : totalBlocks % usedCores;
    uint32_t coreLength[2] = {(blocksPerCore + 1) * alignElems, blocksPerCore * alignElems};

    uint64_t tileLength = ubSize / (BUFFER_NUM * UB_TENSORS * typeSize) / alignElems * alignElems;
    if (tileCap != nullptr && *tileCap > 0 && static_cast<uint64_t>(*tileCap) < tileLength) {
        tileLength = (static_cast<uint64_t>(*tileCap) + alignElems - 1) / alignElems * alignElems;
    }
    const uint32_t formerLength = formerNum > 0 ? coreLength[0] : coreLength[1];

    tiling.set_totalLength(totalLength);
    tiling.set_tileNum(static_cast<uint32_t>((formerLength + tileLength - 1) / tileLength));
    tiling.set_formerNum(static_cast<uint16_t>(formerNum));
    tiling.set_coreLength(coreLength);
    tiling.tile.set_bufferNum(BUFFER_NUM);
    tiling.tile.set_tileLength(static_cast<uint32_t>(tileLength));
    tiling.set_alpha(*alpha);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->SetTilingKey(*alpha == 1.0f ? 1 : 2);
    context->SetBlockDim(usedCores);
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
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MacroAddCustom : public OpDef {
public:
    explicit MacroAddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f);
        this->Attr("tile_cap").AttrType(OPTIONAL).Int(0);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MacroAddCustom);
}  // namespace ops
