// opgen CPU twin: per-launch state shared by the kernel-side emulation and the runner.
//
// The runner launches a kernel once per block index, the blocks spread over threads. Before
// each launch it fills the thread's LaunchState (block index/number, tiling key, UB size, the
// list of GM buffers it allocated or borrowed). Kernel-side checks consult it; when no GM buffer is
// registered (unit tests that build tensors by hand) the GM-allocation check is skipped
// and only the GlobalTensor's own SetGlobalBuffer size is enforced.
#ifndef OPGEN_TWIN_DETAIL_LAUNCH_H
#define OPGEN_TWIN_DETAIL_LAUNCH_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "opgen_twin/errors.h"
#include "opgen_twin/fp16.h"

namespace opgen_twin {

// Defaults for the SoC the twin emulates (see README "Platform defaults").
constexpr uint64_t kDefaultUbSize = 196608;              // ub_size in Ascend910B*.ini
constexpr uint32_t kDefaultAivCoreNum = 40;              // Ascend910B3/B4 (B1/B2: 48)
constexpr uint32_t kDefaultAicCoreNum = 20;              // Ascend910B3/B4 (B1/B2: 24)
constexpr uint32_t kDefaultLibApiWorkspace = 16u << 20;  // GetLibApiWorkSpaceSize() on 910B
constexpr size_t kDefaultTilingCapacity = 2048;          // OpImplRegisterV2::Tiling default max_tiling_data_size

namespace detail {

struct GmRegion {
    const uint8_t* begin = nullptr;
    uint64_t bytes = 0;
    std::string name;
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
};

// One per thread: the runner launches blocks on several threads, each with its own copy of the
// launch's facts (a C++17 inline variable: one definition per program).
inline thread_local LaunchState g_launch;

inline void ResetLaunchFlags() { g_launch.pendingFlags.assign(64u * 64u, 0u); }

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

#endif  // OPGEN_TWIN_DETAIL_LAUNCH_H
