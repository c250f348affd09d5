// opgen CPU twin: the Broadcast high-level API (asc-devkit include/adv_api/pad/broadcast.h, docs
// 高阶API/张量变换/Broadcast.md): Broadcast<T, dim, axis, isReuseSource>(dst, src, dstShape[dim],
// srcShape[dim] [, sharedTmpBuffer]), and BroadCast with the same parameters, which the public
// Broadcast calls on Atlas A2 (impl/adv_api/detail/pad/broadcast/broadcast_common_impl.h, in
// namespace AscendC, so kernels call it too).
//
// numpy broadcasting of an ND tensor: dim 1 or 2, axis 0 or 1; each srcShape[i] equals dstShape[i]
// or is 1. The result is exact (a copy). Checked (HardwareError naming the call): the shapes
// broadcast; dim 2, axis 0: srcShape[1] * sizeof(T) a multiple of 32 bytes (the CPU-debug check of
// broadcast_check_common.h); src and dst hold their shapes' element counts and do not overlap (the
// docs forbid it); sharedTmpBuffer holds at least GetBroadCastMaxMinTmpSize's minimum and overlaps
// neither; without it, that minimum is left unallocated in UB (the framework's stack buffer).
// Atlas A2 types int8_t, uint8_t, half, float (others fail to compile).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_BROADCAST_H
#define OPGEN_TWIN_DETAIL_KERNEL_BROADCAST_H

#include <cstdint>
#include <vector>

#include "opgen_twin/detail/kernel_adv.h"
#include "opgen_twin/tmp_sizes.h"

namespace opgen_twin {
namespace detail {

// The shapes broadcast (each srcShape[i] dstShape[i] or 1, dim 2 axis 0 rows of 32 bytes, the
// template axis the one broadcast over); s and d get them, srcSize and dstSize their counts.
template <class T, int32_t dim, int32_t axis>
inline void CheckBroadcastShapes(const char* api, const uint32_t dstShape[], const uint32_t srcShape[], int64_t s[2],
                                 int64_t d[2], uint64_t& srcSize, uint64_t& dstSize)
{
    for (int32_t i = 0; i < dim; ++i) {
        s[i] = srcShape[i];
        d[i] = dstShape[i];
        if (srcShape[i] != dstShape[i] && srcShape[i] != 1) {
            ThrowHardware(Format("%s: srcShape[%d] = %u cannot broadcast to dstShape[%d] = %u (each srcShape[i] must "
                                 "equal dstShape[i] or be 1)",
                                 api, i, srcShape[i], i, dstShape[i]));
        }
        srcSize *= srcShape[i];
        dstSize *= dstShape[i];
    }
    if (dim == 2 && axis == 0 && (uint64_t(srcShape[1]) * sizeof(T)) % 32 != 0) {
        ThrowHardware(Format("%s: dim 2, axis 0: srcShape[1] * sizeof(T) = %llu bytes is not a multiple of 32 "
                             "(asc-devkit Broadcast.md 约束说明)",
                             api, static_cast<unsigned long long>(uint64_t(srcShape[1]) * sizeof(T))));
    }
    if (srcSize != dstSize && srcSize != 1 && dim == 2 && srcShape[axis] != 1) {
        ThrowHardware(Format("%s: template axis %d but srcShape[%d] = %u is not 1 (the broadcast axis is the other "
                             "one)", api, axis, axis, srcShape[axis]));
    }
}

// The scratch: sharedTmpBuffer holds minTmp bytes apart from [d0, d1) and [s0, s1), or without
// it minTmp bytes of UB are left unallocated.
inline void CheckBroadcastTmp(const char* api, const AscendC::LocalTensor<uint8_t>* tmp, uint32_t minTmp, uint64_t d0,
                              uint64_t d1, uint64_t s0, uint64_t s1)
{
    if (tmp != nullptr) {
        tmp->TwinCheckAligned(api, "sharedTmpBuffer");
        const uint64_t tb = tmp->GetSize();
        if (tb < minTmp) {
            ThrowHardware(Format("%s: sharedTmpBuffer has %llu bytes, less than the minimum %u bytes "
                                 "GetBroadCastMaxMinTmpSize gives for these shapes",
                                 api, static_cast<unsigned long long>(tb), minTmp));
        }
        const uint64_t t0 = tmp->TwinUbBegin(), t1 = t0 + tb;
        if (minTmp > 0 && (UbOverlap(t0, t1, d0, d1) || UbOverlap(t0, t1, s0, s1))) {
            ThrowHardware(Format("%s: sharedTmpBuffer overlaps src or dst in UB", api));
        }
        return;
    }
    if (minTmp == 0) return;
    const auto* pipe = static_cast<const AscendC::TPipe*>(g_launch.currentPipe);
    if (pipe != nullptr && pipe->TwinCapacity() - pipe->TwinUsedBytes() < minTmp) {
        ThrowHardware(Format("%s: called without sharedTmpBuffer but only %llu bytes of UB are left unallocated; "
                             "the API needs at least %u bytes of scratch (reserve it or pass a tmp buffer)",
                             api, static_cast<unsigned long long>(pipe->TwinCapacity() - pipe->TwinUsedBytes()),
                             minTmp));
    }
}

// dst = src broadcast to dstShape (checked).
template <class T, int32_t dim>
inline void BroadcastCopy(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                          const uint32_t dstShape[], const uint32_t srcShape[], uint64_t dstSize)
{
    const void* sp = src.TwinData();
    std::vector<T> out(dstSize);
    const uint64_t rows = dim == 2 ? dstShape[0] : 1, cols = dim == 2 ? dstShape[1] : dstShape[0];
    const uint64_t srcCols = dim == 2 ? srcShape[1] : srcShape[0];
    const bool rowBc = dim == 2 && srcShape[0] == 1, colBc = srcCols == 1;
    for (uint64_t i = 0; i < rows; ++i) {
        for (uint64_t j = 0; j < cols; ++j) {
            const uint64_t si = (rowBc ? 0 : i) * srcCols + (colBc ? 0 : j);
            out[i * cols + j] = Load<T>(sp, si);
        }
    }
    void* dp = dst.TwinDataToOverwrite(dstSize * sizeof(T));
    for (uint64_t k = 0; k < dstSize; ++k) Store<T>(dp, k, out[k]);
}

template <class T, int32_t dim, int32_t axis>
inline void BroadcastImpl(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                          const uint32_t dstShape[], const uint32_t srcShape[], const AscendC::LocalTensor<uint8_t>* tmp)
{
    static_assert(dim == 1 || dim == 2, "opgen twin: AscendC::Broadcast: dim must be 1 or 2 (asc-devkit Broadcast.md)");
    static_assert(axis == 0 || axis == 1, "opgen twin: AscendC::Broadcast: axis must be 0 or 1 (asc-devkit Broadcast.md)");
    OPGEN_TWIN_SUPPORTED_TYPES((IsAnyOf<T, int8_t, uint8_t, half, float>::value), "Broadcast",
                               "int8_t, uint8_t, half, float");
    int64_t s[2] = {1, 1}, d[2] = {1, 1};
    uint64_t srcSize = 1, dstSize = 1;
    CheckBroadcastShapes<T, dim, axis>(api, dstShape, srcShape, s, d, srcSize, dstSize);
    src.TwinCheckFits(api, "src", srcSize);
    dst.TwinCheckFits(api, "dst", dstSize);
    const uint64_t d0 = dst.TwinUbBegin(), d1 = d0 + dstSize * sizeof(T);
    const uint64_t s0 = src.TwinUbBegin(), s1 = s0 + srcSize * sizeof(T);
    if (dstSize > 0 && UbOverlap(d0, d1, s0, s1)) {
        ThrowHardware(Format("%s: dst and src overlap in UB (asc-devkit Broadcast.md: 不支持源操作数与目的操作数地址重叠)", api));
    }
    uint32_t maxTmp = 0, minTmp = 0;
    BroadcastTmpBytes(static_cast<size_t>(dim), s, d, sizeof(T), maxTmp, minTmp);
    CheckBroadcastTmp(api, tmp, minTmp, d0, d1, s0, s1);
    BroadcastCopy<T, dim>(dst, src, dstShape, srcShape, dstSize);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], LocalTensor<uint8_t>& sharedTmpBuffer)
{
    opgen_twin::detail::BroadcastImpl<T, dim, axis>("BroadCast", dstLocal, srcLocal, dstShape, srcShape,
                                                    &sharedTmpBuffer);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim])
{
    opgen_twin::detail::BroadcastImpl<T, dim, axis>("BroadCast", dstLocal, srcLocal, dstShape, srcShape, nullptr);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], LocalTensor<uint8_t>& sharedTmpBuffer)
{
    opgen_twin::detail::BroadcastImpl<T, dim, axis>("Broadcast", dstLocal, srcLocal, dstShape, srcShape,
                                                    &sharedTmpBuffer);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim])
{
    opgen_twin::detail::BroadcastImpl<T, dim, axis>("Broadcast", dstLocal, srcLocal, dstShape, srcShape, nullptr);
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_BROADCAST_H
