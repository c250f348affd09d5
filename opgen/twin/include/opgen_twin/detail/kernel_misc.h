// opgen CPU twin: kernel qualifiers, system variables, synchronisation and tiling macros.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_MISC_H
#define OPGEN_TWIN_DETAIL_KERNEL_MISC_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "opgen_twin/detail/gm_addr.h"
#include "opgen_twin/detail/kernel_pipe.h"
#include "opgen_twin/detail/soc.h"
#include "opgen_twin/detail/soc_table.h"
#include "opgen_twin/detail/sync_all.h"

// ---- qualifiers: meaningless on the CPU ----
#ifndef __aicore__
#define __aicore__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __inout_pipe__
#define __inout_pipe__(x)
#endif
#ifndef __sync_alias__
#define __sync_alias__
#endif
#ifndef __sync_noalias__
#define __sync_noalias__
#endif
#ifndef __cube__
#define __cube__
#endif
#ifndef __mix__
#define __mix__(aic, aiv)
#endif
#ifndef __kfc_workspace__
#define __kfc_workspace__
#endif
#ifndef __vector__
#define __vector__
#endif
#ifndef __schedmode__
#define __schedmode__(mode)
#endif

// Hardware pipelines (a compiler builtin enum on the NPU).
enum pipe_t : uint8_t { PIPE_S = 0, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_ALL, PIPE_MTE4, PIPE_MTE5, PIPE_V2, PIPE_FIX };

// The NPU's pipeline intrinsics as older kernels call them directly: pipe_barrier(PIPE_ALL),
// set_flag/wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0); ordering as in detail/pipes.h.
enum event_t : uint8_t { EVENT_ID0 = 0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6, EVENT_ID7 };
inline void pipe_barrier(pipe_t p) { if (p == PIPE_ALL) opgen_twin::detail::PipeBarrierAll(); }
inline void set_flag(pipe_t a, pipe_t b, event_t id) { opgen_twin::detail::PipeIntrinsicFlag(a, b, id, true); }
inline void wait_flag(pipe_t a, pipe_t b, event_t id) { opgen_twin::detail::PipeIntrinsicFlag(a, b, id, false); }

// Kernel types for KERNEL_TASK_TYPE_DEFAULT (global, as in the real headers).
enum KernelMetaType : uint8_t {
    KERNEL_TYPE_AIV_ONLY,
    KERNEL_TYPE_AIC_ONLY,
    KERNEL_TYPE_MIX_AIV_1_0,
    KERNEL_TYPE_MIX_AIC_1_0,
    KERNEL_TYPE_MIX_AIC_1_1,
    KERNEL_TYPE_MIX_AIC_1_2,
    KERNEL_TYPE_AICORE,
    KERNEL_TYPE_VECTORCORE,
    KERNEL_TYPE_MIX_AICORE,
    KERNEL_TYPE_MIX_VECTOR_CORE,
    KERNEL_TYPE_MAX,
};

namespace opgen_twin {
namespace detail {

// AIVs per AI Core group of a kernel type: 2 for MIX_AIC_1_2 (asc-devkit GetBlockIdx: on the AIV of
// a 1:2 mixed kernel the index is block * 2 + sub-block, in [0, 2 * numBlocks)), else 1.
inline int64_t TaskRatioOf(KernelMetaType t) { return t == KERNEL_TYPE_MIX_AIC_1_2 ? 2 : 1; }

// The kernel type; Arch is the __NPU_ARCH__ the kernel was built for (the macros pass kNpuArch).
// On a SoC with split cores a KERNEL_TYPE_AIC_ONLY kernel runs on the cube cores alone, and the AIC
// of a mixed one sees one core per block (asc-devkit GetTaskRationImpl: 1 on the AIC).
template <int Arch = kNpuArch>
inline void SetKernelType(KernelMetaType t, const char* api = "KERNEL_TASK_TYPE_DEFAULT")
{
    LaunchState& L = g_launch;
    L.kernelType = static_cast<int>(t);
    L.splitCores = OPGEN_SOC_HAS_SPLIT_CORES(Arch);
    L.aicBeside = L.splitCores && (t == KERNEL_TYPE_MIX_AIC_1_1 || t == KERNEL_TYPE_MIX_AIC_1_2);
    if (t == KERNEL_TYPE_AIC_ONLY && L.splitCores) L.coreType = kCoreAic;
    const int64_t ratio = L.coreType == kCoreAic ? 1 : TaskRatioOf(t);
    if (ratio != L.taskRatio) {
        if (L.blockIdxRead) {
            ThrowTwin(Format("%s: the kernel read GetBlockIdx() before its kernel type was set; on the NPU a "
                             "KERNEL_TYPE_MIX_AIC_1_2 kernel's AIVs number 2 per block from the start: call "
                             "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2) first in the kernel",
                             api));
        }
        L.taskRatio = ratio;
    }
    const bool usesAic = t == KERNEL_TYPE_AIC_ONLY || t == KERNEL_TYPE_MIX_AIC_1_0 || t == KERNEL_TYPE_MIX_AIC_1_1 ||
                         t == KERNEL_TYPE_MIX_AIC_1_2;
    if (usesAic && L.blockNum > static_cast<int64_t>(L.aicCoreNum)) {
        ThrowHardware(Format("%s: SetBlockDim(%lld) exceeds the %u AI Cube cores of %s; a kernel that runs on the "
                             "cube unit (KERNEL_TYPE_AIC_ONLY / KERNEL_TYPE_MIX_AIC_*) launches one AI Core (an "
                             "AIC with its AIVs) per block: use PlatformAscendC::GetCoreNumAic()",
                             api, static_cast<long long>(L.blockNum), L.aicCoreNum, L.socVersion.c_str()));
    }
}

// The type GET_TILING_DATA sees when the kernel's scope has no REGISTER_TILING_DEFAULT and no
// macro-style tiling type is known (OPGEN_TWIN_OP_TYPE not defined); rejected by LoadTiling.
struct NoTilingTypeKnown {};

// GET_TILING_DATA's type: REGISTER_TILING_DEFAULT's struct if the kernel's scope has one, else the
// class REGISTER_TILING_DATA_CLASS(OPGEN_TWIN_OP_TYPE, Class) declared (macro-style tiling).
template <class Registered, class Macro>
struct PickTiling {
    using type = Registered;
};
template <class Macro>
struct PickTiling<NoTilingTypeKnown, Macro> {
    using type = Macro;
};
template <class Registered, class Macro>
using PickTilingT = typename PickTiling<Registered, Macro>::type;

// The kernel reads bytes [offset, offset + bytes) of the tiling buffer (a struct of structBytes).
inline void CheckTilingBytes(const uint8_t* tiling, size_t offset, size_t bytes, size_t structBytes, const char* api)
{
    if (tiling == nullptr) {
        ThrowHardware(Format("%s: the tiling pointer is null", api));
    }
    const GmRegion* r = FindGmRegion(tiling);
    if (!g_launch.gm.empty()) {
        if (r == nullptr) {
            ThrowHardware(Format("%s: the tiling pointer is not the tiling buffer passed to the kernel", api));
        }
        const uint64_t avail = r->bytes - static_cast<uint64_t>(tiling - r->begin);
        if (offset + bytes > avail) {
            ThrowHardware(Format("%s: sizeof(tiling struct)=%zu bytes but the host wrote only %llu bytes of tiling "
                                 "data (host and kernel disagree on the struct, or the TilingFunc did not set the "
                                 "data size: GetTilingData<T>(), or SaveToBuffer + "
                                 "GetRawTilingData()->SetDataSize(tiling.GetDataSize()))",
                                 api, structBytes, static_cast<unsigned long long>(avail)));
        }
    }
}

// Copies the tiling struct out of the tiling GM buffer. The runner registers that buffer
// with the size the host's TilingFunc set (TilingData::SetDataSize / GetTilingData<T>).
template <class T>
inline T LoadTiling(const uint8_t* tiling, const char* api)
{
    static_assert(!std::is_same<T, NoTilingTypeKnown>::value,
                  "opgen twin: GET_TILING_DATA without REGISTER_TILING_DEFAULT and without a macro-style tiling type. "
                  "Struct-style tiling: call REGISTER_TILING_DEFAULT(<Op>TilingData) before GET_TILING_DATA. "
                  "Macro-style tiling (BEGIN_TILING_DATA_DEF ... REGISTER_TILING_DATA_CLASS(<Op>, <Class>) in "
                  "op_host/<op>_tiling.h): the kernel's translation unit must #define OPGEN_TWIN_KERNEL_TILING, "
                  "#include that tiling header, and #define OPGEN_TWIN_OP_TYPE <Op> before including the kernel "
                  "(opgen/twin/README.md, \"Macro-style tiling\").");
    static_assert(std::is_trivially_copyable<T>::value && std::is_standard_layout<T>::value,
                  "opgen twin: tiling structs must be plain (trivially copyable, standard layout) structs");
    CheckTilingBytes(tiling, 0, sizeof(T), sizeof(T), api);
    T v;
    std::memcpy(&v, tiling, sizeof(T));
    return v;
}

// GET_TILING_DATA_MEMBER: the member at `offset` of Struct.
// GET_TILING_DATA_PTR_WITH_STRUCT: the tiling's bytes in GM, read in place.
template <class T>
inline const T* TilingPtr(const uint8_t* tiling, const char* api)
{
    CheckTilingBytes(tiling, 0, sizeof(T), sizeof(T), api);
    return reinterpret_cast<const T*>(tiling);
}

// TILING_KEY_LIST: whether the key is one of the listed.
inline bool TilingKeyIn(uint64_t key, std::initializer_list<uint64_t> keys)
{
    for (uint64_t k : keys) {
        if (k == key) return true;
    }
    return false;
}

template <class Struct, class M>
inline M LoadTilingMember(const uint8_t* tiling, size_t offset, const char* api)
{
    static_assert(std::is_trivially_copyable<M>::value, "opgen twin: GET_TILING_DATA_MEMBER of a non-plain member");
    CheckTilingBytes(tiling, offset, sizeof(M), sizeof(Struct), api);
    M v;
    std::memcpy(&v, tiling + offset, sizeof(M));
    return v;
}
}  // namespace detail
}  // namespace opgen_twin

using opgen_twin_default_tiling_t = opgen_twin::detail::NoTilingTypeKnown;
// What opgen_twin_macro_tiling_<OPGEN_TWIN_OP_TYPE> names while OPGEN_TWIN_OP_TYPE is not defined.
using opgen_twin_macro_tiling_OPGEN_TWIN_OP_TYPE [[maybe_unused]] = opgen_twin::detail::NoTilingTypeKnown;
#define OPGEN_TWIN_CAT_IMPL_(a, b) a##b
#define OPGEN_TWIN_CAT_(a, b) OPGEN_TWIN_CAT_IMPL_(a, b)
// REGISTER_TILING_DATA_CLASS(Op, Class) on the kernel side (opgen_twin/kernel_tiling_macros.h)
// declares opgen_twin_macro_tiling_Op; an OPGEN_TWIN_OP_TYPE without one fails to compile here
// ("'opgen_twin_macro_tiling_<Op>' was not declared").
#define OPGEN_TWIN_MACRO_TILING_T OPGEN_TWIN_CAT_(opgen_twin_macro_tiling_, OPGEN_TWIN_OP_TYPE)
#define OPGEN_TWIN_TILING_T ::opgen_twin::detail::PickTilingT<opgen_twin_default_tiling_t, OPGEN_TWIN_MACRO_TILING_T>

// maybe_unused: a kernel that reads its tiling with GET_TILING_DATA_WITH_STRUCT does not use it.
#define REGISTER_TILING_DEFAULT(tiling_struct) using opgen_twin_default_tiling_t [[maybe_unused]] = tiling_struct
#define GET_TILING_DATA(tiling_data, tiling_arg)                                                   \
    OPGEN_TWIN_TILING_T tiling_data = ::opgen_twin::detail::LoadTiling<OPGEN_TWIN_TILING_T>(       \
        reinterpret_cast<const uint8_t*>(tiling_arg), "GET_TILING_DATA(" #tiling_data ")")
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg)                      \
    tiling_struct tiling_data = ::opgen_twin::detail::LoadTiling<tiling_struct>(                 \
        reinterpret_cast<const uint8_t*>(tiling_arg), "GET_TILING_DATA_WITH_STRUCT(" #tiling_data ")")
// One member of the tiling struct, copied from its offset (the bytes before it need not exist).
#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling_arg)                             \
    std::remove_cv_t<std::remove_reference_t<decltype(((tiling_type*)0)->member)>> var =          \
        ::opgen_twin::detail::LoadTilingMember<tiling_type,                                      \
            std::remove_cv_t<std::remove_reference_t<decltype(((tiling_type*)0)->member)>>>(     \
            reinterpret_cast<const uint8_t*>(tiling_arg), offsetof(tiling_type, member),         \
            "GET_TILING_DATA_MEMBER(" #tiling_type ", " #member ")")
// ASSERT(expr) is nothing, as in CANN's NPU build (asc-devkit impl/basic_api/kernel_macros.h
// defines it as assert(x) only in a CPU debug build): the twin compiles what the NPU compiles,
// and kernels in the wild write `tileNum ASSERT(tileNum != 0)` with no ';' before it.
#ifndef ASSERT
#define ASSERT(x)
#endif
// The tiling key. CANN compiles one kernel per key with TILING_KEY_VAR a constant, so
// `if constexpr (TILING_KEY_IS(1))` compiles there; the twin runs one build for every key.
#define TILING_KEY_VAR (::opgen_twin::detail::g_launch.tilingKey)
#define TILING_KEY_IS(key) (TILING_KEY_VAR == static_cast<uint64_t>(key))
#define TILING_KEY_LIST(...) (::opgen_twin::detail::TilingKeyIn(TILING_KEY_VAR, {__VA_ARGS__}))
// A tiling struct per key is chosen at build time by CANN's scan of the kernel's text.
#define REGISTER_TILING_FOR_TILINGKEY(expression, tiling_struct)                                  \
    static_assert(sizeof(tiling_struct) == 0,                                                    \
                  "opgen twin: REGISTER_TILING_FOR_TILINGKEY (a tiling struct per key) is not emulated")
// No tiling: CANN's GET_TILING_DATA then expands to nothing; the twin's kernels that say so read none.
#define REGISTER_NONE_TILING
// A pointer to the tiling in GM, unchanged (asc-devkit generate_tiling_code.py).
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_ptr)                        \
    const tiling_struct* dst_ptr = ::opgen_twin::detail::TilingPtr<tiling_struct>(                 \
        reinterpret_cast<const uint8_t*>(tiling_ptr), "GET_TILING_DATA_PTR_WITH_STRUCT(" #dst_ptr ")")
// A copy of a struct or an array from a tiling pointer, and a pointer to the copy.
#define COPY_TILING_WITH_STRUCT(tiling_struct, src_ptr, dst_ptr)                                   \
    tiling_struct __ascendc_var##dst_ptr;                                                          \
    std::memcpy(&__ascendc_var##dst_ptr, (const void*)(src_ptr), sizeof(tiling_struct));          \
    const tiling_struct* dst_ptr = &__ascendc_var##dst_ptr
#define COPY_TILING_WITH_ARRAY(arr_type, arr_count, src_ptr, dst_ptr)                              \
    arr_type __ascendc_var##dst_ptr[arr_count];                                                    \
    std::memcpy(&__ascendc_var##dst_ptr, (const void*)(src_ptr), sizeof(arr_type) * (arr_count));  \
    const arr_type(*dst_ptr)[arr_count] = &__ascendc_var##dst_ptr
#define KERNEL_TASK_TYPE_DEFAULT(value) \
    ::opgen_twin::detail::SetKernelType<::opgen_twin::detail::kNpuArch>(value)
// The kernel type of the launches with tiling key `key` (CANN compiles one kernel per key).
#define KERNEL_TASK_TYPE(key, value)                                                               \
    ((::opgen_twin::detail::g_launch.tilingKey == static_cast<uint64_t>(key))                      \
         ? ::opgen_twin::detail::SetKernelType<::opgen_twin::detail::kNpuArch>(                      \
               value, "KERNEL_TASK_TYPE(" #key ", " #value ")")                                       \
         : static_cast<void>(0))

namespace opgen_twin {
namespace detail {
// The core the code runs on, as g_coreType: AIC or AIV on a SoC with split cores, else MIX.
// Which core runs is known once the kernel type is: the NPU's compiler knows it from the kernel's
// declaration (KERNEL_TASK_TYPE_DEFAULT, __cube__, __mix__); the twin sees the first alone, or
// REGIST_MATMUL_OBJ's default, and refuses to guess before either ran.
template <int Arch>
inline int32_t CoreType()
{
    if (!OPGEN_SOC_HAS_SPLIT_CORES(Arch)) return kCoreMix;
    if (g_launch.kernelType < 0) {
        ThrowTwin("g_coreType (ASCEND_IS_AIC/ASCEND_IS_AIV) read before the kernel type was set: the twin cannot "
                  "see __cube__ or __mix__(1, 2); declare the type first in the kernel entry "
                  "(KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY / KERNEL_TYPE_MIX_AIC_1_2 / KERNEL_TYPE_AIV_ONLY))");
    }
    return g_launch.coreType;
}

// The twin runs a mixed kernel's AIC after its AIVs (runner.h RunBlocks): it cannot meet them.
inline void RefuseSyncAllOnAic(const char* api)
{
    if (g_launch.coreType == kCoreAic) {
        ThrowTwin(Format("%s on the cube core (AIC) is not emulated (the twin runs a mixed kernel's AIC after its "
                         "AIVs); guard it with `if ASCEND_IS_AIV`",
                         api));
    }
}
}  // namespace detail
}  // namespace opgen_twin

#include "opgen_twin/detail/core_type.h"

namespace AscendC {

// The core types (asc-devkit impl/utils/sys_constants.h).
constexpr int32_t MIX = opgen_twin::detail::kCoreMix;
constexpr int32_t AIC = opgen_twin::detail::kCoreAic;
constexpr int32_t AIV = opgen_twin::detail::kCoreAiv;

// On the AIV of a KERNEL_TYPE_MIX_AIC_1_2 kernel: block * 2 + sub-block, GetBlockNum() the blocks
// (numBlocks / SetBlockDim), as asc-devkit's GetBlockIdx/GetBlockNum document; on the AIC the
// block, its sub-block 0 of 1 (dav_c220 kernel_operator_sys_var_impl.h).
inline int64_t GetBlockIdx()
{
    opgen_twin::detail::LaunchState& L = opgen_twin::detail::g_launch;
    L.blockIdxRead = true;
    if (L.coreType == AIC) return L.blockIdx;
    return L.blockIdx * L.taskRatio + L.subBlockIdx;
}
inline int64_t GetBlockNum() { return opgen_twin::detail::g_launch.blockNum; }
inline int64_t GetSubBlockIdx() { return opgen_twin::detail::g_launch.subBlockIdx; }
inline int64_t GetTaskRatio()
{
    const opgen_twin::detail::LaunchState& L = opgen_twin::detail::g_launch;
    return L.coreType == AIC ? 1 : L.taskRatio;
}
inline int64_t GetSubBlockNum() { return GetTaskRatio(); }
inline constexpr int16_t GetDataBlockSizeInBytes() { return ONE_BLK_SIZE; }

// PipeBarrier<PIPE_ALL> orders every pipe after every earlier instruction; one pipe's barrier
// orders that pipe, whose instructions the twin already takes as completing in order (pipes.h).
template <pipe_t pipe>
inline void PipeBarrier()
{
    if (pipe == PIPE_ALL) opgen_twin::detail::PipeBarrierAll();
}

// SetFlag<A_B> hands pipe A's progress to pipe B's WaitFlag (the pipe check, detail/pipes.h); a
// WaitFlag with no earlier SetFlag for the same event and id would hang the NPU and is reported.
template <HardEvent event>
inline void SetFlag(int32_t eventID)
{
    auto& f = opgen_twin::detail::g_launch.pendingFlags;
    if (f.empty()) f.assign(64u * 64u, 0u);
    ++f[static_cast<size_t>(event) * 64u + (static_cast<uint32_t>(eventID) & 63u)];
    opgen_twin::detail::PipeEventFlag(event, eventID, true);
}
template <HardEvent event>
inline void WaitFlag(int32_t eventID)
{
    auto& f = opgen_twin::detail::g_launch.pendingFlags;
    if (f.empty()) f.assign(64u * 64u, 0u);
    opgen_twin::detail::PipeEventFlag(event, eventID, false);
    uint32_t& n = f[static_cast<size_t>(event) * 64u + (static_cast<uint32_t>(eventID) & 63u)];
    if (n == 0) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "WaitFlag<HardEvent %d>(%d): no matching SetFlag was issued before; the NPU would wait forever",
            static_cast<int>(event), eventID));
    }
    --n;
}

// TQueSync<src, dst> (asc-devkit kernel_operator_block_sync_intf.h): SetFlag/WaitFlag of the flag between
// two pipes, the same flag as SetFlag<HardEvent::SRC_DST> (whose names list the pairs the NPU has).
namespace detail_sync {
struct PipeEvent {
    pipe_t src, dst;
    HardEvent event;
};
constexpr HardEvent EventBetween(pipe_t src, pipe_t dst)
{
    constexpr PipeEvent kPairs[] = {
        {PIPE_MTE2, PIPE_MTE1, HardEvent::MTE2_MTE1},
        {PIPE_MTE1, PIPE_MTE2, HardEvent::MTE1_MTE2},
        {PIPE_MTE1, PIPE_M, HardEvent::MTE1_M},
        {PIPE_M, PIPE_MTE1, HardEvent::M_MTE1},
        {PIPE_MTE2, PIPE_V, HardEvent::MTE2_V},
        {PIPE_V, PIPE_MTE2, HardEvent::V_MTE2},
        {PIPE_MTE3, PIPE_V, HardEvent::MTE3_V},
        {PIPE_V, PIPE_MTE3, HardEvent::V_MTE3},
        {PIPE_M, PIPE_V, HardEvent::M_V},
        {PIPE_V, PIPE_M, HardEvent::V_M},
        {PIPE_V, PIPE_V, HardEvent::V_V},
        {PIPE_MTE3, PIPE_MTE1, HardEvent::MTE3_MTE1},
        {PIPE_MTE1, PIPE_MTE3, HardEvent::MTE1_MTE3},
        {PIPE_MTE1, PIPE_V, HardEvent::MTE1_V},
        {PIPE_MTE2, PIPE_M, HardEvent::MTE2_M},
        {PIPE_M, PIPE_MTE2, HardEvent::M_MTE2},
        {PIPE_V, PIPE_MTE1, HardEvent::V_MTE1},
        {PIPE_M, PIPE_FIX, HardEvent::M_FIX},
        {PIPE_FIX, PIPE_M, HardEvent::FIX_M},
        {PIPE_MTE3, PIPE_MTE2, HardEvent::MTE3_MTE2},
        {PIPE_MTE2, PIPE_MTE3, HardEvent::MTE2_MTE3},
        {PIPE_S, PIPE_V, HardEvent::S_V},
        {PIPE_V, PIPE_S, HardEvent::V_S},
        {PIPE_S, PIPE_MTE2, HardEvent::S_MTE2},
        {PIPE_MTE2, PIPE_S, HardEvent::MTE2_S},
        {PIPE_S, PIPE_MTE3, HardEvent::S_MTE3},
        {PIPE_MTE3, PIPE_S, HardEvent::MTE3_S},
        {PIPE_MTE2, PIPE_FIX, HardEvent::MTE2_FIX},
        {PIPE_FIX, PIPE_MTE2, HardEvent::FIX_MTE2},
        {PIPE_FIX, PIPE_S, HardEvent::FIX_S},
        {PIPE_M, PIPE_S, HardEvent::M_S},
        {PIPE_FIX, PIPE_MTE3, HardEvent::FIX_MTE3},
        {PIPE_MTE1, PIPE_FIX, HardEvent::MTE1_FIX},
        {PIPE_FIX, PIPE_MTE1, HardEvent::FIX_MTE1},
        {PIPE_FIX, PIPE_FIX, HardEvent::FIX_FIX}};
    for (const PipeEvent& p : kPairs) {
        if (p.src == src && p.dst == dst) return p.event;
    }
    return HardEvent::MAX;
}
}  // namespace detail_sync

template <pipe_t src, pipe_t dst>
class TQueSync {
public:
    inline void SetFlag(TEventID id) { AscendC::SetFlag<kEvent>(id); }
    inline void WaitFlag(TEventID id) { AscendC::WaitFlag<kEvent>(id); }

private:
    static constexpr HardEvent kEvent = detail_sync::EventBetween(src, dst);
    static_assert(kEvent != HardEvent::MAX, "opgen twin: TQueSync: the NPU has no flag between these two pipes");
};

// SyncAll: every core of the launch waits until all have called it; what a core wrote to GM
// before it is there for every core after it (sync_all.h runs the cores as coroutines for that).
// The hardware form (asc-devkit SyncAll.md, dav_c220 SyncAllImpl): Atlas A2/A3 and Ascend 950 only;
// not in a KERNEL_TYPE_AIV_ONLY/AIC_ONLY kernel (the hardware does not start the cross-core
// scheduler then: CrossCoreSetFlag's constraints; use KERNEL_TYPE_MIX_AIV_1_0); isAIVOnly = false
// in a kernel without an AIC waits for a cube core that never comes. Its flags live in hardware:
// it needs no workspace. In a MIX_AIC_1_x kernel the AIVs synchronise (the twin computes the
// cube's part in the AIVs' Matmul calls).
template <bool isAIVOnly = true>
inline void SyncAll()
{
    using namespace opgen_twin::detail;
    const char* api = isAIVOnly ? "SyncAll()" : "SyncAll<false>()";
    RefuseSyncAllOnAic(api);
    if (!OPGEN_SOC_HAS_HARDWARE_SYNC_ALL(kNpuArch)) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) has no hardware SyncAll (asc-devkit SyncAll.md: Atlas A2/A3 "
                             "and Ascend 950 only); use the software form SyncAll(gmWorkspace, ubWorkspace)",
                             api, SocName(kNpuArch), kNpuArch));
    }
    const int t = g_launch.kernelType;
    if (t == KERNEL_TYPE_AIV_ONLY || t == KERNEL_TYPE_AIC_ONLY || t == KERNEL_TYPE_VECTORCORE) {
        ThrowHardware(Format("%s: the kernel type is %s, for which the hardware does not start the cross-core "
                             "scheduler, so SyncAll never returns on the NPU (asc-devkit SyncAll.md / CrossCoreSetFlag "
                             "constraints): set KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0) for a vector kernel",
                             api, t == KERNEL_TYPE_AIV_ONLY ? "KERNEL_TYPE_AIV_ONLY"
                                  : t == KERNEL_TYPE_AIC_ONLY ? "KERNEL_TYPE_AIC_ONLY" : "KERNEL_TYPE_VECTORCORE"));
    }
    if (!isAIVOnly && t == KERNEL_TYPE_MIX_AIV_1_0) {
        ThrowHardware(Format("%s: isAIVOnly = false in a KERNEL_TYPE_MIX_AIV_1_0 kernel: the AIVs wait for the cube "
                             "cores' signal and there are none, so the NPU hangs (asc-devkit SyncAll.md: a pure "
                             "vector kernel must use isAIVOnly = true)",
                             api));
    }
    SyncAllBarrier(api);
}

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// The software SyncAll's cores: usedCores (0: all) of GetBlockNum() * GetTaskRatio(), all of them
// as the twin emulates it.
inline int64_t SoftSyncCores(const char* api, int32_t usedCores, bool isAIVOnly)
{
    const int64_t all = AscendC::GetBlockNum() * AscendC::GetTaskRatio();
    if (usedCores < 0 || usedCores > all) {
        ThrowHardware(Format("%s: usedCores %d is not in [0, GetBlockNum() * GetTaskRatio() = %lld] (asc-devkit "
                             "SyncAll.md)", api, usedCores, static_cast<long long>(all)));
    }
    if (AscendC::GetTaskRatio() > 1 && isAIVOnly) {
        ThrowTwin(Format("%s: the software SyncAll<true> in a KERNEL_TYPE_MIX_AIC_1_2 kernel (two AIVs per slot) is "
                         "not emulated by the twin", api));
    }
    const int64_t total = usedCores != 0 ? usedCores : all;
    if (total != all) {
        ThrowTwin(Format("%s: usedCores %d of %lld cores (a barrier of some cores only) is not emulated by the twin",
                         api, usedCores, static_cast<long long>(all)));
    }
    return total;
}

// The software SyncAll's workspaces: ubWorkspace in a vector position, both of `bytes` at least;
// gmWorkspace's buffer.
inline int32_t* SoftSyncWorkspaces(const char* api, const AscendC::GlobalTensor<int32_t>& gmWorkspace,
                                   const AscendC::LocalTensor<int32_t>& ubWorkspace, uint64_t bytes)
{
    using AscendC::TPosition;
    const int32_t pos = ubWorkspace.GetPosition();
    if (pos != static_cast<int32_t>(TPosition::VECIN) && pos != static_cast<int32_t>(TPosition::VECCALC) &&
        pos != static_cast<int32_t>(TPosition::VECOUT)) {
        ThrowHardware(Format("%s: ubWorkspace must be in VECIN, VECCALC or VECOUT (asc-devkit SyncAll.md)", api));
    }
    if (static_cast<uint64_t>(ubWorkspace.GetSize()) * 4 < bytes) {
        ThrowHardware(Format("%s: ubWorkspace holds %u int32 (%llu bytes) but needs GetBlockNum() * 32 = %llu bytes "
                             "(asc-devkit SyncAll.md)", api, ubWorkspace.GetSize(),
                             static_cast<unsigned long long>(ubWorkspace.GetSize()) * 4,
                             static_cast<unsigned long long>(bytes)));
    }
    int32_t* gm = gmWorkspace.GetPhyAddr(0);
    if (gm == nullptr) ThrowHardware(Format("%s: gmWorkspace has no buffer (SetGlobalBuffer)", api));
    if (gmWorkspace.GetSize() != 0 && gmWorkspace.GetSize() * 4 < bytes) {
        ThrowHardware(Format("%s: gmWorkspace holds %llu int32 (%llu bytes) but needs GetBlockNum() * 32 = %llu "
                             "bytes (asc-devkit SyncAll.md)", api,
                             static_cast<unsigned long long>(gmWorkspace.GetSize()),
                             static_cast<unsigned long long>(gmWorkspace.GetSize()) * 4,
                             static_cast<unsigned long long>(bytes)));
    }
    return gm;
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// The software form (asc-devkit SyncAll.md, dav_c220 SoftSyncAllImpl): each core adds 1 to its
// int32 slot (32 bytes at gmWorkspace[8 * core]) and polls, through ubWorkspace, until every slot
// holds its new count. gmWorkspace needs GetBlockNum() * 32 bytes set to 0 before the first call
// (by the host, or by every core for the whole buffer), ubWorkspace GetBlockNum() * 32 bytes in
// VECIN/VECCALC/VECOUT; usedCores (0: all) at most GetBlockNum() * GetTaskRatio().
template <bool isAIVOnly = true>
inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                    const int32_t usedCores = 0)
{
    using namespace opgen_twin::detail;
    const char* api = "SyncAll(gmWorkspace, ubWorkspace)";
    RefuseSyncAllOnAic(api);
    if (!OPGEN_SOC_HAS_SOFT_SYNC_ALL(kNpuArch)) {
        ThrowHardware(Format("%s: %s has no SyncAll (asc-devkit SyncAll.md)", api, SocName(kNpuArch)));
    }
    const int64_t total = SoftSyncCores(api, usedCores, isAIVOnly);
    const uint64_t bytes = static_cast<uint64_t>(total) * 32;
    int32_t* gm = SoftSyncWorkspaces(api, gmWorkspace, ubWorkspace, bytes);
    CheckGmRange(api, gm, bytes);
    const int64_t idx = isAIVOnly ? GetBlockIdx() / GetTaskRatio() : GetBlockIdx();
    uint32_t& calls = g_launch.softSyncCalls;
    int32_t* slot = gm + idx * 8;
    if (*slot != static_cast<int32_t>(calls)) {
        ThrowHardware(Format("%s: call %u of core %lld finds %d in its slot of gmWorkspace (int32 %lld) where it "
                             "left %u: gmWorkspace was not set to 0 before the first SyncAll (asc-devkit SyncAll.md: "
                             "by the host, or by every core for the whole buffer), or something else wrote there; "
                             "on the NPU the cores do not wait for each other then",
                             api, calls + 1, static_cast<long long>(idx), *slot,
                             static_cast<long long>(idx * 8), calls));
    }
    const int32_t cur = static_cast<int32_t>(++calls);
    *slot = cur;  // not in the write log: the protocol's own, which the cores' zeroing may precede
    SyncAllBarrier(api);
    // The first call writes its slot again while it polls (a core that sets the whole buffer to 0
    // may come after another's increment), so the slots agree only from the second call on.
    if (cur == 1) *slot = cur;
    for (int64_t i = 0; i < total && cur > 1; ++i) {
        if (gm[i * 8] != cur) {
            ThrowHardware(Format("%s: after call %d the slot of core %lld in gmWorkspace holds %d, not %d: "
                                 "gmWorkspace was not set to 0 before the first SyncAll, or a core wrote over it "
                                 "(asc-devkit SyncAll.md); on the NPU the cores do not wait as meant",
                                 api, cur, static_cast<long long>(i), gm[i * 8], cur));
        }
    }
    std::memcpy(&ubWorkspace(0), gm, bytes);  // the last poll's copy
}

// Workspace layout: [system workspace (GetLibApiWorkSpaceSize)][user workspace].
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace)
{
    return workspace == nullptr ? nullptr : workspace + opgen_twin::detail::g_launch.sysWorkspaceBytes;
}
// SetSysWorkspace overrides the system workspace GetSysWorkSpacePtr() returns (global, below).
inline void SetSysWorkspace(GM_ADDR workspace) { opgen_twin::detail::g_launch.sysWorkspace = workspace; }

// The data cache: the twin's scalar GM accesses go straight to memory, so flushing is a no-op.
// As on the NPU, ascend910 has no DataCacheCleanAndInvalid and ascend310p only the form without
// DcciDst (OPGEN_SOC_HAS_DCCI, OPGEN_SOC_HAS_DCCI_DST).
enum class CacheLine : uint64_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint64_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
#if !defined(__NPU_ARCH__) || OPGEN_SOC_HAS_DCCI(__NPU_ARCH__)
#if !defined(__NPU_ARCH__) || OPGEN_SOC_HAS_DCCI_DST(__NPU_ARCH__)
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
template <typename T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>&) {}
#endif
template <typename T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
#endif

// ParamOffset<T>(gm, blockLength): this block's part of a tensor cut into equal parts of blockLength
// elements, gm + GetBlockIdx() * blockLength * sizeof(T). An API of the first Ascend C (TIK C++,
// namespace tik2) that no public document the twin found describes; the semantics are those of the
// Ascend samples' AddCustom, whose later versions replaced the call by exactly that expression.
template <typename T>
inline GM_ADDR ParamOffset(GM_ADDR gm, uint64_t blockLength)
{
    return gm == nullptr ? nullptr : gm + static_cast<uint64_t>(GetBlockIdx()) * blockLength * sizeof(T);
}

}  // namespace AscendC

// The first Ascend C's namespace (TIK C++): `using namespace tik2;` in old kernels.
namespace tik2 = AscendC;

// The system workspace (GetLibApiWorkSpaceSize() bytes at the start of the workspace argument), in
// the global namespace as in asc-devkit kernel_operator_swap_mem_intf.h: as in a framework launch,
// the runner sets it to the workspace argument it passes.
inline GM_ADDR GetSysWorkSpacePtr() { return opgen_twin::detail::g_launch.sysWorkspace; }
[[deprecated("NOTICE: SetSysWorkSpacePtr has been deprecated and will be removed in the next version.")]]
inline void SetSysWorkSpacePtr(GM_ADDR workspace) { opgen_twin::detail::g_launch.sysWorkspace = workspace; }

#endif  // OPGEN_TWIN_DETAIL_KERNEL_MISC_H
