// opgen CPU twin: platform_ascendc::PlatformAscendC (same include name as CANN).
#ifndef OPGEN_TWIN_PLATFORM_ASCENDC_H
#define OPGEN_TWIN_PLATFORM_ASCENDC_H

#include <cstdint>

#include "opgen_twin/platform.h"

namespace platform_ascendc {

enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, FB = 7, BT = 8, RESERVED };

enum class SocVersion {
    ASCEND910 = 0,
    ASCEND910B,
    ASCEND310P,
    ASCEND310B,
    ASCEND950,
    ASCEND910_55,
    ASCEND910_93 = 13,
    RESERVED_VERSION = 99999
};

enum class ReservedSize { RESERVED_SIZE_8K, RESERVED_SIZE_16K, RESERVED_SIZE_32K };

class PlatformAscendC {
public:
    PlatformAscendC() = delete;
    ~PlatformAscendC() = default;
    explicit PlatformAscendC(fe::PlatFormInfos* platformInfo) : info_(platformInfo) {}

    // AI Core count (the cube cores on the split 910B architecture).
    uint32_t GetCoreNum(void) const { return Cfg().aicCoreNum; }
    uint32_t GetCoreNumAic(void) const { return Cfg().aicCoreNum; }
    uint32_t GetCoreNumAiv(void) const { return Cfg().aivCoreNum; }
    // Separate "Vector Core" units exist only on Atlas inference (310P); 0 elsewhere.
    uint32_t GetCoreNumVector(void) const { return 0; }
    // The cube/vector groups a mixed kernel starts for sliceNum vector slices, as asc-devkit's
    // impl/utils/tiling/platform/platform_ascendc.cpp computes it: 0 (an error) where one cube
    // core serves two vector cores and the groups outnumber the cube cores. CANN 9.0.0 named it
    // CalcTschNumBlocks and kept CalcTschBlockDim, the same function, logging its deprecation.
    uint32_t CalcTschNumBlocks(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const
    {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) {
            return sliceNum;
        }
        const uint32_t ratio = aivCoreNum / aicCoreNum;
        const uint32_t numBlocks = (sliceNum + ratio - 1) / ratio;
        return ratio == 2 && numBlocks > aicCoreNum ? 0 : numBlocks;
    }
    uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) const
    {
        return CalcTschNumBlocks(sliceNum, aicCoreNum, aivCoreNum);
    }
    uint32_t GetLibApiWorkSpaceSize(void) const { return Cfg().libApiWorkspace; }
    uint32_t GetResCubeGroupWorkSpaceSize(void) const { return 1u << 20; }
    uint32_t GetResGroupBarrierWorkSpaceSize(void) const { return 1u << 20; }
    // Like the real implementation, UB and L1 report 256 bytes less on ascend910b (kept
    // for the framework), and ReserveLocalMemory() is subtracted from UB.
    void GetCoreMemSize(const CoreMemType& memType, uint64_t& size) const
    {
        const opgen_twin::PlatformConfig& c = Cfg();
        switch (memType) {
            case CoreMemType::UB: size = c.ubSize; break;
            case CoreMemType::L1: size = c.l1Size; break;
            case CoreMemType::L0_A: size = c.l0aSize; break;
            case CoreMemType::L0_B: size = c.l0bSize; break;
            case CoreMemType::L0_C: size = c.l0cSize; break;
            case CoreMemType::L2: size = c.l2Size; break;
            case CoreMemType::HBM: size = c.hbmSize; break;
            default: size = 0; break;
        }
        if ((memType == CoreMemType::UB || memType == CoreMemType::L1) && GetSocVersion() == SocVersion::ASCEND910B) {
            size -= 256;
        }
        if (memType == CoreMemType::UB) {
            size -= reserved_;
        }
    }
    void GetCoreMemBw(const CoreMemType&, uint64_t& bwSize) const { bwSize = 0; }
    void ReserveLocalMemory(ReservedSize size)
    {
        reserved_ = size == ReservedSize::RESERVED_SIZE_8K ? 8192u : size == ReservedSize::RESERVED_SIZE_16K ? 16384u : 32768u;
    }
    SocVersion GetSocVersion(void) const
    {
        const std::string& s = Cfg().socVersion;
        if (s == "ascend910b" || s.rfind("Ascend910B", 0) == 0) return SocVersion::ASCEND910B;
        if (s == "ascend910_93") return SocVersion::ASCEND910_93;
        if (s == "ascend910") return SocVersion::ASCEND910;
        if (s == "ascend310p") return SocVersion::ASCEND310P;
        if (s == "ascend310b") return SocVersion::ASCEND310B;
        if (s == "ascend950") return SocVersion::ASCEND950;
        return SocVersion::RESERVED_VERSION;
    }
    uint32_t GetVecRegLen(void) const { return 256; }

private:
    const opgen_twin::PlatformConfig& Cfg() const
    {
        return info_ != nullptr ? info_->TwinConfig() : opgen_twin::DefaultPlatform();
    }
    fe::PlatFormInfos* info_;
    uint32_t reserved_ = 0;
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance()
    {
        static PlatformAscendC inst(nullptr);
        return &inst;
    }
    static PlatformAscendC* GetInstance(const char*) { return GetInstance(); }
};

}  // namespace platform_ascendc

#endif  // OPGEN_TWIN_PLATFORM_ASCENDC_H
