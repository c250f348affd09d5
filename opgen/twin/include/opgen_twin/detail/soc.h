// opgen CPU twin: the SoC a kernel build emulates, from its __NPU_ARCH__ (the real compiler
// defines it per SoC; opgen's generated setup.py passes the project's first SoC). Without it the
// twin emulates ascend910b (2201). What each SoC can run is opgen's SoC catalog, in
// opgen_twin/detail/soc_table.h (the projects' op_kernel/opgen_soc.h).
#ifndef OPGEN_TWIN_DETAIL_SOC_H
#define OPGEN_TWIN_DETAIL_SOC_H

#include "opgen_twin/detail/soc_table.h"
#include "opgen_twin/errors.h"

namespace opgen_twin {
namespace detail {

#if defined(__NPU_ARCH__)
constexpr int kNpuArch = __NPU_ARCH__;
#else
constexpr int kNpuArch = 2201;
#endif

// The msopgen short name of the SoC family with `arch`, as opgen's catalog names it.
constexpr const char* SocName(int arch)
{
    return OPGEN_SOC_NAME(arch);
}

// DataCopyPad (OPGEN_SOC_HAS_DATACOPYPAD) does not compile on ascend910 (only an overload without
// DataCopyPadExtParams exists in its implementation) and on ascend310p it is deprecated with an
// empty body: it copies nothing.
// The API templates pass Arch as a template argument defaulted to kNpuArch where they are called:
// their instantiations then differ per SoC, and one program may hold kernels built for several
// (an inline function reading kNpuArch would break the one-definition rule).
template <int Arch>
inline void CheckDataCopyPadExists(const char* api)
{
    if (OPGEN_SOC_HAS_DATACOPYPAD(Arch)) {
        return;
    }
    if (Arch == 2002) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) has no working DataCopyPad: it is deprecated there and "
                             "copies nothing, so tails would be silently wrong. Copy tails in whole 32-byte "
                             "blocks with DataCopy instead",
                             api, SocName(Arch), Arch));
    }
    ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) has no DataCopyPad: the kernel does not compile there. "
                         "Copy tails in whole 32-byte blocks with DataCopy instead",
                         api, SocName(Arch), Arch));
}

// Cast on ascend910 and ascend310p (asc-devkit's Cast table and their Cast implementations): no
// float <-> bfloat16_t Cast at all (OPGEN_SOC_HAS_BF16_CAST), and float -> half only with
// CAST_NONE or CAST_ODD (OPGEN_SOC_HAS_HALF_CAST_MODES: CAST_RINT and the directed modes assert
// there and convert nothing). Arch as for DataCopyPad.
template <int Arch>
inline void CheckCastExists(const char* from, const char* to, bool bf16, bool floatToHalf,
                            bool modeNoneOrOdd, const char* mode)
{
    if (bf16 && !OPGEN_SOC_HAS_BF16_CAST(Arch)) {
        ThrowHardware(Format("Cast(%s->%s): %s (__NPU_ARCH__ %d) has no bfloat16_t Cast; opgen registers no "
                             "bfloat16 dtype combination for it",
                             from, to, SocName(Arch), Arch));
    }
    if (floatToHalf && !modeNoneOrOdd && !OPGEN_SOC_HAS_HALF_CAST_MODES(Arch)) {
        ThrowHardware(Format("Cast(%s->%s): RoundMode::%s does not exist for this conversion on %s (__NPU_ARCH__ "
                             "%d): only CAST_NONE (round to nearest even where inexact) and CAST_ODD",
                             from, to, mode, SocName(Arch), Arch));
    }
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_SOC_H
