// opgen CPU twin: Compare, Compares and Select (count mode), as asc-devkit's Compare.md,
// Compares.md and Select.md document them.
//
// Compare/Compares write one bit per element (little-endian within each uint8_t) and take a count
// whose elements fill whole 256-byte blocks: the NPU leaves a partial block uncomputed, the twin
// reports it. Select takes element i from src0 where bit i of selMask is 1, else from src1.
// ascend910 (Atlas training) has no Compares and only Select's VSEL_CMPMASK_SPR mode; the tensor
// modes reserve 8 KB of UB on Atlas A2/A3 and 310P, which the twin checks against the pipe.
// CompareScalar is Compares' older name (asc-devkit kernel_operator_vec_cmpsel_intf.h: "CompareScalar
// has been updated, please use Compares instead"): the same forms, implementation and checks.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_CMPSEL_H
#define OPGEN_TWIN_DETAIL_KERNEL_CMPSEL_H

#include <cstdint>
#include <type_traits>

#include "opgen_twin/detail/kernel_pipe.h"
#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/soc.h"

namespace AscendC {

// Both enums in the order (and so with the values) of asc-devkit's
// impl/basic_api/utils/kernel_utils_mode.h.
enum class CMPMODE : uint8_t {
    LT = 0,
    GT,
    EQ,
    LE,
    GE,
    NE,
};

enum class SELMODE : uint8_t {
    VSEL_CMPMASK_SPR = 0,
    VSEL_TENSOR_SCALAR_MODE,
    VSEL_TENSOR_TENSOR_MODE,
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

template <class T> struct IsCmpSelT : IsAnyOf<T, half, float> {};
template <class T> struct IsCmpT : IsAnyOf<T, half, float, int32_t> {};
// Compare's dst: the docs list int8_t/uint8_t; the device build checks nothing (ASCENDC_ASSERT is
// empty there) and writes bits, which a wider integer tensor holds the same way (little endian), so
// kernels that pass a uint32_t tensor work on the NPU and are accepted.
template <class U>
struct IsCmpDstT : IsAnyOf<U, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t> {};
// Select's mask: the docs list uint8/16/32/64_t; the device build checks nothing (ASCENDC_ASSERT is
// empty there) and reads bits, so the int8_t tensor Compare wrote works as well and is accepted.
template <class U>
struct IsSelMaskT : IsAnyOf<U, uint8_t, uint16_t, uint32_t, uint64_t, int8_t, int16_t, int32_t, int64_t> {};

inline bool CmpHolds(AscendC::CMPMODE mode, double a, double b)
{
    switch (mode) {
        case AscendC::CMPMODE::LT: return a < b;
        case AscendC::CMPMODE::GT: return a > b;
        case AscendC::CMPMODE::EQ: return a == b;
        case AscendC::CMPMODE::LE: return a <= b;
        case AscendC::CMPMODE::GE: return a >= b;
        case AscendC::CMPMODE::NE: return a != b;
    }
    return false;
}

template <class T>
inline void CheckCmpCount(const char* api, uint32_t count)
{
    if ((uint64_t{count} * sizeof(T)) % 256 != 0) {
        ThrowHardware(Format("%s: count %u of %s is %llu bytes, not whole 256-byte blocks; the NPU leaves the "
                             "partial block uncomputed. Compare a count rounded up to a multiple of %u elements "
                             "(the tile holds them)",
                             api, count, TypeName<T>(), static_cast<unsigned long long>(uint64_t{count} * sizeof(T)),
                             static_cast<unsigned>(256 / sizeof(T))));
    }
}

// Writes the bits of `holds(i)` for i < count into dst's bytes.
template <class U, class Holds>
inline void WriteMask(const char* api, const AscendC::LocalTensor<U>& dst, uint32_t count, const Holds& holds)
{
    dst.TwinCheckFits(api, "dst", (uint64_t{count} + 8 * sizeof(U) - 1) / (8 * sizeof(U)));
    uint8_t* bits = static_cast<uint8_t*>(dst.TwinData());
    for (uint32_t byte = 0; byte < count / 8; ++byte) {
        uint8_t v = 0;
        for (uint32_t bit = 0; bit < 8; ++bit) {
            v = static_cast<uint8_t>(v | (holds(byte * 8 + bit) ? 1u << bit : 0u));
        }
        bits[byte] = v;
    }
}

// Compares' element types (Compares.md, 数据类型; U is uint8_t there, but the device build checks
// nothing and writes bits, so U is any integer tensor as for Compare): half and float wherever
// Compares exists; int32_t for CMPMODE::EQ only on Atlas A2/A3 (dav_c220's int32_t
// VcmpvsIntrinsicsImpl issues vcmpvs_eq whatever the mode, so another mode would silently test
// equality); int16_t, uint16_t, int32_t and uint32_t in every mode on Atlas 200I/500 A2 and Ascend 950
// (OPGEN_SOC_HAS_WIDE_INT_COMPARES). ascend910 has no Compares at all.
template <class T> struct IsComparesT : IsAnyOf<T, half, float, int16_t, uint16_t, int32_t, uint32_t> {};

template <class T, int Arch>
inline void CheckComparesType(const char* api, AscendC::CMPMODE mode)
{
    if (!OPGEN_SOC_HAS_COMPARE_SELECT(Arch)) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) has no Compares (asc-devkit Compares.md); Duplicate the scalar "
                             "and use Compare",
                             api, SocName(Arch), Arch));
    }
    if (IsCmpSelT<T>::value || OPGEN_SOC_HAS_WIDE_INT_COMPARES(Arch)) {
        return;
    }
    if (std::is_same<T, int32_t>::value && OPGEN_SOC_HAS_INT_COMPARE(Arch)) {
        if (mode != AscendC::CMPMODE::EQ) {
            ThrowHardware(Format("%s: int32_t takes CMPMODE::EQ only on %s (asc-devkit Compares.md; the NPU would "
                                 "test equality whatever the mode)",
                                 api, SocName(Arch)));
        }
        return;
    }
    ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) has no %s Compares (asc-devkit Compares.md: half and float%s)", api,
                         SocName(Arch), Arch, TypeName<T>(),
                         OPGEN_SOC_HAS_INT_COMPARE(Arch) ? ", int32_t for CMPMODE::EQ" : ""));
}

template <class T, class U, int Arch>
inline void ComparesCount(const char* api, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& src0,
                          const T src1Scalar, AscendC::CMPMODE cmpMode, uint32_t count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(IsComparesT<T>::value, "Compares",
                               "half, float, int32_t (EQ only); int16_t, uint16_t, uint32_t on 310B and 950");
    static_assert(IsCmpDstT<U>::value, "opgen twin: AscendC::Compares writes an integer tensor (uint8_t)");
    CheckComparesType<T, Arch>(api, cmpMode);
    CheckCmpCount<T>(api, count);
    src0.TwinCheckFits(api, "src0", count);
    const void* a = src0.TwinData();
    const double s = ToDouble(src1Scalar);
    WriteMask(api, dst, count, [a, s, cmpMode](uint32_t i) { return CmpHolds(cmpMode, ToDouble(Load<T>(a, i)), s); });
}

inline bool MaskBit(const void* mask, uint32_t i)
{
    return ((static_cast<const uint8_t*>(mask)[i / 8] >> (i % 8)) & 1u) != 0;
}

template <int Arch>
inline void CheckSelectMode(AscendC::SELMODE mode, bool scalarSrc1)
{
    if (!OPGEN_SOC_HAS_COMPARE_SELECT(Arch) && mode != AscendC::SELMODE::VSEL_CMPMASK_SPR) {
        ThrowHardware(Format("Select: %s (__NPU_ARCH__ %d) has only SELMODE::VSEL_CMPMASK_SPR (asc-devkit Select.md: "
                             "Atlas training products support mode 0 only)",
                             SocName(Arch), Arch));
    }
    if (scalarSrc1 != (mode == AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE)) {
        ThrowHardware(scalarSrc1 ? "Select: a scalar src1 takes SELMODE::VSEL_TENSOR_SCALAR_MODE"
                                 : "Select: a tensor src1 takes SELMODE::VSEL_CMPMASK_SPR or VSEL_TENSOR_TENSOR_MODE");
    }
    // Modes 1 and 2 keep 8 KB of UB for themselves on Atlas A2/A3 and 310P (Select.md, 约束说明).
    const bool reserves = OPGEN_SOC_SELECT_RESERVES_UB(Arch) && mode != AscendC::SELMODE::VSEL_CMPMASK_SPR;
    const AscendC::TPipe* pipe = AscendC::GetTPipePtr();
    if (reserves && pipe != nullptr && pipe->TwinUsedBytes() + 8192 > pipe->TwinCapacity()) {
        ThrowHardware(Format("Select: %s (__NPU_ARCH__ %d) needs 8192 bytes of UB free for SELMODE 1 and 2, but the "
                             "pipe has taken %llu of %llu bytes",
                             SocName(Arch), Arch, static_cast<unsigned long long>(pipe->TwinUsedBytes()),
                             static_cast<unsigned long long>(pipe->TwinCapacity())));
    }
}

template <class T, class Src1>
inline void SelectImpl(const AscendC::LocalTensor<T>& dst, const void* mask, const AscendC::LocalTensor<T>& src0,
                       AscendC::SELMODE mode, uint32_t count, const Src1& src1)
{
    void* d = dst.TwinData();
    const void* a = src0.TwinData();
    const uint32_t perRepeat = 256 / sizeof(T);  // mode 0: every repeat reads the same bits
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t bit = mode == AscendC::SELMODE::VSEL_CMPMASK_SPR ? i % perRepeat : i;
        Store<T>(d, i, MaskBit(mask, bit) ? Load<T>(a, i) : src1(i));
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, typename U, int Arch = opgen_twin::detail::kNpuArch>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    uint32_t count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCmpT<T>::value, "Compare", "half, float, int32_t (EQ only)");
    static_assert(opgen_twin::detail::IsCmpDstT<U>::value, "opgen twin: AscendC::Compare writes an integer tensor");
    const char* api = "Compare";
    if constexpr (std::is_same<T, int32_t>::value) {
        // Compare.md: int32_t on Atlas A2/A3 only, and for CMPMODE::EQ only
        if (!OPGEN_SOC_HAS_INT_COMPARE(Arch)) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "Compare: %s (__NPU_ARCH__ %d) has no int32_t Compare (asc-devkit Compare.md: Atlas A2/A3)",
                opgen_twin::detail::SocName(Arch), Arch));
        }
        if (cmpMode != CMPMODE::EQ) {
            opgen_twin::detail::ThrowHardware("Compare: int32_t takes CMPMODE::EQ only (asc-devkit Compare.md)");
        }
    }
    opgen_twin::detail::CheckCmpCount<T>(api, count);
    src0.TwinCheckFits(api, "src0", count);
    src1.TwinCheckFits(api, "src1", count);
    const void* a = src0.TwinData();
    const void* b = src1.TwinData();
    opgen_twin::detail::WriteMask(api, dst, count, [a, b, cmpMode](uint32_t i) {
        return opgen_twin::detail::CmpHolds(cmpMode, opgen_twin::detail::ToDouble(opgen_twin::detail::Load<T>(a, i)),
                                            opgen_twin::detail::ToDouble(opgen_twin::detail::Load<T>(b, i)));
    });
}

template <typename T, typename U, int Arch = opgen_twin::detail::kNpuArch>
inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                     uint32_t count)
{
    opgen_twin::detail::ComparesCount<T, U, Arch>("Compares", dst, src0, src1Scalar, cmpMode, count);
}

// Compares' older name (asc-devkit: "CompareScalar has been updated, please use Compares instead").
template <typename T, typename U, int Arch = opgen_twin::detail::kNpuArch>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,
                          uint32_t count)
{
    opgen_twin::detail::ComparesCount<T, U, Arch>("CompareScalar", dst, src0, src1Scalar, cmpMode, count);
}

// Modes 0 and 2: two tensors.
template <typename T, typename U, int Arch = opgen_twin::detail::kNpuArch>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint32_t count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCmpSelT<T>::value, "Select", "half, float");
    static_assert(opgen_twin::detail::IsSelMaskT<U>::value, "opgen twin: Select's selMask is an integer tensor (uint8/16/32/64_t)");
    const char* api = "Select";
    opgen_twin::detail::CheckSelectMode<Arch>(selMode, false);
    dst.TwinCheckFits(api, "dst", count);
    src0.TwinCheckFits(api, "src0", count);
    src1.TwinCheckFits(api, "src1", count);
    const uint32_t maskBits = selMode == SELMODE::VSEL_CMPMASK_SPR ? 256 / sizeof(T) : count;
    selMask.TwinCheckFits(api, "selMask", (uint64_t{maskBits} + 8 * sizeof(U) - 1) / (8 * sizeof(U)));
    const void* b = src1.TwinData();
    opgen_twin::detail::SelectImpl(dst, selMask.TwinData(), src0, selMode, count,
                                   [b](uint32_t i) { return opgen_twin::detail::Load<T>(b, i); });
}

// Mode 1: a tensor and a scalar.
template <typename T, typename U, int Arch = opgen_twin::detail::kNpuArch>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint32_t count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCmpSelT<T>::value, "Select", "half, float");
    static_assert(opgen_twin::detail::IsSelMaskT<U>::value, "opgen twin: Select's selMask is an integer tensor (uint8/16/32/64_t)");
    const char* api = "Select";
    opgen_twin::detail::CheckSelectMode<Arch>(selMode, true);
    dst.TwinCheckFits(api, "dst", count);
    src0.TwinCheckFits(api, "src0", count);
    selMask.TwinCheckFits(api, "selMask", (uint64_t{count} + 8 * sizeof(U) - 1) / (8 * sizeof(U)));
    opgen_twin::detail::SelectImpl(dst, selMask.TwinData(), src0, selMode, count, [src1](uint32_t) { return src1; });
}

// Bitwise complement (Not.md: int16_t and uint16_t, Atlas A2/A3).
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES((opgen_twin::detail::IsAnyOf<T, int16_t, uint16_t>::value), "Not",
                               "int16_t, uint16_t");
    const char* api = "Not";
    if (!OPGEN_SOC_HAS_INT_COMPARE(Arch)) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "Not: %s (__NPU_ARCH__ %d) has no Not (asc-devkit Not.md: Atlas A2/A3)", opgen_twin::detail::SocName(Arch),
            Arch));
    }
    if (count < 0) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format("%s: negative count %d", api, count));
    }
    src.TwinCheckFits(api, "src", static_cast<uint64_t>(count));
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    const T* s = static_cast<const T*>(src.TwinData());
    T* d = static_cast<T*>(dst.TwinData());
    for (int32_t i = 0; i < count; ++i) {
        d[i] = static_cast<T>(~s[i]);
    }
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_CMPSEL_H
