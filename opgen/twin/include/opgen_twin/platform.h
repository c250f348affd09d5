// opgen CPU twin: platform description (fe::PlatFormInfos) and its defaults.
#ifndef OPGEN_TWIN_PLATFORM_H
#define OPGEN_TWIN_PLATFORM_H

#include <cstdint>
#include <cctype>
#include <string>

#include "opgen_twin/detail/launch.h"

namespace opgen_twin {

// What the host side (PlatformAscendC) reports and what the kernel side enforces.
// Defaults: the first chip of the SoC catalog's SOC_CHIPS (detail/soc_chips.h: Ascend910B3, the
// ascend910b family with the smallest core counts), library workspace 16 MiB, tiling buffer
// 2048 bytes.
struct PlatformConfig {
    std::string socVersion = detail::kSocChips[0].family;  // short SoC name as used in AddConfig()
    uint32_t aivCoreNum = kDefaultAivCoreNum;
    uint32_t aicCoreNum = kDefaultAicCoreNum;
    uint64_t ubSize = kDefaultUbSize;         // physical UB per core, enforced by TPipe
    uint64_t l1Size = 524288;
    uint64_t l0aSize = 65536;
    uint64_t l0bSize = 65536;
    uint64_t l0cSize = 131072;
    uint64_t l2Size = 201326592;
    uint64_t hbmSize = 68719476736ULL;
    uint32_t libApiWorkspace = kDefaultLibApiWorkspace;
    size_t tilingCapacity = kDefaultTilingCapacity;

    // Named presets, as npu-smi or msopgen spells them ("Ascend910B1" or "ascend910b1"): the
    // catalog's SOC_CHIPS (detail/soc_chips.h). A chip reports its family's short name, a run of
    // chips (Ascend310P*) the name as asked; what a chip does not record, and unknown names, keep
    // the defaults (an unknown name is recorded).
    static PlatformConfig Preset(const std::string& name)
    {
        PlatformConfig c;
        c.socVersion = name;
        std::string lower = name;
        for (char& ch : lower) {
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        for (const detail::SocChip& chip : detail::kSocChips) {
            if (chip.prefix ? lower.rfind(chip.name, 0) == 0 : lower == chip.name) {
                c.Apply(chip);
                break;
            }
        }
        return c;
    }

private:
    void Apply(const detail::SocChip& chip)
    {
        if (!chip.prefix) {
            socVersion = chip.family;
        }
        ubSize = chip.ubSize;
        aicCoreNum = chip.aicCoreNum != 0 ? chip.aicCoreNum : aicCoreNum;
        aivCoreNum = chip.aivCoreNum != 0 ? chip.aivCoreNum : aivCoreNum;
    }
};

inline PlatformConfig& DefaultPlatform()
{
    static PlatformConfig cfg;
    return cfg;
}

}  // namespace opgen_twin

namespace fe {
// Opaque on the real host; here it simply carries the twin's platform description.
class PlatFormInfos {
public:
    PlatFormInfos() = default;
    explicit PlatFormInfos(const opgen_twin::PlatformConfig& cfg) : cfg_(cfg) {}
    const opgen_twin::PlatformConfig& TwinConfig() const { return cfg_; }
    opgen_twin::PlatformConfig& TwinConfig() { return cfg_; }
    uint32_t GetCoreNum() const { return cfg_.aicCoreNum; }

private:
    opgen_twin::PlatformConfig cfg_;
};
}  // namespace fe

#endif  // OPGEN_TWIN_PLATFORM_H
