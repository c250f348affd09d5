// opgen CPU twin: the level-2 reductions of a tensor's first `count` elements (ReduceSum,
// ReduceMax, ReduceMin; asc-devkit docs/api/context/ReduceSum.md, ReduceMax.md, ReduceMin.md).
//
// The result goes to dst[0]; ReduceMax/ReduceMin with calIndex = true put its index in dst[1].
// ReduceSum adds as Atlas A2/A3 do in this form: a binary tree within each repeat (256 bytes: 64
// floats or 128 halves), the repeats' results in order. The NPU's
// rules are errors: half and float only, src and sharedTmpBuffer 32-byte aligned, count > 0, the
// sharedTmpBuffer at least the documented minimum for ReduceSum, and the documented products
// (Atlas A2/A3: __NPU_ARCH__ 2201).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_REDUCE_H
#define OPGEN_TWIN_DETAIL_KERNEL_REDUCE_H

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/soc.h"

namespace opgen_twin {
namespace detail {

// ReduceSum.md, ReduceMax.md, ReduceMin.md: Atlas A2/A3, 310P and 200I/500 A2 (310B) AI Core
// take half and float; the Atlas training series (ascend910) half only.
template <int Arch, class T>
inline void CheckReduceExists(const char* api)
{
    if (!OPGEN_SOC_HAS_REDUCE(Arch)) {
        ThrowHardware(Format("%s: asc-devkit documents the level-2 %s for Atlas A2/A3, 310P and 310B "
                             "(and ascend910 in half), not %s (__NPU_ARCH__ %d)",
                             api, api, SocName(Arch), Arch));
    }
    if (!OPGEN_SOC_HAS_FLOAT_REDUCE(Arch) && !std::is_same<T, half>::value) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) takes half only (%s.md)", api, SocName(Arch), Arch, api));
    }
}

template <class T>
inline void CheckReduceOperands(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                const AscendC::LocalTensor<T>& tmp, int32_t count)
{
    if (count <= 0) {
        ThrowHardware(Format("%s: count %d; it reduces at least one element", api, count));
    }
    dst.TwinCheckFits(api, "dst", 1, sizeof(T));  // element-aligned (ReduceRepeat.md 表3)
    src.TwinCheckFits(api, "src", static_cast<uint64_t>(count));
    tmp.TwinCheckFits(api, "sharedTmpBuffer", 1);
    if (src.TwinUbBegin() % 32 != 0 || tmp.TwinUbBegin() % 32 != 0) {
        ThrowHardware(Format("%s: src and sharedTmpBuffer must start 32-byte aligned in UB", api));
    }
    if (dst.TwinUbBegin() % sizeof(T) != 0) {
        ThrowHardware(Format("%s: dst must be %u-byte aligned", api, static_cast<unsigned>(sizeof(T))));
    }
}

template <class T>
inline double Reduce(const void* s, uint32_t count, int kind)  // kind: 0 sum, 1 max, 2 min
{
    const uint32_t perRepeat = 256 / sizeof(T);
    if (kind != 0) {
        T best = Load<T>(s, 0);
        for (uint32_t i = 1; i < count; ++i) {
            const T v = Load<T>(s, i);
            best = kind == 1 ? OpMax<T>(best, v) : OpMin<T>(best, v);
        }
        return ToDouble(best);
    }
    T total = T(0);
    std::vector<T> lane(perRepeat);
    for (uint32_t start = 0; start < count; start += perRepeat) {
        const uint32_t n = count - start < perRepeat ? count - start : perRepeat;
        for (uint32_t i = 0; i < perRepeat; ++i) {
            lane[i] = i < n ? Load<T>(s, start + i) : T(0);  // masked lanes add nothing
        }
        for (uint32_t width = perRepeat / 2; width > 0; width /= 2) {  // the binary tree
            for (uint32_t i = 0; i < width; ++i) {
                lane[i] = OpAdd<T>(lane[2 * i], lane[2 * i + 1]);
            }
        }
        total = start == 0 ? lane[0] : OpAdd<T>(total, lane[0]);
    }
    return ToDouble(total);
}

// ReduceMax/ReduceMin with calIndex = true (ReduceMax.md, ReduceMin.md, ReduceRepeat.md): dst[0]
// the value, dst[1] its index stored in the bits of T (read back as uint16_t for half, uint32_t
// for float), the smallest index among equal values. NaN: as OpMax/OpMin, the other operand wins,
// so the index is that of the first value equal to the result (0 when all are NaN).
template <class T>
inline void ReduceWithIndex(const char* api, const AscendC::LocalTensor<T>& dst, const void* src, uint32_t count,
                            const AscendC::LocalTensor<T>& tmp, int kind)
{
    dst.TwinCheckFits(api, "dst (value and index)", 2, sizeof(T));
    if (sizeof(T) == 2 && count > 65536u) {
        ThrowHardware(Format("%s: calIndex = true with half indexes at most 65535 (the index is stored as a "
                             "uint16_t), but count is %u (%s.md)", api, count, api));
    }
    // The documented sharedTmpBuffer size with calIndex (ReduceMax.md 关键特性说明), in elements.
    const uint32_t perRepeat = 256 / sizeof(T), perBlock = 32 / sizeof(T);
    auto up = [](uint32_t a, uint32_t b) { return (a + b - 1) / b; };
    const uint32_t firstMaxRepeat = count / perRepeat;
    const uint32_t iter1OutputCount = firstMaxRepeat * 2;
    const uint32_t iter2AlignStart = up(iter1OutputCount, perBlock) * perBlock;
    const uint32_t iter2OutputCount = up(iter1OutputCount, perRepeat) * 2;
    const uint32_t iter2AlignEnd = up(iter2OutputCount, perBlock) * perBlock;
    uint32_t need = iter2AlignStart + iter2AlignEnd;
    if (iter2OutputCount > 2) {
        const uint32_t iter3OutputCount = up(iter2OutputCount, perRepeat) * 2;
        need = iter2AlignStart + iter2AlignEnd + up(iter3OutputCount, perBlock) * perBlock;
    }
    if (need > 0) {
        tmp.TwinCheckFits(api, "sharedTmpBuffer (the size documented for calIndex = true)", need);
    }
    T best = Load<T>(src, 0);
    for (uint32_t i = 1; i < count; ++i) {
        const T v = Load<T>(src, i);
        best = kind == 1 ? OpMax<T>(best, v) : OpMin<T>(best, v);
    }
    const double b = ToDouble(best);
    uint32_t index = 0;
    for (uint32_t i = 0; i < count; ++i) {
        if (ToDouble(Load<T>(src, i)) == b) {
            index = i;
            break;
        }
    }
    Store<T>(dst.TwinData(), 0, best);
    if (sizeof(T) == 2) {
        const uint16_t bits = static_cast<uint16_t>(index);
        std::memcpy(static_cast<uint8_t*>(dst.TwinData()) + sizeof(T), &bits, 2);
    } else {
        std::memcpy(static_cast<uint8_t*>(dst.TwinData()) + sizeof(T), &index, 4);
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, bool isSetMask = true, int Arch = opgen_twin::detail::kNpuArch>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "ReduceSum", "half, float");
    opgen_twin::detail::CheckReduceExists<Arch, T>("ReduceSum");
    opgen_twin::detail::CheckReduceOperands("ReduceSum", dst, src, sharedTmpBuffer, count);
    // ReduceSum.md: the first pass leaves one value per repeat, rounded up to whole 32-byte blocks.
    const uint32_t perRepeat = 256 / sizeof(T);
    const uint32_t perBlock = 32 / sizeof(T);
    const uint32_t repeats = (static_cast<uint32_t>(count) + perRepeat - 1) / perRepeat;
    const uint32_t need = (repeats + perBlock - 1) / perBlock * perBlock;
    sharedTmpBuffer.TwinCheckFits("ReduceSum", "sharedTmpBuffer (the documented minimum)", need);
    const double r = opgen_twin::detail::Reduce<T>(src.TwinData(), static_cast<uint32_t>(count), 0);
    opgen_twin::detail::Store<T>(dst.TwinData(), 0, opgen_twin::detail::FromDouble<T>(r));
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "ReduceMax", "half, float");
    opgen_twin::detail::CheckReduceExists<Arch, T>("ReduceMax");
    opgen_twin::detail::CheckReduceOperands("ReduceMax", dst, src, sharedTmpBuffer, count);
    if (calIndex) {
        opgen_twin::detail::ReduceWithIndex<T>("ReduceMax", dst, src.TwinData(), static_cast<uint32_t>(count),
                                             sharedTmpBuffer, 1);
        return;
    }
    const double r = opgen_twin::detail::Reduce<T>(src.TwinData(), static_cast<uint32_t>(count), 1);
    opgen_twin::detail::Store<T>(dst.TwinData(), 0, opgen_twin::detail::FromDouble<T>(r));
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      const int32_t count, bool calIndex = 0)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "ReduceMin", "half, float");
    opgen_twin::detail::CheckReduceExists<Arch, T>("ReduceMin");
    opgen_twin::detail::CheckReduceOperands("ReduceMin", dst, src, sharedTmpBuffer, count);
    if (calIndex) {
        opgen_twin::detail::ReduceWithIndex<T>("ReduceMin", dst, src.TwinData(), static_cast<uint32_t>(count),
                                             sharedTmpBuffer, 2);
        return;
    }
    const double r = opgen_twin::detail::Reduce<T>(src.TwinData(), static_cast<uint32_t>(count), 2);
    opgen_twin::detail::Store<T>(dst.TwinData(), 0, opgen_twin::detail::FromDouble<T>(r));
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_REDUCE_H
