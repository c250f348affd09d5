// opgen CPU twin: ShiftLeft / ShiftRight (tensor by scalar), MulAddDst, and the CCE compiler's
// scalar max/min builtins.
//
// ShiftLeft / ShiftRight (asc-devkit 基础API/Memory矢量计算/逻辑计算/ShiftLeft.md, ShiftRight.md):
// Atlas A2 types int16_t, uint16_t, int32_t, uint32_t; count form and both level-0 mask forms.
// As documented:
// - unsigned T: logical shifts (vacated bits 0);
// - signed T, ShiftLeft: the docs' "arithmetic left shift" keeps the sign bit and drops the bit
//   below it ("次高位被丢弃": int16 1010101010101010 << 1 = 1101010101010100, << 3 =
//   1101010101010000), so the result is sign | ((x << s) & ~sign);
// - signed T, ShiftRight: arithmetic (sign copied in);
// - roundEn (ShiftRight's level-0 forms, int16_t/int32_t only): adds bit s-1 of the source to the
//   shifted value (the docs' example: 17 >> 5 with roundEn = 1).
// scalarValue must lie in [0, 16] for 16-bit and [0, 32] for 32-bit types (ShiftLeft.md
// "scalarValue取值说明"); outside that range is a HardwareError naming the call. A shift by the full
// width gives 0 (logical), the sign bit only (signed ShiftLeft), or 0 / -1 (arithmetic ShiftRight).
// count / repeatTime 0 is a no-op.
//
// MulAddDst (复合计算/MulAddDst.md): dst = src0 * src1 + dst, Atlas A2 (src, dst) = (half, half),
// (float, float), (half, float); the count form. Evaluated as Axpy is: the product and the sum
// exact, rounded once to dst's type (float: std::fma). The level-0 forms (mask / mask[], repeatTime,
// BinaryRepeatParams) for (half, half) and (float, float).
//
// max / min: CCE (the bisheng compiler) provides unqualified scalar max/min builtins for
// kernel code (asc-devkit's own impl/simt_api/math_functions_impl.h calls max(x, y) on
// long long and unsigned arguments with no declaration in any header). The twin emulates them
// as global function templates over two arithmetic arguments of possibly different types,
// returning their common type (the usual arithmetic conversions, as the overloaded builtins do).
// std::max/std::min stay preferred for two arguments of the same type when a kernel
// says `using namespace std;` (they are more specialised).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_SHIFT_H
#define OPGEN_TWIN_DETAIL_KERNEL_SHIFT_H

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/kernel_vec_repeat.h"

namespace opgen_twin {
namespace detail {

template <class T> struct IsShiftT : IsAnyOf<T, int16_t, uint16_t, int32_t, uint32_t> {};

template <class T>
inline void CheckShiftAmount(const char* api, T s)
{
    constexpr long long width = 8 * sizeof(T);
    const long long v = static_cast<long long>(s);
    if (v < 0 || v > width) {
        ThrowHardware(Format("%s: scalarValue %lld is outside [0, %lld] for %s (asc-devkit ShiftLeft.md/ShiftRight.md: "
                             "the shift count of a %lld-bit type lies in [0, %lld])",
                             api, v, width, TypeName<T>(), width, width));
    }
}

template <class T>
inline T ShiftLeftValue(T x, unsigned s)
{
    using UT = typename std::make_unsigned<T>::type;
    constexpr unsigned width = 8 * sizeof(T);
    const UT ux = static_cast<UT>(x);
    const UT shifted = s >= width ? UT(0) : static_cast<UT>(ux << s);
    if constexpr (std::is_signed<T>::value) {
        const UT sign = static_cast<UT>(UT(1) << (width - 1));
        return static_cast<T>(static_cast<UT>((ux & sign) | (shifted & static_cast<UT>(~sign))));
    } else {
        return static_cast<T>(shifted);
    }
}

template <class T>
inline T ShiftRightValue(T x, unsigned s, bool roundEn)
{
    constexpr unsigned width = 8 * sizeof(T);
    if constexpr (std::is_signed<T>::value) {
        const int64_t v = static_cast<int64_t>(x);
        int64_t r = s >= width ? (v < 0 ? -1 : 0) : (v >> s);  // int64: s < 64, arithmetic
        if (roundEn && s >= 1 && s <= width) r += (static_cast<uint64_t>(v) >> (s - 1)) & 1u;
        return static_cast<T>(r);
    } else {
        (void)roundEn;
        return s >= width ? T(0) : static_cast<T>(x >> s);
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, bool isSetMask = true>
inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsShiftT<T>::value, "ShiftLeft", "int16_t, uint16_t, int32_t, uint32_t");
    (void)opgen_twin::detail::RequireSetMask<isSetMask>{};
    opgen_twin::detail::CheckShiftAmount<T>("ShiftLeft", scalarValue);
    const unsigned s = static_cast<unsigned>(scalarValue);
    opgen_twin::detail::Unary("ShiftLeft", dst, src, count,
                              [s](T x) { return opgen_twin::detail::ShiftLeftValue<T>(x, s); });
}
template <typename T, bool isSetMask = true>
inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask[],
                      const uint8_t repeatTime, const UnaryRepeatParams& repeatParams)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsShiftT<T>::value, "ShiftLeft", "int16_t, uint16_t, int32_t, uint32_t");
    const char* api = "ShiftLeft(mask[], repeatTime, UnaryRepeatParams)";
    opgen_twin::detail::CheckShiftAmount<T>(api, scalarValue);
    const unsigned s = static_cast<unsigned>(scalarValue);
    opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime), repeatParams,
                                    [s](T x) { return opgen_twin::detail::ShiftLeftValue<T>(x, s); });
}
template <typename T, bool isSetMask = true>
inline void ShiftLeft(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,
                      const uint8_t repeatTime, const UnaryRepeatParams& repeatParams)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsShiftT<T>::value, "ShiftLeft", "int16_t, uint16_t, int32_t, uint32_t");
    const char* api = "ShiftLeft(mask, repeatTime, UnaryRepeatParams)";
    opgen_twin::detail::CheckShiftAmount<T>(api, scalarValue);
    const unsigned s = static_cast<unsigned>(scalarValue);
    opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime),
                                    repeatParams, [s](T x) { return opgen_twin::detail::ShiftLeftValue<T>(x, s); });
}

template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsShiftT<T>::value, "ShiftRight", "int16_t, uint16_t, int32_t, uint32_t");
    (void)opgen_twin::detail::RequireSetMask<isSetMask>{};
    opgen_twin::detail::CheckShiftAmount<T>("ShiftRight", scalarValue);
    const unsigned s = static_cast<unsigned>(scalarValue);
    opgen_twin::detail::Unary("ShiftRight", dst, src, count,
                              [s](T x) { return opgen_twin::detail::ShiftRightValue<T>(x, s, false); });
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask[],
                       const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, bool roundEn = false)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsShiftT<T>::value, "ShiftRight", "int16_t, uint16_t, int32_t, uint32_t");
    const char* api = "ShiftRight(mask[], repeatTime, UnaryRepeatParams)";
    opgen_twin::detail::CheckShiftAmount<T>(api, scalarValue);
    const unsigned s = static_cast<unsigned>(scalarValue);
    opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime), repeatParams,
                                    [s, roundEn](T x) { return opgen_twin::detail::ShiftRightValue<T>(x, s, roundEn); });
}
template <typename T, bool isSetMask = true>
inline void ShiftRight(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,
                       const uint8_t repeatTime, const UnaryRepeatParams& repeatParams, bool roundEn = false)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsShiftT<T>::value, "ShiftRight", "int16_t, uint16_t, int32_t, uint32_t");
    const char* api = "ShiftRight(mask, repeatTime, UnaryRepeatParams)";
    opgen_twin::detail::CheckShiftAmount<T>(api, scalarValue);
    const unsigned s = static_cast<unsigned>(scalarValue);
    opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime),
                                    repeatParams,
                                    [s, roundEn](T x) { return opgen_twin::detail::ShiftRightValue<T>(x, s, roundEn); });
}

// MulAddDst, the count form: dst = src0 * src1 + dst.
template <typename T, typename U>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const int32_t& count)
{
    static_assert((std::is_same<T, U>::value && opgen_twin::detail::IsFloatT<T>::value) ||
                      (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "opgen twin: AscendC::MulAddDst: Atlas A2 takes (src, dst) = (half, half), (float, float) or "
                  "(half, float) (asc-devkit MulAddDst.md)");
    const char* api = "MulAddDst";
    if (count < 0) opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format("%s: negative count %d", api, count));
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    src0.TwinCheckFits(api, "src0", static_cast<uint64_t>(count));
    src1.TwinCheckFits(api, "src1", static_cast<uint64_t>(count));
    const void* a = src0.TwinData();
    const void* b = src1.TwinData();
    void* d = dst.TwinData();
    for (int32_t i = 0; i < count; ++i) {
        const U x = opgen_twin::detail::Load<U>(a, i);
        const U y = opgen_twin::detail::Load<U>(b, i);
        const T z = opgen_twin::detail::Load<T>(d, i);
        T r;
        if constexpr (std::is_same<U, float>::value) {
            r = std::fma(x, y, z);  // one rounding
        } else {
            // half operands: the product (22 significant bits) is exact in double, so is its sum with a
            // half; then one rounding to T (a float dst: a second rounding only if the exponents of
            // product and dst differ by more than 29).
            r = opgen_twin::detail::FromDouble<T>(opgen_twin::detail::ToDouble(x) * opgen_twin::detail::ToDouble(y) +
                                                  opgen_twin::detail::ToDouble(z));
        }
        opgen_twin::detail::Store<T>(d, i, r);
    }
}

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// MulAddDst's level-0 forms, (half, half) and (float, float): dst element = src0 * src1 + dst over the
// selected elements of each iteration (as BinaryRepeat, with dst also read).
template <class T>
inline void MulAddDstRepeat(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                            const AscendC::LocalTensor<T>& src1, const RepeatMask& m, uint8_t repeat,
                            const AscendC::BinaryRepeatParams& p)
{
    if (repeat == 0 || (m.bits[0] == 0 && m.bits[1] == 0)) return;
    if (p.dstBlkStride == 0) {
        ThrowHardware(Format("%s: dstBlkStride 0 is undefined on the NPU (asc-devkit 高维切分.md)", api));
    }
    CheckPlanFits(api, "dst", dst, NormalPlan<T>(m, repeat), p.dstBlkStride, p.dstRepStride);
    CheckPlanFits(api, "src0", src0, NormalPlan<T>(m, repeat), p.src0BlkStride, p.src0RepStride);
    CheckPlanFits(api, "src1", src1, NormalPlan<T>(m, repeat), p.src1BlkStride, p.src1RepStride);
    const void* a = src0.TwinData();
    const void* b = src1.TwinData();
    void* d = dst.TwinData();
    constexpr uint32_t perRepeat = 256 / sizeof(T);
    std::vector<std::pair<uint64_t, T>> out;
    for (uint32_t r = 0; r < repeat; ++r) {
        for (uint32_t k = 0; k < perRepeat; ++k) {
            if (!(m.bits[k / 64] >> (k % 64) & 1)) continue;
            const T x = Load<T>(a, RepeatElem<T>(r, k, p.src0BlkStride, p.src0RepStride));
            const T y = Load<T>(b, RepeatElem<T>(r, k, p.src1BlkStride, p.src1RepStride));
            const uint64_t di = RepeatElem<T>(r, k, p.dstBlkStride, p.dstRepStride);
            const T z = Load<T>(d, di);
            T v;
            if constexpr (std::is_same<T, float>::value) {
                v = std::fma(x, y, z);
            } else {
                v = FromDouble<T>(ToDouble(x) * ToDouble(y) + ToDouble(z));
            }
            out.emplace_back(di, v);
        }
    }
    for (const auto& e : out) Store<T>(d, e.first, e.second);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams)
{
    static_assert(std::is_same<T, U>::value && opgen_twin::detail::IsFloatT<T>::value,
                  "opgen twin: AscendC::MulAddDst level-0 forms: the twin emulates (half, half) and (float, float); "
                  "(half, float) only in the count form");
    (void)opgen_twin::detail::RequireSetMask<isSetMask>{};
    const char* api = "MulAddDst(mask[], repeatTime, BinaryRepeatParams)";
    opgen_twin::detail::MulAddDstRepeat<T>(api, dst, src0, src1, opgen_twin::detail::BitMask<T>(api, mask),
                                           repeatTime, repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                      uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams)
{
    static_assert(std::is_same<T, U>::value && opgen_twin::detail::IsFloatT<T>::value,
                  "opgen twin: AscendC::MulAddDst level-0 forms: the twin emulates (half, half) and (float, float); "
                  "(half, float) only in the count form");
    (void)opgen_twin::detail::RequireSetMask<isSetMask>{};
    const char* api = "MulAddDst(mask, repeatTime, BinaryRepeatParams)";
    opgen_twin::detail::MulAddDstRepeat<T>(api, dst, src0, src1, opgen_twin::detail::ContinuousMask<T>(api, mask),
                                           repeatTime, repeatParams);
}

}  // namespace AscendC

// CCE's scalar max/min builtins (see the header comment).
template <typename A, typename B,
          typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int>::type = 0>
inline typename std::common_type<A, B>::type max(A a, B b)
{
    using C = typename std::common_type<A, B>::type;
    return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(b) : static_cast<C>(a);
}
template <typename A, typename B,
          typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value, int>::type = 0>
inline typename std::common_type<A, B>::type min(A a, B b)
{
    using C = typename std::common_type<A, B>::type;
    return static_cast<C>(b) < static_cast<C>(a) ? static_cast<C>(b) : static_cast<C>(a);
}

#endif  // OPGEN_TWIN_DETAIL_KERNEL_SHIFT_H
