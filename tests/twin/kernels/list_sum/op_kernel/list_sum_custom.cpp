// A test op with an optional input, a dynamic input and a dynamic output, written the way
// the Ascend C guide ("如何开发动态输入算子") shows: the dynamic tensors arrive as GM addresses
// of tensor-list descriptors, decoded with AscendC::ListTensorDesc.
//   y       = x + bias (if present) + sum_j parts[j]
//   rest[r] = parts[r % numParts] * (r + 1)
// Element-wise on GM with scalar accesses, one block: the point is the list plumbing.
#include "kernel_operator.h"
#include "list_sum_custom_tiling.h"

namespace {
constexpr uint32_t MAX_DIMS = 8;

// Element view of tensor `j` of a list, shaped by its descriptor.
template <typename T>
__aicore__ inline AscendC::GlobalTensor<T> ListItem(AscendC::ListTensorDesc& list, uint32_t j)
{
    uint64_t shape[MAX_DIMS];
    AscendC::TensorDesc<T> desc;
    desc.SetShapeAddr(shape);
    list.GetDesc(desc, j);
    return desc.GetDataObj();
}
}  // namespace

extern "C" __global__ __aicore__ void list_sum_custom(GM_ADDR x, GM_ADDR bias, GM_ADDR parts, GM_ADDR y, GM_ADDR rest,
                                                      GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ListSumCustomTilingData);
    GET_TILING_DATA(t, tiling);
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_BIAS> biasGm;
    AscendC::GlobalTensor<DTYPE_Y> yGm;
    xGm.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x), t.totalLength);
    yGm.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y), t.totalLength);
    if (t.hasBias) {
        biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_BIAS*>(bias), t.totalLength);
    }
    AscendC::ListTensorDesc partList(reinterpret_cast<__gm__ void*>(parts));
    AscendC::ListTensorDesc restList(reinterpret_cast<__gm__ void*>(rest), 0xffffffff, t.numRest);
    const uint32_t numParts = partList.GetSize();
    for (uint32_t i = 0; i < t.totalLength; ++i) {
        float acc = static_cast<float>(xGm.GetValue(i));
        if (t.hasBias) {
            acc += static_cast<float>(biasGm.GetValue(i));
        }
        for (uint32_t j = 0; j < numParts; ++j) {
            acc += static_cast<float>(ListItem<DTYPE_PARTS>(partList, j).GetValue(i));
        }
        yGm.SetValue(i, static_cast<DTYPE_Y>(acc));
    }
    for (uint32_t r = 0; r < t.numRest; ++r) {
        AscendC::GlobalTensor<DTYPE_REST> out;
        out.SetGlobalBuffer(restList.GetDataPtr<DTYPE_REST>(r), t.totalLength);
        AscendC::GlobalTensor<DTYPE_PARTS> src = ListItem<DTYPE_PARTS>(partList, r % numParts);
        for (uint32_t i = 0; i < t.totalLength; ++i) {
            out.SetValue(i, static_cast<DTYPE_REST>(static_cast<float>(src.GetValue(i)) * static_cast<float>(r + 1)));
        }
    }
}
