// opgen CPU twin: the UB Gather instruction (asc-devkit include/basic_api/kernel_operator_vec_gather_intf.h,
// docs 基础API/Memory矢量计算/离散与聚合/Gather.md, impl/basic_api/dav_*/kernel_operator_vec_gather_impl.h).
//
// Gather(dst, src, srcOffset, srcBaseAddr, count): dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)]
// for i < count; srcOffset is uint32_t BYTE offsets, srcBaseAddr a byte offset into src (the impl adds
// it to src's UB address). The repeat forms (mask continuous / bit-wise, repeatTime, dstRepStride in
// 32-byte blocks) gather element k of iteration r from srcOffset[r * perRepeat + k] into
// dst[r * dstRepStride * 32 / sizeof(T) + k]; perRepeat = 256 bytes / sizeof(T) (128 bytes for 8-bit
// types, 310B/950). PIPE_V.
// Per SoC (Gather.md 产品支持情况 and 数据类型; dav_c100's GatherImpl is ASCENDC_REPORT_NOT_SUPPORT):
//   ascend910 (1001): no Gather.    ascend310p (2002): int16/uint16/half/int32/uint32/float.
//   ascend910b (2201): those + bfloat16_t.   ascend310b (3002): those of 310p + int8_t/uint8_t.
//   ascend950 (3510): all of them + int64_t/uint64_t (8-bit in the count form only).
// HardwareErrors: the API or the dtype absent on the SoC, an operand not 32-byte aligned, dst and
// src the same memory, srcBaseAddr outside src or not a multiple of sizeof(T) (the impl's checks), an
// offset that is not a multiple of sizeof(T) (the docs: misplaced data, no crash) or that reads
// outside src (UB read out of bounds), dst or srcOffset too small.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_GATHER_H
#define OPGEN_TWIN_DETAIL_KERNEL_GATHER_H

#include <cstdint>
#include <vector>

#include "opgen_twin/detail/kernel_mask.h"
#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/soc_table.h"

namespace opgen_twin {
namespace detail {

template <class T>
struct IsGatherT : IsAnyOf<T, int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float, int64_t,
                           uint64_t> {};

// Whether SoC `arch` gathers T (Gather.md 数据类型). An arch the catalog does not list has all.
template <class T, int Arch>
constexpr bool GatherTypeOnSoc()
{
    if (!OPGEN_SOC_HAS_GATHER(Arch)) return false;
    if (std::is_same<T, bfloat16_t>::value) return OPGEN_SOC_HAS_GATHER_BF16(Arch);
    if (sizeof(T) == 1) return OPGEN_SOC_HAS_GATHER_B8(Arch);
    if (sizeof(T) == 8) return OPGEN_SOC_HAS_GATHER_B64(Arch);
    return true;  // 16- and 32-bit types
}

template <class T, int Arch>
inline void CheckGatherSoc(const char* api, bool repeatForm)
{
    if (!OPGEN_SOC_HAS_GATHER(Arch)) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d, Atlas training series) has no Gather (asc-devkit Gather.md; "
                             "dav_c100 reports it not supported)",
                             api, SocName(Arch), Arch));
    }
    if (!GatherTypeOnSoc<T, Arch>()) {
        ThrowHardware(Format("%s: %s (__NPU_ARCH__ %d) does not gather %s (asc-devkit Gather.md 数据类型)", api,
                             SocName(Arch), Arch, TypeName<T>()));
    }
    if (repeatForm && sizeof(T) == 1 && OPGEN_SOC_GATHER_B8_COUNT_ONLY(Arch)) {
        ThrowHardware(Format("%s: %s takes int8_t/uint8_t in the count form only (asc-devkit Gather.md)", api,
                             SocName(Arch)));
    }
}

template <class T>
inline void CheckGatherOperands(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                                const AscendC::LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr)
{
    const AscendC::LocalTensor<T>* ts[] = {&dst, &src};
    const char* names[] = {"dst", "src"};
    for (int i = 0; i < 2; ++i) {
        ts[i]->TwinCheckLive(api, names[i]);
        if (ts[i]->TwinUbBegin() % 32 != 0) {
            ThrowHardware(Format("%s: %s starts at UB byte %llu, not 32-byte aligned (asc-devkit Gather.md)", api,
                                 names[i], static_cast<unsigned long long>(ts[i]->TwinUbBegin())));
        }
    }
    srcOffset.TwinCheckLive(api, "srcOffset");
    if (srcOffset.TwinUbBegin() % 32 != 0) {
        ThrowHardware(Format("%s: srcOffset starts at UB byte %llu, not 32-byte aligned (asc-devkit Gather.md)", api,
                             static_cast<unsigned long long>(srcOffset.TwinUbBegin())));
    }
    if (dst.TwinUbBegin() == src.TwinUbBegin()) {
        ThrowHardware(Format("%s: dst and src are the same memory (asc-devkit Gather.md: not supported)", api));
    }
    const uint64_t srcBytes = uint64_t(src.GetSize()) * sizeof(T);
    if (srcBaseAddr >= srcBytes || srcBaseAddr % sizeof(T) != 0) {
        ThrowHardware(Format("%s: srcBaseAddr %u is outside src's %llu bytes or not a multiple of sizeof(T) = %zu "
                             "(asc-devkit Gather: CheckValueRange and the srcBaseOffset assert)",
                             api, srcBaseAddr, static_cast<unsigned long long>(srcBytes), sizeof(T)));
    }
}

// Element i's source index in src: srcOffset[oi] is a byte offset from srcBaseAddr.
template <class T>
inline uint64_t GatherSourceIndex(const char* api, const AscendC::LocalTensor<T>& src, const void* offs, uint64_t oi,
                                  uint32_t srcBaseAddr)
{
    const uint64_t byteOff = uint64_t(srcBaseAddr) + Load<uint32_t>(offs, oi);
    if (byteOff % sizeof(T) != 0) {
        ThrowHardware(Format("%s: srcBaseAddr + srcOffset[%llu] = %llu bytes is not a multiple of sizeof(%s) "
                             "(asc-devkit Gather.md: misplaced data)",
                             api, static_cast<unsigned long long>(oi), static_cast<unsigned long long>(byteOff),
                             TypeName<T>()));
    }
    const uint64_t e = byteOff / sizeof(T);
    if (e >= src.GetSize()) {
        ThrowHardware(Format("%s: srcOffset[%llu] = %u (+ srcBaseAddr %u) reads src element %llu, beyond the src "
                             "tensor's %u elements (UB read out of bounds)",
                             api, static_cast<unsigned long long>(oi), Load<uint32_t>(offs, oi), srcBaseAddr,
                             static_cast<unsigned long long>(e), static_cast<unsigned>(src.GetSize())));
    }
    return e;
}

template <class T>
inline void GatherCountImpl(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                            const AscendC::LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr, uint32_t count)
{
    CheckGatherOperands(api, dst, src, srcOffset, srcBaseAddr);
    if (count > dst.GetSize() || count > srcOffset.GetSize()) {
        ThrowHardware(Format("%s: count %u exceeds dst's %u or srcOffset's %u elements (UB buffer overrun)", api, count,
                             static_cast<unsigned>(dst.GetSize()), static_cast<unsigned>(srcOffset.GetSize())));
    }
    const void* offs = srcOffset.TwinData();
    const void* s = src.TwinData();
    std::vector<T> out(count);
    for (uint32_t i = 0; i < count; ++i) out[i] = Load<T>(s, GatherSourceIndex(api, src, offs, i, srcBaseAddr));
    void* d = dst.TwinDataToOverwrite(uint64_t(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) Store<T>(d, i, out[i]);
}

template <class T>
inline void GatherRepeatImpl(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                             const AscendC::LocalTensor<uint32_t>& srcOffset, uint32_t srcBaseAddr, const RepeatMask& m,
                             uint8_t repeatTime, uint16_t dstRepStride)
{
    CheckGatherOperands(api, dst, src, srcOffset, srcBaseAddr);
    if (repeatTime == 0 || m.Empty()) return;  // a NOP on Atlas A2/A3 (Gather.md)
    const uint32_t perRepeat = (sizeof(T) == 1 ? 128u : 256u) / sizeof(T);
    const uint64_t dstRep = uint64_t(dstRepStride) * 32 / sizeof(T);
    const void* offs = srcOffset.TwinData();
    const void* s = src.TwinData();
    std::vector<std::pair<uint64_t, T>> out;
    for (uint32_t r = 0; r < repeatTime; ++r) {
        for (uint32_t k = 0; k < perRepeat && k < 128; ++k) {
            if (!m.Has(k)) continue;
            const uint64_t oi = uint64_t(r) * perRepeat + k;
            const uint64_t di = r * dstRep + k;
            if (oi >= srcOffset.GetSize() || di >= dst.GetSize()) {
                ThrowHardware(Format("%s: iteration %u element %u uses srcOffset[%llu] / dst[%llu], beyond their %u / "
                                     "%u elements (UB buffer overrun)",
                                     api, r, k, static_cast<unsigned long long>(oi),
                                     static_cast<unsigned long long>(di), static_cast<unsigned>(srcOffset.GetSize()),
                                     static_cast<unsigned>(dst.GetSize())));
            }
            out.emplace_back(di, Load<T>(s, GatherSourceIndex(api, src, offs, oi, srcBaseAddr)));
        }
    }
    void* d = dst.TwinData();
    for (const auto& e : out) Store<T>(d, e.first, e.second);
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

#define OPGEN_TWIN_GATHER_TYPES                                                                                   \
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsGatherT<T>::value, "Gather",                              \
                               "int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float, " \
                               "int64_t, uint64_t (per SoC: asc-devkit Gather.md)")

// Gather, the first `count` elements.
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint32_t count)
{
    OPGEN_TWIN_GATHER_TYPES;
    const char* api = "Gather(count)";
    opgen_twin::detail::CheckGatherSoc<T, Arch>(api, false);
    opgen_twin::detail::GatherCountImpl(api, dst, src, srcOffset, srcBaseAddr, count);
}
// Gather, continuous mask, repeatTime iterations.
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask, const uint8_t repeatTime,
                   const uint16_t dstRepStride)
{
    OPGEN_TWIN_GATHER_TYPES;
    const char* api = "Gather(mask, repeatTime)";
    opgen_twin::detail::CheckGatherSoc<T, Arch>(api, true);
    opgen_twin::detail::GatherRepeatImpl(api, dst, src, srcOffset, srcBaseAddr,
                                         opgen_twin::detail::ContinuousMask<T>(api, mask), repeatTime, dstRepStride);
}
// Gather, bit-wise mask, repeatTime iterations.
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   const uint32_t srcBaseAddr, const uint64_t mask[], const uint8_t repeatTime,
                   const uint16_t dstRepStride)
{
    OPGEN_TWIN_GATHER_TYPES;
    const char* api = "Gather(mask[], repeatTime)";
    opgen_twin::detail::CheckGatherSoc<T, Arch>(api, true);
    opgen_twin::detail::GatherRepeatImpl(api, dst, src, srcOffset, srcBaseAddr,
                                         opgen_twin::detail::BitMask<T>(api, mask), repeatTime, dstRepStride);
}

#undef OPGEN_TWIN_GATHER_TYPES

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_GATHER_H
