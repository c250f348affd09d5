// opgen CPU twin: host-side tiling helpers of the high-level APIs (namespace AscendC on the
// host): GetTanhMaxMinTmpSize, GetTanhTmpBufferFactorSize, GetSigmoidMaxMinTmpSize.
#ifndef OPGEN_TWIN_HOST_TILING_H
#define OPGEN_TWIN_HOST_TILING_H

#include <cstdint>
#include <vector>

#include "opgen_twin/ge_types.h"
#include "opgen_twin/tmp_sizes.h"

namespace AscendC {

using TensorShape = ge::Shape;
using TensorDataType = ge::DataType;

// Like the real function, a shape with no elements leaves maxValue/minValue untouched
// (the real one logs "Input Shape size must be greater than 0." and returns).
inline void GetTanhMaxMinTmpSize(const AscendC::TensorShape& srcShape, const uint32_t typeSize,
                                 const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue)
{
    (void)isReuseSource;
    const int64_t n = srcShape.GetShapeSize();
    if (n <= 0) return;
    minValue = opgen_twin::detail::TanhMinTmpBytes(typeSize);
    maxValue = opgen_twin::detail::TanhMaxTmpBytes(static_cast<uint64_t>(n), typeSize);
}

inline void GetTanhTmpBufferFactorSize(const uint32_t typeSize, uint32_t& maxLiveNodeCount, uint32_t& extraBuf)
{
    extraBuf = 0;
    maxLiveNodeCount = opgen_twin::detail::TanhLiveNodes(typeSize);
}

inline void GetSigmoidMaxMinTmpSize(const AscendC::TensorShape& srcShape, const uint32_t typeSize, bool isReuseSource,
                                    uint32_t& maxValue, uint32_t& minValue)
{
    (void)isReuseSource;
    const int64_t n = srcShape.GetShapeSize();
    if (n <= 0) return;
    maxValue = opgen_twin::detail::SigmoidMaxTmpBytes(static_cast<uint64_t>(n), typeSize);
    minValue = opgen_twin::detail::SigmoidMinTmpBytes(typeSize);
}

// Broadcast's scratch sizes (asc-devkit include/adv_api/pad/broadcast_tiling.h); the platform argument
// is the twin's single SoC (Atlas A2's sizes). Shapes that cannot broadcast leave the outputs, as
// the real function's ASCENDC_HOST_ASSERT returns.
template <class Platform>
inline void GetBroadCastMaxMinTmpSize(const Platform& ascendcPlatform, const AscendC::TensorShape& srcShape,
                                      const AscendC::TensorShape& dstShape, uint32_t typeSize,
                                      const bool isReuseSource, uint32_t& maxValue, uint32_t& minValue)
{
    (void)ascendcPlatform;
    (void)isReuseSource;
    if (srcShape.GetDimNum() != dstShape.GetDimNum()) return;
    const std::vector<int64_t> s = srcShape.GetDims(), d = dstShape.GetDims();
    opgen_twin::detail::BroadcastTmpBytes(s.size(), s.data(), d.data(), typeSize, maxValue, minValue);
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_HOST_TILING_H
