// opgen CPU twin: scratch-space sizes of the high-level APIs, shared by the host-side
// Get*MaxMinTmpSize functions and the kernel-side checks. The numbers follow the public
// asc-devkit tiling implementation: Tanh keeps 1 (float) or 4 (half, computed in float)
// live float copies of a 256-byte repeat; Sigmoid needs one repeat minimum and one
// input-sized buffer maximum.
#ifndef OPGEN_TWIN_TMP_SIZES_H
#define OPGEN_TWIN_TMP_SIZES_H

#include <cstddef>
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

// BroadcastTmpBytes's axis 1 (src [m, 1]): the brcb buffer, and the copy buffer when k is not a
// whole number of blocks; castTmp added.
inline void BroadcastAxis1TmpBytes(const int64_t* dst, uint32_t typeSize, uint32_t castTmp, uint32_t& maxValue,
                                   uint32_t& minValue)
{
    const uint32_t perBlock = 32 / typeSize;
    const uint64_t firstDim = static_cast<uint64_t>(dst[0]);
    const uint64_t numBlocks = static_cast<uint64_t>(dst[1]);
    const uint64_t firstDimAlign8 = (firstDim + 7) / 8 * 8;
    const uint64_t brcbMin = uint64_t(perBlock) * perBlock * typeSize;
    const uint64_t brcbMax = firstDimAlign8 * perBlock * typeSize;
    if (numBlocks % perBlock == 0) {
        minValue = static_cast<uint32_t>(brcbMin + castTmp);
        maxValue = static_cast<uint32_t>(brcbMax + castTmp);
    } else {
        const uint64_t numBlocksAlign = (numBlocks + perBlock - 1) / perBlock * perBlock;
        minValue = static_cast<uint32_t>(brcbMin + uint64_t(perBlock) * numBlocksAlign * typeSize + castTmp);
        maxValue = static_cast<uint32_t>(brcbMax + firstDim * numBlocksAlign * typeSize + castTmp);
    }
}

// The element counts of src and dst when src broadcasts to dst (each src[i] dst[i] or 1).
inline bool BroadcastSizes(size_t dimNum, const int64_t* src, const int64_t* dst, int64_t& srcSize, int64_t& dstSize)
{
    for (size_t i = 0; i < dimNum; ++i) {
        if (src[i] != dst[i] && src[i] != 1) return false;
        srcSize *= src[i];
        dstSize *= dst[i];
    }
    return srcSize > 0;
}

// Broadcast (asc-devkit impl/adv_api/tiling/pad/broadcast_tiling.cpp, the DAV_2201 branch):
// b8 types are computed in half (the cast buffers: src and dst sizes rounded up to 16 elements);
// an equal-size or single-element source needs no scratch (b8: the cast buffers + 32 bytes);
// axis 0 (src [1, k]) 32 bytes; axis 1 (src [m, 1]) the brcb buffer of one block per row (minimum 8
// rows) plus, when k is not a whole number of blocks, the copy buffer for the aligned rows.
// Returns false (and leaves the outputs) when the shapes cannot broadcast or axis 0's k is not
// 32-byte aligned.
inline bool BroadcastTmpBytes(size_t dimNum, const int64_t* src, const int64_t* dst, uint32_t typeSize,
                              uint32_t& maxValue, uint32_t& minValue)
{
    if (dimNum != 1 && dimNum != 2) return false;
    if (typeSize != 1 && typeSize != 2 && typeSize != 4) return false;
    int64_t srcSize = 1, dstSize = 1;
    if (!BroadcastSizes(dimNum, src, dst, srcSize, dstSize)) return false;
    uint32_t castTmp = 0;
    if (typeSize == 1) {
        typeSize = 2;
        const uint64_t a = (static_cast<uint64_t>(srcSize) + 15) / 16 * 16;
        const uint64_t b = (static_cast<uint64_t>(dstSize) + 15) / 16 * 16;
        castTmp = static_cast<uint32_t>((a + b) * typeSize);
    }
    if (srcSize == dstSize || srcSize == 1) {
        minValue = maxValue = castTmp == 0 ? 0u : castTmp + 32u;
        return true;
    }
    const uint32_t perBlock = 32 / typeSize;
    const bool axis1 = dimNum == 2 && src[1] == 1;
    if (!axis1) {
        if (dimNum < 2 || dst[1] % perBlock != 0) return false;
        minValue = maxValue = 32u + castTmp;
        return true;
    }
    BroadcastAxis1TmpBytes(dst, typeSize, castTmp, maxValue, minValue);
    return true;
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_TMP_SIZES_H
