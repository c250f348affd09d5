// opgen CPU twin: the tensor-list descriptor through which a kernel receives a DYNAMIC input
// or output. The runner builds it in GM and passes its address as the kernel parameter;
// AscendC::ListTensorDesc (kernel_list.h) decodes it.
//
// Layout (64-bit little-endian words), as documented for Ascend C's ListTensorDesc
// (asc-devkit API docs, "ListTensorDesc" figure):
//   word 0                 ptr_offset: byte offset from the descriptor start to the pointers
//   per tensor i, in order one word (uint64_t(i) << 32) | dim   (high 32 bits: index, low: rank)
//                          then dim words: shape[0] .. shape[dim-1]
//   at ptr_offset          one word per tensor: its GM address
// ptr_offset = 8 * (1 + sum(1 + dim_i)). A rank-0 tensor has dim 0 and no shape words.
#ifndef OPGEN_TWIN_DETAIL_LIST_LAYOUT_H
#define OPGEN_TWIN_DETAIL_LIST_LAYOUT_H

#include <cstdint>
#include <vector>

namespace opgen_twin {
namespace detail {

inline std::vector<uint64_t> EncodeTensorList(const std::vector<std::vector<int64_t>>& shapes,
                                              const std::vector<const void*>& addrs)
{
    std::vector<uint64_t> words(1, 0);
    for (size_t i = 0; i < shapes.size(); ++i) {
        words.push_back((static_cast<uint64_t>(i) << 32) | static_cast<uint64_t>(shapes[i].size()));
        for (int64_t d : shapes[i]) words.push_back(static_cast<uint64_t>(d));
    }
    words[0] = static_cast<uint64_t>(words.size()) * sizeof(uint64_t);
    for (size_t i = 0; i < shapes.size(); ++i) {
        words.push_back(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(i < addrs.size() ? addrs[i] : nullptr)));
    }
    return words;
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_LIST_LAYOUT_H
