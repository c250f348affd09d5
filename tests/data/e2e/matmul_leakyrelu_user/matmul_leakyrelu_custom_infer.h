// MatmulLeakyreluCustom shape and dtype inference: c is [M, N] for a [M, K], b [K, N], bias [N].
#ifndef MATMUL_LEAKYRELU_CUSTOM_INFER_H
#define MATMUL_LEAKYRELU_CUSTOM_INFER_H

#include "register/op_def_registry.h"

namespace optiling {
namespace matmul_leakyrelu_custom {

inline ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    const gert::Shape* a = context->GetRequiredInputShape(0);
    const gert::Shape* b = context->GetRequiredInputShape(1);
    const gert::Shape* bias = context->GetRequiredInputShape(2);
    if (a->GetDimNum() != 2 || b->GetDimNum() != 2 || bias->GetDimNum() != 1 ||
        a->GetDim(1) != b->GetDim(0) || bias->GetDim(0) != b->GetDim(1)) {
        return ge::GRAPH_FAILED;  // a [M, K], b [K, N] and bias [N] only
    }
    gert::Shape* c = context->GetOutputShape(0);
    c->SetDimNum(2);
    c->SetDim(0, a->GetDim(0));
    c->SetDim(1, b->GetDim(1));
    return ge::GRAPH_SUCCESS;
}

inline ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetRequiredInputDataType(2));
    return ge::GRAPH_SUCCESS;
}

}  // namespace matmul_leakyrelu_custom
}  // namespace optiling

#endif  // MATMUL_LEAKYRELU_CUSTOM_INFER_H
