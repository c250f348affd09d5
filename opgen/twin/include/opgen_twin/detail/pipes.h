// opgen CPU twin: the AI Core's pipes and the ordering between them (the pipe check).
//
// On the NPU a vector core's instructions run on separate pipes that proceed concurrently:
// MTE2 (GM->UB copies), V (vector instructions and UB->UB copies), MTE3 (UB->GM copies) and S
// (the scalar unit, which issues everything and reads/writes UB itself with GetValue/SetValue).
// Within one pipe instructions complete in issue order; between pipes only SetFlag/WaitFlag,
// PipeBarrier<PIPE_ALL> and the events the TQue framework sets and waits order them (asc-devkit
// 静态Tensor编程.md 同步管理, TPipe-TQue框架编程原理.md, impl/basic_api/kernel_tquebind_impl.h).
//
// The twin still executes every call at once, in program order, and models the ordering with
// vector clocks: issued[p] counts the instructions issued to pipe p, known[q][p] how many of
// pipe p's instructions are known to have completed before pipe q's next one starts.
// SetFlag<A_B> takes a snapshot of pipe A (known[A] with A's own count), WaitFlag<A_B> joins
// it into known[B]. A shadow per 32-byte UB block holds the last write (pipe, instruction,
// API) and the last read per pipe; an access on pipe q conflicts with an earlier access from
// pipe p != q that q does not know completed (read after write, write after read, write after
// write), and fails the kernel as a HardwareError naming both calls and the event to add.
//
// Scalar accesses: custom-operator projects build with --cce-auto-sync=on (the default; asc-devkit
// 核内同步/关键特性说明.md, 表3), and the compiler then inserts the S<->V/MTE2/MTE3 events a
// GetValue/SetValue needs. So by default the S pipe is not checked; with the compiler's auto sync
// off (OPGEN_TWIN_CCE_AUTO_SYNC=0) it is a pipe like the others, and a GetValue of a vector
// result needs SetFlag/WaitFlag<HardEvent::V_S> (FetchEventID.md), a SetValue before a copy out
// S_MTE3 (Scalar读写数据.md).
#ifndef OPGEN_TWIN_DETAIL_PIPES_H
#define OPGEN_TWIN_DETAIL_PIPES_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "opgen_twin/detail/launch.h"

namespace opgen_twin {
namespace detail {

// The pipes of a vector core the check tracks (the cube's MTE1/M/FIX are not tracked).
enum TwinPipe : uint8_t { kPipeS = 0, kPipeV, kPipeMte2, kPipeMte3, kPipeNum, kPipeNone = 0xFF };

inline const char* PipeName(uint8_t p)
{
    static const char* const kNames[kPipeNum] = {"S", "V", "MTE2", "MTE3"};
    return p < kPipeNum ? kNames[p] : "?";
}

// A vector clock: per pipe, how many of its instructions are known to have completed.
struct PipeClock {
    uint32_t v[kPipeNum] = {};
    uint32_t& operator[](size_t p) { return v[p]; }
    uint32_t operator[](size_t p) const { return v[p]; }
    void fill(uint32_t x) { std::fill(std::begin(v), std::end(v), x); }
};

inline void JoinClock(PipeClock& into, const PipeClock& c)
{
    for (int p = 0; p < kPipeNum; ++p) into[p] = std::max(into[p], c[p]);
}

// The SetFlag snapshots of one event and id not yet waited for, oldest first.
struct FlagQueue {
    uint32_t key = 0;
    std::vector<PipeClock> pending;
    size_t head = 0;
};

// LaunchState::pipeCheck values.
enum PipeCheckMode : uint8_t { kPipeCheckOff = 0, kPipeCheckOn = 1, kPipeCheckScalarToo = 2 };

struct PipeAccess {
    uint32_t seq = 0;  // the instruction's number on its pipe (1-based; 0: none)
    const char* api = nullptr;
};

struct UbBlockShadow {
    PipeAccess write;
    uint8_t writePipe = kPipeNone;
    PipeAccess reads[kPipeNum];
};

inline bool SameShadow(const UbBlockShadow& a, const UbBlockShadow& b)
{
    if (a.writePipe != b.writePipe || a.write.seq != b.write.seq || a.write.api != b.write.api) return false;
    for (int p = 0; p < kPipeNum; ++p) {
        if (a.reads[p].seq != b.reads[p].seq || a.reads[p].api != b.reads[p].api) return false;
    }
    return true;
}

// UB bytes [begin, end) (whole 32-byte blocks) whose blocks all have the same shadow.
struct UbSegment {
    uint64_t begin = 0;
    uint64_t end = 0;
    UbBlockShadow s;
};

// A copy's (or a scalar access's) GM bytes [begin, end), kept until every other pipe knows it
// completed (then no later access can conflict with it).
struct GmPipeAccess {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    uint32_t seq = 0;
    uint8_t pipe = kPipeNone;
    bool write = false;
    const char* api = nullptr;
};

struct PipeState {
    uint32_t issued[kPipeNum] = {};
    PipeClock known[kPipeNum] = {};
    std::vector<FlagQueue> flags;  // SetFlag snapshots by event key (few keys: searched in order)
    // The UB blocks' shadows as runs of equal ones, sorted and covering every address: a tile
    // read or written whole is one run, so an access costs a search and a few runs, not a step
    // per block.
    std::vector<UbSegment> ub;
    std::vector<GmPipeAccess> gm;  // this core's GM accesses not yet known to every other pipe
    // Static tensors' UB (LocalTensor(pos, addr, len)): kept when the tracking is reset.
    std::unique_ptr<uint8_t[]> staticMem;
    std::shared_ptr<void> staticSlot;  // a BufferSlot (kernel_tensor.h)

    void ResetTracking()
    {
        std::fill(std::begin(issued), std::end(issued), 0u);
        for (PipeClock& k : known) k.fill(0);
        flags.clear();
        ub.clear();
        gm.clear();
    }
};

inline PipeState& PipesOf(LaunchState& L)
{
    if (!L.pipes) L.pipes = std::make_shared<PipeState>();
    return *L.pipes;
}

// A new core: its SetFlag counts, and fresh pipe clocks in the state of the thread's last core
// (its vectors keep their memory), unless another launch state shares that one (a SyncAll
// coroutine copied from it).
inline void ResetLaunchFlags()
{
    g_launch.pendingFlags.assign(64u * 64u, 0u);
    if (g_launch.pipes && g_launch.pipes.use_count() == 1) {
        g_launch.pipes->ResetTracking();
        g_launch.pipes->staticSlot.reset();
    } else {
        g_launch.pipes.reset();
    }
}

// The pipe the call being emulated runs on: V unless a copy says otherwise (OnPipe).
inline thread_local uint8_t g_issuePipe = kPipeV;

struct OnPipe {
    explicit OnPipe(uint8_t p) : prev_(g_issuePipe) { g_issuePipe = p; }
    ~OnPipe() { g_issuePipe = prev_; }
    OnPipe(const OnPipe&) = delete;
    OnPipe& operator=(const OnPipe&) = delete;

private:
    uint8_t prev_;
};

// The mode the runner uses when RunOptions::checkPipes is true: OPGEN_TWIN_PIPE_CHECK=0 turns the
// check off, OPGEN_TWIN_CCE_AUTO_SYNC=0 checks the scalar unit's UB accesses too.
inline uint8_t PipeCheckModeFromEnv()
{
    const char* on = std::getenv("OPGEN_TWIN_PIPE_CHECK");
    if (on != nullptr && std::strcmp(on, "0") == 0) return kPipeCheckOff;
    const char* autoSync = std::getenv("OPGEN_TWIN_CCE_AUTO_SYNC");
    return autoSync != nullptr && std::strcmp(autoSync, "0") == 0 ? kPipeCheckScalarToo : kPipeCheckOn;
}

// Turns the check on (or off) for the calls that follow on this thread, with fresh clocks; for
// programs that call kernel APIs outside the runner (the runner sets it per launch).
inline void SetPipeCheck(uint8_t mode)
{
    g_launch.pipeCheck = mode;
    PipesOf(g_launch).ResetTracking();
}

// A new kernel (a TPipe constructed with no other alive): fresh clocks and shadow.
inline void ResetPipeTracking()
{
    if (g_launch.pipes) g_launch.pipes->ResetTracking();
}

inline bool PipeTracked(uint8_t p)
{
    const uint8_t mode = g_launch.pipeCheck;
    return mode != kPipeCheckOff && p < kPipeNum && (p != kPipeS || mode == kPipeCheckScalarToo);
}

// Pipe a's progress: what a SetFlag on it hands to the waiting pipe.
inline PipeClock PipeSnapshot(const PipeState& P, uint8_t a)
{
    PipeClock c = P.known[a];
    c[a] = P.issued[a];
    return c;
}

inline uint32_t FlagKey(uint32_t event, int32_t id) { return event * 64u + (static_cast<uint32_t>(id) & 63u); }

// SetFlag<A_B>(id) / WaitFlag<A_B>(id), the event given by its pipes and key.
inline FlagQueue& FlagQueueOf(PipeState& P, uint32_t key)
{
    for (FlagQueue& f : P.flags) {
        if (f.key == key) return f;
    }
    P.flags.emplace_back();
    P.flags.back().key = key;
    return P.flags.back();
}

inline void PipeSetFlag(uint8_t a, uint8_t b, uint32_t key)
{
    if (g_launch.pipeCheck == kPipeCheckOff || a >= kPipeNum || b >= kPipeNum) return;
    PipeState& P = PipesOf(g_launch);
    FlagQueue& f = FlagQueueOf(P, key);
    if (f.head == f.pending.size()) {  // all waited for: start over
        f.pending.clear();
        f.head = 0;
    }
    f.pending.push_back(PipeSnapshot(P, a));
}

inline void PipeWaitFlag(uint8_t a, uint8_t b, uint32_t key)
{
    if (g_launch.pipeCheck == kPipeCheckOff || a >= kPipeNum || b >= kPipeNum) return;
    PipeState& P = PipesOf(g_launch);
    FlagQueue& f = FlagQueueOf(P, key);
    if (f.head == f.pending.size()) return;  // no SetFlag: the pairing check reports it
    JoinClock(P.known[b], f.pending[f.head++]);
}

// A TQue's own events (kept with the buffer, not in the kernel's event ids).
inline void PipeSetInto(PipeClock& into, uint8_t a)
{
    if (g_launch.pipeCheck == kPipeCheckOff || a >= kPipeNum) return;
    into = PipeSnapshot(PipesOf(g_launch), a);
}

inline void PipeWaitOn(const PipeClock& c, uint8_t b)
{
    if (g_launch.pipeCheck == kPipeCheckOff || b >= kPipeNum) return;
    JoinClock(PipesOf(g_launch).known[b], c);
}

// PipeBarrier<PIPE_ALL>: every pipe waits for every instruction issued so far.
inline void PipeBarrierAll()
{
    if (g_launch.pipeCheck == kPipeCheckOff) return;
    PipeState& P = PipesOf(g_launch);
    PipeClock all{};
    for (int p = 0; p < kPipeNum; ++p) all[p] = P.issued[p];
    for (PipeClock& k : P.known) JoinClock(k, all);
}

struct PipeHazard {
    uint8_t pipe = kPipeNone;
    const char* api = nullptr;
    const char* kind = nullptr;
};

// The earlier access of block s that pipe q's access (a write or a read) is not ordered after.
inline PipeHazard FindPipeHazard(const PipeState& P, uint8_t q, bool write, const UbBlockShadow& s)
{
    const PipeClock& k = P.known[q];
    if (s.writePipe != kPipeNone && s.writePipe != q && s.write.seq > k[s.writePipe]) {
        return {s.writePipe, s.write.api, write ? "write after write" : "read after write"};
    }
    if (!write) return {};
    for (uint8_t p = 0; p < kPipeNum; ++p) {
        if (p != q && s.reads[p].seq > k[p]) return {p, s.reads[p].api, "write after read"};
    }
    return {};
}

inline void RecordPipeAccess(UbBlockShadow& s, uint8_t q, bool write, uint32_t seq, const char* api)
{
    if (write) {
        s.write = {seq, api};
        s.writePipe = q;
        for (PipeAccess& r : s.reads) r = PipeAccess();  // ordered before this write, or reported
    } else {
        s.reads[q] = {seq, api};
    }
}

// What to add between the two calls, as a sentence.
inline std::string PipeEventAdvice(uint8_t p, uint8_t q, const char* first, const char* second)
{
    std::string s = Format("needs SetFlag/WaitFlag<HardEvent::%s_%s> between %s (%s) and %s (%s)", PipeName(p),
                           PipeName(q), first, PipeName(p), second, PipeName(q));
    if ((p == kPipeMte2 && q == kPipeV) || (p == kPipeV && q == kPipeMte3)) {
        s += " (or pass the tensor through a TQue's EnQue/DeQue)";
    } else if ((p == kPipeV && q == kPipeMte2) || (p == kPipeMte3 && q == kPipeV)) {
        s += " (or take the buffer from a TQue's FreeTensor/AllocTensor)";
    }
    return s;
}

[[noreturn]] inline void ThrowPipeHazard(const PipeHazard& h, uint8_t q, const char* api, bool write,
                                         const std::string& buffer, uint64_t begin, uint64_t bytes, uint64_t block)
{
    ThrowHardware(Format(
        "pipe hazard (%s): %s (%s) %s UB bytes [%llu, %llu) of %s, where %s (%s) %s UB block %llu (bytes [%llu, %llu)), "
        "and nothing orders the two pipes, which run concurrently on the NPU: %s",
        h.kind, api, PipeName(q), write ? "writes" : "reads", static_cast<unsigned long long>(begin),
        static_cast<unsigned long long>(begin + bytes), buffer.c_str(), h.api, PipeName(h.pipe),
        std::strcmp(h.kind, "write after read") == 0 ? "read" : "wrote", static_cast<unsigned long long>(block),
        static_cast<unsigned long long>(block * 32), static_cast<unsigned long long>(block * 32 + 32),
        PipeEventAdvice(h.pipe, q, h.api, api).c_str()));
}

// The index of the run starting at byte x (a multiple of 32), splitting the run that holds it.
inline size_t SplitUbAt(std::vector<UbSegment>& runs, uint64_t x)
{
    if (runs.empty()) runs.push_back({0, ~uint64_t(0) / 64 * 32, UbBlockShadow()});
    auto it = std::upper_bound(runs.begin(), runs.end(), x,
                               [](uint64_t v, const UbSegment& r) { return v < r.begin; });
    size_t i = static_cast<size_t>(it - runs.begin()) - 1;
    if (runs[i].begin == x) return i;
    UbSegment tail = runs[i];
    tail.begin = x;
    runs[i].end = x;
    runs.insert(runs.begin() + static_cast<std::ptrdiff_t>(i + 1), tail);
    return i + 1;
}

// Joins equal neighbours among runs [lo, hi).
inline void MergeUbRuns(std::vector<UbSegment>& runs, size_t lo, size_t hi)
{
    size_t w = lo;
    for (size_t k = lo + 1; k < hi; ++k) {
        if (SameShadow(runs[w].s, runs[k].s)) {
            runs[w].end = runs[k].end;
        } else {
            runs[++w] = runs[k];
        }
    }
    runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(w + 1), runs.begin() + static_cast<std::ptrdiff_t>(hi));
}

// An access of pipe q to UB bytes [begin, begin + bytes) of a buffer (Slot: BufferSlot, named by
// DescribeSlot, found by argument-dependent lookup in kernel_pipe.h).
template <class Slot>
inline void NoteUbOn(uint8_t q, const char* api, bool write, const Slot* slot, uint64_t begin, uint64_t bytes)
{
    if (bytes == 0 || !PipeTracked(q)) return;
    PipeState& P = PipesOf(g_launch);
    const uint32_t seq = ++P.issued[q];
    const size_t i = SplitUbAt(P.ub, begin / 32 * 32);
    const size_t j = SplitUbAt(P.ub, (begin + bytes + 31) / 32 * 32);
    for (size_t k = i; k < j; ++k) {
        const PipeHazard h = FindPipeHazard(P, q, write, P.ub[k].s);
        if (h.pipe != kPipeNone) ThrowPipeHazard(h, q, api, write, DescribeSlot(slot), begin, bytes, P.ub[k].begin / 32);
    }
    for (size_t k = i; k < j; ++k) RecordPipeAccess(P.ub[k].s, q, write, seq, api);
    MergeUbRuns(P.ub, i > 0 ? i - 1 : 0, std::min(j + 1, P.ub.size()));
}

// The same on the pipe of the call being emulated.
template <class Slot>
inline void NoteUb(const char* api, bool write, const Slot* slot, uint64_t begin, uint64_t bytes)
{
    if (g_launch.pipeCheck == kPipeCheckOff) return;
    NoteUbOn(g_issuePipe, api, write, slot, begin, bytes);
}

// Drops the GM accesses every other checked pipe knows completed; at most kGmKept are kept (the
// oldest dropped first: a hazard with them is then missed, never invented).
inline void PruneGmAccesses(PipeState& P)
{
    constexpr size_t kGmKept = 4096;
    auto retired = [&P](const GmPipeAccess& r) {
        for (uint8_t q = 0; q < kPipeNum; ++q) {
            if (q != r.pipe && PipeTracked(q) && P.known[q][r.pipe] < r.seq) return false;
        }
        return true;
    };
    P.gm.erase(std::remove_if(P.gm.begin(), P.gm.end(), retired), P.gm.end());
    if (P.gm.size() >= kGmKept) P.gm.erase(P.gm.begin(), P.gm.begin() + kGmKept / 2);
}

inline std::string DescribeGm(uintptr_t begin, uintptr_t end)
{
    const GmRegion* r = FindGmRegion(reinterpret_cast<const void*>(begin));
    if (r == nullptr) return Format("GM bytes [%p, %p)", reinterpret_cast<void*>(begin), reinterpret_cast<void*>(end));
    const uintptr_t base = reinterpret_cast<uintptr_t>(r->begin);
    return Format("GM bytes [%llu, %llu) of %s", static_cast<unsigned long long>(begin - base),
                  static_cast<unsigned long long>(end - base), r->name.c_str());
}

[[noreturn]] inline void ThrowGmPipeHazard(const GmPipeAccess& r, const GmPipeAccess& now)
{
    const char* kind = now.write ? (r.write ? "write after write" : "write after read") : "read after write";
    ThrowHardware(Format("pipe hazard (%s, GM): %s (%s) %s %s, where %s (%s) %s %s of this core, and nothing orders "
                         "the two pipes, which run concurrently on the NPU: %s",
                         kind, now.api, PipeName(now.pipe), now.write ? "writes" : "reads",
                         DescribeGm(now.begin, now.end).c_str(), r.api, PipeName(r.pipe),
                         r.write ? "wrote" : "read", DescribeGm(r.begin, r.end).c_str(),
                         PipeEventAdvice(r.pipe, now.pipe, r.api, now.api).c_str()));
}

// An access of pipe q to GM bytes [p, p + bytes) of this core: a conflicting earlier access of
// another pipe not known to have completed fails it (a core's copy out read back by its copy in
// needs MTE3_MTE2, a copy in overwritten by a copy out MTE2_MTE3 unless ordered through V).
inline void NoteGmOn(uint8_t q, const char* api, bool write, const void* p, uint64_t bytes)
{
    if (bytes == 0 || !PipeTracked(q)) return;
    PipeState& P = PipesOf(g_launch);
    const uintptr_t b = reinterpret_cast<uintptr_t>(p);
    const GmPipeAccess now{b, b + bytes, ++P.issued[q], q, write, api};
    PruneGmAccesses(P);
    for (const GmPipeAccess& r : P.gm) {
        if (r.pipe == q || r.end <= now.begin || now.end <= r.begin || !(write || r.write)) continue;
        if (r.seq > P.known[q][r.pipe]) ThrowGmPipeHazard(r, now);
    }
    P.gm.push_back(now);
}

// The same on the pipe of the call being emulated.
inline void NoteGm(const char* api, bool write, const void* p, uint64_t bytes)
{
    if (g_launch.pipeCheck == kPipeCheckOff) return;
    NoteGmOn(g_issuePipe, api, write, p, bytes);
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_PIPES_H
