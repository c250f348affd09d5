// opgen CPU twin: launches a kernel function directly on GM buffers the caller owns, as
// `kernel<<<numBlocks, 0, stream>>>(args...)` does after aclrtMalloc/aclrtMemcpy: no OpDef, no
// InferShape, no TilingFunc (RunOp's job), only the launch and its checks.
//
//   #include "opgen_twin/launch_direct.h"
//   opgen_twin::DirectLaunch l;
//   l.blockDim = numBlocks;
//   l.gm = {{a, aBytes, "a"}, {c, cBytes, "c"}, {ws, wsBytes, "workspace"}, {t, tBytes, "tiling"}};
//   l.sysWorkspace = ws;                       // what GetSysWorkSpacePtr() returns
//   std::string err = opgen_twin::LaunchDirect(l, matmul_custom, a, b, bias, c, ws, t);
//   if (!err.empty()) puts(err.c_str());       // e.g. "kernel block 3 of 8: DataCopy(...): ..."
//
// The blocks run as RunOp runs them (runner.h RunBlocks: threads, a mixed kernel's AIVs then its
// AIC, the pipe check (pipes.h, unless l.checkPipes is false; OPGEN_TWIN_PIPE_CHECK and
// OPGEN_TWIN_CCE_AUTO_SYNC as for RunOp), the cache-line and DMA-conflict checks, SyncAll's
// cooperative second run). Every buffer in `gm` is a GM region: an access outside all of them
// is a HardwareError, so list each buffer the kernel may touch (inputs, outputs, workspace,
// tiling). The kernel writes the caller's memory in place. A kernel that calls SyncAll runs twice; the buffers are restored to their
// bytes before the launch for the second run. The arguments are converted to the kernel's
// parameter types as in a call of the kernel (GM_ADDR, `__gm__ uint8_t*`, scalars).
#ifndef OPGEN_TWIN_LAUNCH_DIRECT_H
#define OPGEN_TWIN_LAUNCH_DIRECT_H

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "opgen_twin/runner.h"

namespace opgen_twin {

// One GM buffer of a direct launch: `bytes` bytes at `data`, named in error messages.
struct DirectGm {
    void* data = nullptr;
    size_t bytes = 0;
    std::string name;
};

struct DirectLaunch {
    uint32_t blockDim = 1;          // numBlocks of <<<>>>: AI Cores for a mixed or cube kernel
    std::vector<DirectGm> gm;       // every buffer the kernel may touch
    void* sysWorkspace = nullptr;   // GetSysWorkSpacePtr(); must lie in one of `gm`
    uint64_t tilingKey = 0;         // TILING_KEY_IS
    bool checkPipes = true;         // the pipe check, as RunOptions::checkPipes (OPGEN_TWIN_PIPE_CHECK)
    PlatformConfig platform = DefaultPlatform();
};

namespace detail {

// Sets this thread's launch state for `l` (as LaunchOnce does for RunOp). Returns "" or an error.
inline std::string PrepareDirectLaunch(const DirectLaunch& l)
{
    if (l.blockDim == 0) return "LaunchDirect: blockDim 0 (<<<0, ...>>> launches nothing on the NPU)";
    if (l.blockDim > l.platform.aivCoreNum) {
        return Format("LaunchDirect: blockDim %u exceeds the %u AI Vector cores of %s", l.blockDim,
                      l.platform.aivCoreNum, l.platform.socVersion.c_str());
    }
    LaunchState& L = g_launch;
    L = LaunchState();
    for (const DirectGm& b : l.gm) {
        L.gm.push_back({static_cast<const uint8_t*>(b.data), b.bytes, b.name});
    }
    L.sysWorkspace = static_cast<uint8_t*>(l.sysWorkspace);
    L.workspaceBytes = 0;
    const uint8_t* ws = static_cast<const uint8_t*>(l.sysWorkspace);
    for (const DirectGm& b : l.gm) {
        const uint8_t* p = static_cast<const uint8_t*>(b.data);
        if (ws != nullptr && ws >= p && ws < p + b.bytes) L.workspaceBytes = static_cast<uint64_t>(p + b.bytes - ws);
    }
    if (ws != nullptr && L.workspaceBytes == 0) {
        L = LaunchState();
        return "LaunchDirect: sysWorkspace is not inside any of the launch's GM buffers";
    }
    L.aicCoreNum = l.platform.aicCoreNum;
    L.blockNum = l.blockDim;
    L.tilingKey = l.tilingKey;
    L.ubSize = l.platform.ubSize;
    L.socVersion = l.platform.socVersion;
    L.sysWorkspaceBytes = l.platform.libApiWorkspace;
    L.pipeCheck = l.checkPipes ? PipeCheckModeFromEnv() : kPipeCheckOff;
    return "";
}

// Runs `k` once (RunBlocks), or twice when it calls SyncAll, restoring `gm` in between.
inline std::string RunDirect(const DirectLaunch& l, const KernelEntry& k)
{
    std::vector<std::vector<uint8_t>> before;
    for (const DirectGm& b : l.gm) {
        const uint8_t* p = static_cast<const uint8_t*>(b.data);
        before.emplace_back(p, p + b.bytes);
    }
    CallData c;
    c.blockDim = l.blockDim;
    const std::vector<uint8_t*> noArgs;
    int64_t syncAllRatio = 0;
    std::string err = PrepareDirectLaunch(l);
    if (err.empty()) err = RunBlocks(c, k, noArgs, syncAllRatio);
    if (err.empty() && syncAllRatio > 0) {
        for (size_t i = 0; i < l.gm.size(); ++i) {
            if (!before[i].empty()) std::memcpy(l.gm[i].data, before[i].data(), before[i].size());
        }
        err = PrepareDirectLaunch(l);
        if (err.empty()) err = RunBlocks(c, k, noArgs, syncAllRatio);
    }
    g_launch = LaunchState();
    return err;
}

}  // namespace detail

// Launches `fn(args...)` on l.blockDim blocks. Returns "" or the error (the lowest failing
// block's, prefixed with it, as RunOp's `error`).
template <class... P, class... A>
std::string LaunchDirect(const DirectLaunch& l, void (*fn)(P...), A... args)
{
    static_assert(sizeof...(P) == sizeof...(A), "LaunchDirect: as many arguments as the kernel has parameters");
    const std::tuple<P...> bound(args...);  // converted as in a call of fn
    KernelEntry k;
    k.arity = sizeof...(P);
    k.fn = [fn, &bound](const std::vector<uint8_t*>&) { std::apply(fn, bound); };
    try {
        return detail::RunDirect(l, k);
    } catch (const std::exception& e) {
        detail::g_launch = detail::LaunchState();
        return e.what();
    }
}

}  // namespace opgen_twin

#endif  // OPGEN_TWIN_LAUNCH_DIRECT_H
