// opgen CPU twin: the level-0 reductions (asc-devkit WholeReduceSum.md, WholeReduceMax.md,
// WholeReduceMin.md, BlockReduceSum.md, BlockReduceMax.md, BlockReduceMin.md, PairReduceSum.md; the
// signatures of include/basic_api/kernel_operator_vec_reduce_intf.h before 18a4cb649).
//
// Iterations, masks (continuous int32_t / bit-mode uint64_t[], isSetMask = false: the mask register
// and its Normal/Counter mode, kernel_mask.h), srcBlkStride and srcRepStride (in 32-byte blocks) as for
// the other level-0 forms. Per iteration r:
//   WholeReduceSum: the selected elements summed as a binary tree of adjacent pairs over the 128/64
//     lanes (unselected lanes add 0) -> dst[r * dstRepStride].
//   WholeReduceMax/Min: the largest/smallest selected element and its position k in the iteration
//     (0..127 / 0..63; the first on ties); the index is an integer stored in the value's type
//     (half: uint16_t bits, float: uint32_t bits). order: ORDER_VALUE_INDEX [value, index] and
//     ORDER_INDEX_VALUE [index, value] at dst[2 * r * dstRepStride], ORDER_ONLY_VALUE [value] at
//     dst[r * dstRepStride], ORDER_ONLY_INDEX a uint32_t index at uint32 slot r * dstRepStride (A2/A3).
//   BlockReduceSum/Max/Min: one result per 32-byte block b (sum as a binary tree) ->
//     dst[8 * r * dstRepStride + b].
//   PairReduceSum: element pairs (2j, 2j + 1) summed -> dst[(128 or 64) / 2 * r * dstRepStride + j].
// half sums saturate at +-65504 when two finite values overflow (WholeReduceSum.md, BlockReduceSum.md).
// A block or pair with no selected element is not written (the NPU's value there is not documented).
// The twin reads all of src before it writes dst (in-place use as the docs allow).
// Checked (HardwareError naming the call): types half/float; repeatTime in [0, 255]; a continuous mask
// in [1, 128] / [1, 64]; a bit mask that selects nothing; negative strides; src not 32-byte aligned; dst
// not aligned as documented (WholeReduceSum sizeof(T); Max/Min with index 2 * sizeof(T); BlockReduce
// 16 (half) / 32 (float) bytes); any element read or written outside its tensor.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_REDUCE_REPEAT_H
#define OPGEN_TWIN_DETAIL_KERNEL_REDUCE_REPEAT_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "opgen_twin/detail/kernel_mask.h"
#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/kernel_vec.h"

namespace AscendC {

// Values as asc-devkit impl/basic_api/utils/kernel_utils_mode.h.
enum class ReduceOrder : uint8_t {
    ORDER_VALUE_INDEX = 0,
    ORDER_INDEX_VALUE,
    ORDER_ONLY_VALUE,
    ORDER_ONLY_INDEX,
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// The reduce family's continuous mask: documented range [1, 128] (16-bit) / [1, 64] (32-bit).
template <class T, bool isSetMask>
inline RepeatPlan<T> ReducePlanCount(const char* api, int32_t mask, int32_t repeatTime)
{
    if (isSetMask && (mask < 1 || static_cast<uint32_t>(mask) > 256 / sizeof(T))) {
        ThrowHardware(Format("%s: mask %d out of the documented range [1, %u] for %s", api, mask,
                             static_cast<unsigned>(256 / sizeof(T)), TypeName<T>()));
    }
    return PlanContinuous<T, isSetMask>(api, static_cast<uint64_t>(mask), static_cast<uint64_t>(repeatTime));
}

template <class T, bool isSetMask>
inline RepeatPlan<T> ReducePlanBits(const char* api, const uint64_t mask[], int32_t repeatTime)
{
    return PlanBits<T, isSetMask>(api, mask, static_cast<uint64_t>(repeatTime < 0 ? 0 : repeatTime));
}

template <class T>
inline void CheckReduceArgs(const char* api, const RepeatPlan<T>& plan, int32_t repeatTime, int32_t dstRepStride,
                            int32_t srcBlkStride, int32_t srcRepStride)
{
    if (!plan.counter && (repeatTime < 0 || repeatTime > 255)) {
        ThrowHardware(Format("%s: repeatTime %d outside [0, 255]", api, repeatTime));
    }
    if (dstRepStride < 0 || srcBlkStride < 0 || srcRepStride < 0) {
        ThrowHardware(Format("%s: negative stride (dstRepStride %d, srcBlkStride %d, srcRepStride %d)", api,
                             dstRepStride, srcBlkStride, srcRepStride));
    }
    if (!plan.counter && plan.repeats > 0 && plan.mask.Empty()) {
        ThrowHardware(Format("%s: the mask selects no element (the docs require mask[0], mask[1] not both 0)", api));
    }
}

template <class T>
inline void CheckReduceAlign(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                             uint32_t dstAlign)
{
    src.TwinCheckLive(api, "src");
    dst.TwinCheckLive(api, "dst");
    if (src.TwinUbBegin() % 32 != 0) {
        ThrowHardware(Format("%s: src must start 32-byte aligned in UB (it starts at byte %llu)", api,
                             static_cast<unsigned long long>(src.TwinUbBegin())));
    }
    if (dst.TwinUbBegin() % dstAlign != 0) {
        ThrowHardware(Format("%s: dst must start %u-byte aligned in UB for %s (it starts at byte %llu)", api, dstAlign,
                             TypeName<T>(), static_cast<unsigned long long>(dst.TwinUbBegin())));
    }
}

// a + b; half saturates at +-65504 when two finite values overflow.
template <class T>
inline T TreeAdd(T a, T b)
{
    const T r = OpAdd<T>(a, b);
    if constexpr (std::is_same<T, half>::value) {
        const double x = ToDouble(a), y = ToDouble(b), z = ToDouble(r);
        if (std::isinf(z) && std::isfinite(x) && std::isfinite(y)) return T(z > 0 ? 65504.0f : -65504.0f);
    }
    return r;
}

// Binary tree of adjacent pairs over lanes (a power of two).
template <class T>
inline T TreeSum(std::vector<T>& lane)
{
    for (size_t width = lane.size() / 2; width > 0; width /= 2) {
        for (size_t i = 0; i < width; ++i) lane[i] = TreeAdd<T>(lane[2 * i], lane[2 * i + 1]);
    }
    return lane[0];
}

// Reads every iteration's 128/64 lanes (selected flag, value) before anything is written.
template <class T>
inline std::vector<std::vector<std::pair<bool, T>>> ReadIterations(const char* api, const AscendC::LocalTensor<T>& src,
                                                                    const RepeatPlan<T>& plan, int32_t srcBlkStride,
                                                                    int32_t srcRepStride)
{
    CheckPlanFits(api, "src", src, plan, static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride));
    std::vector<std::vector<std::pair<bool, T>>> it(plan.repeats);
    const void* s = src.TwinData();
    for (uint64_t r = 0; r < plan.repeats; ++r) {
        const RepeatMask m = plan.Iter(r);
        it[r].resize(RepeatPlan<T>::kPerRepeat, {false, T(0)});
        for (uint32_t k = 0; k < RepeatPlan<T>::kPerRepeat; ++k) {
            if (!m.Has(k)) continue;
            it[r][k] = {true, Load<T>(s, RepeatElem<T>(r, k, srcBlkStride, srcRepStride))};
        }
    }
    return it;
}

// Writes of one call: (byte offset in dst, bytes of the value), bounds-checked as a whole first.
struct DstWrites {
    std::vector<std::pair<uint64_t, std::vector<uint8_t>>> w;
    template <class V>
    void Add(uint64_t byteOff, V v)
    {
        std::vector<uint8_t> b(sizeof(V));
        std::memcpy(b.data(), &v, sizeof(V));
        w.emplace_back(byteOff, std::move(b));
    }
    template <class T>
    void Flush(const char* api, const AscendC::LocalTensor<T>& dst) const
    {
        const uint64_t cap = uint64_t{dst.GetSize()} * sizeof(T);
        for (const auto& e : w) {
            if (e.first + e.second.size() > cap) {
                ThrowHardware(Format("%s: dst write at bytes [%llu, %llu) beyond the tensor's %llu bytes (%u %s "
                                     "elements): UB buffer overrun; check dstRepStride and repeatTime",
                                     api, static_cast<unsigned long long>(e.first),
                                     static_cast<unsigned long long>(e.first + e.second.size()),
                                     static_cast<unsigned long long>(cap), static_cast<unsigned>(dst.GetSize()),
                                     TypeName<T>()));
            }
        }
        uint8_t* d = static_cast<uint8_t*>(dst.TwinData());
        for (const auto& e : w) std::memcpy(d + e.first, e.second.data(), e.second.size());
    }
};

template <class T>
inline void WholeSum(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     const RepeatPlan<T>& plan, int32_t repeatTime, int32_t dstRepStride, int32_t srcBlkStride,
                     int32_t srcRepStride)
{
    CheckReduceArgs(api, plan, repeatTime, dstRepStride, srcBlkStride, srcRepStride);
    CheckReduceAlign(api, dst, src, sizeof(T));
    const auto it = ReadIterations(api, src, plan, srcBlkStride, srcRepStride);
    DstWrites out;
    std::vector<T> lane(RepeatPlan<T>::kPerRepeat);
    for (uint64_t r = 0; r < it.size(); ++r) {
        for (uint32_t k = 0; k < lane.size(); ++k) lane[k] = it[r][k].first ? it[r][k].second : T(0);
        out.Add((r * dstRepStride) * sizeof(T), TreeSum(lane));
    }
    out.Flush(api, dst);
}

template <class T>
inline void WholeMaxMin(const char* api, bool isMax, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src, const RepeatPlan<T>& plan, int32_t repeatTime,
                        int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, AscendC::ReduceOrder order)
{
    using IndexT = typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type;
    CheckReduceArgs(api, plan, repeatTime, dstRepStride, srcBlkStride, srcRepStride);
    const bool pair = order == AscendC::ReduceOrder::ORDER_VALUE_INDEX || order == AscendC::ReduceOrder::ORDER_INDEX_VALUE;
    CheckReduceAlign(api, dst, src, pair ? 2 * sizeof(T) : order == AscendC::ReduceOrder::ORDER_ONLY_INDEX ? 4 : sizeof(T));
    const auto it = ReadIterations(api, src, plan, srcBlkStride, srcRepStride);
    DstWrites out;
    for (uint64_t r = 0; r < it.size(); ++r) {
        bool any = false;
        uint32_t best = 0;
        for (uint32_t k = 0; k < it[r].size(); ++k) {
            if (!it[r][k].first) continue;
            const double v = ToDouble(it[r][k].second), b = ToDouble(it[r][best].second);
            if (!any || (isMax ? v > b : v < b)) best = k;
            any = true;
        }
        if (!any) continue;
        const T value = it[r][best].second;
        const uint64_t slot = static_cast<uint64_t>(r) * static_cast<uint64_t>(dstRepStride);
        switch (order) {
            case AscendC::ReduceOrder::ORDER_VALUE_INDEX:
                out.Add(2 * slot * sizeof(T), value);
                out.Add((2 * slot + 1) * sizeof(T), static_cast<IndexT>(best));
                break;
            case AscendC::ReduceOrder::ORDER_INDEX_VALUE:
                out.Add(2 * slot * sizeof(T), static_cast<IndexT>(best));
                out.Add((2 * slot + 1) * sizeof(T), value);
                break;
            case AscendC::ReduceOrder::ORDER_ONLY_VALUE:
                out.Add(slot * sizeof(T), value);
                break;
            case AscendC::ReduceOrder::ORDER_ONLY_INDEX:
                out.Add(slot * 4, static_cast<uint32_t>(best));
                break;
        }
    }
    out.Flush(api, dst);
}

// kind: 0 sum, 1 max, 2 min; group: 32 / sizeof(T) (blocks) or 2 (pairs); results per iteration at
// dst[perIter * r * dstRepStride + g].
template <class T>
inline void GroupReduce(const char* api, int kind, uint32_t group, const AscendC::LocalTensor<T>& dst,
                        const AscendC::LocalTensor<T>& src, const RepeatPlan<T>& plan, int32_t repeatTime,
                        int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, uint32_t dstAlign)
{
    CheckReduceArgs(api, plan, repeatTime, dstRepStride, srcBlkStride, srcRepStride);
    CheckReduceAlign(api, dst, src, dstAlign);
    const auto it = ReadIterations(api, src, plan, srcBlkStride, srcRepStride);
    const uint32_t perIter = RepeatPlan<T>::kPerRepeat / group;
    DstWrites out;
    std::vector<T> lane(group);
    for (uint64_t r = 0; r < it.size(); ++r) {
        for (uint32_t g = 0; g < perIter; ++g) {
            bool any = false;
            T acc = T(0);
            for (uint32_t i = 0; i < group; ++i) {
                const auto& e = it[r][g * group + i];
                lane[i] = e.first ? e.second : T(0);
                if (!e.first) continue;
                if (kind == 1) acc = any ? OpMax<T>(acc, e.second) : e.second;
                if (kind == 2) acc = any ? OpMin<T>(acc, e.second) : e.second;
                any = true;
            }
            if (!any) continue;
            if (kind == 0) acc = TreeSum(lane);
            out.Add((static_cast<uint64_t>(perIter) * r * dstRepStride + g) * sizeof(T), acc);
        }
    }
    out.Flush(api, dst);
}

}  // namespace detail
}  // namespace opgen_twin

#define OPGEN_TWIN_REDUCE_TYPES(API) \
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, API, "half, float")

namespace AscendC {

template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride)
{
    OPGEN_TWIN_REDUCE_TYPES("WholeReduceSum");
    const char* api = "WholeReduceSum(mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride)";
    opgen_twin::detail::WholeSum(api, dst, src, opgen_twin::detail::ReducePlanCount<T, isSetMask>(api, mask, repeatTime),
                                 repeatTime, dstRepStride, srcBlkStride, srcRepStride);
}
template <typename T, bool isSetMask = true>
inline void WholeReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],
                           const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,
                           const int32_t srcRepStride)
{
    OPGEN_TWIN_REDUCE_TYPES("WholeReduceSum");
    const char* api = "WholeReduceSum(mask[], repeatTime, dstRepStride, srcBlkStride, srcRepStride)";
    opgen_twin::detail::WholeSum(api, dst, src, opgen_twin::detail::ReducePlanBits<T, isSetMask>(api, mask, repeatTime),
                                 repeatTime, dstRepStride, srcBlkStride, srcRepStride);
}

#define OPGEN_TWIN_WHOLE_MAXMIN(NAME, IS_MAX)                                                                        \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,                     \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,             \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)               \
    {                                                                                                              \
        OPGEN_TWIN_REDUCE_TYPES(#NAME);                                                                            \
        const char* api = #NAME "(mask, repeatTime, dstRepStride, srcBlkStride, srcRepStride, order)";             \
        opgen_twin::detail::WholeMaxMin(api, IS_MAX, dst, src,                                                     \
                                        opgen_twin::detail::ReducePlanCount<T, isSetMask>(api, mask, repeatTime),  \
                                        repeatTime, dstRepStride, srcBlkStride, srcRepStride, order);              \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                  \
                     const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,             \
                     const int32_t srcRepStride, ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX)               \
    {                                                                                                              \
        OPGEN_TWIN_REDUCE_TYPES(#NAME);                                                                            \
        const char* api = #NAME "(mask[], repeatTime, dstRepStride, srcBlkStride, srcRepStride, order)";           \
        opgen_twin::detail::WholeMaxMin(api, IS_MAX, dst, src,                                                     \
                                        opgen_twin::detail::ReducePlanBits<T, isSetMask>(api, mask, repeatTime),   \
                                        repeatTime, dstRepStride, srcBlkStride, srcRepStride, order);              \
    }

OPGEN_TWIN_WHOLE_MAXMIN(WholeReduceMax, true)
OPGEN_TWIN_WHOLE_MAXMIN(WholeReduceMin, false)
#undef OPGEN_TWIN_WHOLE_MAXMIN

// BlockReduce* and PairReduceSum take repeatTime before the mask.
#define OPGEN_TWIN_GROUP_REDUCE(NAME, KIND, GROUP, DST_ALIGN)                                                        \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,               \
                     const int32_t mask, const int32_t dstRepStride, const int32_t srcBlkStride,                   \
                     const int32_t srcRepStride)                                                                   \
    {                                                                                                              \
        OPGEN_TWIN_REDUCE_TYPES(#NAME);                                                                            \
        const char* api = #NAME "(repeatTime, mask, dstRepStride, srcBlkStride, srcRepStride)";                    \
        opgen_twin::detail::GroupReduce(api, KIND, GROUP, dst, src,                                                \
                                        opgen_twin::detail::ReducePlanCount<T, isSetMask>(api, mask, repeatTime),  \
                                        repeatTime, dstRepStride, srcBlkStride, srcRepStride, DST_ALIGN);          \
    }                                                                                                              \
    template <typename T, bool isSetMask = true>                                                                   \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,               \
                     const uint64_t mask[], const int32_t dstRepStride, const int32_t srcBlkStride,                \
                     const int32_t srcRepStride)                                                                   \
    {                                                                                                              \
        OPGEN_TWIN_REDUCE_TYPES(#NAME);                                                                            \
        const char* api = #NAME "(repeatTime, mask[], dstRepStride, srcBlkStride, srcRepStride)";                  \
        opgen_twin::detail::GroupReduce(api, KIND, GROUP, dst, src,                                                \
                                        opgen_twin::detail::ReducePlanBits<T, isSetMask>(api, mask, repeatTime),   \
                                        repeatTime, dstRepStride, srcBlkStride, srcRepStride, DST_ALIGN);          \
    }

OPGEN_TWIN_GROUP_REDUCE(BlockReduceSum, 0, 32 / sizeof(T), 8 * sizeof(T))
OPGEN_TWIN_GROUP_REDUCE(BlockReduceMax, 1, 32 / sizeof(T), 8 * sizeof(T))
OPGEN_TWIN_GROUP_REDUCE(BlockReduceMin, 2, 32 / sizeof(T), 8 * sizeof(T))
OPGEN_TWIN_GROUP_REDUCE(PairReduceSum, 0, 2, sizeof(T))
#undef OPGEN_TWIN_GROUP_REDUCE

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_REDUCE_REPEAT_H
