// opgen CPU twin: the on-board debug output of a kernel (asc-devkit 调试接口/上板打印: DumpTensor.md,
// DumpAccChkPoint.md; Utils-API/调测接口/printf.md; impl/utils/debug/asc_aicore_printf_impl.h and
// asc_aicore_dump_impl.h): AscendC::printf / PRINTF, DumpTensor, DumpAccChkPoint.
//
// On the NPU each core writes its prints into its own GM buffer, which the runtime prints core by core;
// the twin collects each block's text (LaunchState::debugOut) and the runner prints it to stdout after the
// launch, in GetBlockIdx() order, each block's part after a head line
// `opType=<Op>, DumpHead: AIV-<i>, CoreType=AIV, block dim=<n>, total_block_num=<t>` (the fields of
// CANN's DumpHead the twin knows). Outside the runner (unit tests) the text goes to stdout at once.
//   printf / PRINTF(fmt, args...):  "[AIV Block <i>/<t>] " + the formatted text, i = GetBlockIdx()
//     (block * task ratio + sub-block), t = GetBlockNum() * task ratio, as asc_debug_get_block_idx /
//     asc_debug_get_block_total_num; half and bfloat16_t arguments print as float (%f), as on the NPU.
//   DumpTensor(tensor, desc, dumpSize):
//     "DumpTensor: desc=<desc>, addr=0x<address>, data_type=<float16|float32|int32|...>, position=<UB|L1|
//     L0C|GM>, dump_size=<dumpSize>" then "[v0, v1, ...]" (floats with %f, integers in decimal).
//   DumpAccChkPoint(tensor, index, countOff, dumpSize): DumpTensor of tensor[countOff] with desc = index.
// `ASCENDC_DUMP=0` (defined as 0 before kernel_operator.h) turns them all off, as in CANN.
// HardwareErrors naming the call: printf on a SoC printf.md lists as unsupported (ascend910, ascend310p,
// ascend310b), DumpTensor/DumpAccChkPoint on ascend910; a LocalTensor in L0A/L0B (DumpTensor.md: UB, L1,
// L0C, GM); dumpSize beyond the tensor (the twin's rule: the NPU would print the bytes behind it); a GM
// range outside the launch's buffers; DumpAccChkPoint's countOff beyond the tensor (CANN's CPU debug
// asserts; the NPU skips the dump) or not 32-byte aligned in UB. A dump of more than 30 KB (its 72-byte
// header and data rounded up to 32 bytes; the default print buffer, DumpTensor.md) is not printed, as on
// the NPU; the twin prints a line saying so.
// The ShapeInfo overloads print the values nested as the shape says, a row per line (DumpTensor.md's
// examples: `[[a,b],\n[c,d]]`, no spaces); a shape of fewer elements than dumpSize prints
// "shape is [7, 8], dumpSize is 64, dumpSize is greater than shapeSize." first and only the shape's
// elements, one of more prints "shape is [9, 8], dumpSize is 64, data is not enough." first and "-" for
// the missing ones. Nesting beyond two dimensions follows the same rule (the docs show two).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_DEBUG_H
#define OPGEN_TWIN_DETAIL_KERNEL_DEBUG_H

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/launch.h"
#include "opgen_twin/detail/soc.h"

#ifndef K_MAX_SHAPE_DIM
#define K_MAX_SHAPE_DIM 8  // asc-devkit impl/utils/sys_macros.h
#endif

namespace AscendC {

// asc-devkit include/basic_api/kernel_struct_data_copy.h
enum class DataFormat : uint8_t { ND = 0, NZ, NCHW, NC1HWC0, NHWC, NCDHW, NDC1HWC0, FRACTAL_Z_3D };

// asc-devkit include/basic_api/kernel_tensor.h (a dim above K_MAX_SHAPE_DIM is a HardwareError here; the
// NPU build does not check it)
struct ShapeInfo {
    ShapeInfo() {}
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const uint8_t inputOriginalShapeDim,
              const uint32_t inputOriginalShape[], const DataFormat inputFormat)
        : shapeDim(inputShapeDim), originalShapeDim(inputOriginalShapeDim), dataFormat(inputFormat)
    {
        Check(inputShapeDim), Check(inputOriginalShapeDim);
        for (int i = 0; i < shapeDim; ++i) shape[i] = inputShape[i];
        for (int i = 0; i < originalShapeDim; ++i) originalShape[i] = inputOriginalShape[i];
    }
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[], const DataFormat inputFormat)
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, inputFormat)
    {
    }
    ShapeInfo(const uint8_t inputShapeDim, const uint32_t inputShape[])
        : ShapeInfo(inputShapeDim, inputShape, inputShapeDim, inputShape, DataFormat::ND)
    {
    }
    uint8_t shapeDim = 0;
    uint8_t originalShapeDim = 0;
    uint32_t shape[K_MAX_SHAPE_DIM] = {};
    uint32_t originalShape[K_MAX_SHAPE_DIM] = {};
    DataFormat dataFormat = DataFormat::ND;

private:
    static void Check(uint8_t dim)
    {
        if (dim > K_MAX_SHAPE_DIM) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "ShapeInfo: shapeDim %u is more than K_MAX_SHAPE_DIM (%d)", static_cast<unsigned>(dim), K_MAX_SHAPE_DIM));
        }
    }
};

inline uint64_t GetShapeSize(const ShapeInfo& shapeInfo)
{
    uint64_t size = 1;
    for (int i = 0; i < shapeInfo.shapeDim; ++i) size *= shapeInfo.shape[i];
    return size;
}

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// The block's debug text goes to the runner's buffer, else (no runner) straight to stdout.
inline void DebugEmit(const std::string& text)
{
    if (g_launch.debugOut != nullptr) {
        g_launch.debugOut->append(text);
        return;
    }
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
}

// A printf argument as C's printf takes it: half and bfloat16_t as double (%f), the rest unchanged.
template <class A>
inline auto PrintfArg(const A& a)
{
    if constexpr (IsFp16Like<typename std::decay<A>::type>::value) {
        return static_cast<double>(static_cast<float>(a));
    } else {
        return a;
    }
}

template <int Arch>
inline void CheckPrintfExists(const char* api)
{
    if (!OPGEN_SOC_HAS_PRINTF(Arch)) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) has no printf (asc-devkit printf.md: Atlas A2/A3 and Ascend "
                             "950); DumpTensor prints tensors there",
                             api, SocName(Arch), Arch));
    }
}

template <int Arch, class... Args>
inline void KernelPrintf(const char* api, const char* fmt, const Args&... args)
{
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
    CheckPrintfExists<Arch>(api);
    const bool aic = g_launch.coreType == kCoreAic;
    const long long ratio = aic ? 1 : g_launch.taskRatio > 0 ? g_launch.taskRatio : 1;
    std::string text = Format("[%s Block %lld/%lld] ", aic ? "AIC" : "AIV",
                              static_cast<long long>(g_launch.blockIdx * ratio + (aic ? 0 : g_launch.subBlockIdx)),
                              static_cast<long long>(g_launch.blockNum * ratio));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    const int n = std::snprintf(nullptr, 0, fmt, PrintfArg(args)...);
    if (n > 0) {
        std::string body(static_cast<size_t>(n) + 1, '\0');
        std::snprintf(&body[0], body.size(), fmt, PrintfArg(args)...);
        body.resize(static_cast<size_t>(n));
        text += body;
    }
#pragma GCC diagnostic pop
    DebugEmit(text);
#else
    (void)api, (void)fmt, (void)sizeof...(args);
#endif
}

// CANN's dump data type names (DumpTensor.md's examples: float16; cube_buffer_dump: float32, uint64).
template <class T>
inline const char* DumpTypeName()
{
    if constexpr (std::is_same<T, half>::value) return "float16";
    else if constexpr (std::is_same<T, bfloat16_t>::value) return "bfloat16";
    else if constexpr (std::is_same<T, float>::value) return "float32";
    else if constexpr (std::is_same<T, bool>::value) return "bool";
    else if constexpr (std::is_same<T, int8_t>::value) return "int8";
    else if constexpr (std::is_same<T, uint8_t>::value) return "uint8";
    else if constexpr (std::is_same<T, int16_t>::value) return "int16";
    else if constexpr (std::is_same<T, uint16_t>::value) return "uint16";
    else if constexpr (std::is_same<T, int32_t>::value) return "int32";
    else if constexpr (std::is_same<T, uint32_t>::value) return "uint32";
    else if constexpr (std::is_same<T, int64_t>::value) return "int64";
    else return "uint64";
}

template <class T>
struct IsDumpT : IsAnyOf<T, bool, int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float,
                         int64_t, uint64_t> {};

template <class T>
inline std::string DumpValue(const void* data, uint32_t i)
{
    const T v = Load<T>(data, i);
    if constexpr (std::is_floating_point<T>::value || IsFp16Like<T>::value) {
        return Format("%f", static_cast<double>(static_cast<float>(v)));
    } else if constexpr (std::is_signed<T>::value) {
        return Format("%lld", static_cast<long long>(v));
    } else {
        return Format("%llu", static_cast<unsigned long long>(v));
    }
}

constexpr uint64_t kDumpTlvHeadBytes = 72;     // sizeof(DumpTensorTlv), asc-devkit impl/utils/debug/asc_debug_types.h
constexpr uint64_t kDumpBufferBytes = 30 * 1024;  // the default print buffer per core (DumpTensor.md)

// The values of a dump nested as `shape` says (DumpTensor.md): element `at` on, dimension `d`; "-" past n.
template <class T>
inline void AppendNested(std::string& text, const AscendC::ShapeInfo& shape, int d, uint64_t& at, const void* data,
                         uint32_t n)
{
    text += "[";
    for (uint32_t i = 0; i < shape.shape[d]; ++i) {
        if (i > 0) text += d + 1 == shape.shapeDim ? "," : ",\n";
        if (d + 1 < shape.shapeDim) {
            AppendNested<T>(text, shape, d + 1, at, data, n);
        } else {
            text += at < n ? DumpValue<T>(data, static_cast<uint32_t>(at)) : std::string("-");
            ++at;
        }
    }
    text += "]";
}

// The values of a dump as DumpTensor.md prints them with a ShapeInfo: a note when the sizes differ.
template <class T>
inline std::string ShapedValues(const AscendC::ShapeInfo& shape, const void* data, uint32_t n)
{
    std::string text;
    const uint64_t size = AscendC::GetShapeSize(shape);
    if (size != n) {
        text += "shape is [";
        for (int d = 0; d < shape.shapeDim; ++d) text += Format(d > 0 ? ", %u" : "%u", shape.shape[d]);
        text += Format("], dumpSize is %u, %s\n", n, size < n ? "dumpSize is greater than shapeSize." : "data is not enough.");
    }
    uint64_t at = 0;
    AppendNested<T>(text, shape, 0, at, data, n);
    return text + "\n";
}

// Emits one DumpTensor record of `n` elements at `data` (nested by `shape` when it has dimensions).
template <class T>
inline void EmitDump(uint32_t desc, uint64_t addr, const char* position, const void* data, uint32_t n,
                     const AscendC::ShapeInfo* shape = nullptr)
{
    const uint64_t bytes = (uint64_t{n} * sizeof(T) + 31) / 32 * 32;
    if (kDumpTlvHeadBytes + bytes > kDumpBufferBytes) {
        DebugEmit(Format("[opgen twin] DumpTensor desc=%u (%u %s elements) not printed: %llu bytes with its header "
                         "exceed the 30 KB print buffer (DumpTensor.md; aclInit's simd_printf_fifo_size_per_core)\n",
                         desc, n, DumpTypeName<T>(), static_cast<unsigned long long>(kDumpTlvHeadBytes + bytes)));
        return;
    }
    std::string text = Format("DumpTensor: desc=%u, addr=0x%llx, data_type=%s, position=%s, dump_size=%u\n", desc,
                              static_cast<unsigned long long>(addr & 0xFFFFFFFFull), DumpTypeName<T>(), position, n);
    if (shape != nullptr && shape->shapeDim > 0) {
        DebugEmit(text + ShapedValues<T>(*shape, data, n));
        return;
    }
    text += "[";
    for (uint32_t i = 0; i < n; ++i) {
        if (i > 0) text += ", ";
        text += DumpValue<T>(data, i);
    }
    text += "]\n";
    DebugEmit(text);
}

template <int Arch>
inline void CheckDumpExists(const char* api)
{
    if (!OPGEN_SOC_HAS_DUMP_TENSOR(Arch)) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) has no DumpTensor (asc-devkit DumpTensor.md)", api, SocName(Arch),
                             Arch));
    }
}

inline const char* DumpPosition(const char* api, AscendC::TPosition pos)
{
    switch (pos) {
        case AscendC::TPosition::A1:
        case AscendC::TPosition::B1:
        case AscendC::TPosition::C1:
        case AscendC::TPosition::TSCM: return "L1";
        case AscendC::TPosition::CO1: return "L0C";
        case AscendC::TPosition::A2:
        case AscendC::TPosition::B2:
            ThrowHardware(Format("%s: a tensor in L0A/L0B cannot be dumped (asc-devkit DumpTensor.md: UB, L1, L0C and GM)",
                                 api));
        default: return "UB";
    }
}

template <class T, int Arch>
inline void DumpLocal(const char* api, const AscendC::LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize,
                      const AscendC::ShapeInfo* shape = nullptr)
{
    static_assert(IsDumpT<T>::value, "opgen twin: AscendC::DumpTensor takes bool, (u)int8/16/32/64_t, half, "
                                     "bfloat16_t, float");
    CheckDumpExists<Arch>(api);
    if (dumpSize == 0) return;  // asc_dump_impl: nothing to print
    t.TwinCheckFits(api, "source", dumpSize);
    const char* pos = DumpPosition(api, static_cast<AscendC::TPosition>(t.GetPosition()));
    EmitDump<T>(desc, t.GetPhyAddr(), pos, t.TwinData(), dumpSize, shape);
}

template <class T, int Arch>
inline void DumpGlobal(const char* api, const AscendC::GlobalTensor<T>& t, uint32_t desc, uint32_t dumpSize,
                       const AscendC::ShapeInfo* shape = nullptr)
{
    static_assert(IsDumpT<T>::value, "opgen twin: AscendC::DumpTensor takes bool, (u)int8/16/32/64_t, half, "
                                     "bfloat16_t, float");
    CheckDumpExists<Arch>(api);
    if (dumpSize == 0) return;
    const T* p = t.GetPhyAddr();
    if (p == nullptr) return;  // set_dump_tlv_data: a null GM source prints nothing
    CheckGmRange(api, p, uint64_t{dumpSize} * sizeof(T));
    EmitDump<T>(desc, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)), "GM", p, dumpSize, shape);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename... Args>
inline void printf(const char* fmt, Args&&... args)  // NOLINT: AscendC spelling
{
    opgen_twin::detail::KernelPrintf<opgen_twin::detail::kNpuArch>("printf", fmt, args...);
}
template <typename... Args>
inline void PRINTF(const char* fmt, Args&&... args)
{
    opgen_twin::detail::KernelPrintf<opgen_twin::detail::kNpuArch>("PRINTF", fmt, args...);
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize)
{
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
    opgen_twin::detail::DumpLocal<T, Arch>("DumpTensor", tensor, desc, dumpSize);
#else
    (void)tensor, (void)desc, (void)dumpSize;
#endif
}
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize)
{
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
    opgen_twin::detail::DumpGlobal<T, Arch>("DumpTensor", tensor, desc, dumpSize);
#else
    (void)tensor, (void)desc, (void)dumpSize;
#endif
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo& shapeInfo)
{
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
    opgen_twin::detail::DumpLocal<T, Arch>("DumpTensor", tensor, desc, dumpSize, &shapeInfo);
#else
    (void)tensor, (void)desc, (void)dumpSize, (void)shapeInfo;
#endif
}
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo& shapeInfo)
{
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
    opgen_twin::detail::DumpGlobal<T, Arch>("DumpTensor", tensor, desc, dumpSize, &shapeInfo);
#else
    (void)tensor, (void)desc, (void)dumpSize, (void)shapeInfo;
#endif
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DumpAccChkPoint(const LocalTensor<T>& tensor, uint32_t index, uint32_t countOff, uint32_t dumpSize)
{
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
    const char* api = "DumpAccChkPoint";
    if (countOff > tensor.GetSize()) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: countOff %u is beyond the tensor's %u elements (asc-devkit: \"tensor offset exceeds limit\")", api,
            countOff, static_cast<unsigned>(tensor.GetSize())));
    }
    if ((uint64_t{countOff} * sizeof(T)) % 32 != 0) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: countOff %u of %s is %llu bytes, not a multiple of 32: the offset tensor must be 32-byte aligned in "
            "UB (DumpAccChkPoint.md)",
            api, countOff, opgen_twin::detail::TypeName<T>(), static_cast<unsigned long long>(uint64_t{countOff} * sizeof(T))));
    }
    opgen_twin::detail::DumpLocal<T, Arch>(api, tensor[countOff], index, dumpSize);
#else
    (void)tensor, (void)index, (void)countOff, (void)dumpSize;
#endif
}
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DumpAccChkPoint(const GlobalTensor<T>& tensor, uint32_t index, uint32_t countOff, uint32_t dumpSize)
{
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0)
    const char* api = "DumpAccChkPoint";
    if (countOff > tensor.GetSize()) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: countOff %u is beyond the tensor's %llu elements (GetSize(), the size SetGlobalBuffer was given; "
            "asc-devkit: \"tensor offset exceeds limit\", and the NPU dumps nothing)",
            api, countOff, static_cast<unsigned long long>(tensor.GetSize())));
    }
    opgen_twin::detail::DumpGlobal<T, Arch>(api, tensor[countOff], index, dumpSize);
#else
    (void)tensor, (void)index, (void)countOff, (void)dumpSize;
#endif
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_DEBUG_H
