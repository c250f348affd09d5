// A deliberately broken TilingFunc for the unchanged add_custom kernel: the tile length
// (1000 half = 2000 bytes) is not a multiple of 32 bytes, so the kernel's full-tile
// DataCopy breaks the NPU's 32-byte rule. The twin must report it. A second bug: for a length
// that is a multiple of 4096 the TilingFunc divides by zero (SIGFPE), which the twin must
// report as this call's error instead of dying of it; for 4000 elements the tile length is 0,
// which the kernel divides by.
#include "../../add_custom/op_kernel/add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    AddCustomTilingData* tiling = context->GetTilingData<AddCustomTilingData>();
    if (tiling == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t total = static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
    tiling->totalLength = total;
    tiling->formerNum = 0;
    tiling->formerLength = 0;
    tiling->tailLength = total;  // one core takes everything
    tiling->tileLength = total == 4000 ? 0 : 1000;  // BUG: 2000 bytes, not 32-byte aligned; 0
    volatile uint32_t lastTiles = total / (total % 4096);  // BUG: 0 for a multiple of 4096
    (void)lastTiles;
    context->SetBlockDim(1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AddCustomBroken : public OpDef {
public:
    explicit AddCustomBroken(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);  // no InferDataType: the runner uses the OpDef dtype column
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(AddCustomBroken);
}  // namespace ops
