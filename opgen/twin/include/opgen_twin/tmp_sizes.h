// opgen CPU twin: scratch-space sizes of the high-level APIs, shared by the host-side
// Get*MaxMinTmpSize functions and the kernel-side checks. The numbers follow the public
// asc-devkit tiling implementation: Tanh keeps 1 (float) or 4 (half, computed in float)
// live float copies of a 256-byte repeat; Sigmoid needs one repeat minimum and one
// input-sized buffer maximum.
#ifndef OPGEN_TWIN_TMP_SIZES_H
#define OPGEN_TWIN_TMP_SIZES_H

#include <cstdint>

namespace opgen_twin {
namespace detail {

constexpr uint32_t kOneRepeatBytes = 256;

inline uint32_t TanhLiveNodes(uint32_t typeSize) { return typeSize == 4 ? 1u : 4u; }
inline uint32_t TanhMinTmpBytes(uint32_t typeSize) { return kOneRepeatBytes * TanhLiveNodes(typeSize); }
inline uint32_t TanhMaxTmpBytes(uint64_t elems, uint32_t typeSize)
{
    const uint64_t bytes = elems * typeSize;
    return static_cast<uint32_t>(TanhLiveNodes(typeSize) * (bytes > kOneRepeatBytes ? bytes : kOneRepeatBytes));
}
inline uint32_t SigmoidMinTmpBytes(uint32_t /*typeSize*/) { return kOneRepeatBytes; }
inline uint32_t SigmoidMaxTmpBytes(uint64_t elems, uint32_t typeSize)
{
    const uint64_t bytes = elems * typeSize;
    return static_cast<uint32_t>(bytes > kOneRepeatBytes ? bytes : kOneRepeatBytes);
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_TMP_SIZES_H
