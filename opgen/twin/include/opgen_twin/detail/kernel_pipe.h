// opgen CPU twin: TPipe, TQue/TQueBind, TBuf with UB accounting and queue-protocol checks.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_PIPE_H
#define OPGEN_TWIN_DETAIL_KERNEL_PIPE_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "opgen_twin/detail/kernel_tensor.h"

namespace AscendC {

enum class HardEvent : uint8_t {
    MTE2_MTE1,
    MTE1_MTE2,
    MTE1_M,
    M_MTE1,
    MTE2_V,
    V_MTE2,
    MTE3_V,
    V_MTE3,
    M_V,
    V_M,
    V_V,
    MTE3_MTE1,
    MTE1_MTE3,
    MTE1_V,
    MTE2_M,
    M_MTE2,
    V_MTE1,
    M_FIX,
    FIX_M,
    MTE3_MTE2,
    MTE2_MTE3,
    S_V,
    V_S,
    S_MTE2,
    MTE2_S,
    S_MTE3,
    MTE3_S,
    MTE2_FIX,
    FIX_MTE2,
    FIX_S,
    M_S,
    FIX_MTE3,
    MTE1_FIX,
    FIX_MTE1,
    FIX_FIX,
    MAX,
};
using TEventID = int8_t;

class TPipe;
template <TPosition pos>
class TBuf;

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// The pipes of a HardEvent (src sets, dst waits), kPipeNone for the cube's.
inline void EventPipes(AscendC::HardEvent e, uint8_t& src, uint8_t& dst)
{
    constexpr uint8_t N = kPipeNone, S = kPipeS, V = kPipeV, I = kPipeMte2, O = kPipeMte3;
    static const uint8_t kPipes[][2] = {
        {I, N}, {N, I}, {N, N}, {N, N}, {I, V}, {V, I}, {O, V}, {V, O}, {N, V}, {V, N}, {V, V}, {O, N},
        {N, O}, {N, V}, {I, N}, {N, I}, {V, N}, {N, N}, {N, N}, {O, I}, {I, O}, {S, V}, {V, S}, {S, I},
        {I, S}, {S, O}, {O, S}, {I, N}, {N, I}, {N, S}, {N, S}, {N, O}, {N, N}, {N, N}, {N, N}};
    const size_t i = static_cast<size_t>(e);
    src = i < sizeof(kPipes) / sizeof(kPipes[0]) ? kPipes[i][0] : N;
    dst = i < sizeof(kPipes) / sizeof(kPipes[0]) ? kPipes[i][1] : N;
}

// SetFlag<event>(id) (set) or WaitFlag<event>(id).
inline void PipeEventFlag(AscendC::HardEvent e, int32_t id, bool set)
{
    if (g_launch.pipeCheck == kPipeCheckOff) return;
    uint8_t a = kPipeNone, b = kPipeNone;
    EventPipes(e, a, b);
    const uint32_t key = FlagKey(static_cast<uint32_t>(e), id);
    if (set) {
        PipeSetFlag(a, b, key);
    } else {
        PipeWaitFlag(a, b, key);
    }
}

// set_flag/wait_flag(pipe_t a, pipe_t b, id): the compiler's pipe_t numbers (kernel_misc.h:
// PIPE_S 0, PIPE_V 1, PIPE_MTE2 4, PIPE_MTE3 5), in ids of their own.
inline void PipeIntrinsicFlag(int a, int b, int id, bool set)
{
    if (g_launch.pipeCheck == kPipeCheckOff) return;
    const auto tracked = [](int p) -> uint8_t {
        return p == 0 ? kPipeS : p == 1 ? kPipeV : p == 4 ? kPipeMte2 : p == 5 ? kPipeMte3 : kPipeNone;
    };
    const uint32_t key = 0x10000u + static_cast<uint32_t>(a * 16 + b) * 64u + (static_cast<uint32_t>(id) & 63u);
    if (set) {
        PipeSetFlag(tracked(a), tracked(b), key);
    } else {
        PipeWaitFlag(tracked(a), tracked(b), key);
    }
}

// The events a queue between two positions sets and waits (asc-devkit kernel_event.h GetQueEvt on
// the positions' memories, GetPhyType): GM->UB MTE2_V forward (EnQue sets, DeQue waits) and V_MTE2
// backward (FreeTensor sets, AllocTensor waits); UB->GM V_MTE3 and MTE3_V; UB->UB MTE2_MTE3 and
// MTE3_MTE2; the cube's memories none the twin tracks.
struct QueEvents {
    uint8_t fwdSrc = kPipeNone, fwdDst = kPipeNone, backSrc = kPipeNone, backDst = kPipeNone;
};

inline bool InUb(AscendC::TPosition p)
{
    return p == AscendC::TPosition::VECIN || p == AscendC::TPosition::VECOUT || p == AscendC::TPosition::VECCALC ||
           p == AscendC::TPosition::MAX;
}

inline QueEvents QueEventsOf(AscendC::TPosition src, AscendC::TPosition dst)
{
    const bool srcGm = src == AscendC::TPosition::GM, dstGm = dst == AscendC::TPosition::GM;
    if (srcGm && InUb(dst)) return {kPipeMte2, kPipeV, kPipeV, kPipeMte2};
    if (InUb(src) && dstGm) return {kPipeV, kPipeMte3, kPipeMte3, kPipeV};
    if (InUb(src) && InUb(dst)) return {kPipeMte2, kPipeMte3, kPipeMte3, kPipeMte2};
    return {};
}

// TQue<pos>'s: the positions asc-devkit's GetBufferLogicPos gives it (VECIN: GM->VECIN, VECOUT and
// SPM: VECOUT->GM, VECCALC: none, so UB->UB).
inline QueEvents TQueEventsOf(AscendC::TPosition pos)
{
    using AscendC::TPosition;
    if (pos == TPosition::VECIN) return QueEventsOf(TPosition::GM, TPosition::VECIN);
    if (pos == TPosition::VECOUT || pos == TPosition::SPM) return QueEventsOf(TPosition::VECOUT, TPosition::GM);
    if (pos == TPosition::VECCALC) return QueEventsOf(TPosition::MAX, TPosition::MAX);
    return {};
}

// Non-template part of every queue: the protocol state machine.
class QueueCore {
public:
    static constexpr int kMaxBufs = 16;

    void SetEvents(const QueEvents& e) { events_ = e; }

    void Init(AscendC::TPosition pos, int32_t depth, bool isTBuf)
    {
        pos_ = pos;
        depth_ = depth;
        isTBuf_ = isTBuf;
    }
    std::string Describe() const
    {
        return isTBuf_ ? Format("TBuf<%s>", PositionName(pos_)) : Format("TQue<%s, depth %d>", PositionName(pos_), depth_);
    }
    bool Initialized() const { return num_ > 0; }
    int Num() const { return num_; }
    BufferSlot* Slot(int i) const { return slots_[i]; }
    void AddSlot(BufferSlot* s)
    {
        s->owner = this;
        s->pos = pos_;
        slots_[num_++] = s;
    }

    BufferSlot* Alloc()
    {
        if (num_ == 0) {
            ThrowHardware(Format("%s::AllocTensor: the queue has no buffers (TPipe::InitBuffer was not called "
                                 "for it)", Describe().c_str()));
        }
        for (int k = 0; k < num_; ++k) {
            BufferSlot* s = slots_[(nextAlloc_ + k) % num_];
            if (s->state == SlotState::kFree) {
                nextAlloc_ = (nextAlloc_ + k + 1) % num_;
                s->state = SlotState::kAllocated;
                if (s->freePending) PipeWaitOn(s->freeClock, events_.backDst);
                s->freePending = false;
                return s;
            }
        }
        ThrowHardware(Format("%s::AllocTensor: all %d buffers of the queue are in use (allocated and not yet "
                             "released with FreeTensor); on the NPU this AllocTensor would wait forever",
                             Describe().c_str(), num_));
    }

    // EnQue<srcUserPos, dstUserPos>: the event those positions give, else the queue's own.
    void EnQue(BufferSlot* s, uint32_t gen, const QueEvents* user = nullptr)
    {
        CheckOwned("EnQue", s, gen);
        if (s->state == SlotState::kEnqueued) {
            ThrowHardware(Format("%s::EnQue: this tensor is already in the queue (EnQue twice without DeQue)",
                                 Describe().c_str()));
        }
        if (count_ >= depth_) {
            ThrowHardware(Format("%s::EnQue: the queue already holds %d tensors, its depth; EnQue beyond the "
                                 "queue depth", Describe().c_str(), count_));
        }
        s->state = SlotState::kEnqueued;
        const QueEvents& e = user != nullptr ? *user : events_;
        PipeSetInto(s->enqClock, e.fwdSrc);
        s->enqWaitPipe = e.fwdDst;
        fifo_[(head_ + count_) % kMaxBufs] = s;
        ++count_;
    }

    BufferSlot* DeQue()
    {
        if (count_ == 0) {
            ThrowHardware(Format("%s::DeQue: the queue is empty (DeQue without a matching EnQue); on the NPU this "
                                 "DeQue would wait forever", Describe().c_str()));
        }
        BufferSlot* s = fifo_[head_];
        head_ = (head_ + 1) % kMaxBufs;
        --count_;
        s->state = SlotState::kAllocated;
        PipeWaitOn(s->enqClock, s->enqWaitPipe);
        return s;
    }

    void Free(BufferSlot* s, uint32_t gen)
    {
        CheckOwned("FreeTensor", s, gen);
        if (s->state == SlotState::kEnqueued) {
            ThrowHardware(Format("%s::FreeTensor: the tensor is still in the queue (EnQue'd and not DeQue'd)",
                                 Describe().c_str()));
        }
        s->state = SlotState::kFree;
        ++s->gen;
        if (events_.backSrc < kPipeNum) {
            PipeSetInto(s->freeClock, events_.backSrc);
            s->freePending = true;
        }
    }
    // TPipe::Reset/Destroy: the free events of released buffers are waited on.
    void WaitFreeEvents()
    {
        for (int k = 0; k < num_; ++k) {
            if (slots_[k]->freePending) PipeWaitOn(slots_[k]->freeClock, events_.backDst);
            slots_[k]->freePending = false;
        }
    }

    void Forget()
    {
        num_ = 0;
        head_ = 0;
        count_ = 0;
        nextAlloc_ = 0;
    }
    int Count() const { return count_; }
    int Depth() const { return depth_; }
    bool HasIdle() const
    {
        for (int k = 0; k < num_; ++k) {
            if (slots_[k]->state == SlotState::kFree) {
                return true;
            }
        }
        return false;
    }

private:
    void CheckOwned(const char* api, BufferSlot* s, uint32_t gen) const
    {
        if (s == nullptr) {
            ThrowHardware(Format("%s::%s: the tensor is a default-constructed LocalTensor", Describe().c_str(), api));
        }
        if (s->owner != this) {
            ThrowHardware(Format("%s::%s: the tensor was not allocated from this queue", Describe().c_str(), api));
        }
        if (s->state == SlotState::kFree || s->gen != gen) {
            ThrowHardware(Format("%s::%s: the tensor was already released with FreeTensor (double free or use "
                                 "after free)", Describe().c_str(), api));
        }
    }

    BufferSlot* slots_[kMaxBufs] = {};
    BufferSlot* fifo_[kMaxBufs] = {};
    int num_ = 0;
    int depth_ = 0;
    int head_ = 0;
    int count_ = 0;
    int nextAlloc_ = 0;
    bool isTBuf_ = false;
    AscendC::TPosition pos_ = AscendC::TPosition::VECCALC;
    QueEvents events_;
};

// The buffer a pipe-check message names.
inline std::string DescribeSlot(const BufferSlot* s)
{
    if (s->owner == nullptr) return "the static tensors' UB";
    return Format("a %s buffer (UB bytes [%u, %u))", static_cast<const QueueCore*>(s->owner)->Describe().c_str(),
                  s->ubOffset, s->ubOffset + s->bytes);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
public:
    TQueBind()
    {
        core_.Init(src == TPosition::GM ? dst : src, depth, false);
        core_.SetEvents(opgen_twin::detail::QueEventsOf(src, dst));
    }
    TQueBind(const TQueBind&) = delete;
    TQueBind& operator=(const TQueBind&) = delete;

    template <class T>
    LocalTensor<T> AllocTensor()
    {
        opgen_twin::detail::BufferSlot* s = core_.Alloc();
        LocalTensor<T> t;
        t.TwinInit(s, s->gen, 0, static_cast<uint32_t>(s->bytes / sizeof(T)));
        return t;
    }
    template <class T>
    void AllocTensor(LocalTensor<T>& tensor)
    {
        tensor = AllocTensor<T>();
    }
    template <class T>
    bool EnQue(const LocalTensor<T>& tensor)
    {
        core_.EnQue(tensor.TwinSlot(), tensor.TwinGen());
        return true;
    }
    template <class T>
    LocalTensor<T> DeQue()
    {
        opgen_twin::detail::BufferSlot* s = core_.DeQue();
        LocalTensor<T> t;
        t.TwinInit(s, s->gen, 0, static_cast<uint32_t>(s->bytes / sizeof(T)));
        return t;
    }
    template <class T>
    void DeQue(LocalTensor<T>& tensor)
    {
        tensor = DeQue<T>();
    }
    // The forms naming the positions the data moved between (asc-devkit kernel_tpipe.h:
    // EnQue<srcUserPos, dstUserPos, T>, DeQue<srcUserPos, dstUserPos, T>): on the NPU they pick the
    // hardware event; the twin's pipe check orders the pipes of those positions' event.
    template <TPosition srcUserPos, TPosition dstUserPos, class T>
    bool EnQue(const LocalTensor<T>& tensor)
    {
        const opgen_twin::detail::QueEvents user = opgen_twin::detail::QueEventsOf(srcUserPos, dstUserPos);
        core_.EnQue(tensor.TwinSlot(), tensor.TwinGen(), &user);
        return true;
    }
    template <TPosition srcUserPos, TPosition dstUserPos, class T>
    LocalTensor<T> DeQue()
    {
        return DeQue<T>();
    }
    template <class T>
    void FreeTensor(LocalTensor<T>& tensor)
    {
        core_.Free(tensor.TwinSlot(), tensor.TwinGen());
    }
    bool VacantInQue() const { return core_.Count() < core_.Depth(); }
    bool HasTensorInQue() const { return core_.Count() > 0; }
    int32_t GetTensorCountInQue() const { return core_.Count(); }
    bool HasIdleBuffer() const { return core_.HasIdle(); }
    void FreeAllEvent() {}

    opgen_twin::detail::QueueCore& TwinCore() { return core_; }

private:
    opgen_twin::detail::QueueCore core_;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {
    static_assert(depth >= 1 && depth <= opgen_twin::detail::QueueCore::kMaxBufs,
                  "opgen twin: TQue depth must be in [1, 16]");

public:
    TQue() { this->TwinCore().SetEvents(opgen_twin::detail::TQueEventsOf(pos)); }
};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    TBuf() { core_.Init(pos, 0, true); }
    TBuf(const TBuf&) = delete;
    TBuf& operator=(const TBuf&) = delete;

    template <class T>
    LocalTensor<T> Get()
    {
        opgen_twin::detail::BufferSlot* s = TwinSlot("TBuf::Get");
        LocalTensor<T> t;
        t.TwinInit(s, s->gen, 0, static_cast<uint32_t>(s->bytes / sizeof(T)));
        return t;
    }
    template <class T>
    LocalTensor<T> Get(uint32_t len)
    {
        opgen_twin::detail::BufferSlot* s = TwinSlot("TBuf::Get");
        if (static_cast<uint64_t>(len) * sizeof(T) > s->bytes) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "TBuf::Get<%s>(%u): %llu bytes requested but the buffer has %u bytes (InitBuffer len)",
                opgen_twin::detail::TypeName<T>(), len,
                static_cast<unsigned long long>(static_cast<uint64_t>(len) * sizeof(T)), s->bytes));
        }
        LocalTensor<T> t;
        t.TwinInit(s, s->gen, 0, len);
        return t;
    }
    // size in elements, bufOffset in bytes (must keep 32-byte alignment).
    template <class T>
    LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset)
    {
        opgen_twin::detail::BufferSlot* s = TwinSlot("TBuf::GetWithOffset");
        if (bufOffset % ONE_BLK_SIZE != 0) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "TBuf::GetWithOffset(%u, %u): byte offset %u is not 32-byte aligned", size, bufOffset, bufOffset));
        }
        if (bufOffset + static_cast<uint64_t>(size) * sizeof(T) > s->bytes) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "TBuf::GetWithOffset<%s>(%u, %u): range ends past the %u-byte buffer",
                opgen_twin::detail::TypeName<T>(), size, bufOffset, s->bytes));
        }
        LocalTensor<T> t;
        t.TwinInit(s, s->gen, bufOffset, size);
        return t;
    }
    uint32_t GetBufLen() const { return core_.Initialized() ? core_.Slot(0)->bytes : 0; }
    // The queue calls TBuf inherits from TQueBind (asc-devkit impl/basic_api/kernel_tbuf_impl.h):
    // AllocTensor and DeQue are Get(), EnQue and FreeTensor do nothing.
    template <class T>
    LocalTensor<T> AllocTensor()
    {
        return Get<T>();
    }
    template <class T>
    LocalTensor<T> DeQue()
    {
        return Get<T>();
    }
    template <class T>
    void EnQue(const LocalTensor<T>&)
    {
    }
    template <class T>
    void FreeTensor(LocalTensor<T>&)
    {
    }

    opgen_twin::detail::QueueCore& TwinCore() { return core_; }

private:
    opgen_twin::detail::BufferSlot* TwinSlot(const char* api)
    {
        if (!core_.Initialized()) {
            opgen_twin::detail::ThrowHardware(
                opgen_twin::detail::Format("%s: TBuf used before TPipe::InitBuffer(tbuf, len)", api));
        }
        return core_.Slot(0);
    }
    opgen_twin::detail::QueueCore core_;
};

}  // namespace AscendC

namespace AscendC {

// The pipe owns the core's Unified Buffer (one arena of the configured UB size) and
// hands out 32-byte aligned regions to queues and TBufs. Running past the UB size is an
// error instead of silent overlap.
class TPipe {
public:
    TPipe() : capacity_(opgen_twin::detail::g_launch.ubSize)
    {
        if (opgen_twin::detail::g_launch.currentPipe == nullptr) opgen_twin::detail::ResetPipeTracking();
        const size_t bytes = capacity_ + 64;
        opgen_twin::detail::UbArena& shared = opgen_twin::detail::ThreadUbArena();
        uint8_t* memory = nullptr;
        if (!shared.inUse) {
            if (shared.bytes < bytes) {
                shared.memory.reset(new uint8_t[bytes]);
                shared.bytes = bytes;
            }
            shared.inUse = true;
            usesShared_ = true;
            memory = shared.memory.get();
        } else {
            arena_.reset(new uint8_t[bytes]);
            memory = arena_.get();
        }
        base_ = memory + (64 - reinterpret_cast<uintptr_t>(memory) % 64) % 64;
        opgen_twin::detail::g_launch.currentPipe = this;
    }
    ~TPipe()
    {
        if (usesShared_) {
            opgen_twin::detail::ThreadUbArena().inUse = false;
        }
        if (opgen_twin::detail::g_launch.currentPipe == this) {
            opgen_twin::detail::g_launch.currentPipe = nullptr;
        }
    }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    template <class Q>
    bool InitBuffer(Q& que, uint8_t num, uint32_t len)
    {
        opgen_twin::detail::QueueCore& core = que.TwinCore();
        const auto what = [&] {  // formatted only for an error message
            return opgen_twin::detail::Format("TPipe::InitBuffer(%s, num=%u, len=%u)", core.Describe().c_str(), num,
                                              len);
        };
        if (core.Initialized()) {
            opgen_twin::detail::ThrowHardware(what() + ": the queue was already initialised");
        }
        if (num == 0 || num > opgen_twin::detail::QueueCore::kMaxBufs) {
            opgen_twin::detail::ThrowHardware(what() + ": num must be in [1, 16]");
        }
        Carve(what, core, num, len);
        return true;
    }
    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint32_t len)
    {
        opgen_twin::detail::QueueCore& core = buf.TwinCore();
        const auto what = [&] {
            return opgen_twin::detail::Format("TPipe::InitBuffer(%s, len=%u)", core.Describe().c_str(), len);
        };
        if (core.Initialized()) {
            opgen_twin::detail::ThrowHardware(what() + ": the TBuf was already initialised");
        }
        Carve(what, core, 1, len);
        core.Slot(0)->state = opgen_twin::detail::SlotState::kFixed;
        return true;
    }
    // Releases every buffer: queues/TBufs must be InitBuffer'd again; tensors taken from
    // them before the Reset become stale.
    void Reset()
    {
        WaitFreeEvents();
        for (auto& s : slots_) {
            s->FillAround(0, 0);  // the garbage a later buffer there finds
            if (s->owner != nullptr) {
                static_cast<opgen_twin::detail::QueueCore*>(const_cast<void*>(s->owner))->Forget();
            }
            s->owner = nullptr;
            s->state = opgen_twin::detail::SlotState::kFree;
            ++s->gen;
        }
        used_ = 0;
    }
    // Waits for the released buffers' free events, then PipeBarrier<PIPE_ALL> (asc-devkit
    // TPipe::Destroy).
    void Destroy()
    {
        WaitFreeEvents();
        opgen_twin::detail::PipeBarrierAll();
    }
    void Init() {}
    template <HardEvent evt>
    TEventID FetchEventID() { return 0; }
    TEventID FetchEventID(HardEvent) { return 0; }
    template <HardEvent evt>
    TEventID AllocEventID() { return 0; }
    template <HardEvent evt>
    void ReleaseEventID(TEventID) {}

    // ---- twin internals ----
    uint64_t TwinUsedBytes() const { return used_; }
    uint64_t TwinCapacity() const { return capacity_; }

private:
    void WaitFreeEvents()
    {
        for (auto& s : slots_) {
            if (s->owner != nullptr) {
                static_cast<opgen_twin::detail::QueueCore*>(const_cast<void*>(s->owner))->WaitFreeEvents();
            }
        }
    }
    template <class What>
    void Carve(const What& what, opgen_twin::detail::QueueCore& core, uint32_t num, uint32_t len)
    {
        const uint64_t aligned = (static_cast<uint64_t>(len) + 31u) / 32u * 32u;
        const uint64_t need = aligned * num;
        if (used_ + need > capacity_) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: UB exhausted - this call needs %llu bytes, %llu of the %llu-byte Unified Buffer (%s) are "
                "already taken, total %llu > %llu (reduce the tile length or BUFFER_NUM)",
                what().c_str(), static_cast<unsigned long long>(need), static_cast<unsigned long long>(used_),
                static_cast<unsigned long long>(capacity_), opgen_twin::detail::g_launch.socVersion.c_str(),
                static_cast<unsigned long long>(used_ + need), static_cast<unsigned long long>(capacity_)));
        }
        for (uint32_t i = 0; i < num; ++i) {
            slots_.emplace_back(new opgen_twin::detail::BufferSlot());
            opgen_twin::detail::BufferSlot* s = slots_.back().get();
            s->data = base_ + used_;
            s->bytes = static_cast<uint32_t>(aligned);
            s->ubOffset = static_cast<uint32_t>(used_);
            // UB no earlier buffer of this pipe had is garbage (0xFF) when first touched; UB
            // carved again after a Reset() keeps what was written there, as on the NPU.
            if (used_ >= carvedEnd_) {
                s->unfilled = true;
            } else if (used_ + aligned > carvedEnd_) {
                std::memset(base_ + carvedEnd_, 0xFF, static_cast<size_t>(used_ + aligned - carvedEnd_));
            }
            carvedEnd_ = std::max(carvedEnd_, used_ + aligned);
            core.AddSlot(s);
            used_ += aligned;
        }
    }

    uint64_t capacity_;
    uint64_t used_ = 0;
    uint64_t carvedEnd_ = 0;  // the end of the UB any buffer of this pipe has had
    std::unique_ptr<uint8_t[]> arena_;  // when the thread's UB arena is taken
    bool usesShared_ = false;           // base_ is in ThreadUbArena()
    uint8_t* base_ = nullptr;
    std::vector<std::unique_ptr<opgen_twin::detail::BufferSlot>> slots_;
};

// Initialises the core's global state registers, as a static-tensor kernel must at its start
// (asc-devkit InitSocState.md); the twin's launch starts each core in that state.
inline void InitSocState() {}

inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(opgen_twin::detail::g_launch.currentPipe); }

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_PIPE_H
