// opgen CPU twin: high-level (adv_api) kernel functions: Tanh, Sigmoid.
// Gelu/FasterGelu are declared only to fail compilation with an explanation.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_ADV_H
#define OPGEN_TWIN_DETAIL_KERNEL_ADV_H

#include <cmath>

#include "opgen_twin/detail/fast_math.h"
#include "opgen_twin/detail/kernel_pipe.h"
#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/tmp_sizes.h"

namespace AscendC {

enum class TanhAlgo { INTRINSIC = 0, SUBSECTION_COMPENSATION };
struct TanhConfig {
    TanhAlgo algo = TanhAlgo::INTRINSIC;
};
inline constexpr TanhConfig DEFAULT_TANH_CONFIG = {TanhAlgo::INTRINSIC};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

inline bool UbOverlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) { return a0 < b1 && b0 < a1; }

// Shared checks of the high-level activation APIs: no src/dst overlap, tmp buffer big
// enough (>= the minimum the host-side Get*MaxMinTmpSize reports) and not overlapping.
template <class T>
inline void CheckAdvOperands(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                             const AscendC::LocalTensor<uint8_t>* tmp, uint32_t count, uint32_t minTmpBytes)
{
    dst.TwinCheckFits(api, "dst", count);
    src.TwinCheckFits(api, "src", count);
    const uint64_t d0 = dst.TwinUbBegin(), d1 = d0 + uint64_t{count} * sizeof(T);
    const uint64_t s0 = src.TwinUbBegin(), s1 = s0 + uint64_t{count} * sizeof(T);
    if (count > 0 && UbOverlap(d0, d1, s0, s1)) {
        ThrowHardware(Format("%s: dst and src overlap in UB (the API does not support in-place or overlapping "
                             "operands)", api));
    }
    if (tmp != nullptr) {
        tmp->TwinCheckAligned(api, "sharedTmpBuffer");
        const uint64_t tb = tmp->GetSize();
        if (tb < minTmpBytes) {
            ThrowHardware(Format("%s: sharedTmpBuffer has %llu bytes, less than the minimum %u bytes for %s (see "
                                 "the host-side Get*MaxMinTmpSize)",
                                 api, static_cast<unsigned long long>(tb), minTmpBytes, TypeName<T>()));
        }
        const uint64_t t0 = tmp->TwinUbBegin(), t1 = t0 + tb;
        if (count > 0 && (UbOverlap(t0, t1, d0, d1) || UbOverlap(t0, t1, s0, s1))) {
            ThrowHardware(Format("%s: sharedTmpBuffer overlaps src or dst in UB", api));
        }
    } else {
        // The framework takes its scratch space from the UB the kernel left unused.
        const auto* pipe = static_cast<const AscendC::TPipe*>(g_launch.currentPipe);
        if (pipe != nullptr && pipe->TwinCapacity() - pipe->TwinUsedBytes() < minTmpBytes) {
            ThrowHardware(Format("%s: called without sharedTmpBuffer but only %llu bytes of UB are left unallocated; "
                                 "the API needs at least %u bytes of scratch (reserve it or pass a tmp buffer)",
                                 api, static_cast<unsigned long long>(pipe->TwinCapacity() - pipe->TwinUsedBytes()),
                                 minTmpBytes));
        }
    }
}

template <class T, class G>
inline void AdvApply(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint32_t count, G g)
{
    void* d = dst.TwinData();
    const void* s = src.TwinData();
    for (uint32_t i = 0; i < count; ++i) {
        Store<T>(d, i, FromDouble<T>(g(ToDouble(Load<T>(s, i)))));
    }
}

// Tanh: evaluated in double, rounded once to T. float takes the vectorized path of
// fast_math.h, which gives the same bits.
template <class T>
inline void TanhApply(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint32_t count)
{
    if constexpr (std::is_same<T, float>::value) {
        TanhFloatArray(static_cast<float*>(dst.TwinData()), static_cast<const float*>(src.TwinData()), count,
                       [](float v) { return static_cast<float>(std::tanh(static_cast<double>(v))); });
    } else {
        AdvApply(dst, src, count, [](double v) { return std::tanh(v); });
    }
}

inline double SigmoidD(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// ---------------- Tanh (adv_api/math/tanh.h) ----------------
template <typename T, bool isReuseSource = false, const TanhConfig& config = DEFAULT_TANH_CONFIG>
inline void Tanh(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Tanh", "half, float");
    opgen_twin::detail::CheckAdvOperands("Tanh", dstTensor, srcTensor, &sharedTmpBuffer, calCount,
                                         opgen_twin::detail::TanhMinTmpBytes(sizeof(T)));
    opgen_twin::detail::TanhApply(dstTensor, srcTensor, calCount);
}
template <typename T, bool isReuseSource = false, const TanhConfig& config = DEFAULT_TANH_CONFIG>
inline void Tanh(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer)
{
    Tanh<T, isReuseSource, config>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false, const TanhConfig& config = DEFAULT_TANH_CONFIG>
inline void Tanh(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Tanh", "half, float");
    opgen_twin::detail::CheckAdvOperands("Tanh", dstTensor, srcTensor, nullptr, calCount,
                                         opgen_twin::detail::TanhMinTmpBytes(sizeof(T)));
    opgen_twin::detail::TanhApply(dstTensor, srcTensor, calCount);
}
template <typename T, bool isReuseSource = false, const TanhConfig& config = DEFAULT_TANH_CONFIG>
inline void Tanh(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor)
{
    Tanh<T, isReuseSource, config>(dstTensor, srcTensor, srcTensor.GetSize());
}

// ---------------- Sigmoid (adv_api/activation/sigmoid.h) ----------------
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Sigmoid", "half, float");
    opgen_twin::detail::CheckAdvOperands("Sigmoid", dstTensor, srcTensor, &sharedTmpBuffer, calCount,
                                         opgen_twin::detail::SigmoidMinTmpBytes(sizeof(T)));
    opgen_twin::detail::AdvApply(dstTensor, srcTensor, calCount, opgen_twin::detail::SigmoidD);
}
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<uint8_t>& sharedTmpBuffer)
{
    Sigmoid<T, isReuseSource>(dstTensor, srcTensor, sharedTmpBuffer, srcTensor.GetSize());
}
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Sigmoid", "half, float");
    opgen_twin::detail::CheckAdvOperands("Sigmoid", dstTensor, srcTensor, nullptr, calCount,
                                         opgen_twin::detail::SigmoidMinTmpBytes(sizeof(T)));
    opgen_twin::detail::AdvApply(dstTensor, srcTensor, calCount, opgen_twin::detail::SigmoidD);
}
template <typename T, bool isReuseSource = false>
inline void Sigmoid(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor)
{
    Sigmoid<T, isReuseSource>(dstTensor, srcTensor, srcTensor.GetSize());
}

// ---------------- not emulated: fail at compile time with a reason ----------------
template <typename T, bool highPrecision = false, bool highPerformance = false, typename... Args>
inline void Gelu(const LocalTensor<T>&, const LocalTensor<T>&, Args&&...)
{
    static_assert(opgen_twin::detail::AlwaysFalse<T>::value,
                  "opgen twin: AscendC::Gelu is not emulated by the CPU twin. Compose GELU from supported APIs "
                  "(e.g. the tanh approximation with Mul/Muls/Adds/Tanh) or extend opgen/twin.");
}
template <typename T, bool highPrecision = false, bool highPerformance = false, typename... Args>
inline void FasterGelu(const LocalTensor<T>&, const LocalTensor<T>&, Args&&...)
{
    static_assert(opgen_twin::detail::AlwaysFalse<T>::value,
                  "opgen twin: AscendC::FasterGelu is not emulated by the CPU twin. Compose it from supported APIs "
                  "(Exp/Div/Muls/Adds) or extend opgen/twin.");
}
template <typename T, bool highPrecision = false, bool highPerformance = false, typename... Args>
inline void FasterGeluV2(const LocalTensor<T>&, const LocalTensor<T>&, Args&&...)
{
    static_assert(opgen_twin::detail::AlwaysFalse<T>::value,
                  "opgen twin: AscendC::FasterGeluV2 is not emulated by the CPU twin.");
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_ADV_H
