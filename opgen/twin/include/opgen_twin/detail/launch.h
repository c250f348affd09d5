// opgen CPU twin: per-launch state shared by the kernel-side emulation and the runner.
//
// The runner launches a kernel once per block index, the blocks spread over threads. Before
// each launch it fills the thread's LaunchState (block index/number, tiling key, UB size, the
// list of GM buffers it allocated or borrowed). Kernel-side checks consult it; when no GM buffer is
// registered (unit tests that build tensors by hand) the GM-allocation check is skipped
// and only the GlobalTensor's own SetGlobalBuffer size is enforced.
#ifndef OPGEN_TWIN_DETAIL_LAUNCH_H
#define OPGEN_TWIN_DETAIL_LAUNCH_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "opgen_twin/errors.h"
#include "opgen_twin/fp16.h"
#include "opgen_twin/detail/soc_chips.h"

namespace opgen_twin {

// Defaults for the SoC the twin emulates (see README "Platform defaults"): the first chip of
// the catalog's SOC_CHIPS (detail/soc_chips.h, Ascend910B3).
constexpr uint64_t kDefaultUbSize = detail::kSocChips[0].ubSize;
constexpr uint32_t kDefaultAivCoreNum = detail::kSocChips[0].aivCoreNum;
constexpr uint32_t kDefaultAicCoreNum = detail::kSocChips[0].aicCoreNum;
constexpr uint32_t kDefaultLibApiWorkspace = 16u << 20;  // GetLibApiWorkSpaceSize() on 910B
constexpr size_t kDefaultTilingCapacity = 2048;          // OpImplRegisterV2::Tiling default max_tiling_data_size

namespace detail {

struct PipeState;  // pipes.h: the pipe check's clocks and UB shadow

struct GmRegion {
    const uint8_t* begin = nullptr;
    uint64_t bytes = 0;
    std::string name;
    bool borrowed = false;  // the caller's memory (a borrowed input), not a copy the runner made
};

// The GM writes of one block, for the cache-line rule (CacheLineConflict): the lines it wrote
// with the scalar unit and the byte ranges it wrote by DMA, each in a GM buffer of the runner
// (`region`: its index in LaunchState::gm) and counted from that buffer's start.
// A DMA range also keeps the bytes the block wrote there (for DmaWriteConflict), except when it
// accumulates (SetAtomicAdd/Max/Min, a Matmul's atomic output), where several blocks meet by design.
struct BlockGmWrites {
    struct Range {
        size_t region;
        uint64_t begin;
        uint64_t end;
        bool accumulates = false;
        std::vector<uint8_t> bytes;  // DMA, not accumulating: what the block left in [begin, end)
        uint32_t phase = 0;          // SyncAll calls the block had made before the write
    };
    std::vector<Range> scalarLines;  // [line start, line end), consecutive repeats merged
    std::vector<Range> dmaRanges;    // contiguous and overlapping writes merged
};

// The core types as asc-devkit numbers them (impl/utils/sys_constants.h: MIX 0, AIC 1, AIV 2).
constexpr int32_t kCoreMix = 0;
constexpr int32_t kCoreAic = 1;
constexpr int32_t kCoreAiv = 2;

// A client REGIST_MATMUL_OBJ declared on an AIV (kfc.h): the function it was expanded in and
// whether it still lives (its destructor sends SERVICE_QUIT to the cube core).
struct KfcClientState {
    const char* function = "";
    bool alive = true;
};

// One AI Core group of a mixed kernel (an AIC and its AIVs): what they tell each other, for the
// runner's checks once the group has run (RunBlocks).
struct MixBlock {
    bool needsAic = false;             // the AIVs ran a kernel type with a cube core on a split SoC
    bool aicServed = false;            // the AIC reached REGIST_MATMUL_OBJ and served
    uint32_t aivClients = 0;           // AIVs that declared a client (each quits in its destructor)
    const char* request = nullptr;     // the first Matmul call an AIV sent to the AIC
    int64_t requestAiv = 0;            // ... from this sub-block
};

struct LaunchState {
    int64_t blockIdx = 0;
    int64_t blockNum = 1;
    uint64_t tilingKey = 0;
    uint64_t ubSize = kDefaultUbSize;
    std::string socVersion = "ascend910b";
    uint32_t sysWorkspaceBytes = kDefaultLibApiWorkspace;
    std::vector<GmRegion> gm;      // empty: GM allocations are not tracked
    void* currentPipe = nullptr;   // AscendC::TPipe* of the running kernel
    int kernelType = -1;           // KERNEL_TASK_TYPE_DEFAULT value, -1 when not given
    std::vector<uint32_t> pendingFlags;  // SetFlag/WaitFlag pairing, indexed by event*64+id
    BlockGmWrites* gmWrites = nullptr;   // this block's, under the runner (else not tracked)
    // Mixed cube/vector kernels (KERNEL_TYPE_MIX_AIC_1_2): the runner launches `blockNum` AI Core
    // groups of one AIC and `taskRatio` AIVs; the kernel body runs on each AIV, then on the AIC (the
    // twin computes the cube's part in the AIVs' Matmul calls; the AIC's REGIST_MATMUL_OBJ serves
    // them), GetBlockIdx() = blockIdx * taskRatio + subBlockIdx on an AIV, blockIdx on the AIC.
    int64_t subBlockIdx = 0;
    int64_t taskRatio = 1;
    // The core this state runs (g_coreType): kCoreAiv, or kCoreAic for the cube core of a mixed
    // kernel, or of a KERNEL_TYPE_AIC_ONLY one, on a SoC with split cores (the runner sets it;
    // kernel_misc.h's g_coreType reads MIX on the other SoCs).
    int32_t coreType = kCoreAiv;
    bool splitCores = false;             // the kernel was built for a SoC with split cores
    bool aicBeside = false;              // ... and its type has a cube core beside its AIVs
    MixBlock* mix = nullptr;             // this core's AI Core group, under the runner
    std::vector<KfcClientState> kfcClients;  // the REGIST_MATMUL_OBJ clients this AIV declared
    const char* aicRegistFunction = nullptr;  // on the AIC: the function REGIST_MATMUL_OBJ returned from
    bool blockIdxRead = false;           // GetBlockIdx() was called in this block (before the type)
    uint32_t aicCoreNum = kDefaultAicCoreNum;
    uint8_t* sysWorkspace = nullptr;     // the workspace argument: system workspace first
    uint64_t workspaceBytes = 0;
    // SetAtomicAdd/Max/Min<T>: later UB->GM copies combine with GM (0 none, 1 add, 2 max, 3 min).
    int atomicOp = 0;
    const char* atomicType = nullptr;  // TypeName<T>() of the SetAtomic* call
    // The vector mask register and its mode (kernel_mask.h): SetMaskCount/SetMaskNorm,
    // SetVectorMask, ResetMask; read by the level-0 calls with isSetMask = false. A block starts
    // in Normal mode with every bit set (ResetMask's value).
    bool maskCounter = false;
    uint64_t maskHigh = ~uint64_t(0);
    uint64_t maskLow = ~uint64_t(0);
    uint8_t cmpMask[16] = {};  // the 128-bit CmpMask register: Compare's register form, Get/SetCmpMask
    // CatchSigFpe's jump target for this core (host_signals.h): here, not thread_local, so that it
    // follows a core when SyncAll switches the cores of a thread (sync_all.h)
    void* sigFpeJump = nullptr;
    // SyncAll calls this block has made (sync_all.h): writes in different phases are ordered.
    uint32_t syncPhase = 0;
    uint32_t softSyncCalls = 0;  // the software SyncAll's count: the value this block left in its slot
    // printf/DumpTensor text of this block (kernel_debug.h), printed by the runner after the launch; null:
    // printed at once
    std::string* debugOut = nullptr;
    uint8_t pipeCheck = 0;                // pipes.h: 0 off, 1 on, 2 on with the scalar unit's accesses
    std::shared_ptr<PipeState> pipes;     // pipes.h: this core's, made on first use
};

// One per thread: the runner launches blocks on several threads, each with its own copy of the
// launch's facts (a C++17 inline variable: one definition per program).
inline thread_local LaunchState g_launch;

// The UB memory of a thread's TPipe (kernel_pipe.h), kept from one emulated core to the next:
// allocating it afresh for every core cost a page fault per 4 KiB page of every launch. A second
// TPipe alive at the same time on the thread gets memory of its own.
struct UbArena {
    std::unique_ptr<uint8_t[]> memory;
    size_t bytes = 0;
    bool inUse = false;
};
inline UbArena& ThreadUbArena()
{
    static thread_local UbArena arena;
    return arena;
}

// A new core's SetFlag counts and pipe clocks (defined in pipes.h, which knows PipeState).
inline void ResetLaunchFlags();

// Checks that [p, p+bytes) lies inside one GM buffer the runner allocated.
inline void CheckGmRange(const char* api, const void* p, uint64_t bytes)
{
    const auto& regions = g_launch.gm;
    if (regions.empty() || bytes == 0) {
        return;
    }
    const uint8_t* b = static_cast<const uint8_t*>(p);
    const GmRegion* nearest = nullptr;
    for (const auto& r : regions) {
        if (b >= r.begin && b <= r.begin + r.bytes) {
            if (b + bytes <= r.begin + r.bytes) {
                return;
            }
            nearest = &r;
        }
    }
    if (nearest != nullptr) {
        const uint64_t off = static_cast<uint64_t>(b - nearest->begin);
        ThrowHardware(Format("%s: GM access to bytes [%llu, %llu) of %s, which has only %llu bytes "
                             "(out-of-bounds global memory access)",
                             api, static_cast<unsigned long long>(off), static_cast<unsigned long long>(off + bytes),
                             nearest->name.c_str(), static_cast<unsigned long long>(nearest->bytes)));
    }
    ThrowHardware(Format("%s: GM address %p (%llu bytes) is not inside any buffer passed to the kernel "
                         "(inputs/outputs/workspace/tiling): out-of-bounds global memory access",
                         api, p, static_cast<unsigned long long>(bytes)));
}

inline const GmRegion* FindGmRegion(const void* p)
{
    const uint8_t* b = static_cast<const uint8_t*>(p);
    for (const auto& r : g_launch.gm) {
        if (b >= r.begin && (b < r.begin + r.bytes || (r.bytes == 0 && b == r.begin))) {
            return &r;
        }
    }
    return nullptr;
}

// The scalar unit reads and writes GM through the core's data cache, whose lines (64 bytes,
// asc-devkit DataCacheCleanAndInvalid) are written back whole, by DataCacheCleanAndInvalid or an
// eviction: the line's other bytes go back as the core last read them. So when one block writes
// a line with SetValue and another block writes any byte of it, the NPU may keep either's bytes,
// depending on timing. The twin runs blocks one at a time per thread, where either order works,
// so it records the writes and fails such a launch whatever the order (CacheLineConflict).
constexpr uint64_t kCacheLineBytes = 64;

// Merges `next` (bytes at p, when kept) into `last`, the block's latest write of its kind, when
// they touch in the same buffer, the same kind and the same SyncAll phase.
inline bool MergeGmWrite(BlockGmWrites::Range& last, const BlockGmWrites::Range& next, const void* p)
{
    if (last.region != next.region || last.accumulates != next.accumulates || last.phase != next.phase ||
        next.begin > last.end || next.end < last.begin) {
        return false;
    }
    if (p != nullptr) {  // the merged range's bytes: the old ones, then the new ones over them
        const uint64_t from = std::min(last.begin, next.begin);
        std::vector<uint8_t> merged(std::max(last.end, next.end) - from);
        std::memcpy(merged.data() + (last.begin - from), last.bytes.data(), last.bytes.size());
        std::memcpy(merged.data() + (next.begin - from), p, next.end - next.begin);
        last.bytes = std::move(merged);
    }
    last.begin = std::min(last.begin, next.begin);
    last.end = std::max(last.end, next.end);
    return true;
}

inline void NoteGmWrite(bool scalar, const void* p, uint64_t bytes, bool accumulates = false)
{
    BlockGmWrites* log = g_launch.gmWrites;
    if (log == nullptr || bytes == 0) {
        return;
    }
    const GmRegion* region = FindGmRegion(p);
    if (region == nullptr) {
        return;  // outside the runner's buffers: CheckGmRange has refused it already
    }
    const size_t i = static_cast<size_t>(region - g_launch.gm.data());
    uint64_t begin = static_cast<uint64_t>(static_cast<const uint8_t*>(p) - region->begin);
    uint64_t end = begin + bytes;
    if (scalar) {
        begin = begin / kCacheLineBytes * kCacheLineBytes;
        end = (end + kCacheLineBytes - 1) / kCacheLineBytes * kCacheLineBytes;
    }
    accumulates = !scalar && (accumulates || g_launch.atomicOp != 0);
    const bool keepBytes = !scalar && !accumulates;
    auto& ranges = scalar ? log->scalarLines : log->dmaRanges;
    BlockGmWrites::Range range{i, begin, end, accumulates, {}, g_launch.syncPhase};
    if (!ranges.empty() && MergeGmWrite(ranges.back(), range, keepBytes ? p : nullptr)) {
        return;
    }
    if (keepBytes) {
        const auto* b = static_cast<const uint8_t*>(p);
        range.bytes.assign(b, b + bytes);
    }
    ranges.push_back(std::move(range));
}

// The first bytes (by buffer, then address) that two blocks wrote by DMA with different values, as
// an error naming both; "" when there is none. Blocks may write past their own part (whole 32-byte
// blocks past a tail, say) as long as what they write there is what its owner writes: on the NPU the
// cores run at once and either write may land last. Writes separated by a SyncAll (different
// phases) are ordered: a later phase's write lands last.
inline std::string DmaWriteConflict(const std::vector<BlockGmWrites>& blocks, const std::vector<GmRegion>& regions)
{
    struct Write {
        const BlockGmWrites::Range* range;
        size_t block;
    };
    std::vector<Write> writes;
    for (size_t b = 0; b < blocks.size(); ++b) {
        for (const auto& r : blocks[b].dmaRanges) {
            if (!r.accumulates) writes.push_back({&r, b});
        }
    }
    std::stable_sort(writes.begin(), writes.end(), [](const Write& x, const Write& y) {
        return x.range->region != y.range->region ? x.range->region < y.range->region
                                                  : x.range->begin < y.range->begin;
    });
    for (size_t i = 0; i < writes.size(); ++i) {
        const BlockGmWrites::Range& x = *writes[i].range;
        for (size_t j = i + 1; j < writes.size(); ++j) {
            const BlockGmWrites::Range& y = *writes[j].range;
            if (y.region != x.region || y.begin >= x.end) {
                break;
            }
            if (writes[j].block == writes[i].block || y.phase != x.phase) {
                continue;
            }
            const uint64_t to = std::min(x.end, y.end);
            for (uint64_t at = y.begin; at < to; ++at) {
                if (x.bytes[at - x.begin] != y.bytes[at - y.begin]) {
                    return Format("kernel blocks %zu and %zu both write byte %llu of %s by DMA, with different "
                                  "values: on the NPU the cores run at once and either write may land last; give "
                                  "each core its own part of GM to write, or write the same values there",
                                  std::min(writes[i].block, writes[j].block), std::max(writes[i].block, writes[j].block),
                                  static_cast<unsigned long long>(at), regions[x.region].name.c_str());
                }
            }
        }
    }
    return "";
}

// The first line (by buffer, then address) that one block wrote with the scalar unit and another
// block wrote at all, as an error naming both; "" when there is none.
inline std::string CacheLineConflict(const std::vector<BlockGmWrites>& blocks, const std::vector<GmRegion>& regions)
{
    struct Write {
        BlockGmWrites::Range range;
        size_t block;
        bool scalar;
    };
    std::vector<Write> writes;
    for (size_t b = 0; b < blocks.size(); ++b) {
        for (const auto& r : blocks[b].scalarLines) writes.push_back({r, b, true});
        for (const auto& r : blocks[b].dmaRanges) writes.push_back({r, b, false});
    }
    std::stable_sort(writes.begin(), writes.end(), [](const Write& x, const Write& y) {
        return x.range.region != y.range.region ? x.range.region < y.range.region : x.range.begin < y.range.begin;
    });
    // Each write against the later ones that start inside it (sorted by start: the overlapping ones).
    for (size_t i = 0; i < writes.size(); ++i) {
        const Write& x = writes[i];
        for (size_t j = i + 1; j < writes.size(); ++j) {
            const Write& y = writes[j];
            if (y.range.region != x.range.region || y.range.begin >= x.range.end) {
                break;
            }
            if (y.block == x.block || !(x.scalar || y.scalar)) {
                continue;
            }
            const Write& scalar = x.scalar ? x : y;
            const uint64_t line = y.range.begin / kCacheLineBytes * kCacheLineBytes;
            return Format("kernel blocks %zu and %zu both write the 64-byte cache line at bytes [%llu, %llu) of %s, "
                          "block %zu with the scalar unit (GlobalTensor::SetValue): the data cache writes back "
                          "whole lines, so on the NPU either block's bytes there may be lost; give each core whole "
                          "cache lines of GM to write, or write them with DataCopy/DataCopyPad",
                          std::min(x.block, y.block), std::max(x.block, y.block),
                          static_cast<unsigned long long>(line), static_cast<unsigned long long>(line + kCacheLineBytes),
                          regions[x.range.region].name.c_str(), scalar.block);
        }
    }
    return "";
}

// Element loads/stores through memcpy: UB and GM are raw byte arrays and the same bytes
// may be viewed with different element types (ReinterpretCast).
template <class T>
inline T Load(const void* base, uint64_t i)
{
    T v;
    std::memcpy(&v, static_cast<const uint8_t*>(base) + i * sizeof(T), sizeof(T));
    return v;
}
template <class T>
inline void Store(void* base, uint64_t i, const T& v)
{
    std::memcpy(static_cast<uint8_t*>(base) + i * sizeof(T), &v, sizeof(T));
}

template <class T> struct TypeNameOf { static const char* Get() { return "T"; } };
#define OPGEN_TWIN_TYPE_NAME(T) \
    template <> struct TypeNameOf<T> { static const char* Get() { return #T; } }
OPGEN_TWIN_TYPE_NAME(half);
OPGEN_TWIN_TYPE_NAME(bfloat16_t);
OPGEN_TWIN_TYPE_NAME(float);
OPGEN_TWIN_TYPE_NAME(double);
OPGEN_TWIN_TYPE_NAME(int8_t);
OPGEN_TWIN_TYPE_NAME(uint8_t);
OPGEN_TWIN_TYPE_NAME(int16_t);
OPGEN_TWIN_TYPE_NAME(uint16_t);
OPGEN_TWIN_TYPE_NAME(int32_t);
OPGEN_TWIN_TYPE_NAME(uint32_t);
OPGEN_TWIN_TYPE_NAME(int64_t);
OPGEN_TWIN_TYPE_NAME(uint64_t);
OPGEN_TWIN_TYPE_NAME(bool);
#undef OPGEN_TWIN_TYPE_NAME
template <class T> inline const char* TypeName() { return TypeNameOf<T>::Get(); }

template <class T, class... Ts>
struct IsAnyOf : std::integral_constant<bool, (std::is_same<T, Ts>::value || ...)> {};

template <class T> struct AlwaysFalse : std::false_type {};

}  // namespace detail
}  // namespace opgen_twin

// The kernel's block index and count as CANN's older kernels read them: global variables, not
// calls (asc-devkit's GetBlockIdx()/GetBlockNum() are the same values); the runner sets them per
// block.
inline thread_local int64_t block_idx = 0;
inline thread_local int64_t block_num = 1;

#endif  // OPGEN_TWIN_DETAIL_LAUNCH_H
