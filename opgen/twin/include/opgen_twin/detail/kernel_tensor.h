// opgen CPU twin: AscendC::TPosition, LocalTensor<T>, GlobalTensor<T>.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_TENSOR_H
#define OPGEN_TWIN_DETAIL_KERNEL_TENSOR_H

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "opgen_twin/detail/gm_addr.h"
#include "opgen_twin/detail/launch.h"
#include "opgen_twin/detail/pipes.h"

#ifndef __ubuf__
#define __ubuf__
#endif

namespace AscendC {

enum class TPosition : uint8_t {
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
    C2PIPE2GM,
    C2PIPE2LOCAL,
    MAX,
};
using QuePosition = TPosition;

enum class CacheMode : uint8_t { CACHE_MODE_NORMAL = 0, CACHE_MODE_DISABLE, CACHE_MODE_LAST, CACHE_MODE_PERSISTENT };

constexpr int32_t ONE_BLK_SIZE = 32;  // UB data block: the unit of alignment
constexpr int32_t DEFAULT_C0_SIZE = 32;      // asc-devkit kernel_utils_constants.h
constexpr int32_t DEFAULT_BLOCK_SIZE = 256;  // bytes one repeat of a vector instruction takes
// The UB a kernel's buffers may take (asc-devkit kernel_utils_constants.h, by __NPU_ARCH__; a
// variant built without one is Atlas A2/A3's, 2201, the twin's default SoC).
#if defined(__NPU_ARCH__) && (__NPU_ARCH__ == 1001 || __NPU_ARCH__ == 2002)
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 248 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 256 * 1024;
#elif defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3003 || __NPU_ARCH__ == 3113)
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 118 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 118 * 1024;
#elif defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3002)
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 248 * 1024;
#elif defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3102)
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 256 * 1024;
#elif defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3510 || __NPU_ARCH__ == 5102)
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 248 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 248 * 1024;
#else
constexpr int32_t TOTAL_VEC_LOCAL_SIZE = 184 * 1024;
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;
#endif

template <class T>
class LocalTensor;
template <class T>
class GlobalTensor;
// The expression operators' operand pairs (dst = a + b; ...), opgen_twin/detail/kernel_symbol.h.
template <class T> class SymbolOverrideAdd;
template <class T> class SymbolOverrideSub;
template <class T> class SymbolOverrideMul;
template <class T> class SymbolOverrideDiv;
template <class T> class SymbolOverrideOr;
template <class T> class SymbolOverrideAnd;

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

inline const char* PositionName(AscendC::TPosition p)
{
    switch (p) {
        case AscendC::TPosition::GM: return "GM";
        case AscendC::TPosition::VECIN: return "VECIN";
        case AscendC::TPosition::VECOUT: return "VECOUT";
        case AscendC::TPosition::VECCALC: return "VECCALC";
        case AscendC::TPosition::A1: return "A1";
        case AscendC::TPosition::A2: return "A2";
        case AscendC::TPosition::B1: return "B1";
        case AscendC::TPosition::B2: return "B2";
        case AscendC::TPosition::C1: return "C1";
        case AscendC::TPosition::C2: return "C2";
        case AscendC::TPosition::CO1: return "CO1";
        case AscendC::TPosition::CO2: return "CO2";
        default: return "OTHER";
    }
}

enum class SlotState : uint8_t { kFree, kAllocated, kEnqueued, kFixed };

// One UB buffer handed out by TPipe::InitBuffer (a queue owns `num` of them, a TBuf one).
struct BufferSlot {
    uint8_t* data = nullptr;
    uint32_t bytes = 0;     // 32-byte aligned capacity
    uint32_t ubOffset = 0;  // byte offset inside the core's UB
    SlotState state = SlotState::kFree;
    uint32_t gen = 0;       // bumped by FreeTensor: older handles become stale
    const void* owner = nullptr;
    AscendC::TPosition pos = AscendC::TPosition::VECCALC;
    // Fresh UB holds garbage on the NPU; the twin shows it as 0xFF bytes (NaN for half, float
    // and bfloat16). A slot is filled when first touched, not when carved, so a DataCopy from GM
    // fills only the bytes it does not write (for a copied-in tile, none): filling all of UB for
    // every block cost about as much as a row-broadcast add's own copies.
    bool unfilled = false;
    int32_t userTag = 0;  // LocalTensor::SetUserTag: travels with the buffer through its queue
    // The events of its queue (pipes.h), kept with the buffer as asc-devkit keeps their ids:
    // EnQue's snapshot for DeQue (waited on by pipe enqWaitPipe), FreeTensor's for AllocTensor.
    PipeClock enqClock{};
    PipeClock freeClock{};
    uint8_t enqWaitPipe = kPipeNone;
    bool freePending = false;

    // Fills the bytes outside [begin, end), which the caller writes next, if not done yet.
    void FillAround(uint64_t begin, uint64_t end)
    {
        if (!unfilled) return;
        std::memset(data, 0xFF, static_cast<size_t>(begin));
        std::memset(data + end, 0xFF, static_cast<size_t>(bytes - end));
        unfilled = false;
    }
};

// The UB of static tensors (LocalTensor(pos, addr, tileSize), asc-devkit 静态Tensor编程.md): one
// buffer over the core's whole UB, its bytes at their UB addresses.
inline BufferSlot* StaticUbSlot()
{
    PipeState& P = PipesOf(g_launch);
    if (!P.staticSlot) {
        auto slot = std::make_shared<BufferSlot>();
        P.staticMem.reset(new uint8_t[g_launch.ubSize + 64]);
        uint8_t* m = P.staticMem.get();
        slot->data = m + (64 - reinterpret_cast<uintptr_t>(m) % 64) % 64;
        slot->bytes = static_cast<uint32_t>(g_launch.ubSize);
        slot->state = SlotState::kFixed;
        slot->unfilled = true;
        P.staticSlot = slot;
    }
    return static_cast<BufferSlot*>(P.staticSlot.get());
}

// A vector or copy call's operand role that it writes (else it reads it).
inline bool IsWrittenRole(const char* role)
{
    return std::strncmp(role, "dst", 3) == 0 || std::strncmp(role, "sharedTmpBuffer", 15) == 0;
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <class T>
class LocalTensor {
public:
    using PrimType = T;

    LocalTensor() = default;
    // A static tensor: tileSize elements at UB byte address addr (asc-devkit 静态Tensor编程.md).
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize)
    {
        opgen_twin::detail::BufferSlot* s = opgen_twin::detail::StaticUbSlot();
        if (static_cast<uint64_t>(addr) + static_cast<uint64_t>(tileSize) * sizeof(T) > s->bytes) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "LocalTensor<%s>(%s, addr %u, %u elements): ends at UB byte %llu, past the %u-byte Unified Buffer",
                opgen_twin::detail::TypeName<T>(), opgen_twin::detail::PositionName(pos), addr, tileSize,
                static_cast<unsigned long long>(addr + static_cast<uint64_t>(tileSize) * sizeof(T)), s->bytes));
        }
        TwinInit(s, s->gen, addr, tileSize);
    }

    T GetValue(const uint32_t index) const
    {
        TwinCheckIndex("LocalTensor::GetValue", index);
        TwinNoteScalar("LocalTensor::GetValue", false, index);
        return opgen_twin::detail::Load<T>(TwinData(), index);
    }
    template <class S>
    void SetValue(const uint32_t index, const S value) const
    {
        TwinCheckIndex("LocalTensor::SetValue", index);
        TwinNoteScalar("LocalTensor::SetValue", true, index);
        opgen_twin::detail::Store<T>(TwinData(), index, static_cast<T>(value));
    }
    T& operator()(const uint32_t index) const
    {
        TwinCheckIndex("LocalTensor::operator()", index);
        TwinNoteScalar("LocalTensor::operator()", true, index);  // read or written: taken as a write
        return *reinterpret_cast<T*>(static_cast<uint8_t*>(TwinData()) + static_cast<uint64_t>(index) * sizeof(T));
    }

    // Sub-tensor starting `offset` elements in. Any element may start one (GetValue/SetValue,
    // or a reduction's dst, which asc-devkit lets be element-aligned); a vector or copy call
    // that takes it as an operand checks the 32-byte alignment it needs (TwinCheckFits).
    LocalTensor operator[](const uint32_t offset) const
    {
        TwinCheckLive("LocalTensor::operator[]", "tensor");
        if (offset > size_) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "LocalTensor<%s>::operator[](%u): offset is past the end of the tensor (%u elements)",
                opgen_twin::detail::TypeName<T>(), offset, size_));
        }
        const uint64_t byteOff = offsetBytes_ + static_cast<uint64_t>(offset) * sizeof(T);
        LocalTensor r = *this;
        r.offsetBytes_ = static_cast<uint32_t>(byteOff);
        r.size_ = size_ - offset;
        return r;
    }

    // dst = src0 OP src1 over dst.GetSize() elements (asc-devkit kernel_tensor.h; defined in
    // opgen_twin/detail/kernel_symbol.h).
    void operator=(const SymbolOverrideAdd<T>& symbolOverride);
    void operator=(const SymbolOverrideSub<T>& symbolOverride);
    void operator=(const SymbolOverrideMul<T>& symbolOverride);
    void operator=(const SymbolOverrideDiv<T>& symbolOverride);
    void operator=(const SymbolOverrideOr<T>& symbolOverride);
    void operator=(const SymbolOverrideAnd<T>& symbolOverride);
    SymbolOverrideAdd<T> operator+(const LocalTensor<T>& src1) const;
    SymbolOverrideSub<T> operator-(const LocalTensor<T>& src1) const;
    SymbolOverrideMul<T> operator*(const LocalTensor<T>& src1) const;
    SymbolOverrideDiv<T> operator/(const LocalTensor<T>& src1) const;
    SymbolOverrideOr<T> operator|(const LocalTensor<T>& src1) const;
    SymbolOverrideAnd<T> operator&(const LocalTensor<T>& src1) const;

    template <class U>
    LocalTensor<U> ReinterpretCast() const
    {
        LocalTensor<U> r;
        r.TwinInit(slot_, gen_, offsetBytes_, static_cast<uint32_t>(static_cast<uint64_t>(size_) * sizeof(T) / sizeof(U)));
        return r;
    }

    // A tag of the buffer (asc-devkit LocalTensor::SetUserTag/GetUserTag): EnQue/DeQue keep it.
    void SetUserTag(const int32_t tag) const
    {
        TwinCheckLive("LocalTensor::SetUserTag", "tensor");
        slot_->userTag = tag;
    }
    int32_t GetUserTag() const
    {
        TwinCheckLive("LocalTensor::GetUserTag", "tensor");
        return slot_->userTag;
    }

    uint32_t GetSize() const { return size_; }
    void SetSize(const uint32_t size)
    {
        if (slot_ != nullptr && static_cast<uint64_t>(size) * sizeof(T) + offsetBytes_ > slot_->bytes) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "LocalTensor<%s>::SetSize(%u): %llu bytes exceed the %u-byte UB buffer the tensor lives in",
                opgen_twin::detail::TypeName<T>(), size,
                static_cast<unsigned long long>(static_cast<uint64_t>(size) * sizeof(T)), slot_->bytes - offsetBytes_));
        }
        size_ = size;
    }
    uint32_t GetLength() const { return static_cast<uint32_t>(size_ * sizeof(T)); }
    uint64_t GetPhyAddr() const { return slot_ == nullptr ? 0 : slot_->ubOffset + offsetBytes_; }
    uint64_t GetPhyAddr(const uint32_t offset) const { return GetPhyAddr() + static_cast<uint64_t>(offset) * sizeof(T); }
    int32_t GetPosition() const { return slot_ == nullptr ? 0 : static_cast<int32_t>(slot_->pos); }

    // ---- twin internals (not part of the AscendC API) ----
    void TwinInit(opgen_twin::detail::BufferSlot* slot, uint32_t gen, uint32_t offsetBytes, uint32_t size)
    {
        slot_ = slot;
        gen_ = gen;
        offsetBytes_ = offsetBytes;
        size_ = size;
    }
    opgen_twin::detail::BufferSlot* TwinSlot() const { return slot_; }
    uint32_t TwinGen() const { return gen_; }
    uint32_t TwinOffsetBytes() const { return offsetBytes_; }
    void* TwinData() const
    {
        slot_->FillAround(0, 0);
        return slot_->data + offsetBytes_;
    }
    // TwinData() for a write of the next `bytes` bytes that reads none of them (a copy in).
    void* TwinDataToOverwrite(uint64_t bytes) const
    {
        slot_->FillAround(offsetBytes_, offsetBytes_ + bytes);
        return slot_->data + offsetBytes_;
    }
    // UB byte range [begin, end) the first `count` elements occupy (for overlap checks).
    uint64_t TwinUbBegin() const { return slot_->ubOffset + offsetBytes_; }

    void TwinCheckLive(const char* api, const char* role) const
    {
        if (slot_ == nullptr) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: %s is a default-constructed LocalTensor (never allocated from a TQue/TBuf)", api, role));
        }
        if (slot_->gen != gen_ || slot_->state == opgen_twin::detail::SlotState::kFree) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: %s was released with FreeTensor and is used afterwards (stale LocalTensor; its UB buffer "
                "may already hold another tile)", api, role));
        }
    }
    // Checks that `count` elements fit in this tensor (no overrun of its UB buffer).
    // A live operand starting `align` bytes aligned in UB (32, a data block, for vector and copy
    // operands: asc-devkit's 通用地址对齐约束).
    void TwinCheckAligned(const char* api, const char* role, uint32_t align = ONE_BLK_SIZE) const
    {
        TwinCheckLive(api, role);
        if (TwinUbBegin() % align != 0) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: the %s tensor starts at UB byte %llu, which is not %u-byte aligned (UB operand addresses must "
                "be %u-byte aligned)",
                api, role, static_cast<unsigned long long>(TwinUbBegin()), align, align));
        }
    }
    // An operand of `count` elements: aligned (TwinCheckAligned) and large enough.
    // The call accesses those elements: on the pipe of the call (pipes.h), a write for a dst or
    // sharedTmpBuffer role, else a read.
    void TwinCheckFits(const char* api, const char* role, uint64_t count, uint32_t align = ONE_BLK_SIZE) const
    {
        TwinCheckAligned(api, role, align);
        if (count > size_) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: count %llu exceeds the %s tensor's size of %u %s elements (UB buffer overrun)", api,
                static_cast<unsigned long long>(count), role, size_, opgen_twin::detail::TypeName<T>()));
        }
        TwinNoteAccess(api, opgen_twin::detail::IsWrittenRole(role), 0, count * sizeof(T));
    }
    // Bytes [byteOffset, byteOffset + bytes) from the tensor's start are accessed on the call's pipe.
    void TwinNoteAccess(const char* api, bool write, uint64_t byteOffset, uint64_t bytes) const
    {
        opgen_twin::detail::NoteUb(api, write, slot_, TwinUbBegin() + byteOffset, bytes);
    }

private:
    void TwinNoteScalar(const char* api, bool write, uint32_t index) const
    {
        if (opgen_twin::detail::g_launch.pipeCheck != opgen_twin::detail::kPipeCheckScalarToo) return;
        opgen_twin::detail::NoteUbOn(opgen_twin::detail::kPipeS, api, write, slot_,
                                     TwinUbBegin() + static_cast<uint64_t>(index) * sizeof(T), sizeof(T));
    }
    void TwinCheckIndex(const char* api, uint32_t index) const
    {
        TwinCheckLive(api, "tensor");
        if (index >= size_) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s(%u): index out of range for a tensor of %u elements", api, index, size_));
        }
    }

    opgen_twin::detail::BufferSlot* slot_ = nullptr;
    uint32_t gen_ = 0;
    uint32_t offsetBytes_ = 0;  // from the start of the slot's buffer
    uint32_t size_ = 0;         // elements
};

template <class T>
class GlobalTensor {
public:
    using PrimType = T;

    GlobalTensor() = default;

    void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize)
    {
        address_ = buffer;
        oriAddress_ = buffer;
        size_ = bufferSize;
        sized_ = true;
    }
    void SetGlobalBuffer(__gm__ T* buffer)
    {
        address_ = buffer;
        oriAddress_ = buffer;
        size_ = 0;
        sized_ = false;
    }
    const __gm__ T* GetPhyAddr() const { return address_; }
    __gm__ T* GetPhyAddr(const uint64_t offset) const { return address_ + offset; }
    T GetValue(const uint64_t offset) const
    {
        TwinCheckAccess("GlobalTensor::GetValue", offset, 1);
        TwinNoteScalar("GlobalTensor::GetValue", false, offset);
        return opgen_twin::detail::Load<T>(address_, offset);
    }
    void SetValue(const uint64_t offset, T value)
    {
        TwinCheckAccess("GlobalTensor::SetValue", offset, 1);
        TwinNoteScalar("GlobalTensor::SetValue", true, offset);
        opgen_twin::detail::Store<T>(address_, offset, value);
        opgen_twin::detail::NoteGmWrite(true, address_ + offset, sizeof(T));
    }
    __gm__ T& operator()(const uint64_t offset) const
    {
        TwinCheckAccess("GlobalTensor::operator()", offset, 1);
        TwinNoteScalar("GlobalTensor::operator()", true, offset);  // read or written: taken as a write
        return address_[offset];
    }
    uint64_t GetSize() const
    {
        const uint64_t used = static_cast<uint64_t>(address_ - oriAddress_);
        return (sized_ && used <= size_) ? size_ - used : 0;
    }
    GlobalTensor operator[](const uint64_t offset) const
    {
        GlobalTensor r = *this;
        r.address_ = address_ + offset;
        return r;
    }
    void SetL2CacheHint(CacheMode) {}
    template <class U>
    GlobalTensor<U> ReinterpretCast() const
    {
        GlobalTensor<U> r;
        if (sized_) {
            r.SetGlobalBuffer(reinterpret_cast<U*>(oriAddress_), size_ * sizeof(T) / sizeof(U));
        } else {
            r.SetGlobalBuffer(reinterpret_cast<U*>(oriAddress_));
        }
        return r[static_cast<uint64_t>(address_ - oriAddress_) * sizeof(T) / sizeof(U)];
    }

    // ---- twin internals ----
    // Elements [offset, offset+count) of this view must lie inside a GM buffer the runner passed
    // to the kernel. The size given to SetGlobalBuffer bounds nothing on the NPU: kernels read and
    // write whole 32-byte blocks past their part (the runner then checks that two blocks writing
    // the same bytes write the same values, DmaWriteConflict). With no buffers registered (a
    // standalone test) that size is the only bound known, and it is held to.
    void TwinCheckAccess(const char* api, uint64_t offset, uint64_t count) const
    {
        TwinCheckAccess(api, offset, count, opgen_twin::detail::g_launch.gm.empty());
    }
    void TwinCheckAccess(const char* api, uint64_t offset, uint64_t count, bool checkSize) const
    {
        if (address_ == nullptr) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: GlobalTensor<%s> has no buffer (SetGlobalBuffer was not called or got nullptr)", api,
                opgen_twin::detail::TypeName<T>()));
        }
        if (count == 0) {
            return;
        }
        if (sized_ && checkSize) {
            const uint64_t start = static_cast<uint64_t>(address_ - oriAddress_) + offset;
            if (start + count > size_) {
                opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                    "%s: accesses elements [%llu, %llu) of a GlobalTensor<%s> whose SetGlobalBuffer size is %llu "
                    "elements (out-of-bounds GM access)",
                    api, static_cast<unsigned long long>(start), static_cast<unsigned long long>(start + count),
                    opgen_twin::detail::TypeName<T>(), static_cast<unsigned long long>(size_)));
            }
        }
        opgen_twin::detail::CheckGmRange(api, address_ + offset, count * sizeof(T));
    }
    __gm__ T* TwinPtr() const { return address_; }
    // A scalar access to element `offset` on the S pipe (checked with OPGEN_TWIN_CCE_AUTO_SYNC=0).
    void TwinNoteScalar(const char* api, bool write, uint64_t offset) const
    {
        if (opgen_twin::detail::g_launch.pipeCheck != opgen_twin::detail::kPipeCheckScalarToo) return;
        opgen_twin::detail::NoteGmOn(opgen_twin::detail::kPipeS, api, write, address_ + offset, sizeof(T));
    }

    // Public as in asc-devkit's BaseGlobalTensor; kernels read address_ for scalar GM writes.
    __gm__ T* address_ = nullptr;
    __gm__ T* oriAddress_ = nullptr;  // the address given to SetGlobalBuffer (views keep it)

private:
    uint64_t size_ = 0;
    bool sized_ = false;
};

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_TENSOR_H
