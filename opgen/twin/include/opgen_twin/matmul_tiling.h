// opgen CPU twin: the host-side Matmul tiling API (namespace matmul_tiling), included by
// tiling/tiling_api.h. Names, enums and signatures as asc-devkit include/adv_api/matmul/
// {matmul_tiling_base.h, matmul_tiling.h, bmm_tiling.h}. The multi-core split is CANN's, the
// rest the twin's own:
//
// - cores (SplitCores, a reimplementation of asc-devkit impl/adv_api/tiling/matmul/
//   matmul_tiling_algorithm.cpp MatmulTilingAlgorithm::GetDims and what it calls): in blocks of 16
//   rows/columns and 32 bytes of K, PreProcessMiniShape's shapes that fit L0 go to few cores; else
//   every (nDim, mDim) with nDim * mDim <= SetDim's dim from the divisors of M, N, the mapped
//   (power-of-two) sizes and dim, plus AddOptimalFactors' sqrt(M / N * dim) pair, is tried N-major
//   in ascending order; a candidate replaces the kept one by GetBigPackageCondition (while no kept
//   split has an N block of 16 or more columns, the later one wins: N under 256 columns ends up
//   split as far as dim allows), else by fewer L0 loops or more cores, else by less A+B traffic
//   (CalcLoadSize); FindBestSingleCore then rounds the blocks to sizes with enough divisors.
//   singleCoreM/N = ceil(16 * ceil(M / 16) / mDim) and likewise N when dim > 1 (GetSingleShape:
//   they can exceed M/N), M/N when dim is 1; singleCoreK = K;
//   usedCoreNum = mDim * nDim. On 910B when SetShape never set the single shape (-1), CANN's
//   DoMultiCoreSplitMNTiling scenarios instead (ScenarioDims; GetMultiCoreScenario,
//   CalcMultiCoreDims, CalcComputeIntensity, CalcMultiCoreDimsSmallShape, UpdateBaseBlock):
//   SPLIT_MN (M >= 128, M x N over 26214 per core) takes the mDim x nDim = dim with the best
//   compute intensity for GetMultiCoreBasicBlock's 128 x 256 x 128-byte block (or SetFixSplit's
//   baseM/baseN), SPLIT_SMALL_MN (under 26214 per core) the one with the least memory traffic over
//   up to dim cores, with UpdateBaseBlock's blocks (SetFixSplit's overridden); the blocks are
//   rounded up to 256 bytes where every core still gets some; the base block is the tiling's, even
//   larger than the single-core block. Checked against asc-devkit's code compiled on the host over
//   4000 random shapes/dims/dtypes/transposes/fixed bases, with and without SetShape:
//   singleCoreM/N/K, usedCoreNum, the scenarios' base blocks and the -1 cases agree, except where
//   CANN's tiling overflows L0C (the twin returns -1) or its std::sort of candidates runs off the
//   vector (crashes; CannSort stops at the ends). K is never split (EnableMultiCoreSplitK ignored);
// - base blocks (outside the scenarios): SetFixSplit's (-1, as CANN's GetL0FactorsCand finds none,
//   when one is larger than the split's single-core block in 16s), else baseM <= 128,
//   baseN <= 256 (multiples of 16, no larger than the single block rounded up to 16), baseK a
//   multiple of 32 bytes of A; always baseM * baseN * 4 <= L0C, 2 * baseM * baseK and
//   2 * baseK * baseN elements within L0A/L0B, and, when C is in UB, baseM * baseN * sizeof(C)
//   within SetBufferSpace's UB;
// - stepM = stepN = 1, stepKa = stepKb up to 4 within L1, depthA1/depthB1 = 2 * step, iterateOrder 0
//   (1 after SetTraverse(FIRSTN)).
// GetTiling returns -1 where the inputs cannot give a tiling (see Check()).
// GetTiling also fills the macro-style optiling::TCubeTiling (register/tilingdata_base.h).
#ifndef OPGEN_TWIN_MATMUL_TILING_H
#define OPGEN_TWIN_MATMUL_TILING_H

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "kernel_tiling/kernel_tiling.h"
#include "opgen_twin/errors.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

// The macro-style host TCubeTiling (CANN's optiling::TCubeTiling, from the same
// matmul_tilingdata.h field list as AscendC::tiling::TCubeTiling): msopgen matmul projects embed it
// with TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData) and fill it with
// GetTiling(tiling.cubeTilingData). 50 int32_t fields, 200 bytes: the kernel struct's layout.
#define OPGEN_TWIN_TCUBE_FIELDS(X) \
    X(usedCoreNum) \
    X(M) \
    X(N) \
    X(Ka) \
    X(Kb) \
    X(singleCoreM) \
    X(singleCoreN) \
    X(singleCoreK) \
    X(baseM) \
    X(baseN) \
    X(baseK) \
    X(depthA1) \
    X(depthB1) \
    X(stepM) \
    X(stepN) \
    X(isBias) \
    X(transLength) \
    X(iterateOrder) \
    X(shareMode) \
    X(shareL1Size) \
    X(shareL0CSize) \
    X(shareUbSize) \
    X(batchM) \
    X(batchN) \
    X(singleBatchM) \
    X(singleBatchN) \
    X(stepKa) \
    X(stepKb) \
    X(depthAL1CacheUB) \
    X(depthBL1CacheUB) \
    X(dbL0A) \
    X(dbL0B) \
    X(dbL0C) \
    X(ALayoutInfoB) \
    X(ALayoutInfoS) \
    X(ALayoutInfoN) \
    X(ALayoutInfoG) \
    X(ALayoutInfoD) \
    X(BLayoutInfoB) \
    X(BLayoutInfoS) \
    X(BLayoutInfoN) \
    X(BLayoutInfoG) \
    X(BLayoutInfoD) \
    X(CLayoutInfoB) \
    X(CLayoutInfoS1) \
    X(CLayoutInfoN) \
    X(CLayoutInfoG) \
    X(CLayoutInfoS2) \
    X(BatchNum) \
    X(mxTypePara)

namespace optiling {
BEGIN_TILING_DATA_DEF(TCubeTiling)
TILING_DATA_FIELD_DEF(int32_t, usedCoreNum);
TILING_DATA_FIELD_DEF(int32_t, M);
TILING_DATA_FIELD_DEF(int32_t, N);
TILING_DATA_FIELD_DEF(int32_t, Ka);
TILING_DATA_FIELD_DEF(int32_t, Kb);
TILING_DATA_FIELD_DEF(int32_t, singleCoreM);
TILING_DATA_FIELD_DEF(int32_t, singleCoreN);
TILING_DATA_FIELD_DEF(int32_t, singleCoreK);
TILING_DATA_FIELD_DEF(int32_t, baseM);
TILING_DATA_FIELD_DEF(int32_t, baseN);
TILING_DATA_FIELD_DEF(int32_t, baseK);
TILING_DATA_FIELD_DEF(int32_t, depthA1);
TILING_DATA_FIELD_DEF(int32_t, depthB1);
TILING_DATA_FIELD_DEF(int32_t, stepM);
TILING_DATA_FIELD_DEF(int32_t, stepN);
TILING_DATA_FIELD_DEF(int32_t, isBias);
TILING_DATA_FIELD_DEF(int32_t, transLength);
TILING_DATA_FIELD_DEF(int32_t, iterateOrder);
TILING_DATA_FIELD_DEF(int32_t, shareMode);
TILING_DATA_FIELD_DEF(int32_t, shareL1Size);
TILING_DATA_FIELD_DEF(int32_t, shareL0CSize);
TILING_DATA_FIELD_DEF(int32_t, shareUbSize);
TILING_DATA_FIELD_DEF(int32_t, batchM);
TILING_DATA_FIELD_DEF(int32_t, batchN);
TILING_DATA_FIELD_DEF(int32_t, singleBatchM);
TILING_DATA_FIELD_DEF(int32_t, singleBatchN);
TILING_DATA_FIELD_DEF(int32_t, stepKa);
TILING_DATA_FIELD_DEF(int32_t, stepKb);
TILING_DATA_FIELD_DEF(int32_t, depthAL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, depthBL1CacheUB);
TILING_DATA_FIELD_DEF(int32_t, dbL0A);
TILING_DATA_FIELD_DEF(int32_t, dbL0B);
TILING_DATA_FIELD_DEF(int32_t, dbL0C);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, ALayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoS);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, BLayoutInfoD);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoB);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS1);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoN);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoG);
TILING_DATA_FIELD_DEF(int32_t, CLayoutInfoS2);
TILING_DATA_FIELD_DEF(int32_t, BatchNum);
TILING_DATA_FIELD_DEF(int32_t, mxTypePara);
END_TILING_DATA_DEF;
}  // namespace optiling

namespace matmul_tiling {

constexpr int32_t UINT8_BYTES = 1;
constexpr int32_t INT8_BYTES = 1;
constexpr int32_t FP32_BYTES = 4;
constexpr int32_t FP16_BYTES = 2;
constexpr int32_t C0_SIZE = 16;
constexpr int32_t C0_BYTE_SIZE = 32;
constexpr int32_t BITS_PER_BYTE = 8;

enum class DataType : int32_t {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT8 = 4,
    DT_INT32 = 3,
    DT_INT64 = 9,
    DT_UINT32 = 8,
    DT_UINT64 = 10,
    DT_BOOL = 12,
    DT_DOUBLE = 11,
    DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_QINT8 = 18,
    DT_QINT16 = 19,
    DT_QINT32 = 20,
    DT_QUINT8 = 21,
    DT_QUINT16 = 22,
    DT_RESOURCE = 23,
    DT_STRING_REF = 24,
    DT_DUAL = 25,
    DT_VARIANT = 26,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_UINT1 = 30,
    DT_INT2 = 31,
    DT_UINT2 = 32,
    DT_BFLOAT16 = 33,
    DT_HIFLOAT8 = 34,
    DT_FLOAT8_E4M3FN = 35,
    DT_FLOAT8_E5M2 = 36,
    DT_FLOAT4_E2M1 = 37,
    DT_FLOAT8_E8M0 = 38,
    DT_FLOAT4_E1M2 = 39,
    DT_MAX = 40,
};

enum class TPosition : int32_t {
    GM,
    A1,
    A2,
    B1,
    B2,
    C1,
    C2,
    CO1,
    CO2,
    VECIN,
    VECOUT,
    VECCALC,
    LCM = VECCALC,
    SPM,
    SHM = SPM,
    TSCM,
    MAX,
};
enum class TilingPolicy : int32_t { FIXED_A_TSCM, FIXED_B_TSCM, FIXED_A_B_TSCM, NO_POLICY };
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class MatrixTraverse : int32_t { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
enum class MatrixMadType : int32_t { NORMAL = 0, HF32 = 1, MXMODE = 2 };
enum class DequantType : int32_t { SCALAR = 0, TENSOR = 1 };
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT = 1, N_BUFFER_33 = 2 };

struct SysTilingTempBufSize {
    int32_t ubSize = 0;
    int32_t l1Size = 0;
    int32_t l0cSize = 0;
};
struct MatTilingType {
    TPosition pos = TPosition::GM;
    CubeFormat type = CubeFormat::ND;
    DataType dataType = DataType::DT_FLOAT;
    bool isTrans = false;
    bool isDB = false;
    bool hasSetScaleType = false;
    TPosition scalePos = TPosition::GM;
    CubeFormat scaleType = CubeFormat::ND;
    bool isScaleTrans = false;
};
struct PlatformInfo {
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    uint64_t l1Size = 0;
    uint64_t l0CSize = 0;
    uint64_t ubSize = 0;
    uint64_t l0ASize = 0;
    uint64_t l0BSize = 0;
};
struct MatmulConfigParams {
    int32_t mmConfigType;
    bool enableL1CacheUB;
    ScheduleType scheduleType;
    MatrixTraverse traverse;
    bool enVecND2NZ;
    MatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                       ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                       MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
        : mmConfigType(mmConfigTypeIn),
          enableL1CacheUB(enableL1CacheUBIn),
          scheduleType(scheduleTypeIn),
          traverse(traverseIn),
          enVecND2NZ(enVecND2NZIn)
    {}
};

class MatmulApiTilingBase {
public:
    MatmulApiTilingBase() { FromPlatform(*platform_ascendc::PlatformAscendCManager::GetInstance()); }
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC& ascendcPlatform) { FromPlatform(ascendcPlatform); }
    explicit MatmulApiTilingBase(const PlatformInfo& platform)
    {
        socVersion = platform.socVersion;
        l1Size_ = static_cast<int64_t>(platform.l1Size);
        l0cSize_ = static_cast<int64_t>(platform.l0CSize);
        ubSize_ = static_cast<int64_t>(platform.ubSize);
        l0aSize_ = static_cast<int64_t>(platform.l0ASize);
        l0bSize_ = static_cast<int64_t>(platform.l0BSize);
    }
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false)
    {
        aType_ = {pos, type, dataType, isTrans};
        aSet_ = true;
        return 0;
    }
    int32_t SetBType(TPosition pos, CubeFormat type, DataType dataType, bool isTrans = false)
    {
        bType_ = {pos, type, dataType, isTrans};
        bSet_ = true;
        return 0;
    }
    int32_t SetCType(TPosition pos, CubeFormat type, DataType dataType)
    {
        cType_ = {pos, type, dataType, false};
        cSet_ = true;
        return 0;
    }
    int32_t SetBiasType(TPosition pos, CubeFormat type, DataType dataType)
    {
        biasType_ = {pos, type, dataType, false};
        biasSet_ = true;
        return 0;
    }
    int32_t SetDequantType(DequantType dequantType)
    {
        deqType = dequantType;
        return 0;
    }
    virtual int32_t SetShape(int32_t m, int32_t n, int32_t k)
    {
        if (m == 0 || n == 0 || k == 0 || m < -1 || n < -1 || k < -1) return -1;
        singleM = m;
        singleN = n;
        singleK = k;
        return 0;
    }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKIn) { return SetOrgShape(orgMIn, orgNIn, orgKIn, orgKIn); }
    int32_t SetOrgShape(int32_t orgMIn, int32_t orgNIn, int32_t orgKaIn, int32_t orgKbIn)
    {
        if (orgMIn <= 0 || orgNIn <= 0 || orgKaIn <= 0 || orgKbIn <= 0) return -1;
        orgM = orgMIn;
        orgN = orgNIn;
        orgKa = orgKaIn;
        orgKb = orgKbIn;
        return 0;
    }
    int32_t EnableBias(bool isBiasIn = false)
    {
        isBias = isBiasIn;
        return 0;
    }
    int32_t SetBias(bool isBiasIn = false) { return EnableBias(isBiasIn); }
    int32_t SetFixSplit(int32_t baseMIn = -1, int32_t baseNIn = -1, int32_t baseKIn = -1)
    {
        fixBaseM_ = baseMIn;
        fixBaseN_ = baseNIn;
        fixBaseK_ = baseKIn;
        return 0;
    }
    int32_t SetBufferSpace(int32_t l1Size = -1, int32_t l0CSize = -1, int32_t ubSize = -1, int32_t btSize = -1)
    {
        (void)btSize;
        if (l1Size == 0 || l0CSize == 0 || l1Size < -1 || l0CSize < -1 || ubSize < -1) return -1;
        userL1_ = l1Size;
        userL0c_ = l0CSize;
        userUb_ = ubSize;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse traverse)
    {
        traverse_ = traverse;
        return 0;
    }
    int32_t SetMadType(MatrixMadType madType)
    {
        madType_ = madType;
        return madType == MatrixMadType::NORMAL ? 0 : -1;
    }
    int32_t SetSplitRange(int32_t maxBaseM = -1, int32_t maxBaseN = -1, int32_t maxBaseK = -1, int32_t minBaseM = -1,
                          int32_t minBaseN = -1, int32_t minBaseK = -1)
    {
        (void)minBaseM, (void)minBaseN, (void)minBaseK;
        maxBaseM_ = maxBaseM;
        maxBaseN_ = maxBaseN;
        maxBaseK_ = maxBaseK;
        return 0;
    }
    int32_t SetDoubleBuffer(bool, bool, bool, bool, bool = true, bool = true) { return 0; }
    void SetMatmulConfigParams(int32_t mmConfigTypeIn = 1, bool enableL1CacheUBIn = false,
                               ScheduleType scheduleTypeIn = ScheduleType::INNER_PRODUCT,
                               MatrixTraverse traverseIn = MatrixTraverse::NOSET, bool enVecND2NZIn = false)
    {
        mmConfigType = mmConfigTypeIn;
        enableL1CacheUB = enableL1CacheUBIn;
        scheduleType = scheduleTypeIn;
        if (traverseIn != MatrixTraverse::NOSET) traverse_ = traverseIn;
        enVecND2NZ = enVecND2NZIn;
    }
    void SetMatmulConfigParams(const MatmulConfigParams& p)
    {
        SetMatmulConfigParams(p.mmConfigType, p.enableL1CacheUB, p.scheduleType, p.traverse, p.enVecND2NZ);
    }
    int32_t GetBaseM() const { return baseM; }
    int32_t GetBaseN() const { return baseN; }
    int32_t GetBaseK() const { return baseK; }

    virtual int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) = 0;
    // The macro-style class: the same tiling, field by field.
    int64_t GetTiling(optiling::TCubeTiling& tiling)
    {
        AscendC::tiling::TCubeTiling t;
        const int64_t ret = GetTiling(t);
        if (ret == 0) {
#define OPGEN_TWIN_TCUBE_SET(f) tiling.set_##f(t.f);
            OPGEN_TWIN_TCUBE_FIELDS(OPGEN_TWIN_TCUBE_SET)
#undef OPGEN_TWIN_TCUBE_SET
        }
        return ret;
    }

    // Why the last GetTiling returned -1 (twin only; the real API logs it under "MatmulApi Tiling").
    const std::string& TwinError() const { return error_; }

public:
    MatTilingType aType_;
    MatTilingType bType_;
    MatTilingType cType_;
    MatTilingType biasType_;
    bool isBias = false;
    int32_t blockDim = 0;
    int32_t orgM = 0;
    int32_t orgN = 0;
    int32_t orgKa = 0;
    int32_t orgKb = 0;
    int32_t singleM = -1;
    int32_t singleN = -1;
    int32_t singleK = -1;
    int32_t singleCoreM = 0;
    int32_t singleCoreN = 0;
    int32_t singleCoreK = 0;
    int32_t baseM = 0;
    int32_t baseN = 0;
    int32_t baseK = 0;
    DequantType deqType = DequantType::SCALAR;
    platform_ascendc::SocVersion socVersion = platform_ascendc::SocVersion::ASCEND910B;
    int32_t mmConfigType = 1;
    bool enableL1CacheUB = false;
    bool enVecND2NZ = false;
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;

protected:
    void FromPlatform(const platform_ascendc::PlatformAscendC& p)
    {
        uint64_t v = 0;
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L1, v);
        l1Size_ = static_cast<int64_t>(v);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, v);
        l0cSize_ = static_cast<int64_t>(v);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, v);
        ubSize_ = static_cast<int64_t>(v);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, v);
        l0aSize_ = static_cast<int64_t>(v);
        p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, v);
        l0bSize_ = static_cast<int64_t>(v);
        socVersion = p.GetSocVersion();
    }
    static int32_t Bytes(DataType t)
    {
        switch (t) {
            case DataType::DT_FLOAT: return 4;
            case DataType::DT_FLOAT16:
            case DataType::DT_BF16:
            case DataType::DT_BFLOAT16: return 2;
            default: return 0;
        }
    }
    static bool IsBf16(DataType t) { return t == DataType::DT_BF16 || t == DataType::DT_BFLOAT16; }
    static int32_t Ceil(int64_t a, int64_t b) { return static_cast<int32_t>((a + b - 1) / b); }
    static int32_t Align(int64_t a, int64_t b) { return static_cast<int32_t>((a + b - 1) / b * b); }
    int64_t Fail(const std::string& why)
    {
        error_ = "MatmulApi Tiling: " + why;
        opgen_twin::detail::HostTilingNote() = "GetTiling returned -1: " + error_;
        return -1;
    }
    static bool IsFloat(DataType t) { return t == DataType::DT_FLOAT || t == DataType::DT_FLOAT16 || IsBf16(t); }
    // The element types of asc-devkit's Matmul table (floating-point rows) for the platform's SoC.
    bool TypesOk() const
    {
        const DataType a = aType_.dataType, b = bType_.dataType, c = cType_.dataType;
        const DataType bias = isBias ? biasType_.dataType : DataType::DT_FLOAT;
        const bool fb = bias == DataType::DT_FLOAT || bias == DataType::DT_FLOAT16;
        if (!IsFloat(a) || !IsFloat(c) || !fb || !(a == b || (IsBf16(a) && IsBf16(b)))) return false;
        return SocTypesOk(a, c, bias);
    }
    // TypesOk's rows for the platform's SoC, of types the table has.
    bool SocTypesOk(DataType a, DataType c, DataType bias) const
    {
        if (socVersion == platform_ascendc::SocVersion::ASCEND310P) {
            return a == DataType::DT_FLOAT16 && bias == DataType::DT_FLOAT &&
                   (c == DataType::DT_FLOAT || c == DataType::DT_FLOAT16);
        }
        if (socVersion == platform_ascendc::SocVersion::ASCEND910) return false;
        return !(IsBf16(a) && bias == DataType::DT_FLOAT16 && IsBf16(c));
    }
    static bool InUb(TPosition p) { return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC; }

    // The multi-core split: CANN's MatmulTilingAlgorithm::GetDims path, reimplemented (asc-devkit
    // impl/adv_api/tiling/matmul/matmul_tiling_algorithm.cpp: Process, FillParam, NonFactorMap,
    // PreProcessMiniShape, GenDimsMapFactors, AddOptimalFactors, GetDims, GetDimsHelper,
    // CalcLoadSize, GetBigPackageCondition, LoopNumFromSingleCoreToL0, UpdateMultiCore,
    // GetSingleShape; math_util.cpp: MapShape, GetBlockFactors, FindBestSingleCore,
    // CheckFactorNumSatisfy, GetFactorLayerCnt). Sizes in the algorithm's units: M and N in rows or
    // columns of 16, K in 32-byte blocks of A. K is never split (EnableMultiCoreSplitK ignored).
    struct CoreSplit {
        int32_t mDim = 1, nDim = 1;  // cores along M and N
        int32_t m16 = 1, n16 = 1;    // the single-core block in units of 16 (caps the base blocks)
    };
    static int32_t CDiv(int64_t a, int64_t b) { return b == 0 ? 0 : static_cast<int32_t>((a + b - 1) / b); }
    // math_util.cpp MapShape: 16..1024 to the next power of two (doubled when roundUp), above to
    // 2048 (roundUp); below 16 unchanged.
    static int32_t MapShape(int32_t shape, bool roundUp = true)
    {
        int32_t seed = 16;
        if (shape < seed) return shape;
        while (seed < 1024) {
            if (seed < shape && seed * 2 >= shape) break;
            seed *= 2;
        }
        return roundUp ? seed * 2 : seed;
    }
    static int32_t FactorCnt(int32_t shape, int32_t from, int32_t to)
    {
        int32_t cnt = 0;
        for (int32_t i = from; i <= to && i <= shape; ++i) cnt += shape % i == 0 ? 1 : 0;
        return cnt;
    }
    // GetFactorLayerCnt: the most divisors any divisor of shape within [from, to] has.
    static int32_t FactorLayerCnt(int32_t shape, int32_t from, int32_t to)
    {
        int32_t best = 0;
        for (int32_t f = to; f >= from; --f) {
            if (shape % f == 0) best = std::max(best, FactorCnt(f, 1, f + 1));
        }
        return best;
    }
    static bool FactorNumOk(int32_t dim)
    {
        if (dim <= 8) return true;
        const int32_t l0 = FactorLayerCnt(dim, 1, 64);
        const int32_t l1 = dim > 128 ? FactorLayerCnt(dim, 65, 128) : 0;
        return !(l0 <= 2 || (dim > 128 && l0 + l1 <= 4));
    }
    // FindBestSingleCore (not K): from ceil(ori / cores) towards ceil(mapped / cores), the first
    // size with enough divisors.
    static int32_t BestSingleCore(int32_t ori, int32_t mapped, int32_t cores)
    {
        if (cores == 1 && FactorNumOk(ori)) return ori;
        int32_t best = CDiv(ori, cores);
        const int32_t target = CDiv(mapped, cores);
        while (best != target) {
            if (FactorNumOk(best)) return best;
            best += best < target ? 1 : -1;
        }
        return best;
    }
    // CANN's MatmulRunParas, as far as the split reads it: the shape in the algorithm's units and
    // those units rounded by MapShape.
    struct RunParas {
        int32_t m32 = 1, n32 = 1, k32 = 1;
        int32_t mMapped = 1, nMapped = 1;
        int64_t kBytes = 0;  // a K row of 16 x 16 x 2-byte blocks
        int64_t l1 = 0;
    };
    // CANN's DimCalculator: the best candidate GetDimsHelper has seen so far.
    struct DimCalculator {
        int64_t minLoad = INT32_MAX;
        int32_t bestM = 1, bestN = 1, coreUse = 1, loopToL0 = INT32_MAX;
        bool bigPackage = false;
    };
    // PreProcessMiniShape: everything fits one core's L0 and there are more cores than blocks of
    // 16; then the split is fixed here.
    bool PreProcessMiniShape(int32_t dim, const RunParas& p, int64_t l0c, CoreSplit& s) const
    {
        const int64_t miniL0c = l0c / 256 / 4, miniL0ab = l0aSize_ / (16 * 32);
        const int64_t m32 = p.m32, n32 = p.n32;
        if (n32 * m32 > dim || m32 * p.k32 > miniL0ab || n32 * p.k32 > miniL0ab || m32 * n32 > miniL0c) {
            return false;
        }
        const int32_t nd = p.n32 <= 32 ? 1 : p.nMapped / 32, md = p.m32 <= 32 ? 1 : p.mMapped / 32;
        s.n16 = nd == 1 ? p.n32 : CDiv(p.nMapped, nd);
        s.m16 = md == 1 ? p.m32 : CDiv(p.mMapped, md);
        s.nDim = CDiv(p.n32, s.n16);
        s.mDim = CDiv(p.m32, s.m16);
        return true;
    }
    // GenDimsMapFactors: the candidate core counts along one axis.
    static std::vector<int32_t> GenDimsMapFactors(int32_t dim, int32_t ori, int32_t mapped)
    {
        std::vector<int32_t> f;
        for (int32_t i = 1; i <= std::min(dim, ori); ++i) {
            if (ori % i == 0 || mapped % i == 0 || dim % i == 0) f.push_back(i);
        }
        return f;
    }
    static void AddFactor(std::vector<int32_t>& v, int32_t x)
    {
        v.push_back(x);
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    // AddOptimalFactors: the core counts of the square-ish split.
    static void AddOptimalFactors(int32_t dim, const RunParas& p, std::vector<int32_t>& mFactors,
                                  std::vector<int32_t>& nFactors)
    {
        const float opt = static_cast<float>(std::sqrt((p.m32 + 0.0f) / p.n32 * dim));
        const int32_t md = static_cast<int32_t>(std::ceil(opt));
        const int32_t nd = static_cast<int32_t>(std::ceil(dim / opt));
        AddFactor(mFactors, md);
        AddFactor(mFactors, nd == 0 ? 1 : dim / nd);
        AddFactor(nFactors, nd);
        AddFactor(nFactors, md == 0 ? 1 : dim / md);
    }
    // The L0 block CalcLoadSize assumes for a single-core block of cm x cn x ck.
    static void LoadL0Block(int32_t cm, int32_t cn, int32_t ck, int32_t& m0, int32_t& n0, int32_t& k0)
    {
        n0 = std::min(16, cn);
        m0 = std::min(16, n0 == 0 ? 0 : std::min(cm, 128 / n0));
        k0 = (m0 != 0 && n0 != 0) ? std::min(std::min(64 / m0, 64 / n0), ck) : ck;
    }
    // CalcLoadSize's case where neither matrix stays in L1 whole but one may keep a K row: as
    // UpdateDimCalculator does, a first estimate that lowers the total also replaces the A/B
    // sizes the second condition reads.
    static int64_t PartialLoadSize(const RunParas& p, int32_t mf, int32_t nf, int64_t bmat, int64_t amat,
                                   int32_t m0, int32_t n0, int64_t frac)
    {
        const int64_t l1 = p.l1, kBytes = p.kBytes;
        int64_t total = INT32_MAX;
        int64_t bNow = bmat;
        if (amat * kBytes + n0 * frac * 2 <= l1 || m0 * kBytes * 2 + n0 * frac * 2 <= l1) {
            const int64_t tb = static_cast<int64_t>(p.n32) * CDiv(p.m32, m0);
            total = std::min(total, static_cast<int64_t>(p.m32) * nf + tb);
            bNow = tb;
        }
        if (bNow * kBytes + m0 * frac * 2 <= l1 || n0 * kBytes * 2 + m0 * frac * 2 <= l1) {
            total = std::min(total, static_cast<int64_t>(p.n32) * mf + static_cast<int64_t>(p.m32) * CDiv(p.n32, n0));
        }
        return total;
    }
    // CalcLoadSize: the GM traffic of A and B under the L1 residency cases.
    static int64_t CalcLoadSize(const RunParas& p, int32_t mf, int32_t nf, int32_t cm, int32_t cn)
    {
        int32_t m0 = 0, n0 = 0, k0 = 0;
        LoadL0Block(cm, cn, p.k32, m0, n0, k0);
        const int64_t oriA = p.m32, oriB = p.n32, amat = cm, bmat = cn, l1 = p.l1, kBytes = p.kBytes;
        const int64_t frac = static_cast<int64_t>(k0) * 16 * 32;
        if ((amat + n0 * 2) * kBytes <= l1 || (bmat + m0 * 2) * kBytes <= l1 || (amat + bmat) * kBytes <= l1) {
            return std::min<int64_t>(INT32_MAX, oriA * nf + oriB * mf);
        }
        if ((n0 * kBytes + m0 * frac) * 2 > l1 && (m0 * kBytes + n0 * frac) * 2 > l1) {
            return std::min<int64_t>(INT32_MAX, oriA * CDiv(p.n32, n0) + oriB * CDiv(p.m32, m0));
        }
        if ((m0 + n0) * kBytes * 2 <= l1) {
            const int64_t m1 = CDiv(l1 - n0 * kBytes * 2, kBytes * 2 * m0) * static_cast<int64_t>(m0);
            const int64_t n1 = CDiv(l1 - m0 * kBytes * 2, kBytes * 2 * n0) * static_cast<int64_t>(n0);
            const int64_t mFirst = oriA * nf + oriB * CDiv(p.m32, m1);
            const int64_t nFirst = oriB * mf + oriA * CDiv(p.n32, n1);
            return std::min<int64_t>(INT32_MAX, mFirst < nFirst ? mFirst : oriA * CDiv(p.n32, n1) + oriB * mf);
        }
        return PartialLoadSize(p, mf, nf, bmat, amat, m0, n0, frac);
    }
    // GetBigPackageCondition: 2 takes the candidate, 1 refuses it, 0 leaves it to the others.
    int32_t GetBigPackageCondition(const RunParas& p, int32_t cm, int32_t cn, bool bigPackage) const
    {
        const bool aT = aType_.isTrans, bT = bType_.isTrans;
        if (bT && !aT) return 0;
        bool flag = true;
        if (!bT && p.n32 >= 16 && cn < 16) flag = false;
        if (aT && p.m32 >= 16 && cm < 16) flag = false;
        return (!bigPackage && flag) ? 2 : ((bigPackage && !flag) ? 1 : 0);
    }
    // LoopNumFromSingleCoreToL0.
    static int32_t LoopNumFromSingleCoreToL0(int32_t cm, int32_t cn, int32_t ck)
    {
        int32_t ln0 = std::min(std::min(16, cn), 64);
        int32_t lm0 = ln0 == 0 ? 0 : std::min(std::min(cm, 128 / ln0), 64);
        ln0 = lm0 == 0 ? 0 : std::min(std::min(cn, 128 / lm0), 64);
        lm0 = ln0 == 0 ? 0 : std::min(std::min(cm, 128 / ln0), 64);
        const int32_t lk0 = (lm0 != 0 && ln0 != 0) ? std::min(std::min(64 / lm0, 64 / ln0), ck) : ck;
        return CDiv(cm, lm0) * CDiv(cn, ln0) * CDiv(ck, lk0);
    }
    // Whether GetDimsHelper takes a candidate over the best so far: by the big-package condition,
    // then fewer loops to L0 (or more cores for as many), then less load, then more cores.
    static bool Better(const DimCalculator& c, int32_t bp, int32_t loopNum, int32_t use, int64_t total)
    {
        if (bp != 0) return bp == 2;
        if (loopNum < c.loopToL0 || (use > c.coreUse && loopNum == c.loopToL0)) return true;
        if (use != c.coreUse) return false;
        return total < c.minLoad || (total == c.minLoad && c.bestN * c.bestM < use);
    }
    // GetDimsHelper for one (mf, nf) candidate, updating the best so far.
    void GetDimsHelper(const RunParas& p, int32_t mf, int32_t nf, DimCalculator& c) const
    {
        const int32_t cm = CDiv(p.m32, mf), cn = CDiv(p.n32, nf);
        const int64_t total = CalcLoadSize(p, mf, nf, cm, cn);
        const int32_t bp = GetBigPackageCondition(p, cm, cn, c.bigPackage);
        const int32_t loopNum = LoopNumFromSingleCoreToL0(cm, cn, p.k32);
        const int32_t use = mf * nf;
        if (!Better(c, bp, loopNum, use, total)) return;
        c.minLoad = total;
        c.bestN = nf;
        c.bestM = mf;
        c.coreUse = use;
        c.loopToL0 = loopNum;
        c.bigPackage = (!bType_.isTrans ? cn >= 16 : true) && (aType_.isTrans ? cm >= 16 : true) && use > 1;
    }
    // GetDims: GetDimsHelper over (n, m) in that order, then factorSplit (single-core sizes with
    // enough divisors, if they need no more cores) and UpdateMultiCore.
    CoreSplit GetDims(int32_t dim, const RunParas& p) const
    {
        std::vector<int32_t> mFactors = GenDimsMapFactors(dim, p.m32, p.mMapped);
        std::vector<int32_t> nFactors = GenDimsMapFactors(dim, p.n32, p.nMapped);
        AddOptimalFactors(dim, p, mFactors, nFactors);
        DimCalculator c;
        for (const int32_t nf : nFactors) {
            if (nf > dim || nf <= 0) continue;
            for (const int32_t mf : mFactors) {
                if (nf * mf <= dim && mf > 0) GetDimsHelper(p, mf, nf, c);
            }
        }
        CoreSplit s;
        s.n16 = CDiv(p.n32, c.bestN);
        s.m16 = CDiv(p.m32, c.bestM);
        const int32_t bn = BestSingleCore(p.n32, p.nMapped, c.bestN), bm = BestSingleCore(p.m32, p.mMapped, c.bestM);
        const int64_t need = static_cast<int64_t>(CDiv(p.n32, bn)) * CDiv(p.m32, bm);
        if (need > 0 && need <= dim) {
            s.n16 = bn;
            s.m16 = bm;
        }
        s.nDim = std::min(CDiv(p.n32, s.n16), dim);
        s.mDim = std::min(CDiv(p.m32, s.m16), dim);
        return s;
    }
    CoreSplit SplitCores(int32_t dim, int32_t m, int32_t n, int32_t k, int64_t l1, int64_t l0c) const
    {
        RunParas p;
        p.m32 = CDiv(m, 16);
        p.n32 = CDiv(n, 16);
        p.k32 = CDiv(k, 32 / Bytes(aType_.dataType));
        CoreSplit s;
        s.m16 = p.m32;
        s.n16 = p.n32;
        if (dim <= 1) return s;
        p.mMapped = MapShape(p.m32);
        p.nMapped = MapShape(p.n32);
        p.kBytes = static_cast<int64_t>(p.k32) * 16 * 16 * 2;
        p.l1 = l1;
        if (PreProcessMiniShape(dim, p, l0c, s)) return s;
        return GetDims(dim, p);
    }

    // std::sort as libstdc++ does it (introsort: median-of-three pivots, heap sort past
    // 2 * log2(n) levels, insertion sort of runs up to 16), for CANN's candidate orders: their
    // comparators (ComputeIntensity's epsilons) are not strict weak orders, so the order depends
    // on the algorithm, and libstdc++'s unguarded loops can then run off the range (asc-devkit's
    // own code, compiled on the host, crashes on some shapes). This one stops at the range's ends
    // and otherwise takes the same steps.
    // __unguarded_linear_insert, stopping at lo.
    template <class T, class Less>
    static void GuardedInsert(std::vector<T>& v, Less& less, ptrdiff_t lo, ptrdiff_t i)
    {
        T val = v[i];
        ptrdiff_t j = i;
        while (j - 1 >= lo && less(val, v[j - 1])) {
            v[j] = v[j - 1];
            --j;
        }
        v[j] = val;
    }
    // __insertion_sort of [lo, hi).
    template <class T, class Less>
    static void InsertionSort(std::vector<T>& v, Less& less, ptrdiff_t lo, ptrdiff_t hi)
    {
        for (ptrdiff_t i = lo + 1; i < hi; ++i) {
            if (less(v[i], v[lo])) {
                T val = v[i];
                for (ptrdiff_t j = i; j > lo; --j) v[j] = v[j - 1];
                v[lo] = val;
            } else {
                GuardedInsert(v, less, lo, i);
            }
        }
    }
    // __move_median_to_first(lo, lo + 1, mid, hi - 1).
    template <class T, class Less>
    static void MedianToFirst(std::vector<T>& v, Less& less, ptrdiff_t lo, ptrdiff_t hi)
    {
        const ptrdiff_t a = lo + 1, b = lo + (hi - lo) / 2, c = hi - 1;
        ptrdiff_t med;
        if (less(v[a], v[b])) {
            med = less(v[b], v[c]) ? b : (less(v[a], v[c]) ? c : a);
        } else {
            med = less(v[a], v[c]) ? a : (less(v[b], v[c]) ? c : b);
        }
        std::swap(v[lo], v[med]);
    }
    // __unguarded_partition(lo + 1, hi, lo), stopping at the range's ends: the cut.
    template <class T, class Less>
    static ptrdiff_t Partition(std::vector<T>& v, Less& less, ptrdiff_t lo, ptrdiff_t hi)
    {
        ptrdiff_t f = lo + 1, l = hi;
        while (true) {
            while (f < hi && less(v[f], v[lo])) ++f;
            --l;
            while (l > lo && less(v[lo], v[l])) --l;
            if (!(f < l)) return f;
            std::swap(v[f], v[l]);
            ++f;
        }
    }
    // __introsort_loop: runs over 16 elements partitioned, past `depth` levels heap-sorted.
    template <class T, class Less>
    static void IntroLoop(std::vector<T>& v, Less& less, ptrdiff_t lo, ptrdiff_t hi, int depth)
    {
        while (hi - lo > 16) {
            if (depth == 0) {
                std::make_heap(v.begin() + lo, v.begin() + hi, less);
                std::sort_heap(v.begin() + lo, v.begin() + hi, less);
                return;
            }
            --depth;
            MedianToFirst(v, less, lo, hi);
            const ptrdiff_t cut = Partition(v, less, lo, hi);
            IntroLoop(v, less, cut, hi, depth);
            hi = cut;
        }
    }
    template <class T, class Less>
    static void CannSort(std::vector<T>& v, Less less)
    {
        const ptrdiff_t n = static_cast<ptrdiff_t>(v.size());
        if (n < 2) return;
        int lg = 0;
        for (ptrdiff_t x = n; x > 1; x >>= 1) ++lg;
        IntroLoop(v, less, 0, n, 2 * lg);
        if (n > 16) {  // __final_insertion_sort
            InsertionSort(v, less, 0, 16);
            for (ptrdiff_t i = 16; i < n; ++i) GuardedInsert(v, less, 0, i);
        } else {
            InsertionSort(v, less, 0, n);
        }
    }

    // 910B's other two multi-core scenarios (GetMultiCoreScenario; taken when SetShape never set
    // the single shape, i.e. it is -1): DoMultiCoreSplitMNTiling with GetMultiCoreBasicBlock's base
    // block (128 x 256 x 128 bytes of K, or SetFixSplit's baseM/baseN), mDim x nDim = SetDim's dim
    // by CalcComputeIntensity (SPLIT_MN), or by CalcMultiCoreDimsSmallShape with UpdateBaseBlock's
    // blocks (SPLIT_SMALL_MN, M x N under 26214 per core); the base block is then the tiling's, as
    // large as it is.
    enum class Scenario { OTHERS, SPLIT_MN, SPLIT_SMALL_MN };
    Scenario MultiCoreScenario(int32_t dim) const
    {
        if (dim <= 1 || (socVersion != platform_ascendc::SocVersion::ASCEND910B &&
                         socVersion != platform_ascendc::SocVersion::ASCEND950)) {
            return Scenario::OTHERS;
        }
        if (singleM != -1 || singleN != -1) return Scenario::OTHERS;
        constexpr int64_t mnLimit = 26214;  // 128 * 256 * 0.8
        const int64_t mn = static_cast<int64_t>(orgM) * orgN;
        if (orgM >= 128 && mn > mnLimit * dim) return Scenario::SPLIT_MN;
        if (mn < mnLimit * dim) return Scenario::SPLIT_SMALL_MN;
        return Scenario::OTHERS;
    }
    struct BaseBlock {
        int32_t m, n, k;
    };
    // AlignSingleShape: ceil(org / factor), rounded up to align when asked and it still leaves
    // every core some of the shape.
    static bool AlignSingle(bool need, int32_t org, int32_t factor, int32_t align, int32_t& single)
    {
        single = CDiv(org, factor);
        if (!need || align == 0 || factor <= 1) return true;
        const int32_t aligned = CDiv(single, align) * align;
        if (aligned >= CDiv(org, factor - 1)) return false;
        single = aligned;
        return true;
    }
    // CalcTotalCycleMemory: cycles and traffic of the main blocks and the M/N tails.
    void CycleMemory(int32_t sm, int32_t sn, const BaseBlock& b, float ratio, float aRatio, float bRatio,
                     float& cycles, float& memory) const
    {
        const int32_t aBits = Bytes(aType_.dataType) * 8, bBits = Bytes(bType_.dataType) * 8;
        const int32_t reduce = 256 / aBits;
        auto cyc = [&](int32_t bm, int32_t bn) { return static_cast<float>(bm * bn * b.k) / (16 * 16 * reduce); };
        auto mem = [&](int32_t bm, int32_t bn) {
            const float am = aRatio * bm * b.k * aBits / 8;
            const float bmem = bRatio * bn * b.k * bBits / 8;
            return am + bmem;
        };
        const int32_t mainM = b.m == 0 ? 0 : sm / b.m, tailM = b.m == 0 ? 0 : sm % b.m;
        const int32_t mainN = b.n == 0 ? 0 : sn / b.n, tailN = b.n == 0 ? 0 : sn % b.n;
        cycles = 0;
        memory = 0;
        if (mainM > 0 && mainN > 0) {
            const int32_t count = mainM * mainN;
            cycles += cyc(b.m, b.n) * count;
            memory += ratio * mem(b.m, b.n) * count;
        }
        if (mainM > 0 && tailN > 0) {
            cycles += cyc(b.m, tailN) * mainM;
            memory += ratio * mem(b.m, tailN) * mainM;
        }
        if (tailM > 0 && mainN > 0) {
            cycles += cyc(tailM, b.n) * mainN;
            memory += ratio * mem(tailM, b.n) * mainN;
        }
        if (tailM > 0 && tailN > 0) {
            cycles += cyc(tailM, tailN);
            memory += ratio * mem(tailM, tailN);
        }
    }
    // GetMultiCoreBasicBlock.
    BaseBlock BasicBlock(int64_t l0c) const
    {
        BaseBlock b{l0c == 262144 ? 256 : 128, 256, 128 * 8 / (Bytes(aType_.dataType) * 8)};
        if (fixBaseM_ > 0) b.m = fixBaseM_;
        if (fixBaseN_ > 0) b.n = fixBaseN_;
        if (aType_.isTrans && bType_.isTrans) {
            b.m = fixBaseM_ > 0 ? b.m : 256;
            b.n = fixBaseN_ > 0 ? b.n : 128;
        }
        return b;
    }
    // UpdateBaseBlock (small shapes): the base block follows the single-core block.
    void SmallBaseBlock(int32_t sm, int32_t sn, BaseBlock& b) const
    {
        b.k = std::min(b.k, Align(orgKa, 32));
        b.m = sm >= 128 ? 128 : Align(sm, 16);
        const int32_t maxN = (b.k <= 32 && b.m <= 64) ? 384 : 256;
        b.n = sn >= maxN ? maxN : Align(sn, 16);
    }
    // CalcMemoryTraffic's ratio of a single-core size that is not a whole 256-byte burst.
    static constexpr std::pair<int32_t, float> kBandTab[] = {{128, 2.0f}, {192, 2.7f}, {256, 1.0f}, {320, 2.0f},
                                                              {384, 1.5f}, {448, 1.7f}, {512, 1.0f}};
    // CalcBaseBlockBandRatio.
    static float CalcBaseBlockBandRatio(int32_t dim, int32_t mf, int32_t nf, const BaseBlock& bb)
    {
        return static_cast<float>((dim - mf) * bb.m + (dim - nf) * bb.n) / static_cast<float>((bb.m + bb.n) * dim);
    }
    // One candidate split of CalcMultiCoreDims or CalcMultiCoreDimsSmallShape (CANN's
    // ComputeIntensity and ComputeIntensitySmallShape).
    struct ComputeIntensity {
        int32_t mf, nf;
        float cycle, intensity, band, memory;
        BaseBlock b;
    };
    // CalcMultiCoreDims (SPLIT_MN): over GetFactorPairs(dim), best CalcComputeIntensity first.
    void CalcMultiCoreDims(int32_t dim, const BaseBlock& b, int32_t& mDim, int32_t& nDim) const
    {
        const int32_t aAlign = 256 / Bytes(aType_.dataType), bAlign = 256 / Bytes(bType_.dataType);
        std::vector<ComputeIntensity> rs;
        for (int32_t i = 1; i <= dim; ++i) {
            if (dim % i != 0) continue;
            const int32_t mf = i, nf = dim / i;
            int32_t sm = 0, sn = 0;
            const bool okA = AlignSingle(aType_.isTrans && orgM % aAlign == 0, orgM, mf, aAlign, sm);
            const bool okB = AlignSingle(!bType_.isTrans && orgN % bAlign == 0, orgN, nf, bAlign, sn);
            float cycles = 0, memory = 0;
            CycleMemory(sm, sn, b, (okA && okB) ? 1.0f : 2.0f, 1.0f, 1.0f, cycles, memory);
            rs.push_back({mf, nf, cycles, memory > 0 ? cycles / memory : 0, CalcBaseBlockBandRatio(dim, mf, nf, b),
                          memory, b});
        }
        CannSort(rs, [](const ComputeIntensity& l, const ComputeIntensity& r) {
            if (std::fabs(l.intensity - r.intensity) > 1.0E-4F) return l.intensity > r.intensity;
            if (std::fabs(l.cycle - r.cycle) < 0.01f * r.cycle) return l.band > r.band;
            return l.cycle < r.cycle;
        });
        mDim = rs[0].mf;
        nDim = rs[0].nf;
    }
    static bool BandAligned(int32_t org)
    {
        for (const auto& e : kBandTab) {
            if (org % e.first == 0) return true;
        }
        return false;
    }
    // The memory ratios of a single-core size: 1 when aligned, else kBandTab's or 4.
    static void MemoryRatios(bool okA, bool okB, int32_t sm, int32_t sn, float& aRatio, float& bRatio)
    {
        aRatio = okA ? 1.0f : 4.0f;
        bRatio = okB ? 1.0f : 4.0f;
        for (const auto& e : kBandTab) {
            if (!okA && e.first == sm) aRatio = e.second;
            if (!okB && e.first == sn) bRatio = e.second;
        }
    }
    // CalcComputeIntensitySmallShape of the split mf x nf; b is UpdateBaseBlock's for it, carried
    // on to the next candidate as CANN's is.
    ComputeIntensity CalcComputeIntensitySmallShape(int32_t mf, int32_t nf, BaseBlock& b) const
    {
        const int32_t aAlign = 256 / Bytes(aType_.dataType), bAlign = 256 / Bytes(bType_.dataType);
        int32_t sm = 0, sn = 0;
        const bool okA = AlignSingle(aType_.isTrans && BandAligned(orgM), orgM, mf, aAlign, sm);
        const bool okB = AlignSingle(!bType_.isTrans && BandAligned(orgN), orgN, nf, bAlign, sn);
        SmallBaseBlock(sm, sn, b);
        float aRatio = 1.0f, bRatio = 1.0f;
        MemoryRatios(okA, okB, sm, sn, aRatio, bRatio);
        int32_t bandRate = mf * nf;
        if (sm < 32 && sn < 32 && bandRate > 20) bandRate = 20;
        const float ratio = static_cast<float>(mf * nf) / static_cast<float>(bandRate);
        float cycles = 0, memory = 0;
        CycleMemory(sm, sn, b, ratio, aRatio, bRatio, cycles, memory);
        return {mf, nf, cycles, memory > 0 ? cycles / memory : 0, 0.0f, memory, b};
    }
    // CalcMultiCoreDimsSmallShape (SPLIT_SMALL_MN): all cores along N or M when the other is
    // small, else over every factor pair of every core count, least memory traffic first.
    void CalcMultiCoreDimsSmallShape(int32_t dim, BaseBlock& b, int32_t& mDim, int32_t& nDim) const
    {
        if (orgM <= 128 && orgN >= 128 * dim) {
            mDim = 1;
            nDim = dim;
            SmallBaseBlock(orgM, orgN / dim, b);
            return;
        }
        if (orgN <= 256 && orgM >= 128 * dim) {
            mDim = dim;
            nDim = 1;
            SmallBaseBlock(orgM / dim, orgN, b);
            return;
        }
        std::vector<ComputeIntensity> rs;
        for (int32_t cores = dim; cores >= 1; --cores) {
            for (int32_t i = 1; i <= cores; ++i) {
                if (cores % i != 0) continue;
                rs.push_back(CalcComputeIntensitySmallShape(i, cores / i, b));
                rs.back().band = CalcBaseBlockBandRatio(dim, i, cores / i, b);
            }
        }
        CannSort(rs, [](const ComputeIntensity& l, const ComputeIntensity& r) {
            if (std::fabs(r.memory - l.memory) > 0.05F * l.memory) return l.memory < r.memory;
            if (std::fabs(l.cycle - r.cycle) < 0.01f * r.cycle) return l.band > r.band;
            return l.intensity > r.intensity;
        });
        mDim = rs[0].mf;
        nDim = rs[0].nf;
        b = rs[0].b;
    }
    // The mDim x nDim of DoMultiCoreSplitMNTiling's scenarios, and its base block in b (for small
    // shapes with baseK as much as half of L0A/L0B holds of the larger side, in C0 blocks).
    void ScenarioDims(Scenario sc, int32_t dim, int64_t l0c, int32_t& mDim, int32_t& nDim, BaseBlock& b) const
    {
        b = BasicBlock(l0c);
        if (sc == Scenario::SPLIT_MN) {
            CalcMultiCoreDims(dim, b, mDim, nDim);
            return;
        }
        CalcMultiCoreDimsSmallShape(dim, b, mDim, nDim);
        const int32_t c0 = 32 / Bytes(aType_.dataType);
        const int32_t tmp = 65536 / 2 / Bytes(aType_.dataType);
        b.k = std::min(tmp / b.m, tmp / b.n);
        b.k = std::min(b.k / c0 * c0, Align(orgKa, c0));
    }

    // What Compute's steps share (CANN's MatmulRunParas and CoreStatusPack, as far as the twin
    // reads them): the single shape, the buffers' sizes, the split and the scenarios' block.
    struct TilingRun {
        int32_t dim = 1;
        int32_t m = 0, n = 0, k = 0;  // SetShape's, or SetOrgShape's where it is -1
        int64_t l1 = 0, l0c = 0, ub = 0;
        int32_t sa = 0, sc = 0, c0k = 0;  // bytes of an A and a C element; elements of A in 32 bytes
        bool cInUb = false;
        Scenario scen = Scenario::OTHERS;
        BaseBlock block{0, 0, 0};
        CoreSplit split;
    };
    bool Refuse(const std::string& why)
    {
        Fail(why);
        return false;
    }
    // CheckSetParam: what GetTiling was given is a combination the twin emulates.
    bool CheckSetParam()
    {
        if (!aSet_ || !bSet_ || !cSet_) return Refuse("SetAType, SetBType and SetCType must all be called");
        if (!CheckTypes()) return false;
        if (orgM <= 0 || orgN <= 0 || orgKa <= 0 || orgKb <= 0) return Refuse("SetOrgShape was not called (or not positive)");
        return true;
    }
    // The types, formats and positions of A, B, C and the bias (its type C's unless set).
    bool CheckTypes()
    {
        if (isBias && !biasSet_) {
            biasType_.dataType = cType_.dataType == DataType::DT_FLOAT16 ? DataType::DT_FLOAT16 : DataType::DT_FLOAT;
        }
        if (!TypesOk()) {
            return Refuse("the A/B/C/bias data types are not a Matmul combination of this SoC (or not emulated)");
        }
        if (aType_.type != CubeFormat::ND || bType_.type != CubeFormat::ND ||
            (cType_.type != CubeFormat::ND && cType_.type != CubeFormat::ND_ALIGN)) {
            return Refuse("only CubeFormat::ND (C also ND_ALIGN) is emulated");
        }
        if (aType_.pos != TPosition::GM || bType_.pos != TPosition::GM) return Refuse("A and B must be in TPosition::GM");
        return true;
    }
    // FillParam: the single shape and the buffers, checked.
    bool FillParam(int32_t dim, TilingRun& r)
    {
        r.dim = dim;
        r.m = singleM == -1 ? orgM : singleM;
        r.n = singleN == -1 ? orgN : singleN;
        r.k = singleK == -1 ? std::min(orgKa, orgKb) : singleK;
        if (r.m <= 0 || r.n <= 0 || r.k <= 0) return Refuse("SetShape: m, n and k must be positive (or -1)");
        if (r.m > orgM || r.n > orgN || r.k > orgKa || r.k > orgKb) return Refuse("SetShape's m/n/k exceed SetOrgShape's");
        if (dim <= 0) return Refuse("SetDim was not called (or not positive)");
        return FillBuffers(r);
    }
    // The buffers' sizes: SetBufferSpace's where given, else the platform's.
    bool FillBuffers(TilingRun& r)
    {
        r.l1 = userL1_ > 0 ? userL1_ : l1Size_;
        r.l0c = userL0c_ > 0 ? userL0c_ : l0cSize_;
        r.ub = userUb_ >= 0 ? userUb_ : ubSize_;
        r.sa = Bytes(aType_.dataType);
        r.sc = Bytes(cType_.dataType);
        r.c0k = 32 / r.sa;
        r.cInUb = InUb(cType_.pos);
        if (r.cInUb && r.ub < static_cast<int64_t>(16) * 16 * r.sc) return Refuse("the UB space left for C is too small");
        return true;
    }
    // Core split: CANN's GetDims (SplitCores), or on 910B without a single shape its
    // DoMultiCoreSplitMNTiling scenarios (ScenarioDims, which also fix the base block).
    void SplitMultiCore(TilingRun& r) const
    {
        r.scen = MultiCoreScenario(r.dim);
        if (r.scen == Scenario::OTHERS) {
            r.split = SplitCores(r.dim, r.m, r.n, r.k, r.l1, r.l0c);
        } else {
            ScenarioDims(r.scen, r.dim, r.l0c, r.split.mDim, r.split.nDim, r.block);
        }
    }
    // GetSingleShape: with more than one core the blocks come from M and N rounded up to 16
    // (ceil(16 * ceil(M / 16) / mDim)), in the scenarios rounded up to 256 bytes where that
    // still leaves every core some (N unless B is transposed and C is smaller than A plus B).
    void GetSingleShape(const TilingRun& r)
    {
        singleCoreM = Ceil(r.m, r.split.mDim);
        singleCoreN = Ceil(r.n, r.split.nDim);
        singleCoreK = r.k;
        if (r.dim <= 1) return;
        const bool inScenario = r.scen != Scenario::OTHERS;
        const int32_t sb = Bytes(bType_.dataType);
        const int64_t cBits = static_cast<int64_t>(singleCoreN) * singleCoreM * (2 * r.sc * 8);
        const int64_t abBits = static_cast<int64_t>(singleCoreN) * r.k * r.sa * 8 +
                               static_cast<int64_t>(singleCoreM) * r.k * sb * 8;
        const bool outAlign = cBits > abBits;
        AlignSingle(inScenario && (!bType_.isTrans || outAlign), 16 * Ceil(r.n, 16), r.split.nDim, 256 / sb, singleCoreN);
        AlignSingle(inScenario && aType_.isTrans, 16 * Ceil(r.m, 16), r.split.mDim, 256 / r.sa, singleCoreM);
    }
    // Whether baseM x baseN of C fits L0C (and UB when C is there).
    bool BaseMNFits(const TilingRun& r) const
    {
        const int64_t mn = static_cast<int64_t>(baseM) * baseN;
        return mn * 4 <= r.l0c && !(r.cInUb && mn * r.sc > r.ub);
    }
    // CANN's GetL0FactorsCand takes no base block larger than the single-core block.
    bool BaseTooLarge(const TilingRun& r, const char* base, int32_t fixed, int32_t block, const char* what,
                      const char* axis, int32_t extent, int32_t cores)
    {
        return Refuse(std::string("SetFixSplit: ") + base + " " + std::to_string(fixed) + " exceeds the " +
                      std::to_string(block) + " " + what + " of the single-core block (" + axis + " " +
                      std::to_string(extent) + " over " + std::to_string(cores) + " of SetDim's " +
                      std::to_string(r.dim) + " cores)");
    }
    // baseM and baseN outside the scenarios: SetFixSplit's, or the twin's own within the
    // single-core block, shrunk by 16 until C fits.
    bool GetL0FactorsMN(const TilingRun& r)
    {
        const CoreSplit& split = r.split;
        const int32_t capM = std::min(Align(singleCoreM, 16), 16 * split.m16);
        const int32_t capN = std::min(Align(singleCoreN, 16), 16 * split.n16);
        if (fixBaseM_ > 16 * split.m16) return BaseTooLarge(r, "baseM", fixBaseM_, 16 * split.m16, "rows", "M", r.m, split.mDim);
        baseM = fixBaseM_ > 0 ? fixBaseM_ : std::min(capM, maxBaseM_ > 0 ? std::max(16, maxBaseM_ / 16 * 16) : 128);
        if (fixBaseN_ > 16 * split.n16) {
            return BaseTooLarge(r, "baseN", fixBaseN_, 16 * split.n16, "columns", "N", r.n, split.nDim);
        }
        if (fixBaseN_ > 0) {
            baseN = fixBaseN_;
        } else {
            baseN = std::min(capN, maxBaseN_ > 0 ? std::max(16, maxBaseN_ / 16 * 16) : 256);
            while (baseN > 16 && !BaseMNFits(r)) baseN -= 16;
        }
        while (fixBaseM_ <= 0 && baseM > 16 && !BaseMNFits(r)) baseM -= 16;
        return true;
    }
    // GetL0Factors: baseM and baseN (in the scenarios CANN's block as it is; SetFixSplit's baseK
    // is not read there), then baseK within L0A/L0B.
    bool GetL0Factors(const TilingRun& r)
    {
        if (fixBaseM_ > 0 && fixBaseM_ % 16 != 0) return Refuse("SetFixSplit: baseM is not a multiple of 16");
        if (fixBaseN_ > 0 && fixBaseN_ % 16 != 0) return Refuse("SetFixSplit: baseN is not a multiple of 16");
        if (r.scen != Scenario::OTHERS) {
            baseM = r.block.m / 16 * 16;
            baseN = r.block.n / 16 * 16;
        } else if (!GetL0FactorsMN(r)) {
            return false;
        }
        if (static_cast<int64_t>(baseM) * baseN * 4 > r.l0c) return Refuse("baseM * baseN * 4 bytes exceed L0C");
        if (r.cInUb && static_cast<int64_t>(baseM) * baseN * r.sc > r.ub) return Refuse("baseM * baseN of C exceed the UB space");
        return GetBaseK(r);
    }
    // baseK: the scenarios' block's, SetFixSplit's, or all of K that L0A/L0B hold.
    bool GetBaseK(const TilingRun& r)
    {
        const int32_t c0k = r.c0k;
        const int64_t maxKa = l0aSize_ / (2 * static_cast<int64_t>(baseM) * r.sa);
        const int64_t maxKb = l0bSize_ / (2 * static_cast<int64_t>(baseN) * r.sa);
        const int32_t kCap = static_cast<int32_t>(std::min<int64_t>(std::min(maxKa, maxKb) / c0k * c0k,
                                                                    maxBaseK_ > 0 ? maxBaseK_ / c0k * c0k : 1 << 30));
        if (r.scen != Scenario::OTHERS) {
            baseK = r.block.k / c0k * c0k;
            if (baseK < c0k || baseK > std::min(maxKa, maxKb)) return Refuse("baseM/baseN * baseK exceed L0A/L0B");
        } else if (fixBaseK_ > 0) {
            if (fixBaseK_ % c0k != 0) return Refuse("SetFixSplit: baseK is not a multiple of 32 bytes of A");
            if (fixBaseK_ > kCap) return Refuse("SetFixSplit: baseM/baseN * baseK exceed L0A/L0B");
            baseK = fixBaseK_;
        } else {
            if (kCap < c0k) return Refuse("baseM/baseN too large for L0A/L0B");
            baseK = std::min(Align(r.k, c0k), kCap);
        }
        return true;
    }
    // L1 for stepK base K blocks of A and B, double-buffered, and the bias.
    int64_t L1Need(const TilingRun& r, int32_t stepK) const
    {
        return 2 * static_cast<int64_t>(stepK) * baseK * (baseM + baseN) * r.sa + (isBias ? baseN * 4 : 0);
    }
    // GetL1Factors: stepKa = stepKb = as many base K blocks (at most 4) as fit double-buffered.
    bool GetL1Factors(const TilingRun& r, int32_t& stepK)
    {
        stepK = std::min(Ceil(r.k, baseK), 4);
        while (stepK > 1 && L1Need(r, stepK) > r.l1) --stepK;
        if (L1Need(r, stepK) > r.l1) return Refuse("the base blocks do not fit L1");
        return true;
    }
    // SetFinalTiling: the TCubeTiling of the steps' results.
    void SetFinalTiling(const TilingRun& r, int32_t stepK, AscendC::tiling::TCubeTiling& t)
    {
        t = AscendC::tiling::TCubeTiling{};
        t.usedCoreNum = r.split.mDim * r.split.nDim;
        t.M = orgM;
        t.N = orgN;
        t.Ka = orgKa;
        t.Kb = orgKb;
        t.singleCoreM = singleCoreM;
        t.singleCoreN = singleCoreN;
        t.singleCoreK = singleCoreK;
        t.baseM = baseM;
        t.baseN = baseN;
        t.baseK = baseK;
        t.stepM = 1;
        t.stepN = 1;
        t.stepKa = stepK;
        t.stepKb = stepK;
        t.depthA1 = 2 * stepK;
        t.depthB1 = 2 * stepK;
        t.isBias = isBias ? 1 : 0;
        t.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
        t.shareMode = 0;
        t.shareL1Size = static_cast<int32_t>(L1Need(r, stepK));
        t.shareL0CSize = baseM * baseN * 4;
        t.shareUbSize = 0;
        t.batchM = 1;
        t.batchN = 1;
        t.singleBatchM = 1;
        t.singleBatchN = 1;
        t.dbL0A = 2;
        t.dbL0B = 2;
        t.dbL0C = 1;
    }

    // The tiling for `dim` cores (1 for MatmulApiTiling), into t. 0 or -1: CANN's Compute and
    // MatmulTilingAlgorithm::Process, as far as the twin follows them.
    int64_t Compute(int32_t dim, AscendC::tiling::TCubeTiling& t)
    {
        error_.clear();
        TilingRun r;
        if (!CheckSetParam() || !FillParam(dim, r)) return -1;
        SplitMultiCore(r);
        GetSingleShape(r);
        int32_t stepK = 1;
        if (!GetL0Factors(r) || !GetL1Factors(r, stepK)) return -1;
        SetFinalTiling(r, stepK, t);
        blockDim = t.usedCoreNum;
        // CANN's GetCoreNum: ceil(singleM / singleCoreM), ceil(singleN / singleCoreN).
        mDim_ = Ceil(r.m, singleCoreM);
        nDim_ = Ceil(r.n, singleCoreN);
        usedCores_ = t.usedCoreNum;
        return 0;
    }

    MatrixTraverse traverse_ = MatrixTraverse::FIRSTM;
    MatrixMadType madType_ = MatrixMadType::NORMAL;
    bool aSet_ = false, bSet_ = false, cSet_ = false, biasSet_ = false;
    int32_t fixBaseM_ = -1, fixBaseN_ = -1, fixBaseK_ = -1;
    int32_t maxBaseM_ = -1, maxBaseN_ = -1, maxBaseK_ = -1;
    int32_t userL1_ = -1, userL0c_ = -1, userUb_ = -1;
    int64_t l1Size_ = 524288, l0cSize_ = 131072, l0aSize_ = 65536, l0bSize_ = 65536;
    int64_t ubSize_ = static_cast<int64_t>(opgen_twin::kDefaultUbSize);
    int32_t mDim_ = 0, nDim_ = 0, usedCores_ = 0;
    std::string error_;
};

// Single-core tiling: the whole SetShape on one core.
class MatmulApiTiling : public MatmulApiTilingBase {
public:
    MatmulApiTiling() {}
    explicit MatmulApiTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform) : MatmulApiTilingBase(ascendcPlatform) {}
    explicit MatmulApiTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}
    ~MatmulApiTiling() override = default;
    using MatmulApiTilingBase::GetTiling;
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Compute(1, tiling); }
};

class MultiCoreMatmulTiling : public MatmulApiTilingBase {
public:
    MultiCoreMatmulTiling() {}
    explicit MultiCoreMatmulTiling(const platform_ascendc::PlatformAscendC& ascendcPlatform)
        : MatmulApiTilingBase(ascendcPlatform)
    {}
    explicit MultiCoreMatmulTiling(const PlatformInfo& platform) : MatmulApiTilingBase(platform) {}
    // The cores the split may use: the AIV count for a mixed kernel on 910B, the AIC count for a
    // cube-only one (asc-devkit SetDim.md).
    int32_t SetDim(int32_t dim)
    {
        if (dim <= 0) return -1;
        dim_ = dim;
        return 0;
    }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) override { return MatmulApiTilingBase::SetShape(m, n, k); }
    virtual int32_t SetSingleShape(int32_t singleMIn = -1, int32_t singleNIn = -1, int32_t singleKIn = -1)
    {
        (void)singleMIn, (void)singleNIn, (void)singleKIn;
        return 0;
    }
    int32_t SetAlignSplit(int32_t, int32_t, int32_t) { return 0; }
    int32_t GetSingleShape(int32_t& shapeM, int32_t& shapeN, int32_t& shapeK)
    {
        shapeM = singleCoreM;
        shapeN = singleCoreN;
        shapeK = singleCoreK;
        return singleCoreM > 0 ? 0 : -1;
    }
    int32_t GetCoreNum(int32_t& dim, int32_t& mDim, int32_t& nDim)
    {
        if (mDim_ <= 0) return -1;
        mDim = mDim_;
        nDim = nDim_;
        dim = usedCores_;
        return 0;
    }
    // The twin never splits K across cores (singleCoreK = K), whatever this says.
    void EnableMultiCoreSplitK(bool flag) { enableSplitK_ = flag; }
    void SetSplitK(bool flag) { EnableMultiCoreSplitK(flag); }
    using MatmulApiTilingBase::GetTiling;
    int64_t GetTiling(AscendC::tiling::TCubeTiling& tiling) override { return Compute(dim_, tiling); }

private:
    int32_t dim_ = 0;
    bool enableSplitK_ = false;
};

}  // namespace matmul_tiling

#endif  // OPGEN_TWIN_MATMUL_TILING_H
