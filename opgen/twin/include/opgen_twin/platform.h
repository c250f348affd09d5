// opgen CPU twin: platform description (fe::PlatFormInfos) and its defaults.
#ifndef OPGEN_TWIN_PLATFORM_H
#define OPGEN_TWIN_PLATFORM_H

#include <cstdint>
#include <cctype>
#include <string>

#include "opgen_twin/detail/launch.h"

namespace opgen_twin {

// What the host side (PlatformAscendC) reports and what the kernel side enforces.
// Defaults: the ascend910b family with the smallest core counts (Ascend910B3/B4:
// 20 AI Cube cores, 40 AI Vector cores), UB 196608 bytes (ub_size of the Ascend910B*
// platform ini), library workspace 16 MiB, tiling buffer 2048 bytes.
struct PlatformConfig {
    std::string socVersion = "ascend910b";  // short SoC name as used in AddConfig()
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

    // Named presets, as npu-smi or msopgen spells them ("Ascend910B1" or "ascend910b1"):
    // "ascend910b" (default above), Ascend910B1/B2 (24/48 cores), Ascend910B3/B4 (20/40
    // cores), Ascend310P* and Ascend310B* (a 256 and a 248 KiB UB, asc-devkit's TOTAL_UB_SIZE).
    // Unknown names keep the defaults but record the name.
    static PlatformConfig Preset(const std::string& name)
    {
        PlatformConfig c;
        std::string lower = name;
        for (char& ch : lower) {
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        }
        if (lower == "ascend910b1" || lower == "ascend910b2") {
            c.aicCoreNum = 24;
            c.aivCoreNum = 48;
        } else if (lower == "ascend910b3" || lower == "ascend910b4") {
            c.aicCoreNum = 20;
            c.aivCoreNum = 40;
        } else if (lower.rfind("ascend310p", 0) == 0) {
            c.socVersion = name;
            c.ubSize = 262144;  // asc-devkit TOTAL_UB_SIZE for __NPU_ARCH__ 2002: 256 KiB
        } else if (lower.rfind("ascend310b", 0) == 0) {
            c.socVersion = name;
            c.ubSize = 253952;  // asc-devkit TOTAL_UB_SIZE for __NPU_ARCH__ 3002: 248 KiB
        } else {
            c.socVersion = name;
        }
        return c;
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
