// opgen CPU twin: the vector Copy (level 0), GatherMask and Sort32.
//
// Copy (asc-devkit include/basic_api/kernel_operator_data_copy_intf.h, "Copy Level 0"): UB to UB,
// both mask forms, CopyRepeatParams {dstStride, srcStride (block strides), dstRepeatSize,
// srcRepeatSize (repeat strides, in 32-byte blocks)}; b16/b32 types. Element k of iteration r lies
// as for every level-0 instruction (高维切分.md); checks as kernel_vec_repeat.h's.
//
// GatherMask (比较与选择/GatherMask.md): collects the src0 elements whose gather-mask bit is 1 into
// dst, packed from dst[0] in order, and sets rsvdCnt to their number. The mask: a built-in pattern
// src1Pattern 1..7 (1 even indices, 2 odd, 3..6 the 1st..4th of each 4, 7 all; the same in every
// iteration), or a user pattern tensor (uint16_t for 2-byte T, uint32_t for 4-byte T) whose bits
// (bit j of element j / bits) are consumed in order within an iteration; iteration r starts
// src1RepeatStride * r blocks into the pattern tensor. reduceMode false (Normal): repeatTimes
// iterations of 256 bytes; reduceMode true (Counter, Atlas A2's "配置方式一"): repeatTimes
// iterations of `mask` elements each. src0: element k of iteration r lies
// src0BlockStride * (k / elemsPerBlock) + src0RepeatStride * r blocks after src0's start.
// HardwareErrors: src1Pattern outside 1..7, an element or pattern word outside its tensor, the
// packed result beyond dst, Counter mode with mask 0.
//
// Sort32 (排序组合（ISASI）/Sort32.md): per iteration sorts 32 scores of src0 in descending order with
// their uint32_t indices from src1 (ties: the lower position first) and writes (score, index)
// pairs of 8 bytes: float: score in the low 4 bytes, index in the high 4; half: score in the low
// 2 bytes, 2 reserved bytes (the twin writes 0), index in the high 4. Iteration r reads
// src0[32 r ..], src1[32 r ..] and writes 256 bytes at dst byte 256 r. HardwareErrors: a start
// address not 32-byte aligned, an operand too small for repeatTime iterations, ascend910 and
// ascend310p (不支持). NaN scores: the
// docs say nothing; the twin sorts them first (as the largest).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_GATHER_SORT_H
#define OPGEN_TWIN_DETAIL_KERNEL_GATHER_SORT_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/soc_table.h"
#include "opgen_twin/detail/kernel_vec_repeat.h"

namespace AscendC {

struct CopyRepeatParams {
    CopyRepeatParams() {}
    CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                     uint16_t srcRepeatSizeIn)
        : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn), srcRepeatSize(srcRepeatSizeIn)
    {
    }
    uint16_t dstStride = 0;  // DEFAULT_DATA_COPY_STRIDE
    uint16_t srcStride = 0;
    uint16_t dstRepeatSize = DEFAULT_REPEAT_STRIDE;
    uint16_t srcRepeatSize = DEFAULT_REPEAT_STRIDE;
};

enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
const GatherMaskMode defaultGahterMaskMode = GatherMaskMode::VERSION_V2;  // (sic) as in CANN, __NPU_ARCH__ 2201
const GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V2;

struct GatherMaskParams {
    GatherMaskParams() {}
    GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                     const uint8_t src1RepeatStrideIn)
        : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
          src1RepeatStride(src1RepeatStrideIn)
    {
    }
    uint8_t src0BlockStride = DEFAULT_BLK_STRIDE;
    uint16_t repeatTimes = 0;
    uint16_t src0RepeatStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepeatStride = DEFAULT_REPEAT_STRIDE;
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

template <class T> struct IsCopyT : IsAnyOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float> {};

template <class T>
inline void CopyRepeatImpl(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                           const RepeatMask& m, uint8_t repeat, const AscendC::CopyRepeatParams& p)
{
    if (repeat == 0 || (m.bits[0] == 0 && m.bits[1] == 0)) return;
    if (p.dstStride == 0) {
        ThrowHardware(Format("%s: CopyRepeatParams.dstStride (the dst block stride) 0 is undefined on the NPU "
                             "(asc-devkit 高维切分.md); pass {1, 1, 8, 8} for contiguous blocks", api));
    }
    CheckPlanFits(api, "dst", dst, NormalPlan<T>(m, repeat), p.dstStride, p.dstRepeatSize);
    CheckPlanFits(api, "src", src, NormalPlan<T>(m, repeat), p.srcStride, p.srcRepeatSize);
    const void* s = src.TwinData();
    constexpr uint32_t perRepeat = 256 / sizeof(T);
    std::vector<std::pair<uint64_t, T>> out;
    for (uint32_t r = 0; r < repeat; ++r) {
        for (uint32_t k = 0; k < perRepeat; ++k) {
            if (!(m.bits[k / 64] >> (k % 64) & 1)) continue;
            out.emplace_back(RepeatElem<T>(r, k, p.dstStride, p.dstRepeatSize),
                             Load<T>(s, RepeatElem<T>(r, k, p.srcStride, p.srcRepeatSize)));
        }
    }
    void* d = dst.TwinData();
    for (const auto& e : out) Store<T>(d, e.first, e.second);
}

// The gather-mask bit of element k of iteration r: the built-in pattern's, or src1Pattern's bit.
template <class U>
inline bool GatherMaskBit(const char* api, const AscendC::LocalTensor<U>* pattern, const void* pt, uint8_t builtin,
                          const AscendC::GatherMaskParams& p, uint32_t r, uint32_t k)
{
    constexpr uint32_t bitsPerWord = 8 * sizeof(U);
    if (pattern == nullptr) {
        switch (builtin) {
            case 1: return k % 2 == 0;
            case 2: return k % 2 == 1;
            case 7: return true;
            default: return k % 4 == static_cast<uint32_t>(builtin - 3);
        }
    }
    const uint64_t word = uint64_t(r) * p.src1RepeatStride * (32 / sizeof(U)) + k / bitsPerWord;
    if (word >= pattern->GetSize()) {
        ThrowHardware(Format("%s: iteration %u element %u reads src1Pattern element %llu, beyond its %u "
                             "elements (UB read out of bounds)",
                             api, r, k, static_cast<unsigned long long>(word),
                             static_cast<unsigned>(pattern->GetSize())));
    }
    return (static_cast<uint64_t>(Load<U>(pt, word)) >> (k % bitsPerWord)) & 1u;
}

// Element k of iteration r of src0, checked within it.
template <class T>
inline T GatherSource(const char* api, const AscendC::LocalTensor<T>& src0, const void* s,
                      const AscendC::GatherMaskParams& p, uint32_t r, uint32_t k)
{
    constexpr uint32_t perBlock = 32 / sizeof(T);
    const uint64_t e = (uint64_t(p.src0RepeatStride) * r + uint64_t(p.src0BlockStride) * (k / perBlock)) * perBlock +
                       k % perBlock;
    if (e >= src0.GetSize()) {
        ThrowHardware(Format("%s: iteration %u element %u is src0 element %llu, beyond its %u elements (UB "
                             "read out of bounds)",
                             api, r, k, static_cast<unsigned long long>(e), static_cast<unsigned>(src0.GetSize())));
    }
    return Load<T>(s, e);
}

template <class T, class U>
inline void GatherMaskImpl(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                           const AscendC::LocalTensor<U>* pattern, uint8_t builtin, bool reduceMode, uint32_t mask,
                           const AscendC::GatherMaskParams& p, uint64_t& rsvdCnt)
{
    constexpr uint32_t perRepeat = 256 / sizeof(T);
    if (pattern == nullptr && (builtin < 1 || builtin > 7)) {
        ThrowHardware(Format("%s: src1Pattern %u is not a built-in pattern (Atlas A2 takes 1..7, asc-devkit "
                             "GatherMask.md)", api, static_cast<unsigned>(builtin)));
    }
    if (reduceMode && mask == 0) {
        ThrowHardware(Format("%s: Counter mode (reduceMode true) with mask 0; mask lies in [1, 2^32 - 1] "
                             "(asc-devkit GatherMask.md)", api));
    }
    src0.TwinCheckLive(api, "src0");
    dst.TwinCheckLive(api, "dst");
    const uint32_t n = reduceMode ? mask : perRepeat;
    const void* s = src0.TwinData();
    const void* pt = nullptr;
    if (pattern != nullptr) {
        pattern->TwinCheckLive(api, "src1Pattern");
        pt = pattern->TwinData();
    }
    std::vector<T> out;
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        for (uint32_t k = 0; k < n; ++k) {
            if (GatherMaskBit(api, pattern, pt, builtin, p, r, k)) out.push_back(GatherSource(api, src0, s, p, r, k));
        }
    }
    if (out.size() > dst.GetSize()) {
        ThrowHardware(Format("%s: %zu elements gathered, more than dst's %u (UB buffer overrun)", api, out.size(),
                             static_cast<unsigned>(dst.GetSize())));
    }
    void* d = dst.TwinDataToOverwrite(out.size() * sizeof(T));
    for (size_t i = 0; i < out.size(); ++i) Store<T>(d, i, out[i]);
    rsvdCnt = out.size();
}

template <class T>
inline void CheckAligned32(const char* api, const char* role, const AscendC::LocalTensor<T>& t)
{
    t.TwinCheckLive(api, role);
    if (t.TwinUbBegin() % 32 != 0) {
        ThrowHardware(Format("%s: %s starts at UB byte %llu, not 32-byte aligned (asc-devkit %s.md)", api, role,
                             static_cast<unsigned long long>(t.TwinUbBegin()), api));
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], const uint8_t repeatTime,
                 const CopyRepeatParams& repeatParams)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCopyT<T>::value, "Copy",
                               "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    (void)opgen_twin::detail::RequireSetMask<isSetMask>{};
    const char* api = "Copy(mask[], repeatTime, CopyRepeatParams)";
    opgen_twin::detail::CopyRepeatImpl(api, dst, src, opgen_twin::detail::BitMask<T>(api, mask), repeatTime,
                                       repeatParams);
}
template <typename T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask, const uint8_t repeatTime,
                 const CopyRepeatParams& repeatParams)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCopyT<T>::value, "Copy",
                               "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    (void)opgen_twin::detail::RequireSetMask<isSetMask>{};
    const char* api = "Copy(mask, repeatTime, CopyRepeatParams)";
    opgen_twin::detail::CopyRepeatImpl(api, dst, src, opgen_twin::detail::ContinuousMask<T>(api, mask), repeatTime,
                                       repeatParams);
}

// GatherMask, user pattern tensor.
template <typename T, typename U, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCopyT<T>::value, "GatherMask",
                               "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    static_assert((sizeof(T) == 2 && std::is_same<U, uint16_t>::value) ||
                      (sizeof(T) == 4 && std::is_same<U, uint32_t>::value),
                  "opgen twin: AscendC::GatherMask: the pattern tensor is uint16_t for a 2-byte T and uint32_t for "
                  "a 4-byte T (asc-devkit GatherMask.md)");
    opgen_twin::detail::GatherMaskImpl<T, U>("GatherMask", dst, src0, &src1Pattern, 0, reduceMode, mask,
                                             gatherMaskParams, rsvdCnt);
}
// GatherMask, built-in pattern 1..7.
template <typename T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                       uint64_t& rsvdCnt)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCopyT<T>::value, "GatherMask",
                               "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    opgen_twin::detail::GatherMaskImpl<T, uint32_t>("GatherMask", dst, src0, nullptr, src1Pattern, reduceMode, mask,
                                                    gatherMaskParams, rsvdCnt);
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                   const int32_t repeatTime)
{
    OPGEN_TWIN_SUPPORTED_TYPES((opgen_twin::detail::IsAnyOf<T, half, float>::value), "Sort32", "half, float");
    const char* api = "Sort32";
    if (!OPGEN_SOC_HAS_SORT32(Arch)) {  // Sort32.md: Atlas training / inference series 不支持
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: %s (__NPU_ARCH__ %d) has no Sort32 (asc-devkit Sort32.md)", api, opgen_twin::detail::SocName(Arch), Arch));
    }
    if (repeatTime < 0 || repeatTime > 255) {
        opgen_twin::detail::ThrowHardware(
            opgen_twin::detail::Format("%s: repeatTime %d is outside [0, 255] (asc-devkit Sort32.md)", api, repeatTime));
    }
    if (repeatTime == 0) return;
    opgen_twin::detail::CheckAligned32(api, "dst", dst);
    opgen_twin::detail::CheckAligned32(api, "src0", src0);
    opgen_twin::detail::CheckAligned32(api, "src1", src1);
    const uint64_t n = uint64_t(32) * repeatTime;
    src0.TwinCheckFits(api, "src0", n);
    src1.TwinCheckFits(api, "src1", n);
    dst.TwinCheckFits(api, "dst", n * 8 / sizeof(T));
    const void* s0 = src0.TwinData();
    const void* s1 = src1.TwinData();
    std::vector<uint8_t> out(n * 8, 0);
    std::vector<uint32_t> order(32);
    for (int32_t r = 0; r < repeatTime; ++r) {
        for (uint32_t i = 0; i < 32; ++i) order[i] = i;
        auto score = [&](uint32_t i) { return opgen_twin::detail::ToDouble(opgen_twin::detail::Load<T>(s0, 32u * r + i)); };
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            const double x = score(a), y = score(b);
            if (x != x) return y == y;  // NaN first
            return x > y;
        });
        for (uint32_t j = 0; j < 32; ++j) {
            const uint32_t i = order[j];
            const T sc = opgen_twin::detail::Load<T>(s0, 32u * r + i);
            const uint32_t idx = opgen_twin::detail::Load<uint32_t>(s1, 32u * r + i);
            uint8_t* rec = out.data() + (uint64_t(32) * r + j) * 8;
            std::memcpy(rec, &sc, sizeof(T));
            std::memcpy(rec + 4, &idx, 4);
        }
    }
    void* d = dst.TwinDataToOverwrite(out.size());
    std::memcpy(d, out.data(), out.size());
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_GATHER_SORT_H
