// opgen CPU twin: SyncAll, the all-core barrier, by running a launch's cores as coroutines.
//
// On the NPU the cores of a launch run at once and SyncAll() makes each wait until every core of
// the launch has reached it (asc-devkit SyncAll.md; dav_c220 SyncAllImpl: ffts_cross_core_sync +
// wait_flag_dev). The runner first runs blocks independently (blocks on several threads, one after
// another on each); the first SyncAll there throws SyncAllRestart and the runner runs the launch
// again, from fresh buffers, with CoopScheduler: every core (AIV) a coroutine on its own stack
// (ucontext), all on one thread, in a fixed order. A round runs each waiting core, in index order,
// up to its next SyncAll or its end; when every core waits, the next round releases them all. So
// the result does not depend on timing, everything a core wrote before a SyncAll is in GM for
// every core after it, and a core that ends while others wait in a SyncAll (on the NPU those
// hang) is an error naming SyncAll, not a hang.
#ifndef OPGEN_TWIN_DETAIL_SYNC_ALL_H
#define OPGEN_TWIN_DETAIL_SYNC_ALL_H

#include <sys/mman.h>
#include <ucontext.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "opgen_twin/detail/launch.h"
#include "opgen_twin/detail/pipes.h"

namespace opgen_twin {
namespace detail {

// Thrown by SyncAll outside a cooperative run: the runner restarts the launch cooperatively.
// Not a std::exception, so that the runner's handlers tell it from a kernel's failure.
struct SyncAllRestart {
    int64_t taskRatio = 1;  // the kernel's AIVs per block, known by the time it calls SyncAll
};
// Thrown by SyncAll in a waiting core when the launch is abandoned (another core failed, or the
// SyncAll counts do not match): it unwinds the core's stack, running its destructors.
struct CoopAbort {};

class CoopScheduler {
public:
    // Runs `body(u)` for u in [0, n) as coroutines. body returns false when the core failed (it
    // records its own error); `name(u)` names core u in messages. Returns "" or the error of the
    // launch as a whole (mismatched SyncAll counts). After a failed core the others are abandoned.
    static std::string Run(uint32_t n, const std::function<bool(uint32_t)>& body,
                           const std::function<std::string(uint32_t)>& name)
    {
        CoopScheduler s(n, body);
        CoopScheduler* outer = Current();
        Current() = &s;
        std::string err;
        try {
            err = s.Loop(name);
        } catch (...) {
            Current() = outer;
            throw;
        }
        Current() = outer;
        return err;
    }

    // The scheduler of the coroutine running on this thread, or nullptr.
    static CoopScheduler*& Current()
    {
        static thread_local CoopScheduler* current = nullptr;
        return current;
    }

    // Called by SyncAll in a core: waits until every core of the launch has called it (or ended).
    void Barrier(const char* api)
    {
        Unit& x = units_[current_];
        x.status = kWaiting;
        ++x.syncs;
        x.api = api;
        swapcontext(&x.ctx, &main_);
        if (aborting_) throw CoopAbort{};
    }

    ~CoopScheduler()
    {
        for (Unit& u : units_) {
            if (u.stack != nullptr) munmap(u.stack, kStackBytes + kGuardBytes);
        }
    }

private:
    enum Status { kNew, kWaiting, kRunnable, kDone };
    struct Unit {
        ucontext_t ctx{};
        uint8_t* stack = nullptr;
        LaunchState state;
        int64_t blockIdxVar = 0;
        int64_t blockNumVar = 1;
        Status status = kNew;
        uint32_t syncs = 0;
        bool failed = false;
        const char* api = "SyncAll";
    };
    // A core's stack: as large as a thread's default (8 MiB), reserved, not committed, with a
    // guard page below it so that an overflow faults instead of writing over another core's.
    static constexpr size_t kStackBytes = size_t(8) << 20;
    static constexpr size_t kGuardBytes = 4096;

    CoopScheduler(uint32_t n, const std::function<bool(uint32_t)>& body) : body_(body), units_(n) {}
    CoopScheduler(const CoopScheduler&) = delete;
    CoopScheduler& operator=(const CoopScheduler&) = delete;

    static void Entry()
    {
        CoopScheduler* s = Current();
        Unit& x = s->units_[s->current_];
        try {
            x.failed = !s->body_(s->current_);
        } catch (const CoopAbort&) {
        } catch (...) {
            x.failed = true;  // body records its errors; this is a last resort
        }
        x.status = kDone;
        // returns to uc_link: the scheduler
    }

    void Start(uint32_t u)
    {
        Unit& x = units_[u];
        void* m = mmap(nullptr, kStackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (m == MAP_FAILED) ThrowTwin("SyncAll: cannot allocate a stack for a kernel core");
        x.stack = static_cast<uint8_t*>(m);
        mprotect(x.stack, kGuardBytes, PROT_NONE);
        getcontext(&x.ctx);
        x.ctx.uc_stack.ss_sp = x.stack + kGuardBytes;
        x.ctx.uc_stack.ss_size = kStackBytes;
        x.ctx.uc_link = &main_;
        makecontext(&x.ctx, &CoopScheduler::Entry, 0);
        x.state = outer_;
        x.blockIdxVar = block_idx;
        x.blockNumVar = block_num;
    }

    // Switches to core u with its launch state until it waits in a SyncAll or ends.
    void Resume(uint32_t u)
    {
        Unit& x = units_[u];
        current_ = u;
        g_launch = std::move(x.state);
        block_idx = x.blockIdxVar;
        block_num = x.blockNumVar;
        x.status = kRunnable;
        swapcontext(&main_, &x.ctx);
        x.state = std::move(g_launch);
        x.blockIdxVar = block_idx;
        x.blockNumVar = block_num;
        if (x.status == kDone && x.stack != nullptr) {
            munmap(x.stack, kStackBytes + kGuardBytes);
            x.stack = nullptr;
        }
    }

    void AbortWaiting()
    {
        aborting_ = true;
        for (uint32_t u = 0; u < units_.size(); ++u) {
            if (units_[u].status == kWaiting) Resume(u);
        }
    }

    std::string Loop(const std::function<std::string(uint32_t)>& name)
    {
        outer_ = g_launch;
        const int64_t outerIdx = block_idx, outerNum = block_num;
        std::string err;
        for (bool first = true;; first = false) {
            bool failed = false;
            for (uint32_t u = 0; u < units_.size() && !failed; ++u) {
                if (first) Start(u);
                if (units_[u].status == kDone) continue;
                Resume(u);
                failed = units_[u].failed;
            }
            if (failed) {
                AbortWaiting();
                break;
            }
            uint32_t waiting = 0;
            for (const Unit& x : units_) waiting += x.status == kWaiting ? 1 : 0;
            if (waiting == 0) break;  // all ended
            if (waiting < units_.size()) {  // some ended while others wait: a hang on the NPU
                uint32_t w = 0, d = 0;
                while (units_[w].status != kWaiting) ++w;
                while (units_[d].status != kDone) ++d;
                err = Format("%s: %s waits in its SyncAll call number %u, but %s returned after %u SyncAll "
                             "call(s): every core of the launch must call SyncAll equally often (a SyncAll on a "
                             "path some cores do not take?); on the NPU the waiting cores hang",
                             units_[w].api, name(w).c_str(), units_[w].syncs, name(d).c_str(), units_[d].syncs);
                AbortWaiting();
                break;
            }
        }
        g_launch = outer_;
        block_idx = outerIdx;
        block_num = outerNum;
        return err;
    }

    const std::function<bool(uint32_t)>& body_;
    std::vector<Unit> units_;
    uint32_t current_ = 0;
    ucontext_t main_{};
    bool aborting_ = false;
    LaunchState outer_;
};

// SyncAll's barrier: in a cooperative run, waits for every core; else asks the runner for one.
// A launch of one core (a unit test's, or blockDim 1) has nothing to wait for.
inline void SyncAllBarrier(const char* api)
{
    PipeBarrierAll();  // both SyncAll forms start with PipeBarrier<PIPE_ALL> (dav_c220 SyncAllImpl)
    if (CoopScheduler* s = CoopScheduler::Current()) {
        ++g_launch.syncPhase;
        s->Barrier(api);
        return;
    }
    if (g_launch.blockNum * g_launch.taskRatio <= 1) {
        ++g_launch.syncPhase;
        return;
    }
    throw SyncAllRestart{g_launch.taskRatio};
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_SYNC_ALL_H
