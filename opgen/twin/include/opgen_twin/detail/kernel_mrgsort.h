// opgen CPU twin: MrgSort (asc-devkit 排序组合（ISASI）/MrgSort.md), the merge of up to 4 lists
// of (score, index) records that Sort32 writes (8 bytes each: float: score in the low 4 bytes;
// half: score in the low 2, 2 reserved, index in the high 4), each sorted by score descending,
// into one list sorted by score descending. Equal scores: the record of the lower-numbered list
// first (MrgSort.md 约束说明: score[i] == score[j], i > j: score[j] first), a list's own order
// kept. NaN scores: the docs say nothing; the twin sorts them first, as its Sort32 does.
//
// HardwareErrors, from the doc: T other than half/float (a compile error), on Atlas training
// and inference products (ascend910, ascend310p: 不支持), validBit other than 3/7/15, an
// elementLengths entry over 4095, dst not 32-byte or a source not 8-byte aligned, dst
// overlapping a source, repeatTimes over 255 or above 1 without its four conditions (4 equal,
// contiguous lists, ifExhaustedSuspension false, validBit 15), an operand too small.
// ifExhaustedSuspension = true stops when a list runs out (what is left is not written).
#ifndef OPGEN_TWIN_DETAIL_KERNEL_MRGSORT_H
#define OPGEN_TWIN_DETAIL_KERNEL_MRGSORT_H

#include <cstdint>
#include <cstring>
#include <vector>

#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/soc_table.h"
#include "opgen_twin/detail/soc.h"

namespace AscendC {

template <typename T>
struct MrgSortSrcList {
    MrgSortSrcList() {}
    MrgSortSrcList(const LocalTensor<T> src1In, const LocalTensor<T> src2In, const LocalTensor<T> src3In,
                   const LocalTensor<T> src4In)
        : src1(src1In[0]), src2(src2In[0]), src3(src3In[0]), src4(src4In[0])
    {
    }
    LocalTensor<T> src1;
    LocalTensor<T> src2;
    LocalTensor<T> src3;
    LocalTensor<T> src4;
};

struct MrgSort4Info {
    MrgSort4Info() {}
    MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn, const uint16_t validBitIn,
                 const uint16_t repeatTimesIn)
        : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn)
    {
        for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
    }
    uint16_t elementLengths[4] = {0, 0, 0, 0};
    bool ifExhaustedSuspension = false;
    uint16_t validBit = 0;
    uint16_t repeatTimes = 1;
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

constexpr uint32_t kSortRecordBytes = 8;  // one (score, index) record

inline uint32_t MrgSortLists(const char* api, const AscendC::MrgSort4Info& p)
{
    if (p.validBit != 3 && p.validBit != 7 && p.validBit != 15) {
        ThrowHardware(Format("%s: validBit %u; it is 3, 7 or 15 (2, 3 or 4 lists; asc-devkit MrgSort.md)", api,
                             static_cast<unsigned>(p.validBit)));
    }
    const uint32_t lists = p.validBit == 3 ? 2 : p.validBit == 7 ? 3 : 4;
    for (uint32_t i = 0; i < lists; ++i) {
        if (p.elementLengths[i] > 4095) {
            ThrowHardware(Format("%s: elementLengths[%u] = %u records; at most 4095 (asc-devkit MrgSort.md)", api, i,
                                 static_cast<unsigned>(p.elementLengths[i])));
        }
    }
    if (p.repeatTimes > 255) {
        ThrowHardware(Format("%s: repeatTimes %u is outside [0, 255]", api, static_cast<unsigned>(p.repeatTimes)));
    }
    return lists;
}

// repeatTimes > 1 needs 4 lists of one length stored one after the other (MrgSort.md).
template <class T>
inline void CheckMrgSortRepeat(const char* api, const AscendC::LocalTensor<T>* src[4], const AscendC::MrgSort4Info& p)
{
    if (p.repeatTimes <= 1) return;
    bool ok = p.validBit == 15 && !p.ifExhaustedSuspension;
    for (int i = 1; i < 4 && ok; ++i) {
        const uint64_t prevEnd = src[i - 1]->TwinUbBegin() + uint64_t{p.elementLengths[i - 1]} * kSortRecordBytes;
        ok = p.elementLengths[i] == p.elementLengths[0] && src[i]->TwinUbBegin() == prevEnd;
    }
    if (!ok) {
        ThrowHardware(Format("%s: repeatTimes %u needs 4 contiguous lists of one length, validBit 15 and "
                             "ifExhaustedSuspension false (asc-devkit MrgSort.md)",
                             api, static_cast<unsigned>(p.repeatTimes)));
    }
}

// MrgSort.md: no overlap of the source and destination addresses.
template <class T>
inline void CheckNoOverlap(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& run,
                           uint64_t dstElems, uint64_t runElems)
{
    const uint64_t d0 = dst.TwinUbBegin(), s0 = run.TwinUbBegin();
    if (runElems > 0 && d0 < s0 + runElems * sizeof(T) && s0 < d0 + dstElems * sizeof(T)) {
        ThrowHardware(Format("%s: dst overlaps a source list (asc-devkit MrgSort.md: 不支持源操作数和目的操作数地址重叠)", api));
    }
}

// Merges `lists` sorted runs of records (starting at runs[i], lengths len[i]) into out.
template <class T>
inline uint32_t MergeRecords(const uint8_t* const runs[4], const uint32_t len[4], uint32_t lists, bool suspend,
                             uint8_t* out)
{
    uint32_t pos[4] = {0, 0, 0, 0}, written = 0;
    for (;;) {
        int best = -1;
        double bestScore = 0;
        for (uint32_t i = 0; i < lists; ++i) {
            if (pos[i] == len[i]) {
                if (suspend) return written;
                continue;
            }
            const double s = ToDouble(Load<T>(runs[i] + uint64_t{pos[i]} * kSortRecordBytes, 0));
            const bool nanBest = bestScore != bestScore;
            if (best < 0 || (!nanBest && (s != s || s > bestScore))) {  // ties: the lower list
                best = static_cast<int>(i);
                bestScore = s;
            }
        }
        if (best < 0) return written;
        std::memcpy(out + uint64_t{written} * kSortRecordBytes, runs[best] + uint64_t{pos[best]} * kSortRecordBytes,
                    kSortRecordBytes);
        ++pos[best];
        ++written;
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params)
{
    OPGEN_TWIN_SUPPORTED_TYPES((opgen_twin::detail::IsAnyOf<T, half, float>::value), "MrgSort", "half, float");
    namespace d = opgen_twin::detail;
    const char* api = "MrgSort";
    if (!OPGEN_SOC_HAS_SORT32(Arch)) {  // MrgSort.md: Atlas training / inference series 不支持
        d::ThrowHardware(d::Format("%s: %s (__NPU_ARCH__ %d) has no MrgSort (asc-devkit MrgSort.md)", api,
                                   d::SocName(Arch), Arch));
    }
    const uint32_t lists = d::MrgSortLists(api, params);
    const LocalTensor<T>* srcs[4] = {&src.src1, &src.src2, &src.src3, &src.src4};
    d::CheckMrgSortRepeat(api, srcs, params);
    dst.TwinCheckAligned(api, "dst");
    const uint32_t perRecord = d::kSortRecordBytes / sizeof(T);
    uint64_t total = 0;
    for (uint32_t i = 0; i < lists; ++i) total += params.elementLengths[i];
    const uint32_t repeats = params.repeatTimes;
    std::vector<uint8_t> out(total * repeats * d::kSortRecordBytes, 0);
    uint64_t written = 0;
    for (uint32_t r = 0; r < repeats; ++r) {
        const uint8_t* runs[4] = {nullptr, nullptr, nullptr, nullptr};
        uint32_t len[4] = {0, 0, 0, 0};
        for (uint32_t i = 0; i < lists; ++i) {
            len[i] = params.elementLengths[i];
            const LocalTensor<T> run = (*srcs[i])[total * perRecord * r];
            run.TwinCheckFits(api, "a source list", uint64_t{len[i]} * perRecord, d::kSortRecordBytes);
            runs[i] = static_cast<const uint8_t*>(run.TwinData());
            d::CheckNoOverlap(api, dst, run, total * repeats * perRecord, uint64_t{len[i]} * perRecord);
        }
        written += d::MergeRecords<T>(runs, len, lists, params.ifExhaustedSuspension,
                                      out.data() + written * d::kSortRecordBytes);
    }
    if (written == 0) return;
    dst.TwinCheckFits(api, "dst", written * perRecord);
    std::memcpy(dst.TwinDataToOverwrite(written * d::kSortRecordBytes), out.data(), written * d::kSortRecordBytes);
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_MRGSORT_H
