// Checks of the twin's Matmul API misuse errors (kernel side), of the mixed kernel's block indexing,
// and of matmul_tiling's GetTiling (its -1 cases and the constraints of the tilings it gives).
// Run by tests/twin/test_matmul.py; prints FAIL lines and a SUMMARY.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "tiling/tiling_api.h"

using namespace AscendC;
namespace mt = matmul_tiling;

namespace {

using AT = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using ATT = MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
using CUb = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
using CGm = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using BiasT = MatmulType<TPosition::GM, CubeFormat::ND, float>;

template <class F>
std::string ErrorOf(F f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

#define CHECK_ERR(expr, needle)                                                                        \
    do {                                                                                               \
        const std::string msg_ = ErrorOf([&]() { expr; });                                             \
        CHECK(msg_.find(needle) != std::string::npos, "expected an error containing '%s', got '%s'", \
              needle, msg_.c_str());                                                                   \
    } while (0)

TCubeTiling Tiling(int m, int n, int k, int baseM = 32, int baseN = 32, int baseK = 32, bool bias = false)
{
    TCubeTiling t;
    t.usedCoreNum = 1;
    t.M = m;
    t.N = n;
    t.Ka = k;
    t.Kb = k;
    t.singleCoreM = m;
    t.singleCoreN = n;
    t.singleCoreK = k;
    t.baseM = baseM;
    t.baseN = baseN;
    t.baseK = baseK;
    t.stepM = 1;
    t.stepN = 1;
    t.stepKa = 1;
    t.stepKb = 1;
    t.depthA1 = 2;
    t.depthB1 = 2;
    t.isBias = bias ? 1 : 0;
    return t;
}

struct Data {
    std::vector<half> a, b;
    std::vector<float> bias, c;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gbias, gc;
    Data(int m, int n, int k) : a(m * k, half(1.0f)), b(k * n, half(2.0f)), bias(n, 0.5f), c(m * n, 0.0f)
    {
        ga.SetGlobalBuffer(a.data(), a.size());
        gb.SetGlobalBuffer(b.data(), b.size());
        gbias.SetGlobalBuffer(bias.data(), bias.size());
        gc.SetGlobalBuffer(c.data(), c.size());
    }
};

void KernelMisuse()
{
    opgen_twin::detail::g_launch = opgen_twin::detail::LaunchState();
    TPipe pipe;
    TCubeTiling t = Tiling(64, 64, 64);
    Data d(64, 64, 64);
    {
        Matmul<AT, AT, CGm, BiasT> mm;
        CHECK_ERR(mm.SetTensorA(d.ga), "Matmul::SetTensorA (Matmul<half, half, float, bias float>): the Matmul object was not initialised");
        mm.Init(&t, &pipe);
        CHECK_ERR(mm.Iterate(), "Matmul::Iterate (Matmul<half, half, float, bias float>): SetTensorA was not called");
        mm.SetTensorA(d.ga);
        CHECK_ERR(mm.Iterate(), "Matmul::Iterate (Matmul<half, half, float, bias float>): SetTensorB was not called");
        CHECK_ERR(mm.IterateAll(d.gc), "Matmul::IterateAll (Matmul<half, half, float, bias float>): SetTensorB was not called");
        mm.SetTensorB(d.gb);
        CHECK_ERR(mm.GetTensorC(d.gc), "Matmul::GetTensorC(GlobalTensor) (Matmul<half, half, float, bias float>): no block to fetch");
        CHECK_ERR(mm.SetTail(65, -1), "Matmul::SetTail (Matmul<half, half, float, bias float>): tailM = 65 is not in [1, 64]");
        CHECK_ERR(mm.SetTail(-1, -1, 0), "tailK = 0 is not in [1, 64]");
        CHECK_ERR(mm.SetBias(d.gbias), "the tiling has isBias = 0");
        CHECK_ERR(mm.SetTensorA(d.ga, true), "isTransposeA = true but the A MatmulType's ISTRANS is false");
        CHECK_ERR(mm.template Iterate<false>(), "Iterate<false> (asynchronous, with a workspace) is not emulated");
        // K mismatch: A and B hold only 32 columns/rows of K while the tiling's singleCoreK is 64.
        mm.SetOrgShape(64, 64, 32, 32);
        CHECK_ERR(mm.Iterate(), "singleCoreK = 64 exceeds Ka = 32 or Kb = 32");
        mm.SetOrgShape(64, 64, 64);
        // All blocks, then GetTensorC after Iterate returned false.
        int n = 0;
        while (mm.Iterate()) {
            mm.GetTensorC(d.gc);
            ++n;
        }
        CHECK(n == 4, "64 x 64 in 32 x 32 blocks: %d Iterate rounds", n);
        CHECK(d.c[0] == 128.0f && d.c[64 * 64 - 1] == 128.0f, "C = 64 * 1 * 2: %g %g", d.c[0], d.c[4095]);
        CHECK_ERR(mm.GetTensorC(d.gc), "no block to fetch");
        // A too small for the matrix the tiling describes: out-of-bounds GM.
        GlobalTensor<half> small;
        small.SetGlobalBuffer(d.a.data(), 100);
        mm.SetTensorA(small);
        CHECK_ERR(mm.Iterate(), "out-of-bounds GM access");
    }
    {
        // A UB tensor smaller than a block.
        Matmul<AT, AT, CUb, BiasT> mm;
        mm.Init(&t, &pipe);
        mm.SetTensorA(d.ga);
        mm.SetTensorB(d.gb);
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 32 * 32 * 4);
        LocalTensor<float> ub = buf.Get<float>();
        CHECK(mm.Iterate(), "first block");
        CHECK_ERR(mm.GetTensorC(ub[32], 0, true), "needs 1024 elements of the UB tensor but it has 992");
        CHECK_ERR(mm.GetTensorC(ub, 0, false), "at its place in singleCoreM x singleCoreN");
        CHECK_ERR(mm.GetTensorC(ub, 1, true), "enAtomic must be 0 when the output is in UB");
        mm.GetTensorC(ub, 0, true);
        CHECK(ub.GetValue(0) == 128.0f && ub.GetValue(1023) == 128.0f, "UB block: %g", ub.GetValue(0));
    }
    {
        // A tiling that GetTiling did not produce (the runner's 0xA5 fill).
        TCubeTiling garbage;
        std::memset(static_cast<void*>(&garbage), 0xA5, sizeof(garbage));
        Matmul<AT, AT, CGm, BiasT> mm;
        CHECK_ERR(mm.Init(&garbage, &pipe), "Matmul::Init (Matmul<half, half, float, bias float>): TCubeTiling.M = -1515870811 is not positive (not a tiling GetTiling produced");
        TCubeTiling odd = Tiling(64, 64, 64, 24);
        CHECK_ERR(mm.Init(&odd, &pipe), "TCubeTiling.baseM = 24 is not a positive multiple of 16");
    }
    {
        // Transposed A and B, bias, tails in M, N and K, both iterate orders: against a plain loop.
        const int m = 37, n = 45, k = 70;
        for (int order = 0; order < 2; ++order) {
            TCubeTiling tt = Tiling(m, n, k, 16, 32, 32, true);
            tt.iterateOrder = order;
            std::vector<half> a(k * m), b(n * k);
            std::vector<float> bias(n), c(m * n, -1.0f);
            for (int i = 0; i < k * m; ++i) a[i] = half(static_cast<float>((i * 7) % 11) - 5.0f);
            for (int i = 0; i < n * k; ++i) b[i] = half(static_cast<float>((i * 5) % 13) * 0.25f - 1.0f);
            for (int j = 0; j < n; ++j) bias[j] = 0.5f * j;
            GlobalTensor<half> ga, gb;
            GlobalTensor<float> gbias, gc;
            ga.SetGlobalBuffer(a.data(), a.size());
            gb.SetGlobalBuffer(b.data(), b.size());
            gbias.SetGlobalBuffer(bias.data(), bias.size());
            gc.SetGlobalBuffer(c.data(), c.size());
            Matmul<ATT, ATT, CGm, BiasT> mm;
            REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tt);
            mm.SetTensorA(ga, true);   // [K, M]
            mm.SetTensorB(gb, true);   // [N, K]
            mm.SetBias(gbias);
            std::vector<std::pair<int, int>> seen;
            while (mm.Iterate()) {
                const MatrixOffset o = mm.GetOffsetC();
                seen.push_back({o.row, o.col});
                mm.GetTensorC(gc);
            }
            // ORDER_M (0): M advances first; ORDER_N (1): N first.
            CHECK(seen.size() == 3 * 2, "blocks: %zu", seen.size());
            if (seen.size() == 6) {
                CHECK(order == 0 ? (seen[1].first == 16 && seen[1].second == 0) : (seen[1].first == 0 && seen[1].second == 32),
                      "order %d: second block at (%d, %d)", order, seen[1].first, seen[1].second);
            }
            int wrong = 0;
            for (int i = 0; i < m; ++i) {
                for (int j = 0; j < n; ++j) {
                    float s = bias[j];
                    for (int q = 0; q < k; ++q) s += static_cast<float>(a[q * m + i]) * static_cast<float>(b[j * k + q]);
                    if (c[i * n + j] != s) ++wrong;
                }
            }
            CHECK(wrong == 0, "order %d: %d wrong elements", order, wrong);
        }
    }
}

void MixedKernelIndexing()
{
    opgen_twin::detail::LaunchState& L = opgen_twin::detail::g_launch;
    L = opgen_twin::detail::LaunchState();
    L.blockIdx = 3;
    L.blockNum = 8;
    L.aicCoreNum = 20;
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    CHECK(GetBlockIdx() == 6 && GetBlockNum() == 8 && GetTaskRatio() == 2 && GetSubBlockIdx() == 0,
          "AIV 0 of block 3: GetBlockIdx %lld", static_cast<long long>(GetBlockIdx()));
    L.subBlockIdx = 1;
    CHECK(GetBlockIdx() == 7, "AIV 1 of block 3: %lld", static_cast<long long>(GetBlockIdx()));

    L = opgen_twin::detail::LaunchState();
    L.blockIdx = 1;
    (void)GetBlockIdx();
    CHECK_ERR(KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2), "the kernel read GetBlockIdx() before its kernel type was set");

    L = opgen_twin::detail::LaunchState();
    L.blockNum = 30;
    L.aicCoreNum = 20;
    CHECK_ERR(KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2), "SetBlockDim(30) exceeds the 20 AI Cube cores");

    // REGIST_MATMUL_OBJ without a declared type takes the kernel as MIX_AIC_1_2; the workspace must
    // hold GetLibApiWorkSpaceSize() bytes under the runner.
    L = opgen_twin::detail::LaunchState();
    std::vector<uint8_t> ws(1024);
    L.gm.push_back({ws.data(), ws.size(), "workspace"});
    TPipe pipe;
    TCubeTiling t = Tiling(32, 32, 32);
    Matmul<AT, AT, CGm, BiasT> mm;
    CHECK_ERR(REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t), "REGIST_MATMUL_OBJ: the system workspace is null");
    CHECK_ERR(REGIST_MATMUL_OBJ(&pipe, ws.data(), mm, &t), "the system workspace has 1024 bytes, less than the 16777216 bytes");
    L.sysWorkspaceBytes = 512;
    CHECK_ERR(REGIST_MATMUL_OBJ(&pipe, ws.data(), mm, &t), "");
    CHECK(L.kernelType == KERNEL_TYPE_MIX_AIC_1_2 && GetTaskRatio() == 2, "inferred kernel type %d", L.kernelType);
    L = opgen_twin::detail::LaunchState();
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    CHECK_ERR(REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t), "starts no cube core");
    L = opgen_twin::detail::LaunchState();
}

// g_coreType / ASCEND_IS_*: the running core once the kernel type is known (the twin refuses to
// guess before: the NPU's compiler knows it from __cube__/__mix__); the AIC's indices.
void CoreTypes()
{
    opgen_twin::detail::LaunchState& L = opgen_twin::detail::g_launch;
    L = opgen_twin::detail::LaunchState();
    int seen = 0;
    CHECK_ERR(if ASCEND_IS_AIV { seen = 1; }, "g_coreType (ASCEND_IS_AIC/ASCEND_IS_AIV) read before the kernel type");
    L.blockIdx = 3;
    L.blockNum = 8;
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    if ASCEND_IS_AIV {
        seen = 2;
    } else if ASCEND_IS_AIC {
        seen = 3;
    }
    CHECK(seen == 2 && GetBlockIdx() == 6 && GetTaskRatio() == 2, "AIV: %d, GetBlockIdx %lld", seen,
          static_cast<long long>(GetBlockIdx()));
    L.coreType = AscendC::AIC;
    if ASCEND_IS_NOT_AIC {
        seen = 4;
    } else {
        seen = 5;
    }
    CHECK(seen == 5 && GetBlockIdx() == 3 && GetTaskRatio() == 1 && GetSubBlockIdx() == 0,
          "AIC: %d, GetBlockIdx %lld", seen, static_cast<long long>(GetBlockIdx()));
    L = opgen_twin::detail::LaunchState();
}

// C in GM as CubeFormat::ND_ALIGN: rows rounded up to 32 bytes, the padding written 0
// (asc-devkit's matmul_format_nd_align example).
void NdAlignInGm()
{
    opgen_twin::detail::g_launch = opgen_twin::detail::LaunchState();
    TPipe pipe;
    TCubeTiling t = Tiling(32, 60, 32);
    Data d(32, 60, 32);
    std::vector<float> c(32 * 64, -1.0f);
    GlobalTensor<float> gc;
    gc.SetGlobalBuffer(c.data(), c.size());
    Matmul<AT, AT, MatmulType<TPosition::GM, CubeFormat::ND_ALIGN, float>, BiasT> mm;
    mm.Init(&t, &pipe);
    mm.SetTensorA(d.ga);
    mm.SetTensorB(d.gb);
    mm.IterateAll(gc);
    int wrong = 0;
    for (int i = 0; i < 32; ++i) {
        for (int j = 0; j < 64; ++j) wrong += c[i * 64 + j] != (j < 60 ? 64.0f : 0.0f);
    }
    CHECK(wrong == 0, "ND_ALIGN C [32, 60] as rows of 64 floats: %d wrong elements", wrong);
}

mt::MultiCoreMatmulTiling Api(int dim, mt::DataType in = mt::DataType::DT_FLOAT16, mt::DataType out = mt::DataType::DT_FLOAT)
{
    mt::MultiCoreMatmulTiling api(*platform_ascendc::PlatformAscendCManager::GetInstance());
    if (dim > 0) api.SetDim(dim);
    api.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, in);
    api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, in);
    api.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, out);
    api.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
    return api;
}

void HostTiling()
{
    TCubeTiling t;
    {
        auto api = Api(0);
        api.SetOrgShape(64, 64, 64);
        api.SetShape(64, 64, 64);
        CHECK(api.GetTiling(t) == -1 && api.TwinError().find("SetDim") != std::string::npos, "no SetDim: %s",
              api.TwinError().c_str());
    }
    {
        auto api = Api(8);
        CHECK(api.GetTiling(t) == -1, "no SetOrgShape");
        api.SetOrgShape(64, 64, 32);
        api.SetShape(64, 64, 64);
        CHECK(api.GetTiling(t) == -1, "k > Ka");
    }
    {
        auto api = Api(8, mt::DataType::DT_INT8, mt::DataType::DT_INT32);
        api.SetOrgShape(64, 64, 64);
        CHECK(api.GetTiling(t) == -1, "int8 is not emulated");
        auto api2 = Api(8, mt::DataType::DT_BF16, mt::DataType::DT_BF16);
        api2.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
        api2.EnableBias(true);
        api2.SetOrgShape(64, 64, 64);
        CHECK(api2.GetTiling(t) == -1, "bf16 x bf16 + half bias -> bf16 is not a Matmul combination");
    }
    {
        auto api = Api(8);
        api.SetOrgShape(256, 256, 64);
        api.SetFixSplit(24, 64);
        CHECK(api.GetTiling(t) == -1, "baseM 24");
        api.SetFixSplit(256, 256);
        api.SetDim(1);
        CHECK(api.GetTiling(t) == -1, "256 x 256 x 4 bytes exceed L0C");
    }
    CHECK(Api(0).SetDim(0) == -1, "SetDim(0)");
    CHECK(Api(1).SetShape(0, 1, 1) == -1, "SetShape(0, ...)");
    // The tilings it gives: 16-aligned blocks within L0A/L0B/L0C and UB, cores within dim, M and N
    // covered, K whole.
    const int shapes[][3] = {{1, 1, 1}, {17, 33, 5}, {100, 70, 129}, {4096, 4096, 4096}, {5000, 16, 300},
                             {16, 5000, 300}, {513, 31, 200}, {2048, 96, 17}};
    for (const auto& s : shapes) {
        for (int dim : {1, 2, 7, 40, 48}) {
            for (int inType = 0; inType < 2; ++inType) {
                auto api = Api(dim, inType ? mt::DataType::DT_FLOAT : mt::DataType::DT_FLOAT16);
                api.SetCType(mt::TPosition::VECIN, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
                api.SetOrgShape(s[0], s[1], s[2]);
                api.SetShape(s[0], s[1], s[2]);
                api.EnableBias(true);
                api.SetBufferSpace(-1, -1, 65536);
                const int64_t r = api.GetTiling(t);
                const int es = inType ? 4 : 2;
                const bool ok = r == 0 && t.baseM % 16 == 0 && t.baseN % 16 == 0 && t.baseK % (32 / es) == 0 &&
                                t.baseM * t.baseN * 4 <= 131072 && t.baseM * t.baseN * 4 <= 65536 &&
                                2 * t.baseM * t.baseK * es <= 65536 && 2 * t.baseK * t.baseN * es <= 65536 &&
                                t.usedCoreNum >= 1 && t.usedCoreNum <= dim &&
                                t.usedCoreNum == ((s[0] + t.singleCoreM - 1) / t.singleCoreM) * ((s[1] + t.singleCoreN - 1) / t.singleCoreN) &&
                                t.singleCoreK == s[2] && t.M == s[0] && t.N == s[1] && t.Ka == s[2] && t.Kb == s[2] &&
                                t.baseM <= (t.singleCoreM + 15) / 16 * 16 && t.baseN <= (t.singleCoreN + 15) / 16 * 16 &&
                                t.isBias == 1 && t.stepM == 1 && t.stepN == 1 && t.iterateOrder == 0;
                CHECK(ok, "shape %d %d %d dim %d in %d: r=%lld used %d single %d %d %d base %d %d %d (%s)", s[0], s[1],
                      s[2], dim, inType, static_cast<long long>(r), t.usedCoreNum, t.singleCoreM, t.singleCoreN,
                      t.singleCoreK, t.baseM, t.baseN, t.baseK, api.TwinError().c_str());
            }
        }
    }
    // The sample's split: M 512, N 128, K 128 over 2 AIVs with 128 x 64 blocks: N is split.
    {
        auto api = Api(2);
        api.SetCType(mt::TPosition::VECIN, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
        api.SetOrgShape(512, 128, 128);
        api.SetShape(512, 128, 128);
        api.EnableBias(true);
        api.SetFixSplit(128, 64, 128);
        CHECK(api.GetTiling(t) == 0 && t.singleCoreM == 512 && t.singleCoreN == 64 && t.usedCoreNum == 2 &&
                  t.baseM == 128 && t.baseN == 64 && t.baseK == 128,
              "sample split: single %d %d base %d %d %d", t.singleCoreM, t.singleCoreN, t.baseM, t.baseN, t.baseK);
        int32_t d = 0, md = 0, nd = 0;
        CHECK(api.GetCoreNum(d, md, nd) == 0 && d == 2 && md == 1 && nd == 2, "GetCoreNum %d %d %d", d, md, nd);
        api.SetTraverse(mt::MatrixTraverse::FIRSTN);
        CHECK(api.GetTiling(t) == 0 && t.iterateOrder == 1, "FIRSTN: iterateOrder %d", t.iterateOrder);
    }
    mt::MatmulApiTiling single(*platform_ascendc::PlatformAscendCManager::GetInstance());
    single.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16, true);
    single.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
    single.SetCType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT16);
    single.SetOrgShape(300, 200, 100);
    CHECK(single.GetTiling(t) == 0 && t.usedCoreNum == 1 && t.singleCoreM == 300 && t.singleCoreN == 200,
          "MatmulApiTiling: used %d single %d %d", t.usedCoreNum, t.singleCoreM, t.singleCoreN);
}

// One MultiCoreMatmulTiling per group of 11 arguments (M N K dim fixBaseM fixBaseN transA transB
// fp32 cInUb noSetShape; fixBase 0 = not fixed; float16 A/B unless fp32, float C and bias,
// SetOrgShape M N K and, unless noSetShape, SetShape M N K, bias on, SetBufferSpace(-1, -1, -1)):
// prints
// "SPLIT r usedCoreNum singleCoreM singleCoreN singleCoreK baseM baseN" per group.
int SplitCases(int argc, char** argv)
{
    for (int i = 2; i + 11 <= argc; i += 11) {
        int v[11];
        for (int j = 0; j < 11; ++j) v[j] = std::atoi(argv[i + j]);
        const mt::DataType in = v[8] ? mt::DataType::DT_FLOAT : mt::DataType::DT_FLOAT16;
        mt::MultiCoreMatmulTiling api(*platform_ascendc::PlatformAscendCManager::GetInstance());
        api.SetDim(v[3]);
        api.SetAType(mt::TPosition::GM, mt::CubeFormat::ND, in, v[6] != 0);
        api.SetBType(mt::TPosition::GM, mt::CubeFormat::ND, in, v[7] != 0);
        api.SetCType(v[9] ? mt::TPosition::VECIN : mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
        api.SetBiasType(mt::TPosition::GM, mt::CubeFormat::ND, mt::DataType::DT_FLOAT);
        if (v[10] == 0) api.SetShape(v[0], v[1], v[2]);
        api.SetOrgShape(v[0], v[1], v[2]);
        if (v[4] > 0 || v[5] > 0) api.SetFixSplit(v[4] > 0 ? v[4] : -1, v[5] > 0 ? v[5] : -1, -1);
        api.SetBias(true);
        api.SetBufferSpace(-1, -1, -1);
        TCubeTiling t{};
        const long long r = api.GetTiling(t);
        std::printf("SPLIT %lld %d %d %d %d %d %d\n", r, r == 0 ? t.usedCoreNum : 0, r == 0 ? t.singleCoreM : 0,
                    r == 0 ? t.singleCoreN : 0, r == 0 ? t.singleCoreK : 0, r == 0 ? t.baseM : 0, r == 0 ? t.baseN : 0);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--split") == 0) return SplitCases(argc, argv);
    KernelMisuse();
    MixedKernelIndexing();
    CoreTypes();
    NdAlignInGm();
    HostTiling();
    std::printf("SUMMARY pass=%d fail=%d\n", g_pass, g_fail);
    return g_fail == 0 ? 0 : 1;
}
