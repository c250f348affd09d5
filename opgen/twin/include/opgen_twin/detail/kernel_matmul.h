// opgen CPU twin: the Matmul high-level API (cube unit), kernel side. Included by lib/matmul_intf.h.
//
// Names and signatures follow asc-devkit include/adv_api/matmul/{matmul.h,matmul_config.h,tiling.h},
// impl/adv_api/detail/matmul/utils/matmul_type_def.h and kfc/kfc_register_obj.h; the emulation is
// the twin's own. What a kernel can observe is emulated: C = A * B (+ bias) over singleCoreM x
// singleCoreN x singleCoreK (or SetTail's values), products accumulated in float (bias first, then
// k in order), A/B read from GM row-major or transposed, base blocks of baseM x baseN walked as the
// Norm scheduler walks them (iterateOrder, stepM/stepN groups), tails at the edges, results rounded
// to C's type to nearest even. Misuse is a HardwareError/TwinError naming the call.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_MATMUL_H
#define OPGEN_TWIN_DETAIL_KERNEL_MATMUL_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernel_tiling/kernel_tiling.h"
#include "opgen_twin/detail/kernel_misc.h"
#include "opgen_twin/detail/kernel_pipe.h"
#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/soc.h"

// ---- matmul_config.h: global enums and MatmulConfig ----
constexpr uint32_t SHARED_CO1_BUFFER_SIZE = 64 * 1024;

enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR, ROW_MAJOR = ND, COLUMN_MAJOR = 8 };
enum class LayoutMode { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
enum class BatchMode { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum BatchOutMode { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };
enum class IterateOrder { ORDER_M = 0, ORDER_N, UNDEF };
enum class ScheduleType { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum IterateMode : uint8_t {
    ITERATE_MODE_NORMAL = 0b00000001,
    ITERATE_MODE_ALL = 0b00000010,
    ITERATE_MODE_BATCH = 0b00000100,
    ITERATE_MODE_N_BATCH = 0b00001000,
    ITERATE_MODE_DEFAULT = 0b11111111,
};
enum class MatmulConfigMode { CONFIG_NORM, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };

// The fields the twin reads (doNorm/doMultiDataLoad pick the template, iterateOrder overrides the
// tiling's, scheduleType must be INNER_PRODUCT, enableMixDualMaster must be false); the others are
// accepted and ignored.
struct MatmulConfig {
    bool doNorm = false;
    bool doBasicBlock = false;
    bool doMultiDataLoad = false;
    uint32_t basicM = 0;
    uint32_t basicN = 0;
    uint32_t basicK = 0;
    bool intrinsicsCheck = false;
    bool isNBatch = false;
    bool enVecND2NZ = false;
    bool doSpecialBasicBlock = false;
    uint32_t doMTE2Preload = 0;
    uint32_t singleCoreM = 0;
    uint32_t singleCoreN = 0;
    uint32_t singleCoreK = 0;
    uint32_t stepM = 0;
    uint32_t stepN = 0;
    uint32_t baseMN = 0;
    uint32_t singleCoreMN = 0;
    bool enUnitFlag = true;
    bool isPerTensor = false;
    bool hasAntiQuantOffset = false;
    bool doIBShareNorm = false;
    bool doSpecialMDL = false;
    bool enableInit = true;
    BatchMode batchMode = BatchMode::NONE;
    bool enableEnd = true;
    bool enableGetTensorC = true;
    bool enableSetOrgShape = true;
    bool enableSetBias = true;
    bool enableSetTail = true;
    bool enableQuantVector = true;
    bool enableSetDefineData = true;
    uint8_t iterateMode = IterateMode::ITERATE_MODE_DEFAULT;
    bool enableReuse = true;
    bool enableUBReuse = false;
    bool enableL1CacheUB = false;
    bool intraBlockPartSum = false;
    IterateOrder iterateOrder{IterateOrder::UNDEF};
    ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
    bool enableDoubleCache = false;
    bool isBiasBatch = true;
    bool enableStaticPadZeros = false;
    bool isPartialOutput = false;
    bool enableMixDualMaster = false;
    bool isA2B2Shared = false;
    bool isEnableChannelSplit = false;
    bool enableKdimReorderLoad = false;
    bool isCO1Shared = false;
    uint32_t sharedCO1BufferSize = SHARED_CO1_BUFFER_SIZE;
    BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
    bool enableL1BankConflictOptimise = false;
    bool enableRelu = false;
};

constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                       const bool isVecND2NZ = false,
                                       const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                       const bool isMsgReuse = true,
                                       const IterateOrder iterateOrder = IterateOrder::UNDEF,
                                       const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                       const bool enUnitFlag = true, const bool enableMixDualMaster = false,
                                       const BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH)
{
    MatmulConfig c{};
    c.doNorm = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.enVecND2NZ = isVecND2NZ;
    c.batchMode = bmmMode;
    c.enableReuse = isMsgReuse;
    c.enableUBReuse = true;
    c.iterateOrder = iterateOrder;
    c.scheduleType = scheduleType;
    c.enUnitFlag = enUnitFlag;
    c.enableMixDualMaster = enableMixDualMaster;
    c.bmmOutMode = bmmOutMode;
    return c;
}

// The MDL template differs in how it stages data in L1 (stepKa/stepKb), which the twin does not
// model: its results and iteration order are the Norm template's.
constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                    const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                    bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                    const bool enUnitFlag = false, const bool isMsgReuse = true,
                                    const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                    const bool enableMixDualMaster = false, const bool enableKdimReorderLoad = false)
{
    MatmulConfig c{};
    c.doMultiDataLoad = true;
    c.intrinsicsCheck = intrinsicsLimit;
    c.isNBatch = batchLoop;
    c.doMTE2Preload = doMTE2Preload;
    c.enVecND2NZ = isVecND2NZ;
    c.isPerTensor = isPerTensor;
    c.hasAntiQuantOffset = hasAntiQuantOffset;
    c.enUnitFlag = enUnitFlag;
    c.enableReuse = isMsgReuse;
    c.enableUBReuse = enableUBReuse;
    c.enableL1CacheUB = enableL1CacheUB;
    c.enableMixDualMaster = enableMixDualMaster;
    c.enableKdimReorderLoad = enableKdimReorderLoad;
    return c;
}

inline constexpr MatmulConfig CFG_NORM = GetNormalConfig();  // inline: one object, so Matmul types have linkage
inline constexpr MatmulConfig CFG_MDL = GetMDLConfig();

namespace AscendC {

// ---- matmul_type_def.h ----
template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
    constexpr static TPosition pos = POSITION;
    constexpr static CubeFormat format = FORMAT;
    using T = TYPE;
    constexpr static bool isTrans = ISTRANS;
    constexpr static LayoutMode layout = LAYOUT;
    constexpr static bool ibShare = IBSHARE;
    constexpr static TPosition srcPos = SRCPOS;
};

// User callbacks (DataCopyOut, CopyA1, CopyB1): accepted in the type, not emulated (a non-null one is
// a compile error in MatmulImpl).
template <auto DataCopyOut = nullptr, auto CopyA1 = nullptr, auto CopyB1 = nullptr>
struct MatmulCallBackFunc {
    constexpr static bool opgenTwinEmpty = DataCopyOut == nullptr && CopyA1 == nullptr && CopyB1 == nullptr;
};

struct MatrixOffset {
    int32_t offset;
    int32_t row;
    int32_t col;
    int32_t height;
    int32_t width;
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

inline bool PosIsUb(AscendC::TPosition p)
{
    return p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT || p == AscendC::TPosition::VECCALC;
}

// The A/B/bias/C element types Matmul takes (asc-devkit Matmul使用说明.md table 2, the
// floating-point rows of Atlas A2/A3): A = B in {half, bfloat16_t, float}; bias half or float; C
// float, half or bfloat16_t, except bfloat16_t inputs with a half bias and a bfloat16_t C. The
// narrower tables of other SoCs (Atlas inference: half inputs, float bias, C float or half; Atlas
// training: none) are not checked on the kernel side: per-SoC facts belong in opgen's SoC catalog
// (opgen_soc.h), which has no Matmul entry yet; the host's GetTiling refuses them by SocVersion.
// Integer inputs (int8_t, int4b_t) are not emulated.
template <class A, class B, class C, class Bias>
constexpr bool MatmulTypesOk()
{
    if (!std::is_same<A, B>::value) return false;
    const bool fa = std::is_same<A, half>::value || std::is_same<A, bfloat16_t>::value || std::is_same<A, float>::value;
    const bool fc = std::is_same<C, half>::value || std::is_same<C, bfloat16_t>::value || std::is_same<C, float>::value;
    const bool fb = std::is_same<Bias, half>::value || std::is_same<Bias, float>::value;
    if (!fa || !fc || !fb) return false;
    return !(std::is_same<A, bfloat16_t>::value && std::is_same<Bias, half>::value && std::is_same<C, bfloat16_t>::value);
}

template <class T>
inline float MatmulLoadF(const T* p, uint64_t i)
{
    return static_cast<float>(Load<T>(p, i));
}

// The GM region [0, extent) elements of `g` that a read or write of a matrix touches, checked once.
template <class T>
inline void MatmulCheckGm(const char* api, const AscendC::GlobalTensor<T>& g, const char* role, uint64_t extent)
{
    if (g.TwinPtr() == nullptr) {
        ThrowHardware(Format("%s: the %s GlobalTensor has no buffer", api, role));
    }
    g.TwinCheckAccess(api, 0, extent);
}

// The client of the objects REGIST_MATMUL_OBJ initialised for the server on the AIC.
constexpr int kMatmulServer = -2;

// What REGIST_MATMUL_OBJ's ASCubeObjConfig says of the objects (GetCubeObjConfig): the twin
// emulates neither MixDualMaster nor IBShare (MatmulImpl refuses them).
struct CubeObjConfig {
    static constexpr int8_t enableMixDualMasterValue = 0;
    static constexpr int8_t enableABShareValue = 0;
};

// A Matmul call through `client` (TwinSetClient): on an AIV, its client must live; on the AIC, the
// server's objects take no calls from the kernel.
inline void MatmulCheckClient(const char* api, int client)
{
    LaunchState& L = g_launch;
    if (client == kMatmulServer) {
        const char* fn = L.aicRegistFunction != nullptr ? L.aicRegistFunction : "?";
        ThrowHardware(Format("%s on the cube core (AIC): REGIST_MATMUL_OBJ, expanded in %s(), served the vector "
                             "cores and returned from %s(), and the AIC ran on into the kernel's Matmul calls, "
                             "which only the AIVs make. Expand REGIST_MATMUL_OBJ in the kernel entry function, "
                             "as asc-devkit's samples do",
                             api, fn, fn));
    }
    if (client < 0 || static_cast<size_t>(client) >= L.kfcClients.size()) return;
    const KfcClientState& c = L.kfcClients[client];
    if (!c.alive) {
        ThrowHardware(Format("%s: the Matmul object's client, which REGIST_MATMUL_OBJ declared in %s(), ended with "
                             "the scope of %s(): its destructor told the cube core to quit (SERVICE_QUIT), so this "
                             "call waits for an answer that never comes (on the NPU the kernel hangs). Expand "
                             "REGIST_MATMUL_OBJ in the kernel entry function, whose scope covers every Matmul call, "
                             "as asc-devkit's samples do",
                             api, c.function, c.function));
    }
    if (L.mix != nullptr && L.mix->request == nullptr) {
        L.mix->request = api;
        L.mix->requestAiv = L.subBlockIdx;
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>, typename = void>
class MatmulImpl {
public:
    using AType = A_TYPE;
    using BType = B_TYPE;
    using CType = C_TYPE;
    using BiasType = BIAS_TYPE;
    using CallBack = MM_CB;

private:
    using SrcAT = typename A_TYPE::T;
    using SrcBT = typename B_TYPE::T;
    using SrcT = typename A_TYPE::T;
    using DstT = typename C_TYPE::T;
    using BiasT = typename BIAS_TYPE::T;

    static_assert(opgen_twin::detail::MatmulTypesOk<SrcAT, SrcBT, DstT, BiasT>(),
                  "opgen twin: Matmul<A, B, C, Bias>: this combination of element types is not in asc-devkit's "
                  "table of Matmul input/output types (Atlas A2/A3: A = B = half, bfloat16_t or float, bias "
                  "half or float, C float, half or bfloat16_t, not bfloat16_t inputs with a half bias and a "
                  "bfloat16_t C); integer (int8_t/int4b_t) matmuls are not emulated");
    static_assert(A_TYPE::pos == TPosition::GM && B_TYPE::pos == TPosition::GM,
                  "opgen twin: Matmul: A and B must be in TPosition::GM (TSCM/VECOUT inputs are not emulated)");
    static_assert(BIAS_TYPE::pos == TPosition::GM || BIAS_TYPE::pos == C_TYPE::pos,
                  "opgen twin: Matmul: the bias must be in TPosition::GM (a UB/TSCM bias is not emulated)");
    static_assert(C_TYPE::pos == TPosition::GM || C_TYPE::pos == TPosition::VECIN ||
                      C_TYPE::pos == TPosition::VECOUT || C_TYPE::pos == TPosition::VECCALC,
                  "opgen twin: Matmul: C must be in TPosition::GM or a UB position (VECIN); CO1/TSCM outputs are "
                  "not emulated");
    static_assert(A_TYPE::format == CubeFormat::ND && B_TYPE::format == CubeFormat::ND &&
                      (C_TYPE::format == CubeFormat::ND || C_TYPE::format == CubeFormat::ND_ALIGN),
                  "opgen twin: Matmul: only CubeFormat::ND matrices are emulated (C also ND_ALIGN)");
    static_assert(A_TYPE::layout == LayoutMode::NONE && B_TYPE::layout == LayoutMode::NONE,
                  "opgen twin: Matmul: BatchMatmul layouts are not emulated");
    static_assert(MM_CB::opgenTwinEmpty, "opgen twin: Matmul: user callbacks (MatmulCallBackFunc) are not emulated");
    static_assert(!MM_CFG.enableMixDualMaster, "opgen twin: Matmul: enableMixDualMaster is not emulated");
    static_assert(MM_CFG.scheduleType == ScheduleType::INNER_PRODUCT,
                  "opgen twin: Matmul: ScheduleType::OUTER_PRODUCT is not emulated");

public:
    MatmulImpl() = default;

    // A TCubeTiling field GetTiling would not have produced.
    static void BadTiling(const char* api, const char* field, int32_t v, const char* rule)
    {
        Fail(api, opgen_twin::detail::Format(
                      "TCubeTiling.%s = %d %s (not a tiling GetTiling produced: did GetTiling return -1, or "
                      "was the tiling not copied into the kernel's tiling data?)",
                      field, v, rule));
    }
    // The shapes of a tiling: all positive.
    static void CheckTilingShapes(const char* api, const TCubeTiling& t)
    {
        if (t.M <= 0) BadTiling(api, "M", t.M, "is not positive");
        if (t.N <= 0) BadTiling(api, "N", t.N, "is not positive");
        if (t.Ka <= 0) BadTiling(api, "Ka", t.Ka, "is not positive");
        if (t.Kb <= 0) BadTiling(api, "Kb", t.Kb, "is not positive");
        if (t.singleCoreM <= 0) BadTiling(api, "singleCoreM", t.singleCoreM, "is not positive");
        if (t.singleCoreN <= 0) BadTiling(api, "singleCoreN", t.singleCoreN, "is not positive");
        if (t.singleCoreK <= 0) BadTiling(api, "singleCoreK", t.singleCoreK, "is not positive");
    }
    // The base blocks, steps and order of a tiling: whole fractals, within L0C.
    static void CheckTilingBlocks(const char* api, const TCubeTiling& t)
    {
        if (t.baseM <= 0 || t.baseM % 16 != 0) BadTiling(api, "baseM", t.baseM, "is not a positive multiple of 16");
        if (t.baseN <= 0 || t.baseN % 16 != 0) BadTiling(api, "baseN", t.baseN, "is not a positive multiple of 16");
        const int32_t c0k = static_cast<int32_t>(32 / sizeof(SrcAT));
        if (t.baseK <= 0 || t.baseK % c0k != 0) {
            BadTiling(api, "baseK", t.baseK, "is not a positive multiple of 32 bytes of A");
        }
        if (t.stepM <= 0) BadTiling(api, "stepM", t.stepM, "is not positive");
        if (t.stepN <= 0) BadTiling(api, "stepN", t.stepN, "is not positive");
        if (t.iterateOrder != 0 && t.iterateOrder != 1) {
            BadTiling(api, "iterateOrder", t.iterateOrder, "is neither 0 nor 1");
        }
        if (static_cast<int64_t>(t.baseM) * t.baseN * 4 > 131072) {
            Fail(api, opgen_twin::detail::Format("baseM x baseN = %d x %d float results exceed L0C (128 KB)", t.baseM,
                                                 t.baseN));
        }
    }

    void Init(const TCubeTiling* __restrict cubeTiling, TPipe* tpipe = nullptr)
    {
        const char* api = "Matmul::Init";
        if (cubeTiling == nullptr) {
            Fail(api, "the TCubeTiling pointer is null");
        }
        const TCubeTiling& t = *cubeTiling;
        CheckTilingShapes(api, t);
        CheckTilingBlocks(api, t);
        tiling_ = t;
        pipe_ = tpipe;
        inited_ = true;
        orgM_ = t.M;
        orgN_ = t.N;
        orgKa_ = t.Ka;
        orgKb_ = t.Kb;
        orgKc_ = 0;
        singleM_ = t.singleCoreM;
        singleN_ = t.singleCoreN;
        singleK_ = t.singleCoreK;
        hasA_ = hasB_ = false;
        biasOn_ = false;
        ResetIteration();
    }

    void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK); }
    void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0)
    {
        const char* api = "Matmul::SetOrgShape";
        CheckInit(api);
        if (orgM <= 0 || orgN <= 0 || orgKa <= 0 || orgKb <= 0 || orgKc < 0) {
            Fail(api, opgen_twin::detail::Format("shape (%d, %d, %d, %d, %d) has a dimension that is not positive",
                                                 orgM, orgN, orgKa, orgKb, orgKc));
        }
        orgM_ = orgM;
        orgN_ = orgN;
        orgKa_ = orgKa;
        orgKb_ = orgKb;
        orgKc_ = orgKc;
        ResetIteration();
    }
    void SetSingleShape(int singleM, int singleN, int singleK)
    {
        const char* api = "Matmul::SetSingleShape";
        CheckInit(api);
        if (singleM <= 0 || singleN <= 0 || singleK <= 0) {
            Fail(api, opgen_twin::detail::Format("(%d, %d, %d) has a dimension that is not positive", singleM, singleN,
                                                 singleK));
        }
        singleM_ = singleM;
        singleN_ = singleN;
        singleK_ = singleK;
        ResetIteration();
    }
    // A tail: a smaller singleCoreM/N/K for this core (-1 keeps the current value).
    void SetTail(int tailM = -1, int tailN = -1, int tailK = -1)
    {
        const char* api = "Matmul::SetTail";
        CheckInit(api);
        auto one = [&](const char* name, int v, int32_t tilingV, int32_t& out) {
            if (v == -1) return;
            if (v <= 0 || v > tilingV) {
                Fail(api, opgen_twin::detail::Format(
                              "%s = %d is not in [1, %d], the tiling's singleCore%s (SetTail sets a smaller block for "
                              "an edge core; use SetSingleShape to change the shape)",
                              name, v, tilingV, name + 4));
            }
            out = v;
        };
        one("tailM", tailM, tiling_.singleCoreM, singleM_);
        one("tailN", tailN, tiling_.singleCoreN, singleN_);
        one("tailK", tailK, tiling_.singleCoreK, singleK_);
        ResetIteration();
    }
    void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false)
    {
        const char* api = "Matmul::SetTensorA";
        CheckInit(api);
        if (isTransposeA && !A_TYPE::isTrans) {
            Fail(api, "isTransposeA = true but the A MatmulType's ISTRANS is false (the NPU gives wrong results); "
                      "declare MatmulType<..., true> for A");
        }
        a_ = gm;
        transA_ = isTransposeA;
        hasA_ = true;
        ResetIteration();
    }
    void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false)
    {
        const char* api = "Matmul::SetTensorB";
        CheckInit(api);
        if (isTransposeB && !B_TYPE::isTrans) {
            Fail(api, "isTransposeB = true but the B MatmulType's ISTRANS is false (the NPU gives wrong results); "
                      "declare MatmulType<..., true> for B");
        }
        b_ = gm;
        transB_ = isTransposeB;
        hasB_ = true;
        ResetIteration();
    }
    void SetBias(const GlobalTensor<BiasT>& biasGlobal)
    {
        const char* api = "Matmul::SetBias";
        CheckInit(api);
        if (tiling_.isBias == 0) {
            Fail(api, "the tiling has isBias = 0: enable the bias on the host (EnableBias(true)/SetBias(true)) before "
                      "GetTiling");
        }
        bias_ = biasGlobal;
        biasOn_ = true;
        ResetIteration();
    }
    void DisableBias()
    {
        CheckInit("Matmul::DisableBias");
        biasOn_ = false;
        ResetIteration();
    }
    void ClearBias() { DisableBias(); }
    template <class T>
    void SetSelfDefineData(T)
    {}
    void SetUserDefInfo(const uint64_t) {}
    void SetHF32(bool enableHF32 = false, int32_t transMode = 0)
    {
        (void)transMode;
        if (enableHF32) {
            Fail("Matmul::SetHF32", "HF32 mode (float inputs rounded to HF32) is not emulated");
        }
    }
    void SetSubBlockIdx(uint8_t) {}
    uint8_t GetSubBlockIdx() { return static_cast<uint8_t>(opgen_twin::detail::g_launch.subBlockIdx); }
    void SetLocalWorkspace(const LocalTensor<uint8_t>&) {}
    template <class T>
    void SetWorkspace(__gm__ const T*, int)
    {}
    template <class T>
    void SetWorkspace(GlobalTensor<T>&)
    {}

    // One baseM x baseN block of C (the last ones are the tails); false when all are done.
    template <bool sync = true>
    bool Iterate(bool enPartialSum = false)
    {
        const char* api = "Matmul::Iterate";
        if (enPartialSum) {
            Fail(api, "enPartialSum = true (accumulating onto L0C) is not emulated");
        }
        CheckReady(api);
        if (!sync) {
            Fail(api, "Iterate<false> (asynchronous, with a workspace) is not emulated; use Iterate<true>");
        }
        if (!NextBlock()) {
            tileValid_ = false;
            return false;
        }
        ComputeTile(curM_, curN_);
        tileValid_ = true;
        tileFetched_ = false;
        return true;
    }

    // The current block into UB. enSequentialWrite = true: packed [rows, cols] of this block (rows
    // the block's height, cols its width, baseM x baseN except at the tails); false: at its place in a
    // [singleCoreM, singleCoreN] matrix.
    template <bool sync = true>
    void GetTensorC(const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0, bool enSequentialWrite = false)
    {
        const char* api = "Matmul::GetTensorC(LocalTensor)";
        static_assert(C_TYPE::pos != TPosition::GM,
                      "opgen twin: Matmul::GetTensorC(LocalTensor): C's MatmulType is TPosition::GM; declare C in "
                      "TPosition::VECIN to get blocks into UB");
        CheckTile(api);
        if (enAtomic != 0) {
            Fail(api, "enAtomic must be 0 when the output is in UB (atomic operations exist only towards GM)");
        }
        co2Local.TwinCheckLive(api, "co2Local");
        const bool align = C_TYPE::format == CubeFormat::ND_ALIGN;
        const uint32_t c0 = 32 / sizeof(DstT);
        const uint32_t w = align ? (tileCols_ + c0 - 1) / c0 * c0 : tileCols_;
        uint64_t stride, offset;
        if (enSequentialWrite) {
            stride = w;
            offset = 0;
        } else {
            const uint32_t sn = static_cast<uint32_t>(singleN_);
            stride = align ? (sn + c0 - 1) / c0 * c0 : sn;
            offset = static_cast<uint64_t>(curM_) * tiling_.baseM * stride + static_cast<uint64_t>(curN_) * tiling_.baseN;
        }
        const uint64_t need = offset + (tileRows_ - 1) * stride + w;
        if (need > co2Local.GetSize()) {
            Fail(api, opgen_twin::detail::Format(
                          "the block (%u x %u %s, %s) needs %llu elements of the UB tensor but it has %u", tileRows_,
                          tileCols_, opgen_twin::detail::TypeName<DstT>(),
                          enSequentialWrite ? "enSequentialWrite: packed" : "at its place in singleCoreM x singleCoreN",
                          static_cast<unsigned long long>(need), co2Local.GetSize()));
        }
        uint8_t* d = static_cast<uint8_t*>(co2Local.TwinData());
        for (uint32_t i = 0; i < tileRows_; ++i) {
            for (uint32_t j = 0; j < w; ++j) {
                const DstT v = j < tileCols_ ? DstT(acc_[static_cast<size_t>(i) * tileCols_ + j]) : DstT(0.0f);
                opgen_twin::detail::Store<DstT>(d, offset + i * stride + j, v);
            }
        }
        tileFetched_ = true;
    }

    // The current block into GM: enSequentialWrite = true packed at gm[0] ([rows, cols]); false at its
    // place in C (row stride N, or orgKc of SetOrgShape). enAtomic: 1 add, 2 max, 3 min.
    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false)
    {
        const char* api = "Matmul::GetTensorC(GlobalTensor)";
        CheckTile(api);
        WriteTileGm(api, gm, enAtomic, enSequentialWrite);
        tileFetched_ = true;
    }

    template <bool sync = true>
    void GetTensorC(const GlobalTensor<DstT>& gm, const LocalTensor<DstT>& co2Local, uint8_t enAtomic = 0,
                    bool enSequentialWrite = false)
    {
        GetTensorC<sync>(co2Local, 0, enSequentialWrite);
        const char* api = "Matmul::GetTensorC(GlobalTensor, LocalTensor)";
        WriteTileGm(api, gm, enAtomic, enSequentialWrite);
    }

    // All of singleCoreM x singleCoreN into GM at once (C's row stride N, or orgKc).
    template <bool sync = true>
    void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                    bool waitIterateAll = false, bool fakeMsg = false)
    {
        (void)waitIterateAll;
        const char* api = "Matmul::IterateAll";
        if (!sync) {
            Fail(api, "IterateAll<false> (asynchronous) is not emulated; use IterateAll<true>");
        }
        if (fakeMsg) {
            Fail(api, "fakeMsg = true (IBShare / intraBlockPartSum) is not emulated");
        }
        if (enSequentialWrite) {
            Fail(api, "enSequentialWrite = true is not emulated for IterateAll");
        }
        CheckReady(api);
        ResetIteration();
        while (NextBlock()) {
            ComputeTile(curM_, curN_);
            tileValid_ = true;
            WriteTileGm(api, gm, enAtomic, false);
        }
        tileValid_ = false;
        ResetIteration();
    }
    template <bool sync = true>
    void IterateAll(const LocalTensor<DstT>& ubCmatrix, uint8_t enAtomic = 0)
    {
        const char* api = "Matmul::IterateAll(LocalTensor)";
        CheckReady(api);
        ResetIteration();
        while (NextBlock()) {
            ComputeTile(curM_, curN_);
            tileValid_ = true;
            GetTensorC<sync>(ubCmatrix, enAtomic, false);
        }
        tileValid_ = false;
        ResetIteration();
    }

    template <bool isTurnOnDebug = true>
    MatrixOffset GetOffsetC()
    {
        CheckTile("Matmul::GetOffsetC");
        MatrixOffset o{};
        o.row = static_cast<int32_t>(curM_ * tiling_.baseM);
        o.col = static_cast<int32_t>(curN_ * tiling_.baseN);
        o.height = static_cast<int32_t>(tileRows_);
        o.width = static_cast<int32_t>(tileCols_);
        o.offset = o.row * singleN_ + o.col;
        return o;
    }

    void End()
    {
        CheckInit("Matmul::End");
        tileValid_ = false;
        ResetIteration();
    }

    // ---- twin internals ----
    void TwinSetPipe(TPipe* p) { pipe_ = p; }
    // REGIST_MATMUL_OBJ's client on an AIV (an index in the core's LaunchState::kfcClients), or the
    // server's object on the AIC (kMatmulServer); -1: neither (a non-split SoC, mm.Init alone).
    void TwinSetClient(int client) { client_ = client; }

private:
    [[noreturn]] static void Fail(const char* api, const std::string& msg)
    {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s (Matmul<%s, %s, %s, bias %s>): %s", api, opgen_twin::detail::TypeName<SrcAT>(),
            opgen_twin::detail::TypeName<SrcBT>(), opgen_twin::detail::TypeName<DstT>(),
            opgen_twin::detail::TypeName<BiasT>(), msg.c_str()));
    }
    void CheckInit(const char* api) const
    {
        if (!inited_) {
            Fail(api, "the Matmul object was not initialised: call REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), "
                      "mm, &tiling) (or mm.Init(&tiling)) first");
        }
        if (client_ != -1) opgen_twin::detail::MatmulCheckClient(api, client_);
    }
    void CheckReady(const char* api)
    {
        CheckInit(api);
        if (!hasA_) Fail(api, "SetTensorA was not called");
        if (!hasB_) Fail(api, "SetTensorB was not called");
        if (singleK_ > orgKa_ || singleK_ > orgKb_) {
            Fail(api, opgen_twin::detail::Format(
                          "singleCoreK = %d exceeds Ka = %d or Kb = %d (A's and B's K): the K of A and B disagree "
                          "with the tiling",
                          singleK_, orgKa_, orgKb_));
        }
        if (!checked_) {
            const uint64_t m = singleM_, n = singleN_, k = singleK_;
            const uint64_t aExt = transA_ ? (k - 1) * orgM_ + m : (m - 1) * orgKa_ + k;
            const uint64_t bExt = transB_ ? (n - 1) * orgKb_ + k : (k - 1) * orgN_ + n;
            if (!transA_ && k > static_cast<uint64_t>(orgKa_)) Fail(api, "singleCoreK exceeds Ka");
            if (transA_ && m > static_cast<uint64_t>(orgM_)) {
                Fail(api, opgen_twin::detail::Format("singleCoreM = %d exceeds M = %d (A is transposed: [K, M])",
                                                     singleM_, orgM_));
            }
            if (!transB_ && n > static_cast<uint64_t>(orgN_)) {
                Fail(api, opgen_twin::detail::Format("singleCoreN = %d exceeds N = %d (B: [K, N])", singleN_, orgN_));
            }
            opgen_twin::detail::MatmulCheckGm(api, a_, "A", aExt);
            opgen_twin::detail::MatmulCheckGm(api, b_, "B", bExt);
            if (biasOn_) opgen_twin::detail::MatmulCheckGm(api, bias_, "bias", n);
            checked_ = true;
        }
    }
    void CheckTile(const char* api) const
    {
        CheckInit(api);
        if (!tileValid_) {
            Fail(api, "no block to fetch: call Iterate() first (and only while it returns true)");
        }
    }
    void ResetIteration()
    {
        started_ = false;
        tileValid_ = false;
        checked_ = false;
        iter_ = 0;
    }
    // The Norm scheduler's walk: ORDER_M (0): for N groups, M groups, M in the group, N in the group
    // (stepN = 1: M advances first); ORDER_N (1) the mirror image.
    bool NextBlock()
    {
        const uint32_t mIter = (singleM_ + tiling_.baseM - 1) / tiling_.baseM;
        const uint32_t nIter = (singleN_ + tiling_.baseN - 1) / tiling_.baseN;
        if (!started_) {
            order_.clear();
            int order = tiling_.iterateOrder;
            if (MM_CFG.iterateOrder != IterateOrder::UNDEF) order = static_cast<int>(MM_CFG.iterateOrder);
            const uint32_t sm = static_cast<uint32_t>(tiling_.stepM), sn = static_cast<uint32_t>(tiling_.stepN);
            if (order == 0) {
                for (uint32_t n0 = 0; n0 < nIter; n0 += sn)
                    for (uint32_t m0 = 0; m0 < mIter; m0 += sm)
                        for (uint32_t m = m0; m < std::min(m0 + sm, mIter); ++m)
                            for (uint32_t n = n0; n < std::min(n0 + sn, nIter); ++n) order_.push_back({m, n});
            } else {
                for (uint32_t m0 = 0; m0 < mIter; m0 += sm)
                    for (uint32_t n0 = 0; n0 < nIter; n0 += sn)
                        for (uint32_t n = n0; n < std::min(n0 + sn, nIter); ++n)
                            for (uint32_t m = m0; m < std::min(m0 + sm, mIter); ++m) order_.push_back({m, n});
            }
            started_ = true;
            iter_ = 0;
        }
        if (iter_ >= order_.size()) return false;
        curM_ = order_[iter_].first;
        curN_ = order_[iter_].second;
        ++iter_;
        return true;
    }
    void ComputeTile(uint32_t bm, uint32_t bn)
    {
        const uint32_t r0 = bm * tiling_.baseM, c0 = bn * tiling_.baseN;
        tileRows_ = std::min<uint32_t>(tiling_.baseM, singleM_ - r0);
        tileCols_ = std::min<uint32_t>(tiling_.baseN, singleN_ - c0);
        acc_.assign(static_cast<size_t>(tileRows_) * tileCols_, 0.0f);
        const SrcAT* a = a_.TwinPtr();
        const SrcBT* b = b_.TwinPtr();
        const size_t K = static_cast<size_t>(singleK_);
        // B's block as [cols][K], then each row of A against it: sum in float, bias first, k in order.
        std::vector<float> bt(static_cast<size_t>(tileCols_) * K);
        for (uint32_t j = 0; j < tileCols_; ++j) {
            const uint64_t col = c0 + j;
            for (size_t k = 0; k < K; ++k) {
                const uint64_t idx = transB_ ? col * orgKb_ + k : static_cast<uint64_t>(k) * orgN_ + col;
                bt[j * K + k] = opgen_twin::detail::MatmulLoadF(b, idx);
            }
        }
        std::vector<float> init(tileCols_, 0.0f);
        if (biasOn_) {
            for (uint32_t j = 0; j < tileCols_; ++j) init[j] = opgen_twin::detail::MatmulLoadF(bias_.TwinPtr(), c0 + j);
        }
        std::vector<float> arow(K);
        for (uint32_t i = 0; i < tileRows_; ++i) {
            const uint64_t row = r0 + i;
            for (size_t k = 0; k < K; ++k) {
                const uint64_t idx = transA_ ? static_cast<uint64_t>(k) * orgM_ + row : row * orgKa_ + k;
                arow[k] = opgen_twin::detail::MatmulLoadF(a, idx);
            }
            for (uint32_t j = 0; j < tileCols_; ++j) {
                const float* bj = &bt[j * K];
                float s = init[j];
                for (size_t k = 0; k < K; ++k) s += arow[k] * bj[k];
                acc_[static_cast<size_t>(i) * tileCols_ + j] = s;
            }
        }
    }
    void WriteTileGm(const char* api, const GlobalTensor<DstT>& gm, uint8_t enAtomic, bool enSequentialWrite)
    {
        if (enAtomic > 3) {
            Fail(api, opgen_twin::detail::Format("enAtomic = %u is not 0 (none), 1 (add), 2 (max) or 3 (min)", enAtomic));
        }
        // ND_ALIGN: C's rows 32 bytes apart at least, the padding after each row's last column 0.
        const uint32_t c0 = C_TYPE::format == CubeFormat::ND_ALIGN ? 32 / sizeof(DstT) : 1;
        const uint32_t w = (tileCols_ + c0 - 1) / c0 * c0;
        const uint64_t ldc = (static_cast<uint64_t>(orgKc_ != 0 ? orgKc_ : orgN_) + c0 - 1) / c0 * c0;
        uint64_t stride, offset;
        if (enSequentialWrite) {
            stride = w;
            offset = 0;
        } else {
            stride = ldc;
            offset = static_cast<uint64_t>(curM_) * tiling_.baseM * ldc + static_cast<uint64_t>(curN_) * tiling_.baseN;
        }
        opgen_twin::detail::MatmulCheckGm(api, gm, "C", offset + (tileRows_ - 1) * stride + w);
        DstT* c = gm.TwinPtr();
        for (uint32_t i = 0; i < tileRows_; ++i) {
            DstT* row = c + offset + i * stride;
            for (uint32_t j = tileCols_; j < w; ++j) opgen_twin::detail::Store<DstT>(row, j, DstT(0.0f));
            for (uint32_t j = 0; j < tileCols_; ++j) {
                const float v = acc_[static_cast<size_t>(i) * tileCols_ + j];
                DstT out = DstT(v);
                if (enAtomic != 0) {
                    const float old = static_cast<float>(opgen_twin::detail::Load<DstT>(row, j));
                    out = enAtomic == 1 ? DstT(old + static_cast<float>(out))
                                        : enAtomic == 2 ? (old > static_cast<float>(out) ? DstT(old) : out)
                                                        : (old < static_cast<float>(out) ? DstT(old) : out);
                }
                opgen_twin::detail::Store<DstT>(row, j, out);
            }
            opgen_twin::detail::NoteGmWrite(false, row, static_cast<uint64_t>(w) * sizeof(DstT), enAtomic != 0);
        }
    }

    TCubeTiling tiling_{};
    TPipe* pipe_ = nullptr;
    bool inited_ = false;
    int client_ = -1;
    int32_t orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0, orgKc_ = 0;
    int32_t singleM_ = 0, singleN_ = 0, singleK_ = 0;
    GlobalTensor<SrcAT> a_;
    GlobalTensor<SrcBT> b_;
    GlobalTensor<BiasT> bias_;
    bool hasA_ = false, hasB_ = false, transA_ = false, transB_ = false, biasOn_ = false;
    bool started_ = false, tileValid_ = false, tileFetched_ = false, checked_ = false;
    std::vector<std::pair<uint32_t, uint32_t>> order_;
    size_t iter_ = 0;
    uint32_t curM_ = 0, curN_ = 0, tileRows_ = 0, tileCols_ = 0;
    std::vector<float> acc_;
};

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class MM_CB = MatmulCallBackFunc<nullptr, nullptr, nullptr>>
using Matmul = MatmulImpl<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, MM_CB>;

// REGIST_MATMUL_OBJ(tpipe, workspace, mm1, &tiling1, mm2, &tiling2, ...) or (tpipe, workspace, mm):
// each object's Init(tiling, tpipe), as kfc_register_obj.h's InitCurObj.
// `client`: the AIV's client each object sends its calls through (SetMatrixKfc), the server's mark
// on the AIC (server.InitObj), or -1.
template <class MM>
inline void TwinInitCurObj(TPipe* tpipe, int client, MM& a)
{
    a.TwinSetPipe(tpipe);
    a.TwinSetClient(client);
}
template <class MM, class TilingT, class... Rest>
inline void TwinInitCurObj(TPipe* tpipe, int client, MM& a, TilingT* tiling, Rest&&... rest)
{
    a.Init(tiling, tpipe);
    a.TwinSetClient(client);
    if constexpr (sizeof...(rest) > 0) {
        TwinInitCurObj(tpipe, client, rest...);
    }
}

// The client REGIST_MATMUL_OBJ declares on an AIV of a SoC with split cores (asc-devkit
// kfc_register_obj.h, SPLIT_CORE_VEC: `AscendC::KfcCommClient __kfcClient__` in the scope the macro
// is expanded in). The Matmul objects keep its address; its destructor sends SERVICE_QUIT to the
// cube core (dav_c220 kfc_comm_client.h), whose server stops once every AIV of the group has quit.
class KfcCommClient {
public:
    KfcCommClient(GM_ADDR workspace, const char* function, bool cubeOnly)
    {
        (void)workspace;
        opgen_twin::detail::LaunchState& L = opgen_twin::detail::g_launch;
        if (!L.splitCores || cubeOnly || L.coreType != opgen_twin::detail::kCoreAiv) {
            return;
        }
        L.kfcClients.push_back({function, true});
        index_ = static_cast<int>(L.kfcClients.size()) - 1;
        if (L.mix != nullptr) ++L.mix->aivClients;
    }
    ~KfcCommClient()
    {
        std::vector<opgen_twin::detail::KfcClientState>& clients = opgen_twin::detail::g_launch.kfcClients;
        if (index_ >= 0 && static_cast<size_t>(index_) < clients.size()) clients[index_].alive = false;
    }
    KfcCommClient(const KfcCommClient&) = delete;
    KfcCommClient& operator=(const KfcCommClient&) = delete;
    int TwinIndex() const { return index_; }

private:
    int index_ = -1;
};

}  // namespace AscendC

// Compatible with the previously used matmul namespace (asc-devkit matmul.h).
namespace matmul = AscendC;

namespace opgen_twin {
namespace detail {

// What REGIST_MATMUL_OBJ checks before initialising the objects: the pipe, the system workspace
// (GetLibApiWorkSpaceSize() bytes the host must add to the workspace), and the kernel type: a kernel
// that did not declare one is taken as the compiler takes a kernel with Matmul and vector code,
// KERNEL_TYPE_MIX_AIC_1_2 (KERNEL_TYPE_AIC_ONLY with ASCENDC_CUBE_ONLY defined before
// lib/matmul_intf.h).
template <int Arch>
inline void MatmulCheckRegister(const void* tpipe, const void* workspace, bool cubeOnly)
{
    const char* api = "REGIST_MATMUL_OBJ";
    if (tpipe == nullptr) {
        ThrowHardware(Format("%s: the TPipe pointer is null", api));
    }
    LaunchState& L = g_launch;
    if (!L.gm.empty()) {
        if (workspace == nullptr) {
            ThrowHardware(Format("%s: the system workspace is null: the Matmul API needs GetLibApiWorkSpaceSize() "
                                 "bytes of workspace (host: add it to GetWorkspaceSizes; kernel: pass "
                                 "GetSysWorkSpacePtr())",
                                 api));
        }
        const GmRegion* r = FindGmRegion(workspace);
        const uint64_t avail = r == nullptr ? 0 : r->bytes - static_cast<uint64_t>(static_cast<const uint8_t*>(workspace) - r->begin);
        if (r == nullptr || avail < L.sysWorkspaceBytes) {
            ThrowHardware(Format("%s: the system workspace has %llu bytes, less than the %u bytes of "
                                 "GetLibApiWorkSpaceSize() the Matmul API needs (host: workspace sizes must include "
                                 "PlatformAscendC::GetLibApiWorkSpaceSize())",
                                 api, static_cast<unsigned long long>(avail), L.sysWorkspaceBytes));
        }
    }
    if (L.kernelType < 0) {
        SetKernelType<Arch>(cubeOnly ? KERNEL_TYPE_AIC_ONLY : KERNEL_TYPE_MIX_AIC_1_2, api);
    } else if (L.kernelType == KERNEL_TYPE_AIV_ONLY || L.kernelType == KERNEL_TYPE_MIX_AIV_1_0) {
        ThrowHardware(Format("%s: the kernel type (KERNEL_TASK_TYPE_DEFAULT) starts no cube core; a kernel with "
                             "Matmul is KERNEL_TYPE_MIX_AIC_1_2 (or KERNEL_TYPE_AIC_ONLY for a cube-only one)",
                             api));
    }
}

// Returns true where the macro returns from the function it is expanded in: on the AIC of a mixed
// kernel, having served the AIVs (the twin computes their calls in the AIVs), and on an AIV of a
// cube-only one; Arch is the kernel's __NPU_ARCH__, `function` the function it is expanded in.
template <int Arch>
inline bool MatmulRegister(const void* tpipe, const void* workspace, bool cubeOnly, const char* function)
{
    MatmulCheckRegister<Arch>(tpipe, workspace, cubeOnly);
    LaunchState& L = g_launch;
    if (!L.splitCores) return false;
    if (cubeOnly) return L.coreType == kCoreAiv;
    if (L.coreType != kCoreAic) return false;
    if (L.mix != nullptr) L.mix->aicServed = true;
    L.aicRegistFunction = function;
    return true;
}

}  // namespace detail
}  // namespace opgen_twin

// REGIST_MATMUL_OBJ as asc-devkit's REGIST_CUBE_OBJ expands on each core (kfc_register_obj.h): on
// the AIC of a mixed kernel (SPLIT_CORE_CUBE) it initialises the server's objects, serves the AIVs
// and `return`s from the function it is expanded in; on an AIV (SPLIT_CORE_VEC) it declares
// `__kfcClient__` in the enclosing scope, the client every Matmul call goes through until that
// scope ends; on a SoC without split cores it initialises the objects (InitCurObj). With
// ASCENDC_CUBE_ONLY: InitCurObj on the AIC, `return` on an AIV. Both declare ASCubeObjConfig and
// asEnableMixDualMaster in the enclosing scope, as the split-core expansions do.
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                                                   \
    using ASCubeObjConfig [[maybe_unused]] = ::opgen_twin::detail::CubeObjConfig;                  \
    [[maybe_unused]] constexpr int8_t asEnableMixDualMaster = ASCubeObjConfig::enableMixDualMasterValue; \
    if (::opgen_twin::detail::MatmulRegister<::opgen_twin::detail::kNpuArch>(                      \
            tpipe, workspace, opgen_twin_matmul_cube_only::value, __func__)) {                     \
        ::AscendC::TwinInitCurObj(tpipe, opgen_twin_matmul_cube_only::value                       \
                                             ? -1 : ::opgen_twin::detail::kMatmulServer, __VA_ARGS__);   \
        return;                                                                                    \
    }                                                                                              \
    ::AscendC::KfcCommClient __kfcClient__(workspace, __func__, opgen_twin_matmul_cube_only::value); \
    ::AscendC::TwinInitCurObj(tpipe, __kfcClient__.TwinIndex(), __VA_ARGS__)
#define REGIST_MATMUL_OBJ_STATIC REGIST_MATMUL_OBJ
#define REGIST_CUBE_OBJ REGIST_MATMUL_OBJ

#endif  // OPGEN_TWIN_DETAIL_KERNEL_MATMUL_H
