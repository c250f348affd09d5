// y = x rolled by one part: core b copies its part of x to the workspace, SyncAll, then copies
// the part core (b + 1) % n wrote to its part of y, SyncAll again, and overwrites the part of the
// workspace its neighbour wrote (ordered by the SyncAll: not a race). Exercises the runner's
// cooperative rerun of a kernel that calls SyncAll (tests/twin/test_runner.py).
#include "kernel_operator.h"
#include "sync_roll_custom_tiling.h"

using namespace AscendC;

extern "C" __global__ __aicore__ void sync_roll_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(SyncRollCustomTilingData);
    GET_TILING_DATA(t, tiling);
    if (t.mode == 2) {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    } else {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    }
    const uint32_t b = GetBlockIdx(), n = GetBlockNum(), len = t.partLength;
    GlobalTensor<float> xG, yG, wG;
    xG.SetGlobalBuffer((__gm__ float*)x, n * len);
    yG.SetGlobalBuffer((__gm__ float*)y, n * len);
    wG.SetGlobalBuffer((__gm__ float*)GetUserWorkspace(workspace), n * len);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, len * sizeof(float));
    LocalTensor<float> u = buf.Get<float>();
    DataCopy(u, xG[b * len], len);
    PipeBarrier<PIPE_ALL>();
    DataCopy(wG[b * len], u, len);
    SyncAll();
    DataCopy(u, wG[((b + 1) % n) * len], len);
    PipeBarrier<PIPE_ALL>();
    DataCopy(yG[b * len], u, len);
    if (t.mode == 1 && b == n - 1) return;
    SyncAll();
    Duplicate(u, -1.0f, len);
    PipeBarrier<PIPE_ALL>();
    DataCopy(wG[((b + 1) % n) * len], u, len);
}
