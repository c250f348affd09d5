// opgen CPU twin: DataCopy and DataCopyPad between GM and UB (and UB to UB).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_COPY_H
#define OPGEN_TWIN_DETAIL_KERNEL_COPY_H

#include <cstdint>
#include <cstring>
#include <mutex>

#include "opgen_twin/detail/kernel_pipe.h"
#include "opgen_twin/detail/soc.h"

namespace AscendC {

struct DataCopyParams {
    DataCopyParams() {}
    DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn)
    {}
    uint16_t blockCount = 1;
    uint16_t blockLen = 0;  // DataCopy: 32-byte blocks; DataCopyPad: bytes
    union {
        uint16_t srcGap = 0;
        uint16_t srcStride;
    };
    union {
        uint16_t dstGap = 0;
        uint16_t dstStride;
    };
};

struct DataCopyExtParams {
    DataCopyExtParams() {}
    DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                      const uint32_t rsvIn)
        : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn)
    {}
    uint16_t blockCount = 1;
    uint32_t blockLen = 0;  // bytes
    uint32_t srcStride = 0;  // GM side: bytes; UB side: 32-byte blocks
    uint32_t dstStride = 0;
    uint32_t rsv = 0;
};

struct DataCopyPadParams {
    DataCopyPadParams() {}
    DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                      const uint64_t padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;
    uint8_t rightPadding = 0;
    uint64_t paddingValue = 0;
};

template <typename T>
struct DataCopyPadExtParams {
    DataCopyPadExtParams() {}
    DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
        : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue)
    {}
    bool isPad = false;
    uint8_t leftPadding = 0;   // elements
    uint8_t rightPadding = 0;  // elements
    T paddingValue = T(0);
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

inline void CheckDataCopyCount(const char* api, const char* typeName, size_t elemSize, uint64_t count)
{
    const uint64_t bytes = count * elemSize;
    if (bytes % 32 != 0) {
        ThrowHardware(Format("%s: count %llu x sizeof(%s)=%llu bytes is not a multiple of 32 bytes (the NPU "
                             "silently truncates to %llu bytes); use DataCopyPad for tails",
                             api, static_cast<unsigned long long>(count), typeName,
                             static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes / 32 * 32)));
    }
}

inline uint64_t AlignUp32(uint64_t v) { return (v + 31u) / 32u * 32u; }

// One UB row of DataCopyPad GM->UB: `elems` elements of `from` after `left` padding ones, the
// rest of its rowElems padding. The documented fill: paddingValue when isPad; with no padding
// requested the dummy repeats the block's first element; otherwise unspecified (we write 0xFF
// bytes).
template <class T>
inline void PadRow(uint8_t* row, const T* from, uint64_t rowElems, uint64_t elems, bool isPad, uint32_t left,
                   uint32_t right, T padValue)
{
    T fill = padValue;
    bool garbage = false;
    if (!isPad) {
        if (left == 0 && right == 0) {
            fill = Load<T>(from, 0);
        } else {
            garbage = true;
        }
    }
    for (uint64_t i = 0; i < rowElems; ++i) {
        if (i >= left && i < left + elems) {
            std::memcpy(row + i * sizeof(T), from + (i - left), sizeof(T));
        } else if (garbage) {
            std::memset(row + i * sizeof(T), 0xFF, sizeof(T));
        } else {
            Store<T>(row, i, fill);
        }
    }
}

// Core of DataCopyPad GM->UB. Layout per block b (all in bytes):
//   GM source : base + b * (blockLen + srcStrideBytes)
//   UB dest   : b * (align32(left + blockLen + right) + dstStrideBlocks * 32)
//               [left pad][data][right pad][dummy up to 32-byte alignment]
template <class T>
inline void PadGmToUb(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src, uint32_t blockCount,
                      uint64_t blockLen, uint64_t srcStrideBytes, uint64_t dstStrideBlocks, bool isPad, uint32_t left,
                      uint32_t right, T padValue)
{
    const char* api = "DataCopyPad(GM->UB)";
    const OnPipe onMte2(kPipeMte2);
    dst.TwinCheckAligned(api, "dst");
    if (blockCount == 0 || blockLen == 0) {
        return;  // documented NOP
    }
    if (blockLen % sizeof(T) != 0) {
        ThrowHardware(Format("%s: blockLen %llu bytes is not a multiple of sizeof(%s)=%zu", api,
                             static_cast<unsigned long long>(blockLen), TypeName<T>(), sizeof(T)));
    }
    if (left * sizeof(T) > 32 || right * sizeof(T) > 32) {
        ThrowHardware(Format("%s: leftPadding=%u / rightPadding=%u elements exceed 32 bytes", api, left, right));
    }
    const uint64_t elems = blockLen / sizeof(T);
    const uint64_t rowBytes = AlignUp32((left + right) * sizeof(T) + blockLen);
    const uint64_t dstPitch = rowBytes + dstStrideBlocks * 32;
    const uint64_t ubNeed = dstPitch * (blockCount - 1) + rowBytes;
    const uint64_t ubHave = static_cast<uint64_t>(dst.GetSize()) * sizeof(T);
    if (ubNeed > ubHave) {
        ThrowHardware(Format("%s: writes %llu bytes of UB (%u blocks of %llu bytes padded to 32) but the dst tensor "
                             "has %llu bytes (UB buffer overrun)",
                             api, static_cast<unsigned long long>(ubNeed), blockCount,
                             static_cast<unsigned long long>(blockLen), static_cast<unsigned long long>(ubHave)));
    }
    dst.TwinNoteAccess(api, true, 0, ubNeed);
    const uint64_t srcPitchBytes = blockLen + srcStrideBytes;
    if (srcPitchBytes % sizeof(T) != 0) {
        ThrowHardware(Format("%s: srcStride %llu bytes is not a multiple of sizeof(%s)", api,
                             static_cast<unsigned long long>(srcStrideBytes), TypeName<T>()));
    }
    const uint64_t srcPitch = srcPitchBytes / sizeof(T);
    src.TwinCheckAccess(api, 0, srcPitch * (blockCount - 1) + elems);
    NoteGm(api, false, src.TwinPtr(), (srcPitch * (blockCount - 1) + elems) * sizeof(T));
    uint8_t* ub = static_cast<uint8_t*>(dst.TwinData());
    const T* gm = src.TwinPtr();
    for (uint32_t b = 0; b < blockCount; ++b) {
        PadRow(ub + b * dstPitch, gm + b * srcPitch, rowBytes / sizeof(T), elems, isPad, left, right, padValue);
    }
}

// A UB->GM copy's store: plain, or (after SetAtomicAdd/Max/Min<T>) combined element by element
// with what GM holds, under one lock for all blocks (the NPU's atomic unit serialises them).
inline std::mutex& AtomicGmMutex()
{
    static std::mutex m;
    return m;
}
template <class T>
inline T AtomicCombine(int op, T gmValue, T value)
{
    if constexpr (std::is_integral<T>::value) {
        if (op == 1) return static_cast<T>(static_cast<uint64_t>(gmValue) + static_cast<uint64_t>(value));
        return op == 2 ? (value > gmValue ? value : gmValue) : (value < gmValue ? value : gmValue);
    } else {
        const double a = static_cast<double>(gmValue), b = static_cast<double>(value);
        if (op == 1) {
            if constexpr (std::is_same<T, float>::value) return gmValue + value;
            else return T(a + b);
        }
        return op == 2 ? (b > a ? value : gmValue) : (b < a ? value : gmValue);
    }
}
template <class T>
inline void GmStore(const char* api, void* gm, const void* ub, uint64_t bytes)
{
    const LaunchState& L = g_launch;
    if (L.coreType == kCoreAic) {
        return;  // the cube core has no UB: the copy does nothing there (dav_c220 DataCopyUB2GMImpl)
    }
    if (L.atomicOp == 0) {
        std::memcpy(gm, ub, bytes);
        return;
    }
    if (std::strcmp(L.atomicType, TypeName<T>()) != 0) {
        ThrowHardware(Format("%s: copies %s elements while SetAtomic%s<%s> is active: the atomic unit would "
                             "combine the bytes as %s; set the atomic type of the data (SetAtomicAdd<%s>) or "
                             "DisableDmaAtomic()",
                             api, TypeName<T>(), L.atomicOp == 1 ? "Add" : L.atomicOp == 2 ? "Max" : "Min",
                             L.atomicType, L.atomicType, TypeName<T>()));
    }
    std::lock_guard<std::mutex> lock(AtomicGmMutex());
    const uint64_t n = bytes / sizeof(T);
    for (uint64_t i = 0; i < n; ++i) {
        T g, v;
        std::memcpy(&g, static_cast<const uint8_t*>(gm) + i * sizeof(T), sizeof(T));
        std::memcpy(&v, static_cast<const uint8_t*>(ub) + i * sizeof(T), sizeof(T));
        const T r = AtomicCombine<T>(L.atomicOp, g, v);
        std::memcpy(static_cast<uint8_t*>(gm) + i * sizeof(T), &r, sizeof(T));
    }
}

// Core of DataCopyPad UB->GM: UB block b starts at b * (align32(blockLen) + srcStrideBlocks*32),
// GM block b at b * (blockLen + dstStrideBytes). Only blockLen bytes per block are written.
template <class T>
inline void PadUbToGm(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint32_t blockCount,
                      uint64_t blockLen, uint64_t srcStrideBlocks, uint64_t dstStrideBytes)
{
    const char* api = "DataCopyPad(UB->GM)";
    const OnPipe onMte3(kPipeMte3);
    src.TwinCheckAligned(api, "src");
    if (blockCount == 0 || blockLen == 0) {
        return;
    }
    if (blockLen % sizeof(T) != 0) {
        ThrowHardware(Format("%s: blockLen %llu bytes is not a multiple of sizeof(%s)=%zu", api,
                             static_cast<unsigned long long>(blockLen), TypeName<T>(), sizeof(T)));
    }
    const uint64_t srcPitch = AlignUp32(blockLen) + srcStrideBlocks * 32;
    const uint64_t ubNeed = srcPitch * (blockCount - 1) + blockLen;
    const uint64_t ubHave = static_cast<uint64_t>(src.GetSize()) * sizeof(T);
    if (ubNeed > ubHave) {
        ThrowHardware(Format("%s: reads %llu bytes of UB but the src tensor has %llu bytes (UB buffer overrun)", api,
                             static_cast<unsigned long long>(ubNeed), static_cast<unsigned long long>(ubHave)));
    }
    src.TwinNoteAccess(api, false, 0, ubNeed);
    const uint64_t dstPitchBytes = blockLen + dstStrideBytes;
    if (dstPitchBytes % sizeof(T) != 0) {
        ThrowHardware(Format("%s: dstStride %llu bytes is not a multiple of sizeof(%s)", api,
                             static_cast<unsigned long long>(dstStrideBytes), TypeName<T>()));
    }
    const uint64_t elems = blockLen / sizeof(T);
    dst.TwinCheckAccess(api, 0, dstPitchBytes / sizeof(T) * (blockCount - 1) + elems);
    NoteGm(api, true, dst.TwinPtr(), dstPitchBytes * (blockCount - 1) + blockLen);
    const uint8_t* ub = static_cast<const uint8_t*>(src.TwinData());
    uint8_t* gm = reinterpret_cast<uint8_t*>(dst.TwinPtr());
    for (uint32_t b = 0; b < blockCount; ++b) {
        GmStore<T>(api, gm + b * dstPitchBytes, ub + b * srcPitch, blockLen);
        NoteGmWrite(false, gm + b * dstPitchBytes, blockLen);
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// ---- DataCopy, contiguous (count elements, count*sizeof(T) must be a multiple of 32) ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count)
{
    const char* api = "DataCopy(GM->UB)";
    const opgen_twin::detail::OnPipe onPipe(opgen_twin::detail::kPipeMte2);
    opgen_twin::detail::CheckDataCopyCount(api, opgen_twin::detail::TypeName<T>(), sizeof(T), count);
    dst.TwinCheckFits(api, "dst", count);
    src.TwinCheckAccess(api, 0, count);
    opgen_twin::detail::NoteGm(api, false, src.TwinPtr(), static_cast<uint64_t>(count) * sizeof(T));
    const size_t bytes = static_cast<size_t>(count) * sizeof(T);
    std::memcpy(dst.TwinDataToOverwrite(bytes), src.TwinPtr(), bytes);
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    const char* api = "DataCopy(UB->GM)";
    const opgen_twin::detail::OnPipe onPipe(opgen_twin::detail::kPipeMte3);
    opgen_twin::detail::CheckDataCopyCount(api, opgen_twin::detail::TypeName<T>(), sizeof(T), count);
    src.TwinCheckFits(api, "src", count);
    dst.TwinCheckAccess(api, 0, count);
    opgen_twin::detail::NoteGm(api, true, dst.TwinPtr(), static_cast<uint64_t>(count) * sizeof(T));
    opgen_twin::detail::GmStore<T>(api, dst.TwinPtr(), src.TwinData(), static_cast<uint64_t>(count) * sizeof(T));
    opgen_twin::detail::NoteGmWrite(false, dst.TwinPtr(), static_cast<uint64_t>(count) * sizeof(T));
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count)
{
    const char* api = "DataCopy(UB->UB)";
    if (!OPGEN_SOC_HAS_UB_COPY(Arch)) {  // asc-devkit "DataCopy（UBToUB连续数据搬运）.md": not Atlas 200I/500 A2
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: %s (__NPU_ARCH__ %d, Atlas 200I/500 A2) has no UB-to-UB DataCopy; copy through the vector "
            "unit (e.g. Adds of 0 over the bytes as int16_t)",
            api, opgen_twin::detail::SocName(Arch), Arch));
    }
    opgen_twin::detail::CheckDataCopyCount(api, opgen_twin::detail::TypeName<T>(), sizeof(T), count);
    dst.TwinCheckFits(api, "dst", count);
    src.TwinCheckFits(api, "src", count);
    std::memmove(dst.TwinData(), src.TwinData(), static_cast<size_t>(count) * sizeof(T));
}

// ---- DataCopy with DataCopyParams: blockLen/strides in 32-byte blocks on both sides ----
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p)
{
    const char* api = "DataCopy(GM->UB, DataCopyParams)";
    const opgen_twin::detail::OnPipe onPipe(opgen_twin::detail::kPipeMte2);
    dst.TwinCheckAligned(api, "dst");
    if (p.blockCount == 0 || p.blockLen == 0) {
        return;
    }
    const uint64_t blk = 32u / sizeof(T);
    const uint64_t len = p.blockLen * blk, sp = (p.blockLen + p.srcStride) * blk, dp = (p.blockLen + p.dstStride) * blk;
    dst.TwinCheckFits(api, "dst", dp * (p.blockCount - 1) + len);
    src.TwinCheckAccess(api, 0, sp * (p.blockCount - 1) + len);
    opgen_twin::detail::NoteGm(api, false, src.TwinPtr(), (sp * (p.blockCount - 1) + len) * sizeof(T));
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        std::memcpy(static_cast<uint8_t*>(dst.TwinData()) + b * dp * sizeof(T), src.TwinPtr() + b * sp, len * sizeof(T));
    }
}

template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p)
{
    const char* api = "DataCopy(UB->GM, DataCopyParams)";
    const opgen_twin::detail::OnPipe onPipe(opgen_twin::detail::kPipeMte3);
    src.TwinCheckAligned(api, "src");
    if (p.blockCount == 0 || p.blockLen == 0) {
        return;
    }
    const uint64_t blk = 32u / sizeof(T);
    const uint64_t len = p.blockLen * blk, sp = (p.blockLen + p.srcStride) * blk, dp = (p.blockLen + p.dstStride) * blk;
    src.TwinCheckFits(api, "src", sp * (p.blockCount - 1) + len);
    dst.TwinCheckAccess(api, 0, dp * (p.blockCount - 1) + len);
    opgen_twin::detail::NoteGm(api, true, dst.TwinPtr(), (dp * (p.blockCount - 1) + len) * sizeof(T));
    for (uint32_t b = 0; b < p.blockCount; ++b) {
        opgen_twin::detail::GmStore<T>(api, dst.TwinPtr() + b * dp,
                                       static_cast<const uint8_t*>(src.TwinData()) + b * sp * sizeof(T),
                                       len * sizeof(T));
        opgen_twin::detail::NoteGmWrite(false, dst.TwinPtr() + b * dp, len * sizeof(T));
    }
}

// ---- DataCopyPad (non-aligned copies) ----
// Arch: the SoC of the calling kernel's build (see opgen_twin/detail/soc.h).
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& dataCopyParams,
                        const DataCopyPadExtParams<T>& padParams)
{
    opgen_twin::detail::CheckDataCopyPadExists<Arch>("DataCopyPad(GM->UB)");
    opgen_twin::detail::PadGmToUb(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                                  dataCopyParams.srcStride, dataCopyParams.dstStride, padParams.isPad,
                                  padParams.leftPadding, padParams.rightPadding, padParams.paddingValue);
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& dataCopyParams,
                        const DataCopyPadParams& padParams)
{
    opgen_twin::detail::CheckDataCopyPadExists<Arch>("DataCopyPad(GM->UB)");
    T pad;
    std::memcpy(&pad, &padParams.paddingValue, sizeof(T));  // low bytes of the 64-bit field
    opgen_twin::detail::PadGmToUb(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                                  dataCopyParams.srcStride, dataCopyParams.dstStride, padParams.isPad,
                                  padParams.leftPadding, padParams.rightPadding, pad);
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& dataCopyParams)
{
    opgen_twin::detail::CheckDataCopyPadExists<Arch>("DataCopyPad(UB->GM)");
    opgen_twin::detail::PadUbToGm(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                                  dataCopyParams.srcStride, dataCopyParams.dstStride);
}

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& dataCopyParams)
{
    opgen_twin::detail::CheckDataCopyPadExists<Arch>("DataCopyPad(UB->GM)");
    opgen_twin::detail::PadUbToGm(dst, src, dataCopyParams.blockCount, dataCopyParams.blockLen,
                                  dataCopyParams.srcStride, dataCopyParams.dstStride);
}

}  // namespace AscendC

namespace AscendC {
// ---- atomic UB->GM copies (asc-devkit 原子操作/SetAtomicAdd.md, SetAtomicMax/Min, DisableDmaAtomic) ----
// Atlas A2/A3: int8_t, int16_t, half, bfloat16_t, int32_t, float. GM is not cleared first (the docs:
// clear it yourself, e.g. InitGlobalMemory; the runner's outputs start as 0xFF bytes).
template <class T>
struct IsAtomicT : opgen_twin::detail::IsAnyOf<T, int8_t, int16_t, half, bfloat16_t, int32_t, float> {};
template <typename T>
inline void SetAtomicAdd()
{
    static_assert(IsAtomicT<T>::value, "opgen twin: SetAtomicAdd<T>: Atlas A2/A3 take int8_t, int16_t, half, "
                                       "bfloat16_t, int32_t, float (asc-devkit SetAtomicAdd.md)");
    opgen_twin::detail::g_launch.atomicOp = 1;
    opgen_twin::detail::g_launch.atomicType = opgen_twin::detail::TypeName<T>();
}
template <typename T>
inline void SetAtomicMax()
{
    static_assert(IsAtomicT<T>::value, "opgen twin: SetAtomicMax<T>: int8_t, int16_t, half, bfloat16_t, int32_t, float");
    opgen_twin::detail::g_launch.atomicOp = 2;
    opgen_twin::detail::g_launch.atomicType = opgen_twin::detail::TypeName<T>();
}
template <typename T>
inline void SetAtomicMin()
{
    static_assert(IsAtomicT<T>::value, "opgen twin: SetAtomicMin<T>: int8_t, int16_t, half, bfloat16_t, int32_t, float");
    opgen_twin::detail::g_launch.atomicOp = 3;
    opgen_twin::detail::g_launch.atomicType = opgen_twin::detail::TypeName<T>();
}
template <typename T>
inline void SetAtomicType()
{
    static_assert(IsAtomicT<T>::value, "opgen twin: SetAtomicType<T>: int8_t, int16_t, half, bfloat16_t, int32_t, float");
    opgen_twin::detail::g_launch.atomicType = opgen_twin::detail::TypeName<T>();
}
inline void DisableDmaAtomic()
{
    opgen_twin::detail::g_launch.atomicOp = 0;
    opgen_twin::detail::g_launch.atomicType = nullptr;
}
inline void SetAtomicNone() { DisableDmaAtomic(); }  // the older name

// InitGlobalMemory(gm, size, value): the first `size` elements of gm set to value (asc-devkit
// InitGlobalMemory.md), typically to clear an output before atomic adds.
template <typename T>
inline void InitGlobalMemory(GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const T value)
{
    const char* api = "InitGlobalMemory";
    gmWorkspaceAddr.TwinCheckAccess(api, 0, size);
    // a Duplicate in UB copied out (asc-devkit InitGlobalMemory): a write of the MTE3 pipe
    opgen_twin::detail::NoteGmOn(opgen_twin::detail::kPipeMte3, api, true, gmWorkspaceAddr.TwinPtr(), size * sizeof(T));
    T* p = gmWorkspaceAddr.TwinPtr();
    for (uint64_t i = 0; i < size; ++i) std::memcpy(p + i, &value, sizeof(T));
    opgen_twin::detail::NoteGmWrite(false, p, size * sizeof(T));
}
}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_COPY_H
