// opgen CPU twin: the vector mask register of the level-0 ("high-dimensional split") instructions and
// its two modes (asc-devkit SetMaskCount.md, SetMaskNorm.md, SetVectorMask.md, ResetMask.md;
// impl/basic_api/kernel_reg.h, kernel_utils_base.h; guide "Vector算子灵活运用Counter模式").
//
// The register is two 64-bit words (maskHigh, maskLow), kept per block in g_launch. A level-0 call
// with isSetMask = true writes its own mask there (continuous mask n: the first n bits; bit mode:
// mask[1], mask[0]), as the NPU's AscendCUtils::SetMask does, and uses it. A call with
// isSetMask = false (mask argument MASK_PLACEHOLDER) uses the register as it stands:
//   Normal mode (SetMaskNorm, the default): bit k of (maskHigh:maskLow) selects element k of every
//   iteration, for repeatTime iterations (32-bit types: the low word only).
//   Counter mode (SetMaskCount): maskLow is the number N of elements of the whole call; the
//   iterations are ceil(N / (256 / sizeof(T))), all full but the last, which takes the remainder;
//   the repeatTime argument is ignored.
// SetVectorMask<T, mode>(len): COUNTER writes (0, len); NORMAL writes the bits of the first len
// elements (len >= the iteration's elements: all). SetVectorMask(maskHigh, maskLow) writes both words
// whatever the mode. ResetMask writes all ones; SetMaskCount/SetMaskNorm change only the mode.
// Checked (HardwareError naming the call): SetVectorMask<T>(len) in Normal mode while Counter mode is on
// (the register would get a bit pattern that Counter mode reads as a huge count; pass MaskMode::COUNTER),
// Normal-mode SetVectorMask with both words 0 or a non-zero maskHigh for a 32-bit type, len <= 0, an
// isSetMask = false call in Counter mode with a count of 2^32 or more (ResetMask's all ones, say).
// Not modelled: the CANN level-2 (count) calls leave Normal mode with all bits set behind them; the
// twin's level-2 calls do not touch the register, and a level-0 call with isSetMask = true while
// Counter mode is on is taken as a Normal-mode call (on the NPU it reads its mask bits as a count).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_MASK_H
#define OPGEN_TWIN_DETAIL_KERNEL_MASK_H

#include <cstdint>

#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/launch.h"

namespace AscendC {

constexpr uint64_t MASK_PLACEHOLDER = 0;
constexpr uint64_t MASK_PLACEHOLDER_LIST[2] = {0, 0};

enum class MaskMode : uint8_t {
    NORMAL = 0,
    COUNTER
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// The elements of one iteration the mask selects.
struct RepeatMask {
    uint64_t bits[2] = {0, 0};
    bool Has(uint32_t k) const { return (bits[k / 64] >> (k % 64)) & 1; }
    bool Empty() const { return bits[0] == 0 && bits[1] == 0; }
};

inline RepeatMask FirstN(uint64_t n)
{
    RepeatMask m;
    for (uint64_t k = 0; k < n && k < 128; ++k) m.bits[k / 64] |= uint64_t(1) << (k % 64);
    return m;
}

template <class T>
inline RepeatMask ContinuousMask(const char* api, uint64_t mask)
{
    constexpr uint64_t perRepeat = 256 / sizeof(T);
    if (mask >= (uint64_t(1) << 63)) {
        ThrowHardware(Format("%s: mask %lld is negative (undefined behaviour on the NPU; continuous mode takes 0..%llu)",
                             api, static_cast<long long>(mask), static_cast<unsigned long long>(perRepeat)));
    }
    return FirstN(mask > perRepeat ? perRepeat : mask);  // documented: a larger value counts as the maximum
}

template <class T>
inline RepeatMask BitMask(const char* api, const uint64_t mask[])
{
    RepeatMask m;
    m.bits[0] = mask[0];
    if constexpr (sizeof(T) == 2) {
        m.bits[1] = mask[1];
    } else if (OPGEN_SOC_NEEDS_B32_MASK_HIGH_ZERO(kNpuArch)) {
        // CANN's CPU debug asserts maskHigh == 0 for b32/b64 there (kernel_utils_base.h)
        if (mask[1] != 0) {
            ThrowHardware(Format("%s: bit-mode mask[1] = 0x%llx for a %zu-byte type; an iteration has %zu elements, "
                                 "mask[1] must be 0 (asc-devkit 掩码.md)",
                                 api, static_cast<unsigned long long>(mask[1]), sizeof(T), 256 / sizeof(T)));
        }
    }
    // Elsewhere a 32/64-bit iteration reads the register's low word only: the array's effective
    // length is 1 (掩码.md), and kernels pass the address of one uint64_t. mask[1] is not read.
    return m;
}

// For the level-0 forms that take only their own mask (no isSetMask = false emulation yet).
template <bool isSetMask>
struct RequireSetMask {
    static_assert(isSetMask,
                  "opgen twin: this level-0 API with isSetMask = false (the mask set by SetVectorMask) is not "
                  "emulated; pass the mask to the call (isSetMask = true, the default)");
};

// The iterations of one level-0 call and the elements each selects.
template <class T>
struct RepeatPlan {
    static constexpr uint32_t kPerRepeat = 256 / sizeof(T);
    RepeatMask mask;      // Normal mode: every iteration's
    uint64_t repeats = 0;
    bool counter = false;
    uint64_t count = 0;   // Counter mode: the elements of the whole call
    RepeatMask Iter(uint64_t r) const
    {
        if (!counter) return mask;
        const uint64_t left = count - r * kPerRepeat;
        return FirstN(left < kPerRepeat ? left : kPerRepeat);
    }
    bool None() const { return repeats == 0 || (!counter && mask.Empty()); }
};

template <class T>
inline RepeatPlan<T> NormalPlan(const RepeatMask& m, uint64_t repeats)
{
    RepeatPlan<T> p;
    p.mask = m;
    p.repeats = repeats;
    return p;
}

// The plan of an isSetMask = false call: the register and mode as SetMaskCount/SetVectorMask left them.
template <class T>
inline RepeatPlan<T> PlanFromRegister(const char* api, uint64_t repeatTime)
{
    RepeatPlan<T> p;
    if (g_launch.maskCounter) {
        p.counter = true;
        p.count = g_launch.maskLow;
        if (p.count >= (uint64_t(1) << 32)) {  // e.g. ResetMask's all ones: no UB holds that many elements
            ThrowHardware(Format("%s: Counter mode with a count of %llu elements (maskLow 0x%llx); set the count "
                                 "with SetVectorMask<T>(0, count) or SetVectorMask<T, MaskMode::COUNTER>(count) after "
                                 "SetMaskCount",
                                 api, static_cast<unsigned long long>(p.count), static_cast<unsigned long long>(p.count)));
        }
        p.repeats = (p.count + RepeatPlan<T>::kPerRepeat - 1) / RepeatPlan<T>::kPerRepeat;
        return p;
    }
    p.mask.bits[0] = g_launch.maskLow;
    p.mask.bits[1] = sizeof(T) == 2 ? g_launch.maskHigh : 0;
    p.repeats = repeatTime;
    return p;
}

// isSetMask = true: the call's mask goes into the register (as AscendCUtils::SetMask) and is used.
template <class T, bool isSetMask>
inline RepeatPlan<T> PlanContinuous(const char* api, uint64_t mask, uint64_t repeatTime)
{
    if constexpr (!isSetMask) {
        (void)mask;
        return PlanFromRegister<T>(api, repeatTime);
    } else {
        const RepeatMask m = ContinuousMask<T>(api, mask);
        g_launch.maskLow = m.bits[0];
        g_launch.maskHigh = m.bits[1];
        return NormalPlan<T>(m, repeatTime);
    }
}

template <class T, bool isSetMask>
inline RepeatPlan<T> PlanBits(const char* api, const uint64_t mask[], uint64_t repeatTime)
{
    if constexpr (!isSetMask) {
        (void)mask;
        return PlanFromRegister<T>(api, repeatTime);
    } else {
        const RepeatMask m = BitMask<T>(api, mask);
        g_launch.maskLow = m.bits[0];
        g_launch.maskHigh = m.bits[1];
        return NormalPlan<T>(m, repeatTime);
    }
}

// Element offset (in T) of iteration element k of repeat r, with the operand's strides in blocks.
template <class T>
inline uint64_t RepeatElem(uint64_t r, uint32_t k, uint32_t blkStride, uint32_t repStride)
{
    constexpr uint32_t perBlock = 32 / sizeof(T);
    return (static_cast<uint64_t>(repStride) * r + static_cast<uint64_t>(blkStride) * (k / perBlock)) * perBlock +
           k % perBlock;
}

// Checks that every selected element of every iteration lies inside the tensor (offsets grow with r,
// so the first, the last full and the last iteration bound them).
template <class T, class U>
inline void CheckPlanFits(const char* api, const char* role, const AscendC::LocalTensor<U>& t, const RepeatPlan<T>& p,
                          uint32_t blkStride, uint32_t repStride)
{
    t.TwinCheckLive(api, role);
    if (t.TwinUbBegin() % 32 != 0) {
        ThrowHardware(Format("%s: the %s tensor starts at UB byte %llu, which is not 32-byte aligned (UB operand "
                             "addresses must be 32-byte aligned)",
                             api, role, static_cast<unsigned long long>(t.TwinUbBegin())));
    }
    if (p.None()) return;
    uint64_t maxElem = 0;
    bool any = false;
    const uint64_t rs[3] = {0, p.repeats >= 2 ? p.repeats - 2 : 0, p.repeats - 1};
    for (uint64_t r : rs) {
        const RepeatMask m = p.Iter(r);
        for (uint32_t k = 0; k < RepeatPlan<T>::kPerRepeat; ++k) {
            if (!m.Has(k)) continue;
            const uint64_t e = RepeatElem<T>(r, k, blkStride, repStride);
            if (!any || e > maxElem) maxElem = e;
            any = true;
        }
    }
    const uint64_t capacity = uint64_t{t.GetSize()} * sizeof(U) / sizeof(T);
    if (any && maxElem >= capacity) {
        ThrowHardware(Format("%s: %s reaches element %llu (%s %llu, blkStride %u, repStride %u) beyond the "
                             "tensor's %llu %s elements (UB buffer overrun)",
                             api, role, static_cast<unsigned long long>(maxElem),
                             p.counter ? "Counter-mode count" : "repeatTime",
                             static_cast<unsigned long long>(p.counter ? p.count : p.repeats), blkStride, repStride,
                             static_cast<unsigned long long>(capacity), TypeName<T>()));
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

inline void SetMaskCount() { opgen_twin::detail::g_launch.maskCounter = true; }
inline void SetMaskNorm() { opgen_twin::detail::g_launch.maskCounter = false; }
inline void ResetMask()
{
    opgen_twin::detail::g_launch.maskHigh = ~uint64_t(0);
    opgen_twin::detail::g_launch.maskLow = ~uint64_t(0);
}

template <typename T, MaskMode mode = MaskMode::NORMAL>
static inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow)
{
    using namespace opgen_twin::detail;
    if (!g_launch.maskCounter && mode == MaskMode::NORMAL) {
        if (maskHigh == 0 && maskLow == 0) {
            ThrowHardware("SetVectorMask(maskHigh, maskLow): both words 0 in Normal mode select no element "
                          "(SetVectorMask.md: not both 0)");
        }
        if (sizeof(T) >= 4 && maskHigh != 0) {
            ThrowHardware(Format("SetVectorMask(maskHigh, maskLow): maskHigh = 0x%llx for the %zu-byte %s; an "
                                 "iteration has %zu elements, maskHigh must be 0 (SetVectorMask.md)",
                                 static_cast<unsigned long long>(maskHigh), sizeof(T), TypeName<T>(), 256 / sizeof(T)));
        }
    }
    g_launch.maskHigh = maskHigh;
    g_launch.maskLow = maskLow;
}

template <typename T, MaskMode mode = MaskMode::NORMAL>
static inline void SetVectorMask(int32_t len)
{
    using namespace opgen_twin::detail;
    if (len <= 0) {
        ThrowHardware(Format("SetVectorMask(len): len %d; it takes at least one element", len));
    }
    if constexpr (mode == MaskMode::COUNTER) {
        g_launch.maskHigh = 0;
        g_launch.maskLow = static_cast<uint64_t>(len);
    } else {
        if (g_launch.maskCounter) {
            ThrowHardware(Format("SetVectorMask<%s>(len = %d) with MaskMode::NORMAL while Counter mode is on "
                                 "(SetMaskCount): it writes the bit pattern of the first %d elements, which Counter "
                                 "mode reads as an element count; use SetVectorMask<T, MaskMode::COUNTER>(len) or "
                                 "SetVectorMask<T>(0, len)",
                                 TypeName<T>(), len, len));
        }
        const RepeatMask m = FirstN(static_cast<uint64_t>(len) > 256 / sizeof(T) ? 256 / sizeof(T) : len);
        g_launch.maskHigh = m.bits[1];
        g_launch.maskLow = m.bits[0];
    }
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_MASK_H
