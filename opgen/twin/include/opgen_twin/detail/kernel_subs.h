// opgen CPU twin: Subs, the tensor-scalar subtraction with the scalar on either side (asc-devkit
// Subs（灵活标量位置）.md; include/basic_api/kernel_operator_vec_binary_scalar_intf.h and
// impl/basic_api/kernel_operator_vec_binary_scalar_intf_impl.h SubsCommon):
//
//   Subs(dst, src0, src1, count)                        dst[i] = src0[i] - s  or  s - src1[i]
//   Subs(dst, src0, src1, mask | mask[], repeatTime, UnaryRepeatParams)   (level 0)
//
// One of src0/src1 is the vector tensor; the other is the scalar: a value (converted to the
// tensor's element type, as the call's implicit conversion does) or a LocalTensor whose element 0 is
// read (a "single point", src1Local[0]); when both are tensors, the BinaryConfig template argument's
// scalarTensorIndex says which one is the scalar (1, the default: src1; 0: src0). Only Ascend 950
// (OPGEN_SOC_HAS_SUBS) has Subs: asc-devkit implements SubsImpl in dav_3510 (and the Kirin dav_l300 /
// dav_m510) only, so a build for another SoC does not compile; the twin reports that at the call.
// Element types: half, bfloat16_t, int16_t, float, int32_t, and for the count form also int64_t and
// uint64_t (complex32/complex64 are not emulated). Floating point is rounded once (half/bfloat16 from
// the exact difference in double, float in float), integers wrap around. HardwareErrors naming Subs:
// another SoC, a negative count, an operand overrun (level 0: kernel_vec_repeat.h's checks), and a
// single-point scalar inside the count form's dst range ("不支持源操作和目的操作数地址重叠").
#ifndef OPGEN_TWIN_DETAIL_KERNEL_SUBS_H
#define OPGEN_TWIN_DETAIL_KERNEL_SUBS_H

#include <cstdint>
#include <type_traits>

#include "opgen_twin/detail/kernel_vec_repeat.h"
#include "opgen_twin/detail/soc.h"

namespace AscendC {

// asc-devkit include/basic_api/kernel_struct_binary.h
struct BinaryConfig {
    int8_t scalarTensorIndex = 1;  // which operand is the scalar when both are LocalTensors: 0 src0, 1 src1
};
constexpr BinaryConfig DEFAULT_BINARY_CONFIG = {1};
struct BinaryDefaultType {};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

template <class X> struct IsLocalTensorT : std::false_type {};
template <class T> struct IsLocalTensorT<AscendC::LocalTensor<T>> : std::true_type {};

template <class T> struct IsSubsRepeatT : IsAnyOf<T, half, bfloat16_t, int16_t, float, int32_t> {};
template <class T> struct IsSubsCountT : IsAnyOf<T, half, bfloat16_t, int16_t, float, int32_t, int64_t, uint64_t> {};

template <int Arch>
inline void CheckSubsExists()
{
    if (!OPGEN_SOC_HAS_SUBS(Arch)) {
        ThrowHardware(Format("Subs: %s (__NPU_ARCH__ %d) has no Subs: asc-devkit implements it for Ascend 950 only "
                             "(Subs（灵活标量位置）.md), so the kernel does not compile there. Use Adds with the negated "
                             "scalar, or Muls by -1 and Adds for scalar - tensor",
                             SocName(Arch), Arch));
    }
}

// The vector operand, the scalar and its side of one Subs call.
template <class T>
struct SubsOperands {
    AscendC::LocalTensor<T> vec;
    T scalar;
    bool scalarFirst;
    const AscendC::LocalTensor<T>* point;  // the single-point tensor the scalar was read from, or nullptr
};

template <class T, int8_t scalarIdx, class S, class V>
inline SubsOperands<T> SplitSubs(const S& src0, const V& src1)
{
    static_assert(IsLocalTensorT<S>::value || IsLocalTensorT<V>::value,
                  "opgen twin: Subs: one of src0 and src1 must be a LocalTensor (asc-devkit: \"One of src0 and src1 "
                  "should be Tensor\")");
    if constexpr (IsLocalTensorT<S>::value && IsLocalTensorT<V>::value) {
        static_assert(std::is_same<S, V>::value && std::is_same<typename S::PrimType, T>::value,
                      "opgen twin: Subs: dst, src0 and src1 take one element type");
        static_assert(scalarIdx == 0 || scalarIdx == 1, "opgen twin: Subs: scalarTensorIndex out of range");
        const AscendC::LocalTensor<T>& point = scalarIdx == 0 ? src0 : src1;
        point.TwinCheckFits("Subs", scalarIdx == 0 ? "src0 (the scalar)" : "src1 (the scalar)", 1);
        return {scalarIdx == 0 ? src1 : src0, point.GetValue(0), scalarIdx == 0, &point};
    } else if constexpr (IsLocalTensorT<V>::value) {
        static_assert(std::is_same<typename V::PrimType, T>::value, "opgen twin: Subs: dst and src1 take one element type");
        return {src1, static_cast<T>(src0), true, nullptr};
    } else {
        static_assert(std::is_same<typename S::PrimType, T>::value, "opgen twin: Subs: dst and src0 take one element type");
        return {src0, static_cast<T>(src1), false, nullptr};
    }
}

template <class T>
inline auto SubsOp(const SubsOperands<T>& o)
{
    const T s = o.scalar;
    const bool first = o.scalarFirst;
    return [s, first](T x) { return first ? OpSub<T>(s, x) : OpSub<T>(x, s); };
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T = BinaryDefaultType, bool isSetMask = true, const BinaryConfig& config = DEFAULT_BINARY_CONFIG,
          typename U, typename S, typename V, int Arch = opgen_twin::detail::kNpuArch>
inline void Subs(const U& dst, const S& src0, const V& src1, const int32_t& count)
{
    static_assert(opgen_twin::detail::IsLocalTensorT<U>::value, "opgen twin: Subs: dst is a LocalTensor");
    using Elem = typename U::PrimType;
    static_assert(opgen_twin::detail::IsSubsCountT<Elem>::value,
                  "opgen twin: AscendC::Subs takes half, bfloat16_t, int16_t, float, int32_t, int64_t, uint64_t");
    opgen_twin::detail::CheckSubsExists<Arch>();
    const auto o = opgen_twin::detail::SplitSubs<Elem, config.scalarTensorIndex>(src0, src1);
    if (o.point != nullptr && count > 0) {
        const uint64_t at = o.point->GetPhyAddr(), from = dst.GetPhyAddr();
        if (at >= from && at < from + static_cast<uint64_t>(count) * sizeof(Elem)) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "Subs: the single-point scalar (UB byte %llu) lies in dst's %d elements: asc-devkit does not support a "
                "scalar tensor that overlaps dst",
                static_cast<unsigned long long>(at), static_cast<int>(count)));
        }
    }
    opgen_twin::detail::Unary("Subs", dst, o.vec, count, opgen_twin::detail::SubsOp(o));
}

#define OPGEN_TWIN_SUBS_REPEAT(MASK_T, PLAN, MASK_NAME)                                                              \
    template <typename T = BinaryDefaultType, bool isSetMask = true,                                                 \
              const BinaryConfig& config = DEFAULT_BINARY_CONFIG, typename U, typename S, typename V,                 \
              int Arch = opgen_twin::detail::kNpuArch>                                                                \
    inline void Subs(const U& dst, const S& src0, const V& src1, MASK_T mask, const uint8_t repeatTime,            \
                     const UnaryRepeatParams& repeatParams)                                                          \
    {                                                                                                                \
        static_assert(opgen_twin::detail::IsLocalTensorT<U>::value, "opgen twin: Subs: dst is a LocalTensor");      \
        using Elem = typename U::PrimType;                                                                           \
        static_assert(opgen_twin::detail::IsSubsRepeatT<Elem>::value,                                                \
                      "opgen twin: AscendC::Subs (level 0) takes half, bfloat16_t, int16_t, float, int32_t");        \
        opgen_twin::detail::CheckSubsExists<Arch>();                                                                 \
        const char* api = "Subs(dst, src0, src1, " MASK_NAME ", repeatTime, UnaryRepeatParams)";                    \
        const auto o = opgen_twin::detail::SplitSubs<Elem, config.scalarTensorIndex>(src0, src1);                     \
        opgen_twin::detail::UnaryRepeat(api, dst, o.vec, opgen_twin::detail::PLAN<Elem, isSetMask>(api, mask, repeatTime), \
                                        repeatParams, opgen_twin::detail::SubsOp(o));                                 \
    }
OPGEN_TWIN_SUBS_REPEAT(uint64_t*, PlanBits, "mask[]")
OPGEN_TWIN_SUBS_REPEAT(uint64_t, PlanContinuous, "mask")
#undef OPGEN_TWIN_SUBS_REPEAT

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_SUBS_H
