// opgen's index-op library, the "select" group: ArgMax and ArgMin over any dim, TopK and Sort over
// the last axis (the host's TileTopK/TileSort refuse another dim: the caller moves it last).
//
// Every kind computes in float: half and bfloat16 are cast to float in UB (exact), so the
// value comparisons are float's and the index ReduceMax/ReduceMin return with calIndex = true is
// the uint32_t in the bits of dst[1] (asc-devkit ReduceMax.md; for half it would be a uint16_t,
// at most 65535). x is seen as [outer, axis, inner]; the units of work (each kind says what they
// are) are split over t.usedCores cores, t.unitsPerCore each, the last core the rest.
//
// ArgMax/ArgMin(x, y): torch.argmax/argmin. Ties: the first index (ReduceMax/Min give the
// smallest index of equal values, and across tiles a later tile wins only when strictly
// better); -0.0 equals 0.0. NaN is both the max and the min: the first NaN's index wins, found
// with Compare(x, x, NE) on the tile's whole 256-byte blocks and a scalar look at its tail,
// whatever ReduceMax does with NaN. A row longer than t.tileElems runs in tiles, keeping the
// running best. y is TOut (int32_t or int64_t). inner == 1: a unit is a row. inner > 1 (a dim
// with axes after it): a unit is (outer row, chunk of t.tileElems columns of inner), whose
// running best and its row number are vectors in UB, updated row by row of the axis with
// Compare (GT/LT, and NE/EQ for NaN) + And/Or of the masks + Select (the row number in float:
// the axis is at most 2^24).
//
// TopK(x, values, indices): t.count = k, t.ints[1] = 1 for the largest (descending order), 0 for
// the smallest (ascending); Sort(x, values, indices): k = the row's length, t.ints[1] =
// descending. One row in UB (t.tileElems >= the row rounded up to 64): keys = x (descending) or
// -x (ascending), NaN keys made +inf / -inf by Compare + Select (the sort never sees a NaN),
// the row padded to a multiple of 32 with -inf; Sort32 sorts runs of 32 records, MrgSort merges
// four runs at a time. Both keep equal scores in index order, so the result is STABLE (as
// torch.sort(stable=True); torch.topk's order among equal values is unspecified). Then the run
// of records whose key is the NaN key (real +inf and NaN, in index order) is reordered by the
// scalar unit as torch orders it: NaN is larger than +inf. values is T, indices TOut
// (int32_t/int64_t); a nullptr output is not written.
//
// SoCs: ArgMax/ArgMin need DataCopyPad, the float level-2 ReduceMax/ReduceMin and Compare
// (Atlas A2/A3 and 310B); TopK/Sort need Sort32 and MrgSort (not on Atlas training or 310P
// products) and DataCopyPad (Atlas A2/A3, 310B, Ascend 950). Elsewhere the kernel does not
// compile (a static_assert naming the API). int32_t x: refused (the level-2 ReduceMax and Sort32
// take half/float; a float key would round ints above 2^24).
#ifndef OPGEN_INDEX_SELECT_H
#define OPGEN_INDEX_SELECT_H

#include "kernel_operator.h"
#include "opgen_index_tiling.h"
#include "opgen_soc.h"

namespace opgen_index {

namespace select_detail {

constexpr uint32_t kOutSlots = 256;  // argmax results gathered in UB before one copy out
constexpr uint32_t kRunLen = 32;     // Sort32's run

template <typename T>
struct IsSelectFloat {
    static constexpr bool value = std::is_same<T, float>::value || std::is_same<T, half>::value ||
                                  std::is_same<T, bfloat16_t>::value;
};

template <AscendC::HardEvent E>
__aicore__ inline void WaitPipe()
{
    const event_t id = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(E));
    AscendC::SetFlag<E>(id);
    AscendC::WaitFlag<E>(id);
}

__aicore__ inline uint32_t FloatBits(float v)
{
    union {
        float f;
        uint32_t u;
    } bits;
    bits.f = v;
    return bits.u;
}

__aicore__ inline float Infinity()
{
    union {
        uint32_t u;
        float f;
    } bits;
    bits.u = 0x7f800000u;
    return bits.f;
}

// This core's rows: [first, first + count).
__aicore__ inline void CoreRows(const IndexTiling& t, uint64_t& first, uint64_t& count)
{
    const uint64_t core = AscendC::GetBlockIdx();
    first = core * t.unitsPerCore;
    count = core + 1 == t.usedCores ? t.units - first : t.unitsPerCore;
    if (core >= t.usedCores) count = 0;
}

template <typename T>
__aicore__ inline void CopyRowIn(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src, uint32_t n)
{
    AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
    AscendC::DataCopyPadExtParams<T> pad{false, 0, 0, static_cast<T>(0)};
    AscendC::DataCopyPad(dst, src, params, pad);
}

template <typename T>
__aicore__ inline void CopyOut(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint32_t n)
{
    AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
    AscendC::DataCopyPad(dst, src, params);
}

// x's tile as float: the tile itself for float, else cast into `wide`.
template <typename T>
__aicore__ inline AscendC::LocalTensor<float> AsFloat(const AscendC::LocalTensor<T>& tile,
                                                      const AscendC::LocalTensor<float>& wide, uint32_t n)
{
    if constexpr (std::is_same<T, float>::value) {
        return tile;
    } else {
        AscendC::Cast(wide, tile, AscendC::RoundMode::CAST_NONE, n);
        return wide;
    }
}

// The first NaN of f[0, n) (n when none): the Compare mask over the whole 256-byte blocks, then
// the tail element by element. Scalar unit, after V_S.
__aicore__ inline uint32_t FirstNaN(const AscendC::LocalTensor<uint8_t>& mask, const AscendC::LocalTensor<float>& f,
                                    uint32_t whole, uint32_t n)
{
    const AscendC::LocalTensor<uint32_t> words = mask.ReinterpretCast<uint32_t>();
    for (uint32_t w = 0; w < whole / 32; ++w) {
        const uint32_t bits = words.GetValue(w);
        if (bits != 0) return w * 32 + static_cast<uint32_t>(__builtin_ctz(bits));
    }
    for (uint32_t i = whole; i < n; ++i) {
        const float v = f.GetValue(i);
        if (v != v) return i;
    }
    return n;
}

// The UB buffers of ArgMax/ArgMin.
template <typename T, typename TOut>
struct ArgBuffers {
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, wide, mask, tmp, res, out;
    __aicore__ inline void Init(AscendC::TPipe& pipe, uint32_t tile)
    {
        pipe.InitBuffer(in, tile * sizeof(T));
        pipe.InitBuffer(wide, std::is_same<T, float>::value ? 32 : tile * sizeof(float));
        pipe.InitBuffer(mask, tile / 8);
        pipe.InitBuffer(tmp, (tile / 16 + 64) * sizeof(float));  // ReduceMax.md's calIndex size
        pipe.InitBuffer(res, 32);
        pipe.InitBuffer(out, kOutSlots * sizeof(TOut));
    }
};

// One row's argmax (kMax) or argmin, tile by tile.
template <typename T, typename TOut, bool kMax>
__aicore__ inline uint32_t ArgRow(ArgBuffers<T, TOut>& b, const AscendC::GlobalTensor<T>& row, uint32_t axis,
                                  uint32_t tile)
{
    const AscendC::LocalTensor<T> in = b.in.template Get<T>();
    const AscendC::LocalTensor<float> res = b.res.template Get<float>();
    const AscendC::LocalTensor<uint8_t> mask = b.mask.template Get<uint8_t>();
    float best = 0.0f;
    uint32_t bestIndex = 0;
    for (uint32_t off = 0; off < axis; off += tile) {
        const uint32_t n = axis - off < tile ? axis - off : tile;
        WaitPipe<AscendC::HardEvent::V_MTE2>();  // the last tile's vector reads of `in`
        CopyRowIn(in, row[off], n);
        WaitPipe<AscendC::HardEvent::MTE2_V>();
        const AscendC::LocalTensor<float> f = AsFloat(in, b.wide.template Get<float>(), n);
        if constexpr (kMax) {
            AscendC::ReduceMax(res, f, b.tmp.template Get<float>(), static_cast<int32_t>(n), true);
        } else {
            AscendC::ReduceMin(res, f, b.tmp.template Get<float>(), static_cast<int32_t>(n), true);
        }
        const uint32_t whole = n / 64 * 64;  // Compare takes whole 256-byte blocks
        if (whole > 0) AscendC::Compare(mask, f, f, AscendC::CMPMODE::NE, whole);
        WaitPipe<AscendC::HardEvent::V_S>();
        const uint32_t nan = FirstNaN(mask, f, whole, n);
        const float value = res.GetValue(0);
        const uint32_t index = FloatBits(res.GetValue(1));  // calIndex: the index in dst[1]'s bits
        WaitPipe<AscendC::HardEvent::S_V>();                // the next tile's vector writes
        if (nan < n) return off + nan;
        if (off == 0 || (kMax ? value > best : value < best)) {
            best = value;
            bestIndex = off + index;
        }
    }
    return bestIndex;
}

// The UB buffers of ArgMax/ArgMin over a dim with axes after it (t.inner > 1): up to `tile`
// columns of inner side by side, their running best in UB.
template <typename T, typename TOut>
struct ColumnBuffers {
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, wide, best, at, bestAt, more, nanNew, bestOk, out;
    __aicore__ inline void Init(AscendC::TPipe& pipe, uint32_t tile)
    {
        pipe.InitBuffer(in, tile * sizeof(T));
        pipe.InitBuffer(wide, tile * sizeof(float));
        pipe.InitBuffer(best, tile * sizeof(float));
        pipe.InitBuffer(at, tile * sizeof(float));      // the row number a; then the int32 result
        pipe.InitBuffer(bestAt, tile * sizeof(float));  // a is exact in float: axis <= 2^24
        pipe.InitBuffer(more, tile / 8);
        pipe.InitBuffer(nanNew, tile / 8);
        pipe.InitBuffer(bestOk, tile / 8);
        pipe.InitBuffer(out, tile * sizeof(TOut));
        // lanes past a chunk's columns are compared too (whole 256-byte blocks): defined values
        AscendC::Duplicate(in.template Get<T>(), static_cast<T>(0), static_cast<int32_t>(tile));
        AscendC::Duplicate(wide.template Get<float>(), 0.0f, static_cast<int32_t>(tile));
    }
};

// Row a of a column chunk: a column takes a's value when it is strictly better, or NaN where the
// best so far is not (the first NaN stays: NaN compares false).
template <bool kMax>
__aicore__ inline void ColumnStep(const AscendC::LocalTensor<float>& f, const AscendC::LocalTensor<float>& best,
                                  const AscendC::LocalTensor<float>& bestAt, const AscendC::LocalTensor<float>& at,
                                  const AscendC::LocalTensor<uint8_t> masks[3], uint32_t a, uint32_t count)
{
    AscendC::Compare(masks[0], f, best, kMax ? AscendC::CMPMODE::GT : AscendC::CMPMODE::LT, count);
    AscendC::Compare(masks[1], f, f, AscendC::CMPMODE::NE, count);
    AscendC::Compare(masks[2], best, best, AscendC::CMPMODE::EQ, count);
    const int32_t words = static_cast<int32_t>(count / 16);
    const AscendC::LocalTensor<uint16_t> more = masks[0].ReinterpretCast<uint16_t>();
    const AscendC::LocalTensor<uint16_t> nanNew = masks[1].ReinterpretCast<uint16_t>();
    AscendC::And(nanNew, nanNew, masks[2].ReinterpretCast<uint16_t>(), words);
    AscendC::Or(more, more, nanNew, words);
    AscendC::Select(best, masks[0], f, best, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
    AscendC::Duplicate(at, static_cast<float>(a), static_cast<int32_t>(count));
    AscendC::Select(bestAt, masks[0], at, bestAt, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, count);
}

// One chunk of w columns (starting at column c0 of outer row o): the axis walked row by row.
template <typename T, typename TOut, bool kMax>
__aicore__ inline void ColumnChunk(ColumnBuffers<T, TOut>& b, const AscendC::GlobalTensor<T>& xGm,
                                   const AscendC::GlobalTensor<TOut>& yGm, const IndexTiling& t, uint64_t o,
                                   uint64_t c0, uint32_t w)
{
    const uint32_t count = (w + 63) / 64 * 64;
    const AscendC::LocalTensor<T> in = b.in.template Get<T>();
    const AscendC::LocalTensor<float> best = b.best.template Get<float>();
    const AscendC::LocalTensor<float> bestAt = b.bestAt.template Get<float>();
    const AscendC::LocalTensor<float> at = b.at.template Get<float>();
    const AscendC::LocalTensor<uint8_t> masks[3] = {b.more.template Get<uint8_t>(), b.nanNew.template Get<uint8_t>(),
                                                   b.bestOk.template Get<uint8_t>()};
    WaitPipe<AscendC::HardEvent::MTE3_V>();  // the last chunk's copy out of at/out
    for (uint32_t a = 0; a < static_cast<uint32_t>(t.axis); ++a) {
        WaitPipe<AscendC::HardEvent::V_MTE2>();
        CopyRowIn(in, xGm[(o * t.axis + a) * t.inner + c0], w);
        WaitPipe<AscendC::HardEvent::MTE2_V>();
        const AscendC::LocalTensor<float> f = AsFloat(in, b.wide.template Get<float>(), count);
        if (a == 0) {  // the first row is the best so far (copied as int32: bits kept)
            AscendC::Adds(best.ReinterpretCast<int32_t>(), f.ReinterpretCast<int32_t>(), 0, static_cast<int32_t>(count));
            AscendC::Duplicate(bestAt, 0.0f, static_cast<int32_t>(count));
            continue;
        }
        ColumnStep<kMax>(f, best, bestAt, at, masks, a, count);
    }
    const AscendC::LocalTensor<int32_t> index = at.ReinterpretCast<int32_t>();
    AscendC::Cast(index, bestAt, AscendC::RoundMode::CAST_RINT, count);
    WaitPipe<AscendC::HardEvent::V_MTE3>();
    if constexpr (std::is_same<TOut, int64_t>::value) {
        AscendC::Cast(b.out.template Get<int64_t>(), index, AscendC::RoundMode::CAST_NONE, w);
        WaitPipe<AscendC::HardEvent::V_MTE3>();
        CopyOut(yGm[o * t.inner + c0], b.out.template Get<int64_t>(), w);
    } else {
        CopyOut(yGm[o * t.inner + c0], index, w);
    }
}

// ArgMax/ArgMin with t.inner > 1: units are (outer row, chunk of t.tileElems columns).
template <typename T, typename TOut, bool kMax>
__aicore__ inline void ArgColumns(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    uint64_t first = 0, units = 0;
    CoreRows(t, first, units);
    if (units == 0 || y == nullptr) return;
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<TOut> yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, t.outer * t.axis * t.inner);
    yGm.SetGlobalBuffer((__gm__ TOut*)y, t.outer * t.inner);
    AscendC::TPipe pipe;
    ColumnBuffers<T, TOut> b;
    b.Init(pipe, t.tileElems);
    const uint64_t chunks = (t.inner + t.tileElems - 1) / t.tileElems;
    for (uint64_t u = first; u < first + units; ++u) {
        const uint64_t o = u / chunks, c0 = u % chunks * t.tileElems;
        const uint32_t w = static_cast<uint32_t>(t.inner - c0 < t.tileElems ? t.inner - c0 : t.tileElems);
        ColumnChunk<T, TOut, kMax>(b, xGm, yGm, t, o, c0, w);
    }
}

template <typename T, typename TOut, bool kMax>
__aicore__ inline void ArgBest(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    static_assert(IsSelectFloat<T>::value,
                  "opgen_index::ArgMax/ArgMin: x is half, bfloat16 or float (the level-2 ReduceMax/ReduceMin "
                  "with calIndex take half/float; an int32 x would round in float)");
    static_assert(std::is_same<TOut, int32_t>::value || std::is_same<TOut, int64_t>::value,
                  "opgen_index::ArgMax/ArgMin: the index output is int32_t or int64_t");
#if defined(__NPU_ARCH__)
    static_assert(sizeof(T) > 0 && OPGEN_SOC_HAS_DATACOPYPAD(__NPU_ARCH__) && OPGEN_SOC_HAS_FLOAT_REDUCE(__NPU_ARCH__),
                  "opgen_index::ArgMax/ArgMin need DataCopyPad and the float ReduceMax/ReduceMin with calIndex "
                  "(Atlas A2/A3, 310B); this SoC lacks one of them");
#endif
    if (t.inner > 1) {
        ArgColumns<T, TOut, kMax>(x, y, t);
        return;
    }
    uint64_t first = 0, rows = 0;
    CoreRows(t, first, rows);
    if (rows == 0 || y == nullptr) return;
    const uint32_t axis = static_cast<uint32_t>(t.axis);
    AscendC::GlobalTensor<T> xGm;
    AscendC::GlobalTensor<TOut> yGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, t.units * t.axis);
    yGm.SetGlobalBuffer((__gm__ TOut*)y, t.units);
    AscendC::TPipe pipe;
    ArgBuffers<T, TOut> b;
    b.Init(pipe, t.tileElems);
    const AscendC::LocalTensor<TOut> out = b.out.template Get<TOut>();
    for (uint64_t done = 0; done < rows; done += kOutSlots) {
        const uint32_t slots = rows - done < kOutSlots ? static_cast<uint32_t>(rows - done) : kOutSlots;
        WaitPipe<AscendC::HardEvent::MTE3_S>();  // the last copy out of `out`
        for (uint32_t s = 0; s < slots; ++s) {
            const uint32_t index = ArgRow<T, TOut, kMax>(b, xGm[(first + done + s) * t.axis], axis, t.tileElems);
            out.SetValue(s, static_cast<TOut>(index));
        }
        WaitPipe<AscendC::HardEvent::S_MTE3>();
        CopyOut(yGm[first + done], out, slots);
    }
}

// The UB buffers of TopK/Sort, for rows of n <= tile (a multiple of 64) elements.
template <typename T, typename TOut>
struct SortBuffers {
    AscendC::TBuf<AscendC::TPosition::VECCALC> in, key, sortKey, mask, order, recA, recB, index, out, out64;
    __aicore__ inline void Init(AscendC::TPipe& pipe, uint32_t tile)
    {
        pipe.InitBuffer(in, tile * sizeof(T));
        pipe.InitBuffer(key, tile * sizeof(float));
        pipe.InitBuffer(sortKey, tile * sizeof(float));  // the sort's keys, then the values
        pipe.InitBuffer(mask, tile / 8);
        pipe.InitBuffer(order, tile * sizeof(uint32_t));  // 0, 1, 2, ...: Sort32's indexes
        pipe.InitBuffer(recA, tile * 8);
        pipe.InitBuffer(recB, tile * 8);
        pipe.InitBuffer(index, tile * sizeof(uint32_t));
        pipe.InitBuffer(out, tile * sizeof(T));
        pipe.InitBuffer(out64, std::is_same<TOut, int64_t>::value ? tile * sizeof(int64_t) : 32);
    }
};

// Merges the sorted runs of `len` records in src (n32 records in all) four at a time into dst.
__aicore__ inline void MergePass(const AscendC::LocalTensor<float>& dst, const AscendC::LocalTensor<float>& src,
                                 uint32_t n32, uint32_t len)
{
    for (uint32_t start = 0; start < n32; start += 4 * len) {
        uint16_t lengths[4] = {0, 0, 0, 0};
        uint32_t lists = 0;
        for (uint32_t at = start; lists < 4 && at < n32; at += len) {
            lengths[lists++] = static_cast<uint16_t>(n32 - at < len ? n32 - at : len);
        }
        if (lists == 1) {  // a lone run: copied (as int32, bits unchanged)
            AscendC::Adds(dst[start * 2].ReinterpretCast<int32_t>(), src[start * 2].ReinterpretCast<int32_t>(),
                          static_cast<int32_t>(0), static_cast<int32_t>(lengths[0] * 2));
            continue;
        }
        AscendC::LocalTensor<float> runs[4];
        for (uint32_t i = 0; i < 4; ++i) runs[i] = src[(start + (i < lists ? i : 0) * len) * 2];
        const uint16_t validBit = lists == 2 ? 3 : lists == 3 ? 7 : 15;
        AscendC::MrgSort4Info info(lengths, false, validBit, 1);
        AscendC::MrgSort(dst[start * 2], AscendC::MrgSortSrcList<float>(runs[0], runs[1], runs[2], runs[3]), info);
    }
}

// Sorts keys[0, n32) descending into (score, index) records; returns the buffer holding them.
template <typename T, typename TOut>
__aicore__ inline AscendC::LocalTensor<float> SortRecords(SortBuffers<T, TOut>& b, uint32_t n32)
{
    AscendC::LocalTensor<float> src = b.recA.template Get<float>();
    AscendC::LocalTensor<float> dst = b.recB.template Get<float>();
    AscendC::Sort32(src, b.sortKey.template Get<float>(), b.order.template Get<uint32_t>(),
                    static_cast<int32_t>(n32 / kRunLen));
    for (uint32_t len = kRunLen; len < n32; len *= 4) {
        MergePass(dst, src, n32, len);
        const AscendC::LocalTensor<float> swap = src;
        src = dst;
        dst = swap;
    }
    return src;
}

// Scalar unit: the sorted positions [lo, hi) hold the NaN key's run (real +inf and NaN, in index
// order); reorder it as torch does, NaN first when descending, last when ascending. `spare` is
// free uint32_t scratch of hi - lo elements.
__aicore__ inline void OrderNaNRun(const AscendC::LocalTensor<float>& key, const AscendC::LocalTensor<float>& values,
                                   const AscendC::LocalTensor<uint32_t>& index,
                                   const AscendC::LocalTensor<uint32_t>& spare, uint32_t lo, uint32_t hi, bool descending)
{
    uint32_t nans = 0;
    for (uint32_t j = lo; j < hi; ++j) {
        const float v = key.GetValue(index.GetValue(j));
        if (v != v) ++nans;
    }
    if (nans == 0) return;
    uint32_t nanAt = descending ? 0 : hi - lo - nans, infAt = descending ? nans : 0;
    for (uint32_t j = lo; j < hi; ++j) {
        const uint32_t i = index.GetValue(j);
        const float v = key.GetValue(i);
        spare.SetValue(v != v ? nanAt++ : infAt++, i);
    }
    for (uint32_t j = lo; j < hi; ++j) {
        const uint32_t i = spare.GetValue(j - lo);
        const float v = key.GetValue(i);
        index.SetValue(j, i);
        values.SetValue(j, v != v ? v : Infinity());  // the run's other values are x = +inf
    }
}

// The run of the NaN key among the first n sorted values (back in x's space, where the NaN key
// and the real infs it ties with are all +inf): [lo, hi), at the start when descending, at the
// end when ascending.
__aicore__ inline void NaNKeyRun(const AscendC::LocalTensor<float>& scores, uint32_t n, bool descending, uint32_t& lo,
                                 uint32_t& hi)
{
    const float nanKey = Infinity();
    lo = descending ? 0 : n;
    hi = descending ? 0 : n;
    if (descending) {
        while (hi < n && scores.GetValue(hi) == nanKey) ++hi;
    } else {
        while (lo > 0 && scores.GetValue(lo - 1) == nanKey) --lo;
    }
}

// One row of TopK/Sort: the first k of its n values sorted, and their indexes, into out and out64
// or index (as int32_t).
template <typename T, typename TOut>
__aicore__ inline void SortRow(SortBuffers<T, TOut>& b, const AscendC::GlobalTensor<T>& row, uint32_t n,
                               bool descending)
{
    const AscendC::LocalTensor<T> in = b.in.template Get<T>();
    const AscendC::LocalTensor<float> key = b.key.template Get<float>();
    const AscendC::LocalTensor<float> sortKey = b.sortKey.template Get<float>();
    const AscendC::LocalTensor<uint8_t> mask = b.mask.template Get<uint8_t>();
    const uint32_t n32 = (n + kRunLen - 1) / kRunLen * kRunLen, n64 = (n + 63) / 64 * 64;
    const float sign = descending ? 1.0f : -1.0f;
    WaitPipe<AscendC::HardEvent::V_MTE2>();  // the last row's vector reads of `in`
    CopyRowIn(in, row, n);
    WaitPipe<AscendC::HardEvent::MTE3_V>();  // the last row's copies out of out/out64/index
    WaitPipe<AscendC::HardEvent::S_V>();     // the last row's scalar reads
    AscendC::Duplicate(key, -Infinity(), static_cast<int32_t>(n64));  // the pad sorts last
    WaitPipe<AscendC::HardEvent::MTE2_V>();
    AscendC::Muls(key, AsFloat(in, sortKey, n), sign, static_cast<int32_t>(n));
    // NaN keys -> +inf (descending) or -inf (ascending); OrderNaNRun puts them past the infs.
    AscendC::Compare(mask, key, key, AscendC::CMPMODE::EQ, n64);
    AscendC::Select(sortKey, mask, key, descending ? Infinity() : -Infinity(),
                    AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, n64);
    const AscendC::LocalTensor<float> records = SortRecords(b, n32);
    const AscendC::LocalTensor<uint32_t> index = b.index.template Get<uint32_t>();
    AscendC::GatherMaskParams gather(1, static_cast<uint16_t>(n32 / kRunLen), 8, 0);
    uint64_t gathered = 0;
    AscendC::GatherMask(sortKey, records, static_cast<uint8_t>(1), false, 0, gather, gathered);  // scores
    AscendC::GatherMask(index, records.ReinterpretCast<uint32_t>(), static_cast<uint8_t>(2), false, 0, gather,
                        gathered);  // indexes
    AscendC::Muls(sortKey, sortKey, sign, static_cast<int32_t>(n));  // back to x's values
    WaitPipe<AscendC::HardEvent::V_S>();
    uint32_t lo = 0, hi = 0;
    NaNKeyRun(sortKey, n, descending, lo, hi);
    if (hi > lo) OrderNaNRun(key, sortKey, index, records.ReinterpretCast<uint32_t>(), lo, hi, descending);
    WaitPipe<AscendC::HardEvent::S_V>();
}

// Copies the row's first k values and indexes out (a nullptr output is skipped).
template <typename T, typename TOut>
__aicore__ inline void SortRowOut(SortBuffers<T, TOut>& b, GM_ADDR values, GM_ADDR indices, uint64_t row, uint32_t k)
{
    const AscendC::LocalTensor<float> sorted = b.sortKey.template Get<float>();
    const AscendC::LocalTensor<T> out = b.out.template Get<T>();
    const AscendC::LocalTensor<int32_t> index = b.index.template Get<int32_t>();
    if constexpr (!std::is_same<T, float>::value) {  // exact: the values came from T
        if (values != nullptr) AscendC::Cast(out, sorted, AscendC::RoundMode::CAST_RINT, k);
    }
    if constexpr (std::is_same<TOut, int64_t>::value) {
        if (indices != nullptr) AscendC::Cast(b.out64.template Get<int64_t>(), index, AscendC::RoundMode::CAST_NONE, k);
    }
    WaitPipe<AscendC::HardEvent::V_MTE3>();
    if (values != nullptr) {
        AscendC::GlobalTensor<T> gm;
        gm.SetGlobalBuffer((__gm__ T*)values + row * k, k);
        if constexpr (std::is_same<T, float>::value) {
            CopyOut(gm, sorted, k);
        } else {
            CopyOut(gm, out, k);
        }
    }
    if (indices != nullptr) {
        AscendC::GlobalTensor<TOut> gm;
        gm.SetGlobalBuffer((__gm__ TOut*)indices + row * k, k);
        if constexpr (std::is_same<TOut, int64_t>::value) {
            CopyOut(gm, b.out64.template Get<int64_t>(), k);
        } else {
            CopyOut(gm, index, k);
        }
    }
}

template <typename T, typename TOut>
__aicore__ inline void SortRows(GM_ADDR x, GM_ADDR values, GM_ADDR indices, const IndexTiling& t)
{
    static_assert(IsSelectFloat<T>::value,
                  "opgen_index::TopK/Sort: x is half, bfloat16 or float (Sort32 and MrgSort sort half/float; an "
                  "int32 x would round in float)");
    static_assert(std::is_same<TOut, int32_t>::value || std::is_same<TOut, int64_t>::value,
                  "opgen_index::TopK/Sort: the index output is int32_t or int64_t");
#if defined(__NPU_ARCH__)
    static_assert(sizeof(T) > 0 && __NPU_ARCH__ != 1001 && __NPU_ARCH__ != 2002,  // sizeof: at instantiation
                  "opgen_index::TopK/Sort need Sort32 and MrgSort, which Atlas training (ascend910) and Atlas "
                  "inference (ascend310p) products lack (asc-devkit Sort32.md, MrgSort.md)");
#endif
    uint64_t first = 0, rows = 0;
    CoreRows(t, first, rows);
    if (rows == 0 || (values == nullptr && indices == nullptr)) return;
    const uint32_t n = static_cast<uint32_t>(t.axis), k = static_cast<uint32_t>(t.count);
    const bool descending = t.ints[1] != 0;
    AscendC::GlobalTensor<T> xGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, t.units * t.axis);
    AscendC::TPipe pipe;
    SortBuffers<T, TOut> b;
    b.Init(pipe, t.tileElems);
    const AscendC::LocalTensor<uint32_t> order = b.order.template Get<uint32_t>();
    for (uint32_t i = 0; i < t.tileElems; ++i) order.SetValue(i, i);  // Sort32's indexes, once
    WaitPipe<AscendC::HardEvent::S_V>();
    for (uint64_t r = first; r < first + rows; ++r) {
        SortRow(b, xGm[r * t.axis], n, descending);
        SortRowOut(b, values, indices, r, k);
    }
}

}  // namespace select_detail

// The kernel entries (the generated kernel calls them after GET_TILING_DATA).
template <typename T, typename TOut>
__aicore__ inline void ArgMax(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    select_detail::ArgBest<T, TOut, true>(x, y, t);
}

template <typename T, typename TOut>
__aicore__ inline void ArgMin(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    select_detail::ArgBest<T, TOut, false>(x, y, t);
}

template <typename T, typename TOut>
__aicore__ inline void TopK(GM_ADDR x, GM_ADDR values, GM_ADDR indices, const IndexTiling& t)
{
    select_detail::SortRows<T, TOut>(x, values, indices, t);
}

template <typename T, typename TOut>
__aicore__ inline void Sort(GM_ADDR x, GM_ADDR values, GM_ADDR indices, const IndexTiling& t)
{
    select_detail::SortRows<T, TOut>(x, values, indices, t);
}

}  // namespace opgen_index

#endif  // OPGEN_INDEX_SELECT_H
