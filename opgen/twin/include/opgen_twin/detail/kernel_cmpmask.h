// opgen CPU twin: Compare's level-0 forms (asc-devkit Compare.md, Compare（结果存入寄存器）.md) and the CmpMask
// register (GetCmpMask(ISASI).md, SetCmpMask(ISASI).md).
//
// Compare(dst, src0, src1, cmpMode, mask / mask[], repeatTime, BinaryRepeatParams): on Atlas A2/A3 the mask is
// "保留参数，设置无效" (Compare.md), so every element of each iteration is compared; the bits of block b of
// iteration r (32 / sizeof(T) bits, little-endian within bytes) go to dst at (dstRepStride * r +
// dstBlkStride * b) * (32 / sizeof(T) / 8) bytes, so the default {1, 1, 1, 8, 8, 8} writes the bits
// contiguously, as CANN's own count-form Compare (dav_c220 CompareCompute) relies on. T: half, float, int32_t
// (CMPMODE::EQ only); U: int8_t / uint8_t (Compare.md; CANN's CheckVcmpvDtype asserts it).
// Compares / CompareScalar(dst, src0, scalar, cmpMode, mask / mask[], repeatTime, UnaryRepeatParams) (Compares.md;
// dav_c220 VcmpvsImpl) likewise, the scalar in place of src1, with Compares' element types per SoC
// (kernel_cmpsel.h). Where the mask selects elements (310B, 950: OPGEN_SOC_COMPARE_MASK_SELECTS) both level-0
// forms are a TwinError (not emulated).
//
// Select's level-0 forms (Select.md; dav_c220 VselImpl): Select(dst, selMask, src0, src1 | scalar, selMode,
// mask | mask[], repeatTime, BinaryRepeatParams) and Select(dst, src0, src1, repeatTime, BinaryRepeatParams)
// (mode 0 with the CmpMask register as SetCmpMask / Compare left it and the mask register as it stands).
// Element k of iteration r takes src0 where its select bit is 1, else src1 (or the scalar); the bit is, as the
// count form models it, bit k of the register / selMask for VSEL_CMPMASK_SPR (every iteration the same 128
// bits; the call loads the register from selMask), and bit r * (256 / sizeof(T)) + k of selMask for
// VSEL_TENSOR_TENSOR_MODE and VSEL_TENSOR_SCALAR_MODE. The mask selects the elements written (others keep
// their bytes); isSetMask as the other level-0 forms. Modes 1 and 2 reserve 8 KB of UB as the count form.
//
// Compare(src0, src1, cmpMode, mask / mask[], repeatParams) compares one iteration (256 bytes: 128
// half or 64 float elements; "repeat 默认为1") and writes bit k of the 128-bit CmpMask register for
// element k of the iteration (little-endian within each byte, as the tensor forms); bits of elements the
// mask does not select, and the upper 64 bits for float, are written 0 (the docs do not say). The mask
// and isSetMask follow the other level-0 forms (kernel_mask.h; in Counter mode the first iteration's
// elements). GetCmpMask(dst) copies the register's 16 bytes to dst, SetCmpMask(src) loads them from src
// (the register the Select forms without a mask read). The register is per block, zero at the start.
// Checked (HardwareError naming the call): half/float only; src0/src1 elements outside their tensors;
// a dst/src that is not a live tensor or holds fewer than 16 bytes (GetCmpMask.md says dst "不能少于128字节";
// the register has 128 bits, and the twin checks the 16 bytes it writes).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_CMPMASK_H
#define OPGEN_TWIN_DETAIL_KERNEL_CMPMASK_H

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "opgen_twin/detail/kernel_cmpsel.h"
#include "opgen_twin/detail/kernel_mask.h"
#include "opgen_twin/detail/kernel_vec_repeat.h"

namespace opgen_twin {
namespace detail {

template <class T>
inline void CompareToRegister(const char* api, const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1,
                              AscendC::CMPMODE cmpMode, const RepeatPlan<T>& plan,
                              const AscendC::BinaryRepeatParams& p)
{
    RepeatPlan<T> one = plan;
    if (!one.counter) one.repeats = 1;  // no repeatTime: one iteration
    else if (one.repeats > 1) one.count = RepeatPlan<T>::kPerRepeat, one.repeats = 1;
    uint8_t bits[16] = {};
    if (!one.None()) {
        CheckPlanFits(api, "src0", src0, one, p.src0BlkStride, p.src0RepStride);
        CheckPlanFits(api, "src1", src1, one, p.src1BlkStride, p.src1RepStride);
        const RepeatMask m = one.Iter(0);
        const void* a = src0.TwinData();
        const void* b = src1.TwinData();
        for (uint32_t k = 0; k < RepeatPlan<T>::kPerRepeat; ++k) {
            if (!m.Has(k)) continue;
            const double x = ToDouble(Load<T>(a, RepeatElem<T>(0, k, p.src0BlkStride, p.src0RepStride)));
            const double y = ToDouble(Load<T>(b, RepeatElem<T>(0, k, p.src1BlkStride, p.src1RepStride)));
            if (CmpHolds(cmpMode, x, y)) bits[k / 8] = static_cast<uint8_t>(bits[k / 8] | (1u << (k % 8)));
        }
    }
    std::memcpy(g_launch.cmpMask, bits, sizeof(bits));
}

// Writes the compare bits of repeatTime whole iterations, holds(r, k) for element k of iteration r, to dst:
// the bits of block b of iteration r at byte (dstRepStride * r + dstBlkStride * b) * (32 / sizeof(T) / 8).
template <class T, class U, class Holds>
inline void WriteCmpBitsRepeat(const char* api, const AscendC::LocalTensor<U>& dst, uint8_t repeatTime,
                               uint32_t dstBlkStride, uint32_t dstRepStride, const Holds& holds)
{
    constexpr uint32_t perBlock = 32 / sizeof(T);
    constexpr uint32_t blockBytes = perBlock / 8;
    const uint64_t lastByte =
        (uint64_t{dstRepStride} * (repeatTime - 1u) + uint64_t{dstBlkStride} * 7u) * blockBytes + blockBytes;
    dst.TwinCheckLive(api, "dst");
    if (lastByte > uint64_t{dst.GetSize()} * sizeof(U)) {
        ThrowHardware(Format("%s: dst needs %llu bytes (repeatTime %u, dstBlkStride %u, dstRepStride %u) but holds %llu "
                             "(UB buffer overrun)",
                             api, static_cast<unsigned long long>(lastByte), static_cast<unsigned>(repeatTime),
                             dstBlkStride, dstRepStride, static_cast<unsigned long long>(uint64_t{dst.GetSize()} * sizeof(U))));
    }
    std::vector<uint8_t> bits(static_cast<size_t>(repeatTime) * 8 * blockBytes, 0);
    for (uint32_t r = 0; r < repeatTime; ++r) {
        for (uint32_t k = 0; k < RepeatPlan<T>::kPerRepeat; ++k) {
            if (holds(r, k)) {
                const uint32_t i = r * RepeatPlan<T>::kPerRepeat + k;
                bits[i / 8] = static_cast<uint8_t>(bits[i / 8] | (1u << (i % 8)));
            }
        }
    }
    uint8_t* d = static_cast<uint8_t*>(dst.TwinData());
    for (uint32_t r = 0; r < repeatTime; ++r) {
        for (uint32_t blk = 0; blk < 8; ++blk) {
            const uint64_t off = (uint64_t{dstRepStride} * r + uint64_t{dstBlkStride} * blk) * blockBytes;
            std::memcpy(d + off, &bits[(static_cast<size_t>(r) * 8 + blk) * blockBytes], blockBytes);
        }
    }
}

// Where the mask selects elements (310B, 950) a level-0 compare is not emulated.
template <int Arch>
inline void CheckCompareMaskReserved(const char* api)
{
    if (OPGEN_SOC_COMPARE_MASK_SELECTS(Arch)) {
        ThrowTwin(Format("%s: on %s (__NPU_ARCH__ %d) the mask selects the elements compared (Compare.md, "
                         "Compares.md); the twin emulates the level-0 form where the mask is reserved (Atlas A2/A3, "
                         "310P) only: not emulated",
                         api, SocName(Arch), Arch));
    }
}

template <class T, class U, int Arch>
inline void CompareRepeat(const char* api, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& src0,
                          const AscendC::LocalTensor<T>& src1, AscendC::CMPMODE cmpMode, uint8_t repeatTime,
                          const AscendC::BinaryRepeatParams& p)
{
    static_assert(IsCmpDstT<U>::value, "opgen twin: AscendC::Compare writes an integer tensor (asc-devkit Compare.md)");
    OPGEN_TWIN_SUPPORTED_TYPES(IsCmpT<T>::value, "Compare", "half, float, int32_t (EQ only)");
    if (std::is_same<T, int32_t>::value && cmpMode != AscendC::CMPMODE::EQ) {
        ThrowHardware(Format("%s: int32_t takes CMPMODE::EQ only (asc-devkit Compare.md)", api));
    }
    CheckCompareMaskReserved<Arch>(api);
    const RepeatPlan<T> plan = NormalPlan<T>(FirstN(RepeatPlan<T>::kPerRepeat), repeatTime);  // mask ignored
    if (plan.None()) return;
    CheckPlanFits(api, "src0", src0, plan, p.src0BlkStride, p.src0RepStride);
    CheckPlanFits(api, "src1", src1, plan, p.src1BlkStride, p.src1RepStride);
    const void* a = src0.TwinData();
    const void* b = src1.TwinData();
    WriteCmpBitsRepeat<T>(api, dst, repeatTime, p.dstBlkStride, p.dstRepStride, [a, b, cmpMode, &p](uint32_t r, uint32_t k) {
        const double x = ToDouble(Load<T>(a, RepeatElem<T>(r, k, p.src0BlkStride, p.src0RepStride)));
        const double y = ToDouble(Load<T>(b, RepeatElem<T>(r, k, p.src1BlkStride, p.src1RepStride)));
        return CmpHolds(cmpMode, x, y);
    });
}

// Compares / CompareScalar, level 0 (Compares.md; dav_c220 VcmpvsImpl: `(void)(mask)`, vcmpvs over repeatTime
// whole iterations with UnaryRepeatParams' strides): every element of each iteration is compared with the scalar
// where the mask is reserved (Atlas A2/A3, 310P); on Atlas 200I/500 A2 and Ascend 950 it selects elements,
// which the twin does not emulate.
template <class T, class U, int Arch>
inline void ComparesRepeat(const char* api, const AscendC::LocalTensor<U>& dst, const AscendC::LocalTensor<T>& src0,
                           const T scalar, AscendC::CMPMODE cmpMode, uint8_t repeatTime,
                           const AscendC::UnaryRepeatParams& p)
{
    static_assert(IsCmpDstT<U>::value, "opgen twin: AscendC::Compares writes an integer tensor (uint8_t)");
    OPGEN_TWIN_SUPPORTED_TYPES(IsComparesT<T>::value, "Compares",
                               "half, float, int32_t (EQ only); int16_t, uint16_t, uint32_t on 310B and 950");
    CheckComparesType<T, Arch>(api, cmpMode);
    CheckCompareMaskReserved<Arch>(api);
    const RepeatPlan<T> plan = NormalPlan<T>(FirstN(RepeatPlan<T>::kPerRepeat), repeatTime);  // mask ignored
    if (plan.None()) return;
    CheckPlanFits(api, "src0", src0, plan, p.srcBlkStride, p.srcRepStride);
    const void* a = src0.TwinData();
    const double y = ToDouble(scalar);
    WriteCmpBitsRepeat<T>(api, dst, repeatTime, p.dstBlkStride, p.dstRepStride, [a, y, cmpMode, &p](uint32_t r, uint32_t k) {
        return CmpHolds(cmpMode, ToDouble(Load<T>(a, RepeatElem<T>(r, k, p.srcBlkStride, p.srcRepStride))), y);
    });
}

// Level-0 Select: selBit(r, k) gives the select bit, src1(r, k) the value taken where it is 0.
template <class T, class SelBit, class Src1>
inline void SelectRepeat(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                         const RepeatPlan<T>& plan, const AscendC::BinaryRepeatParams& p, const SelBit& selBit,
                         const Src1& src1)
{
    if (plan.None()) return;
    if (p.dstBlkStride == 0) ThrowHardware(Format("%s: dstBlkStride 0 is undefined on the NPU (asc-devkit 高维切分.md)", api));
    CheckPlanFits(api, "dst", dst, plan, p.dstBlkStride, p.dstRepStride);
    CheckPlanFits(api, "src0", src0, plan, p.src0BlkStride, p.src0RepStride);
    const void* a = src0.TwinData();
    std::vector<std::pair<uint64_t, T>> out;
    for (uint64_t r = 0; r < plan.repeats; ++r) {
        const RepeatMask m = plan.Iter(r);
        for (uint32_t k = 0; k < RepeatPlan<T>::kPerRepeat; ++k) {
            if (!m.Has(k)) continue;
            const T v = selBit(r, k) ? Load<T>(a, RepeatElem<T>(r, k, p.src0BlkStride, p.src0RepStride)) : src1(r, k);
            out.emplace_back(RepeatElem<T>(r, k, p.dstBlkStride, p.dstRepStride), v);
        }
    }
    void* d = dst.TwinData();
    for (const auto& e : out) Store<T>(d, e.first, e.second);
}

template <class T, class U>
inline void SelectTensorRepeat(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& selMask,
                               const AscendC::LocalTensor<T>& src0, const AscendC::LocalTensor<T>& src1,
                               AscendC::SELMODE selMode, const RepeatPlan<T>& plan, const AscendC::BinaryRepeatParams& p)
{
    OPGEN_TWIN_SUPPORTED_TYPES(IsCmpSelT<T>::value, "Select", "half, float");
    static_assert(IsSelMaskT<U>::value, "opgen twin: Select's selMask is uint8/16/32/64_t");
    CheckSelectMode<kNpuArch>(selMode, false);
    if (plan.None()) return;
    CheckPlanFits(api, "src1", src1, plan, p.src1BlkStride, p.src1RepStride);
    const bool spr = selMode == AscendC::SELMODE::VSEL_CMPMASK_SPR;
    const uint64_t maskBits = spr ? 128 : plan.repeats * RepeatPlan<T>::kPerRepeat;
    selMask.TwinCheckFits(api, "selMask", (maskBits + 8 * sizeof(U) - 1) / (8 * sizeof(U)));
    const void* sm = selMask.TwinData();
    if (spr) std::memcpy(g_launch.cmpMask, sm, 16);  // set_cmpmask(selMask)
    const void* b = src1.TwinData();
    SelectRepeat(api, dst, src0, plan, p,
                 [sm, spr](uint64_t r, uint32_t k) { return MaskBit(sm, spr ? k : r * RepeatPlan<T>::kPerRepeat + k); },
                 [b, &p](uint64_t r, uint32_t k) { return Load<T>(b, RepeatElem<T>(r, k, p.src1BlkStride, p.src1RepStride)); });
}

template <class T, class U>
inline void SelectScalarRepeat(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<U>& selMask,
                               const AscendC::LocalTensor<T>& src0, T src1, AscendC::SELMODE selMode,
                               const RepeatPlan<T>& plan, const AscendC::BinaryRepeatParams& p)
{
    OPGEN_TWIN_SUPPORTED_TYPES(IsCmpSelT<T>::value, "Select", "half, float");
    static_assert(IsSelMaskT<U>::value, "opgen twin: Select's selMask is uint8/16/32/64_t");
    CheckSelectMode<kNpuArch>(selMode, true);
    if (plan.None()) return;
    const uint64_t maskBits = plan.repeats * RepeatPlan<T>::kPerRepeat;
    selMask.TwinCheckFits(api, "selMask", (maskBits + 8 * sizeof(U) - 1) / (8 * sizeof(U)));
    const void* sm = selMask.TwinData();
    SelectRepeat(api, dst, src0, plan, p,
                 [sm](uint64_t r, uint32_t k) { return MaskBit(sm, r * RepeatPlan<T>::kPerRepeat + k); },
                 [src1](uint64_t, uint32_t) { return src1; });
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask[], uint8_t repeatTime,
                   const BinaryRepeatParams& repeatParams)
{
    const char* api = "Select(dst, selMask, src0, src1, selMode, mask[], repeatTime, BinaryRepeatParams)";
    opgen_twin::detail::SelectTensorRepeat(api, dst, selMask, src0, src1, selMode,
                                           opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime), repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE selMode, uint64_t mask, uint8_t repeatTime,
                   const BinaryRepeatParams& repeatParams)
{
    const char* api = "Select(dst, selMask, src0, src1, selMode, mask, repeatTime, BinaryRepeatParams)";
    opgen_twin::detail::SelectTensorRepeat(api, dst, selMask, src0, src1, selMode,
                                           opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime),
                                           repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& repeatParams)
{
    const char* api = "Select(dst, selMask, src0, scalar, selMode, mask[], repeatTime, BinaryRepeatParams)";
    opgen_twin::detail::SelectScalarRepeat(api, dst, selMask, src0, src1, selMode,
                                           opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime), repeatParams);
}
template <typename T, typename U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, T src1,
                   SELMODE selMode, uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams)
{
    const char* api = "Select(dst, selMask, src0, scalar, selMode, mask, repeatTime, BinaryRepeatParams)";
    opgen_twin::detail::SelectScalarRepeat(api, dst, selMask, src0, src1, selMode,
                                           opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime),
                                           repeatParams);
}
// Mode 0 with the CmpMask register and the mask register as they stand.
template <typename T>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, uint8_t repeatTime,
                   const BinaryRepeatParams& repeatParams)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCmpSelT<T>::value, "Select", "half, float");
    const char* api = "Select(dst, src0, src1, repeatTime, BinaryRepeatParams)";
    const auto plan = opgen_twin::detail::PlanFromRegister<T>(api, repeatTime);
    if (plan.None()) return;
    opgen_twin::detail::CheckPlanFits(api, "src1", src1, plan, repeatParams.src1BlkStride, repeatParams.src1RepStride);
    const uint8_t* reg = opgen_twin::detail::g_launch.cmpMask;
    const void* b = src1.TwinData();
    const BinaryRepeatParams& p = repeatParams;
    opgen_twin::detail::SelectRepeat(
        api, dst, src0, plan, p, [reg](uint64_t, uint32_t k) { return opgen_twin::detail::MaskBit(reg, k); },
        [b, &p](uint64_t r, uint32_t k) {
            return opgen_twin::detail::Load<T>(b, opgen_twin::detail::RepeatElem<T>(r, k, p.src1BlkStride, p.src1RepStride));
        });
}

template <typename T, typename U, bool isSetMask = true, int Arch = opgen_twin::detail::kNpuArch>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask[], uint8_t repeatTime, const BinaryRepeatParams& repeatParams)
{
    (void)mask;
    opgen_twin::detail::CompareRepeat<T, U, Arch>("Compare(dst, src0, src1, cmpMode, mask[], repeatTime, BinaryRepeatParams)", dst,
                                      src0, src1, cmpMode, repeatTime, repeatParams);
}

template <typename T, typename U, bool isSetMask = true, int Arch = opgen_twin::detail::kNpuArch>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode,
                    const uint64_t mask, uint8_t repeatTime, const BinaryRepeatParams& repeatParams)
{
    (void)mask;
    opgen_twin::detail::CompareRepeat<T, U, Arch>("Compare(dst, src0, src1, cmpMode, mask, repeatTime, BinaryRepeatParams)", dst,
                                      src0, src1, cmpMode, repeatTime, repeatParams);
}

// Compares and its older name CompareScalar, level 0: the mask is reserved on Atlas A2/A3 and 310P (Compares.md).
#define OPGEN_TWIN_COMPARES_REPEAT(NAME, MASK_T, MASK_NAME)                                                           \
    template <typename T, typename U, bool isSetMask = true, int Arch = opgen_twin::detail::kNpuArch>                \
    inline void NAME(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const T src1Scalar, CMPMODE cmpMode,      \
                     MASK_T mask, uint8_t repeatTime, const UnaryRepeatParams& repeatParams)                         \
    {                                                                                                                \
        (void)mask;                                                                                                  \
        opgen_twin::detail::ComparesRepeat<T, U, Arch>(#NAME "(dst, src0, scalar, cmpMode, " MASK_NAME                \
                                                       ", repeatTime, UnaryRepeatParams)",                           \
                                                       dst, src0, src1Scalar, cmpMode, repeatTime, repeatParams);    \
    }
OPGEN_TWIN_COMPARES_REPEAT(Compares, const uint64_t*, "mask[]")
OPGEN_TWIN_COMPARES_REPEAT(Compares, const uint64_t, "mask")
OPGEN_TWIN_COMPARES_REPEAT(CompareScalar, const uint64_t*, "mask[]")
OPGEN_TWIN_COMPARES_REPEAT(CompareScalar, const uint64_t, "mask")
#undef OPGEN_TWIN_COMPARES_REPEAT

template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask[],
                    const BinaryRepeatParams& repeatParams)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCmpSelT<T>::value, "Compare (register form)", "half, float");
    const char* api = "Compare(src0, src1, cmpMode, mask[], BinaryRepeatParams)";
    opgen_twin::detail::CompareToRegister(api, src0, src1, cmpMode,
                                          opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, 1), repeatParams);
}

template <typename T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, const uint64_t mask,
                    const BinaryRepeatParams& repeatParams)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsCmpSelT<T>::value, "Compare (register form)", "half, float");
    const char* api = "Compare(src0, src1, cmpMode, mask, BinaryRepeatParams)";
    opgen_twin::detail::CompareToRegister(api, src0, src1, cmpMode,
                                          opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, 1), repeatParams);
}

template <typename T>
inline void GetCmpMask(const LocalTensor<T>& dst)
{
    dst.TwinCheckFits("GetCmpMask", "dst", (16 + sizeof(T) - 1) / sizeof(T));
    std::memcpy(dst.TwinData(), opgen_twin::detail::g_launch.cmpMask, 16);
}

template <typename T>
inline void SetCmpMask(const LocalTensor<T>& src)
{
    src.TwinCheckFits("SetCmpMask", "src", (16 + sizeof(T) - 1) / sizeof(T));
    std::memcpy(opgen_twin::detail::g_launch.cmpMask, src.TwinData(), 16);
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_CMPMASK_H
