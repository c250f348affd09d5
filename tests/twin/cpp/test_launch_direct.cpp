// Checks of opgen_twin/launch_direct.h: a kernel launched on the caller's GM buffers (as
// `kernel<<<n, 0, stream>>>(...)` after aclrtMalloc), its results in place, an access outside
// the buffers, SyncAll's second run from the buffers' bytes before the launch, and a mixed
// Matmul kernel whose REGIST_MATMUL_OBJ is in the entry or in a helper. One TU, kernels and
// host code together, as an asc-devkit `.asc` example is. Run by tests/twin/test_launch_direct.py;
// prints FAIL lines and a SUMMARY.
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "opgen_twin/launch_direct.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

constexpr uint32_t kPart = 64;  // floats per block

// y[b] = x[b] + 1 over kPart floats per block; `shift` floats past x's start when reading.
__aicore__ void AddOne(GM_ADDR x, GM_ADDR y, uint32_t shift)
{
    const uint32_t b = GetBlockIdx();
    GlobalTensor<float> xG, yG;
    xG.SetGlobalBuffer((__gm__ float*)x + shift + b * kPart, kPart);
    yG.SetGlobalBuffer((__gm__ float*)y + b * kPart, kPart);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kPart * sizeof(float));
    LocalTensor<float> u = buf.Get<float>();
    DataCopy(u, xG, kPart);
    PipeBarrier<PIPE_ALL>();
    Adds(u, u, 1.0f, kPart);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yG, u, kPart);
}

// AddOne without the barrier between the copy in and Adds: a hazard (MTE2 -> V).
extern "C" __global__ __aicore__ void add_one_unsynced(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR)
{
    GlobalTensor<float> xG, yG;
    xG.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * kPart, kPart);
    yG.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * kPart, kPart);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kPart * sizeof(float));
    LocalTensor<float> u = buf.Get<float>();
    DataCopy(u, xG, kPart);
    Adds(u, u, 1.0f, kPart);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yG, u, kPart);
}

extern "C" __global__ __aicore__ void add_one(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR) { AddOne(x, y, 0); }
extern "C" __global__ __aicore__ void add_one_far(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR) { AddOne(x, y, 100000); }

// io += 1 in place, then SyncAll: the twin runs it twice, the second time from io's first bytes.
extern "C" __global__ __aicore__ void add_one_sync(GM_ADDR io, GM_ADDR, GM_ADDR)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    AddOne(io, io, 0);
    SyncAll();
}

using MM = Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>,
                  MatmulType<TPosition::GM, CubeFormat::ND, float>>;

__aicore__ void Compute(MM& mm, GM_ADDR a, GM_ADDR b, GM_ADDR c, const TCubeTiling& t)
{
    GlobalTensor<half> aG, bG;
    GlobalTensor<float> cG;
    aG.SetGlobalBuffer((__gm__ half*)a, t.M * t.Ka);
    bG.SetGlobalBuffer((__gm__ half*)b, t.Kb * t.N);
    cG.SetGlobalBuffer((__gm__ float*)c, t.M * t.N);
    mm.SetTensorA(aG);
    mm.SetTensorB(bG);
    mm.IterateAll(cG);
    mm.End();
}

// c = a . b (one AI Core, both AIVs compute all of c), registered in the entry.
extern "C" __global__ __aicore__ void mm_entry(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    TCubeTiling t = *reinterpret_cast<__gm__ TCubeTiling*>(tiling);
    TPipe pipe;
    MM mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &t);
    Compute(mm, a, b, c, t);
}

__aicore__ void Register(TPipe* pipe, MM& mm, TCubeTiling* t) { REGIST_MATMUL_OBJ(pipe, GetSysWorkSpacePtr(), mm, t); }

// The same with REGIST_MATMUL_OBJ in a helper: its client ends with the helper.
extern "C" __global__ __aicore__ void mm_helper(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    TCubeTiling t = *reinterpret_cast<__gm__ TCubeTiling*>(tiling);
    TPipe pipe;
    MM mm;
    Register(&pipe, mm, &t);
    Compute(mm, a, b, c, t);
}

template <class T>
GM_ADDR G(T* p)
{
    return reinterpret_cast<GM_ADDR>(p);
}

opgen_twin::DirectLaunch Launch(uint32_t blocks, std::vector<opgen_twin::DirectGm> gm, void* ws)
{
    opgen_twin::DirectLaunch l;
    l.blockDim = blocks;
    l.gm = std::move(gm);
    l.sysWorkspace = ws;
    return l;
}

void TestVector()
{
    const uint32_t blocks = 4;
    std::vector<float> x(blocks * kPart), y(blocks * kPart, -7.0f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    std::vector<uint8_t> ws(64), tiling(32);
    const auto l = Launch(blocks, {{x.data(), x.size() * 4, "x"}, {y.data(), y.size() * 4, "y"},
                                   {ws.data(), ws.size(), "workspace"}, {tiling.data(), tiling.size(), "tiling"}},
                          ws.data());
    std::string err = opgen_twin::LaunchDirect(l, add_one, G(x.data()), G(y.data()), G(ws.data()), G(tiling.data()));
    CHECK(err.empty(), "add_one: %s", err.c_str());
    bool same = true;
    for (size_t i = 0; i < y.size(); ++i) same = same && y[i] == x[i] + 1.0f;
    CHECK(same, "add_one wrote y = x + 1 into the caller's memory");
    err = opgen_twin::LaunchDirect(l, add_one_far, G(x.data()), G(y.data()), G(ws.data()), G(tiling.data()));
    CHECK(err.find("kernel block 0 of 4: DataCopy(GM->UB)") != std::string::npos, "outside the buffers: '%s'",
          err.c_str());
    auto bad = l;
    bad.sysWorkspace = &err;
    err = opgen_twin::LaunchDirect(bad, add_one, G(x.data()), G(y.data()), G(ws.data()), G(tiling.data()));
    CHECK(err.find("sysWorkspace is not inside") != std::string::npos, "workspace: '%s'", err.c_str());
    bad.sysWorkspace = ws.data();
    bad.blockDim = 0;
    err = opgen_twin::LaunchDirect(bad, add_one, G(x.data()), G(y.data()), G(ws.data()), G(tiling.data()));
    CHECK(err.find("blockDim 0") != std::string::npos, "blockDim 0: '%s'", err.c_str());
}

// The pipe check runs as in RunOp: a missing barrier fails the launch, unless checkPipes is off.
void TestPipeCheck()
{
    const uint32_t blocks = 2;
    std::vector<float> x(blocks * kPart, 1.0f), y(blocks * kPart, 0.0f);
    std::vector<uint8_t> ws(64), tiling(32);
    auto l = Launch(blocks, {{x.data(), x.size() * 4, "x"}, {y.data(), y.size() * 4, "y"},
                             {ws.data(), ws.size(), "workspace"}, {tiling.data(), tiling.size(), "tiling"}},
                    ws.data());
    std::string err = opgen_twin::LaunchDirect(l, add_one_unsynced, G(x.data()), G(y.data()), G(ws.data()),
                                               G(tiling.data()));
    CHECK(err.find("MTE2_V") != std::string::npos, "unsynced add_one: %s", err.c_str());
    l.checkPipes = false;
    err = opgen_twin::LaunchDirect(l, add_one_unsynced, G(x.data()), G(y.data()), G(ws.data()), G(tiling.data()));
    CHECK(err.empty() && y[0] == 2.0f, "unsynced add_one with checkPipes off: %s", err.c_str());
    err = opgen_twin::LaunchDirect(l, add_one, G(x.data()), G(y.data()), G(ws.data()), G(tiling.data()));
    CHECK(err.empty(), "add_one: %s", err.c_str());
}

void TestSyncAll()
{
    const uint32_t blocks = 3;
    std::vector<float> io(blocks * kPart, 2.0f);
    std::vector<uint8_t> ws(64), tiling(32);
    const auto l = Launch(blocks, {{io.data(), io.size() * 4, "io"}, {ws.data(), ws.size(), "workspace"},
                                   {tiling.data(), tiling.size(), "tiling"}},
                          ws.data());
    const std::string err = opgen_twin::LaunchDirect(l, add_one_sync, G(io.data()), G(ws.data()), G(tiling.data()));
    CHECK(err.empty(), "add_one_sync: %s", err.c_str());
    CHECK(io[0] == 3.0f && io.back() == 3.0f, "io += 1 once, got %g and %g", io[0], io.back());
}

void TestMatmul()
{
    const int m = 32, n = 32, k = 64;
    matmul_tiling::MultiCoreMatmulTiling api(*platform_ascendc::PlatformAscendCManager::GetInstance());
    api.SetDim(1);
    api.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    api.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT16);
    api.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND, matmul_tiling::DataType::DT_FLOAT);
    api.SetOrgShape(m, n, k);
    api.SetShape(m, n, k);
    api.EnableBias(false);
    TCubeTiling t;
    CHECK(api.GetTiling(t) == 0, "GetTiling");
    std::vector<half> a(m * k, half(1.0f)), b(k * n, half(0.5f));
    std::vector<float> c(m * n, -1.0f);
    std::vector<uint8_t> ws(16u << 20);
    const auto l = Launch(1, {{a.data(), a.size() * 2, "a"}, {b.data(), b.size() * 2, "b"}, {c.data(), c.size() * 4, "c"},
                              {ws.data(), ws.size(), "workspace"}, {&t, sizeof(t), "tiling"}},
                          ws.data());
    std::string err = opgen_twin::LaunchDirect(l, mm_entry, G(a.data()), G(b.data()), G(c.data()), G(ws.data()), G(&t));
    CHECK(err.empty(), "mm_entry: %s", err.c_str());
    CHECK(c[0] == 32.0f && c.back() == 32.0f, "c = a . b = 32, got %g and %g", c[0], c.back());
    err = opgen_twin::LaunchDirect(l, mm_helper, G(a.data()), G(b.data()), G(c.data()), G(ws.data()), G(&t));
    CHECK(err.find("REGIST_MATMUL_OBJ") != std::string::npos && err.find("Register()") != std::string::npos,
          "a registration in a helper: '%s'", err.c_str());
}

}  // namespace

int main()
{
    TestVector();
    TestPipeCheck();
    TestSyncAll();
    TestMatmul();
    std::printf("SUMMARY %d passed, %d failed\n", g_pass, g_fail);
    return g_fail == 0 ? 0 : 1;
}
