// opgen CPU twin: Compare's register form and the CmpMask register (asc-devkit
// Compare（结果存入寄存器）.md, GetCmpMask(ISASI).md, SetCmpMask(ISASI).md).
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

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

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
