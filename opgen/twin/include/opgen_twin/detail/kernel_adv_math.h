// opgen CPU twin: high-level (adv_api/math) kernel functions Sign, Floor, Ceil, Erf and
// Power(tensor, scalar), in the forms with a sharedTmpBuffer and a count. Each result is
// evaluated in double and rounded once to T (the NPU's own algorithms, e.g. Erf's rational
// approximation, may differ in the last bits). The minimum scratch sizes follow the public
// asc-devkit tiling implementation (impl/adv_api/tiling/math/*), for float and half.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_ADV_MATH_H
#define OPGEN_TWIN_DETAIL_KERNEL_ADV_MATH_H

#include <cmath>

#include "opgen_twin/detail/kernel_adv.h"
#include "opgen_twin/detail/soc_table.h"

namespace opgen_twin {
namespace detail {

inline uint32_t SignMinTmpBytes(uint32_t /*typeSize*/) { return 3 * kOneRepeatBytes; }
inline uint32_t FloorMinTmpBytes(uint32_t typeSize) { return typeSize == 4 ? 0u : 2 * kOneRepeatBytes; }
inline uint32_t CeilMinTmpBytes(uint32_t typeSize) { return (typeSize == 4 ? 1 : 2) * kOneRepeatBytes; }
inline uint32_t ErfMinTmpBytes(uint32_t typeSize) { return (typeSize == 4 ? 3 : 8) * kOneRepeatBytes; }
// Power(tensor, scalar) on Atlas A2: 5 repeats and one more for float, 14 half repeats for half.
inline uint32_t PowerMinTmpBytes(uint32_t typeSize)
{
    return typeSize == 4 ? 5 * kOneRepeatBytes + kOneRepeatBytes : 7 * kOneRepeatBytes + kOneRepeatBytes;
}

// Floor and Ceil on ascend310p take |x| <= 2147483647 only (Floor.md, Ceil.md: 310P AI Core);
// outside it (NaN and +-inf included) the twin returns what a conversion through int32 would,
// the value saturated to int32 (0 for NaN), so a kernel must select x there (|x| >= 2^23 is
// integral in float).
template <int Arch>
inline double RoundThroughInt32(double v, double rounded)
{
    if (OPGEN_SOC_HAS_WIDE_FLOOR(Arch) || std::fabs(v) <= 2147483647.0) return rounded;
    return v != v ? 0.0 : (v > 0 ? 2147483647.0 : -2147483648.0);
}

inline double SignD(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); }  // keeps +-0 and NaN

template <class T, class G>
inline void AdvMath(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                    const AscendC::LocalTensor<uint8_t>& tmp, uint32_t count, uint32_t minTmpBytes, G g)
{
    CheckAdvOperands(api, dst, src, &tmp, count, minTmpBytes);
    AdvApply(dst, src, count, g);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// ---------------- Sign, Floor, Ceil, Erf (adv_api/math/*.h) ----------------
template <typename T, bool isReuseSource = false>
inline void Sign(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Sign", "half, float");
    opgen_twin::detail::AdvMath("Sign", dstTensor, srcTensor, sharedTmpBuffer, calCount,
                                opgen_twin::detail::SignMinTmpBytes(sizeof(T)), opgen_twin::detail::SignD);
}
template <typename T, bool isReuseSource = false, int Arch = opgen_twin::detail::kNpuArch>
inline void Floor(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Floor", "half, float");
    opgen_twin::detail::AdvMath("Floor", dstTensor, srcTensor, sharedTmpBuffer, calCount,
                                opgen_twin::detail::FloorMinTmpBytes(sizeof(T)),
                                [](double v) { return opgen_twin::detail::RoundThroughInt32<Arch>(v, std::floor(v)); });
}
template <typename T, bool isReuseSource = false, int Arch = opgen_twin::detail::kNpuArch>
inline void Ceil(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                 const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Ceil", "half, float");
    opgen_twin::detail::AdvMath("Ceil", dstTensor, srcTensor, sharedTmpBuffer, calCount,
                                opgen_twin::detail::CeilMinTmpBytes(sizeof(T)),
                                [](double v) { return opgen_twin::detail::RoundThroughInt32<Arch>(v, std::ceil(v)); });
}
template <typename T, bool isReuseSource = false>
inline void Erf(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Erf", "half, float");
    opgen_twin::detail::AdvMath("Erf", dstTensor, srcTensor, sharedTmpBuffer, calCount,
                                opgen_twin::detail::ErfMinTmpBytes(sizeof(T)), [](double v) { return std::erf(v); });
}

// ---------------- Power(tensor, scalar) (adv_api/math/power.h) ----------------
template <typename T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dstTensor, const LocalTensor<T>& src0Tensor, const T& src1Scalar,
                  const LocalTensor<uint8_t>& sharedTmpBuffer, uint32_t calCount)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Power",
                               "half, float (int32_t is not emulated)");
    const double e = opgen_twin::detail::ToDouble(src1Scalar);
    opgen_twin::detail::AdvMath("Power", dstTensor, src0Tensor, sharedTmpBuffer, calCount,
                                opgen_twin::detail::PowerMinTmpBytes(sizeof(T)),
                                [e](double v) { return std::pow(v, e); });
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_ADV_MATH_H
