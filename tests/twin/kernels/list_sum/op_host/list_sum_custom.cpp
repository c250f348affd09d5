// Host side of the ListSumCustom test op (see op_kernel/list_sum_custom.cpp): dynamic input
// `parts` read with GetIrInputInstanceInfo / GetDynamicInputShape / GetDynamicInputDataType,
// dynamic output `rest` addressed through GetIrOutputInstanceInfo, as the metadef docs show.
#include "../op_kernel/list_sum_custom_tiling.h"
#include "register/op_def_registry.h"

namespace {
constexpr size_t IR_X = 0, IR_BIAS = 1, IR_PARTS = 2;  // IR inputs
constexpr size_t IR_Y = 0, IR_REST = 1;                 // IR outputs
}  // namespace

namespace optiling {
static ge::graphStatus ListSumTiling(gert::TilingContext* context)
{
    ListSumCustomTilingData* t = context->GetTilingData<ListSumCustomTilingData>();
    const gert::StorageShape* x = context->GetRequiredInputShape(IR_X);
    const gert::AnchorInstanceInfo* parts = context->GetIrInputInstanceInfo(IR_PARTS);
    const gert::AnchorInstanceInfo* rest = context->GetIrOutputInstanceInfo(IR_REST);
    if (t == nullptr || x == nullptr || parts == nullptr || rest == nullptr || parts->GetInstanceNum() == 0) {
        return ge::GRAPH_FAILED;
    }
    const int64_t n = x->GetStorageShape().GetShapeSize();
    for (size_t j = 0; j < parts->GetInstanceNum(); ++j) {
        const gert::StorageShape* p = context->GetDynamicInputShape(IR_PARTS, j);
        const gert::CompileTimeTensorDesc* d = context->GetDynamicInputDesc(IR_PARTS, j);
        if (p == nullptr || d == nullptr || p->GetStorageShape().GetShapeSize() != n ||
            d->GetDataType() != context->GetRequiredInputDesc(IR_X)->GetDataType()) {
            return ge::GRAPH_FAILED;
        }
    }
    for (size_t r = 0; r < rest->GetInstanceNum(); ++r) {
        const gert::StorageShape* o = context->GetOutputShape(rest->GetInstanceStart() + r);
        if (o == nullptr || o->GetStorageShape().GetShapeSize() != n) {
            return ge::GRAPH_FAILED;
        }
    }
    t->totalLength = static_cast<uint32_t>(n);
    t->numParts = static_cast<uint32_t>(parts->GetInstanceNum());
    t->numRest = static_cast<uint32_t>(rest->GetInstanceNum());
    t->hasBias = context->GetOptionalInputShape(IR_BIAS) != nullptr ? 1 : 0;
    context->SetBlockDim(n == 0 ? 0 : 1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus ListSumInferShape(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetRequiredInputShape(IR_X);
    const gert::AnchorInstanceInfo* parts = context->GetIrInputInstanceInfo(IR_PARTS);
    const gert::AnchorInstanceInfo* y = context->GetIrOutputInstanceInfo(IR_Y);
    const gert::AnchorInstanceInfo* rest = context->GetIrOutputInstanceInfo(IR_REST);
    if (x == nullptr || parts == nullptr || parts->GetInstanceNum() == 0 || y == nullptr || rest == nullptr) {
        return GRAPH_FAILED;
    }
    *context->GetOutputShape(y->GetInstanceStart()) = *x;
    for (size_t r = 0; r < rest->GetInstanceNum(); ++r) {
        const gert::Shape* p = context->GetDynamicInputShape(IR_PARTS, r % parts->GetInstanceNum());
        if (p == nullptr || p->GetShapeSize() != x->GetShapeSize()) {
            return GRAPH_FAILED;
        }
        *context->GetOutputShape(rest->GetInstanceStart() + r) = *p;
    }
    return GRAPH_SUCCESS;
}

static graphStatus ListSumInferDataType(gert::InferDataTypeContext* context)
{
    const gert::AnchorInstanceInfo* parts = context->GetIrInputInstanceInfo(IR_PARTS);
    const gert::AnchorInstanceInfo* rest = context->GetIrOutputInstanceInfo(IR_REST);
    context->SetOutputDataType(0, context->GetRequiredInputDataType(IR_X));
    for (size_t r = 0; r < rest->GetInstanceNum(); ++r) {
        context->SetOutputDataType(rest->GetInstanceStart() + r,
                                   context->GetDynamicInputDataType(IR_PARTS, r % parts->GetInstanceNum()));
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ListSumCustom : public OpDef {
public:
    explicit ListSumCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("parts").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("rest").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::ListSumInferShape).SetInferDataType(ge::ListSumInferDataType);
        this->AICore().SetTiling(optiling::ListSumTiling).AddConfig("ascend910b");
    }
};
OP_ADD(ListSumCustom);
}  // namespace ops
