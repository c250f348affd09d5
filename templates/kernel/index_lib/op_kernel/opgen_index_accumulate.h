// opgen's index-op library, the accumulating kinds: IndexAdd (torch.index_add, alpha 1),
// ScatterAdd (torch.scatter_add) and CumSum (torch.cumsum). Filled by op_host/
// opgen_index_accumulate_tiling.h (TileIndexAdd, TileScatterAdd, TileCumSum).
//
// Every kind sees x as [outer, axis, inner] around dim and gives each output element to exactly
// one unit of work, which one core runs from start to end: a core copies x's elements of its
// units into UB, adds their contributions in index order (IndexAdd, ScatterAdd) or in dim order
// (CumSum), and writes them with DataCopyPad. No atomics and no cross-core adds, so the bits of y
// do not depend on the core count or on the cores' timing. float16/bfloat16 accumulate in float
// and round once at the end; int32 accumulates in int32 (wrapping as torch), CumSum's integer
// inputs in int64, CumSum's float32 as a compensated hi + lo pair (torch CPU adds in double).
//
// Precision against torch on CPU (tests/twin/test_index_accumulate.py): bit-identical to torch
// run on float32 copies of fp16/bf16 inputs and rounded once, which is torch's own result for
// scatter_add and for index_add over the first or last dim of a 2-D or larger x; torch's
// index_add over a 1-D x or a middle dim adds slices in fp16/bf16, rounding after every add
// (measured: up to 3 fp16 / 7 bf16 ulps off with ~100 duplicates per row; the kernel is the
// closer to the exact sum). CumSum: torch's bits for every dtype but float32, which is within
// 1 ulp of torch's (rare near-ties; partial sums beyond float's range: see CompensatedSum).
//
// Out-of-range indices (the torch adapter refuses them first, as torch does): an index outside
// [0, axis) adds nothing and touches no memory.
//
// The stages are ordered with PipeBarrier<PIPE_ALL>: the contributions are data-dependent scalar
// decisions between copies, so there is no steady stream to double-buffer.
//
// SoCs: needs DataCopyPad (rows of any length in GM) -- each kind's static_assert refuses
// ascend910 and ascend310p, which lack it (opgen_soc.h OPGEN_SOC_HAS_DATACOPYPAD).
#ifndef OPGEN_INDEX_ACCUMULATE_H
#define OPGEN_INDEX_ACCUMULATE_H

#include "kernel_operator.h"
#include "opgen_index_tiling.h"
#include "opgen_soc.h"

namespace opgen_index {
namespace accumulate_detail {

#if defined(__NPU_ARCH__) && !OPGEN_SOC_HAS_DATACOPYPAD(__NPU_ARCH__)
constexpr bool HAS_DATACOPYPAD = false;
#else
constexpr bool HAS_DATACOPYPAD = true;
#endif
#define OPGEN_INDEX_NEEDS_DATACOPYPAD(kind)                                                              \
    static_assert(accumulate_detail::HAS_DATACOPYPAD, "opgen_index::" kind " needs DataCopyPad, which this " \
                                                      "SoC (ascend910 / ascend310p, __NPU_ARCH__ 1001 / 2002) lacks")

template <typename A, typename B>
struct Same {
    static constexpr bool value = false;
};
template <typename A>
struct Same<A, A> {
    static constexpr bool value = true;
};

// The type an IndexAdd / ScatterAdd / floating CumSum accumulates in.
template <typename T>
struct Acc {
    using Type = T;
};
template <>
struct Acc<half> {
    using Type = float;
};
template <>
struct Acc<bfloat16_t> {
    using Type = float;
};

template <typename T>
constexpr bool IsFloating()
{
    return Same<T, float>::value || Same<T, half>::value || Same<T, bfloat16_t>::value;
}

// a + b, wrapping for integers as torch's integer tensors do (no signed-overflow UB).
template <typename C>
__aicore__ inline C AddWrapping(C a, C b)
{
    if constexpr (Same<C, int32_t>::value) {
        return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
    } else if constexpr (Same<C, int64_t>::value) {
        return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    } else {
        return a + b;
    }
}

__aicore__ inline void Sync() { AscendC::PipeBarrier<PIPE_ALL>(); }

// GM -> UB and back, `count` elements, any count: DataCopyPad pads the UB side to 32 bytes.
template <typename T>
__aicore__ inline void Load(const AscendC::LocalTensor<T>& dst, const AscendC::GlobalTensor<T>& src, uint32_t count)
{
    AscendC::DataCopyExtParams params;
    params.blockCount = 1;
    params.blockLen = count * sizeof(T);
    AscendC::DataCopyPadExtParams<T> pad;
    AscendC::DataCopyPad(dst, src, params, pad);
}

template <typename T>
__aicore__ inline void Store(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& src, uint32_t count)
{
    AscendC::DataCopyExtParams params;
    params.blockCount = 1;
    params.blockLen = count * sizeof(T);
    AscendC::DataCopyPad(dst, src, params);
}

// `count` elements of GM into `acc` in the accumulation type C, through `stage` when T differs.
template <typename T, typename C>
__aicore__ inline void LoadAs(const AscendC::LocalTensor<C>& acc, const AscendC::LocalTensor<T>& stage,
                              const AscendC::GlobalTensor<T>& src, uint32_t count)
{
    if constexpr (Same<T, C>::value) {
        Load(acc, src, count);
        Sync();
    } else {
        Load(stage, src, count);
        Sync();
        AscendC::Cast(acc, stage, AscendC::RoundMode::CAST_NONE, count);  // exact: half/bf16 -> float
        Sync();
    }
}

// `acc` (type C) rounded into T (to nearest, ties to even) and written to GM.
template <typename T, typename C>
__aicore__ inline void StoreAs(const AscendC::GlobalTensor<T>& dst, const AscendC::LocalTensor<T>& stage,
                               const AscendC::LocalTensor<C>& acc, uint32_t count)
{
    if constexpr (Same<T, C>::value) {
        Store(dst, acc, count);
    } else {
        if constexpr (Same<T, half>::value) {
            AscendC::Cast(stage, acc, AscendC::RoundMode::CAST_NONE, count);  // float -> half: to nearest even
        } else {
            AscendC::Cast(stage, acc, AscendC::RoundMode::CAST_RINT, count);
        }
        Sync();
        Store(dst, stage, count);
    }
    Sync();
}

// This core's units: [first, first + count).
struct Share {
    uint64_t first;
    uint64_t count;
};

__aicore__ inline Share CoreShare(const IndexTiling& t)
{
    const uint64_t block = AscendC::GetBlockIdx();
    if (block >= t.usedCores || t.unitsPerCore == 0) return {0, 0};
    const uint64_t first = block * t.unitsPerCore;
    if (first >= t.units) return {0, 0};
    const uint64_t left = t.units - first;
    return {first, left < t.unitsPerCore ? left : t.unitsPerCore};
}

__aicore__ inline uint64_t Ceil(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

template <typename T>
__aicore__ inline AscendC::GlobalTensor<T> Gm(GM_ADDR p, uint64_t count)
{
    AscendC::GlobalTensor<T> g;
    g.SetGlobalBuffer((__gm__ T*)p, count);
    return g;
}

}  // namespace accumulate_detail

namespace accumulate_detail {

// IndexAdd's views of its tensors, its UB tiles and its unit's place.
template <typename T, typename TIdx, typename C>
struct IndexAddTiles {
    AscendC::GlobalTensor<T> x, src, y;
    AscendC::GlobalTensor<TIdx> index;
    AscendC::LocalTensor<C> acc, add;  // acc: rows x tileElems (a row every tileElems elements)
    AscendC::LocalTensor<T> stage;     // rows x tileElems of T (16-bit T only)
    AscendC::LocalTensor<TIdx> idx;    // ints[1] index values
};

struct RowBlock {
    uint64_t outer, firstRow, rows, start;  // rows [firstRow, firstRow + rows) along axis
    uint32_t n;                             // elements of each row's piece from `start`
};

// The rows of `b` from GM (x) into acc, or from acc into GM (y), each at a multiple of
// tileElems in UB.
template <typename T, typename TIdx, typename C>
__aicore__ inline void MoveRows(const IndexAddTiles<T, TIdx, C>& s, const IndexTiling& t, const RowBlock& b,
                                bool load)
{
    for (uint64_t r = 0; r < b.rows; ++r) {
        const uint64_t at = (b.outer * t.axis + b.firstRow + r) * t.inner + b.start;
        const uint32_t ub = static_cast<uint32_t>(r) * t.tileElems;
        if constexpr (Same<T, C>::value) {
            if (load) Load(s.acc[ub], s.x[at], b.n);
            if (!load) Store(s.y[at], s.acc[ub], b.n);
        } else {
            if (load) Load(s.stage[ub], s.x[at], b.n);
            if (!load) Store(s.y[at], s.stage[ub], b.n);
        }
    }
}

// Every src row i whose index lands in block b, in index order, added to its row of acc; the
// index read into UB in pieces of ints[1] values for the scalar unit.
template <typename T, typename TIdx, typename C>
__aicore__ inline void AddContributions(const IndexAddTiles<T, TIdx, C>& s, const IndexTiling& t, const RowBlock& b)
{
    const uint64_t piece = static_cast<uint64_t>(t.ints[1]);
    for (uint64_t first = 0; first < t.count; first += piece) {
        const uint32_t m = static_cast<uint32_t>(t.count - first < piece ? t.count - first : piece);
        Load(s.idx, s.index[first], m);
        Sync();
        for (uint32_t q = 0; q < m; ++q) {
            const int64_t pos = static_cast<int64_t>(s.idx.GetValue(q));
            if (pos < static_cast<int64_t>(b.firstRow) || pos >= static_cast<int64_t>(b.firstRow + b.rows)) continue;
            LoadAs(s.add, s.stage, s.src[(b.outer * t.count + first + q) * t.inner + b.start], b.n);
            const AscendC::LocalTensor<C> row = s.acc[static_cast<uint32_t>(pos - b.firstRow) * t.tileElems];
            AscendC::Add(row, row, s.add, b.n);
            Sync();
        }
        Sync();  // the scalar unit is done with idx before the next piece overwrites it
    }
}

}  // namespace accumulate_detail

// y = torch.index_add(x, dim, index, src). x, y: [outer, axis, inner]; index: count TIdx values;
// src: [outer, count, inner]. A unit is a block of ints[0] consecutive output rows (rows along
// axis of one outer) times one piece (tileElems elements) of inner: acc = x's rows, then for i =
// 0 .. count-1 in order, the row index[i] (when in the block) += src's piece of row i, with the
// vector unit. UB: ints[0] x tileElems of C and (16-bit T) of T, tileElems of C, and ints[1]
// of TIdx (the index, read in pieces).
// T: float, half, bfloat16_t, int32_t. TIdx: int32_t, int64_t.
template <typename T, typename TIdx>
__aicore__ inline void IndexAdd(GM_ADDR x, GM_ADDR index, GM_ADDR src, GM_ADDR y, const IndexTiling& t)
{
    namespace d = accumulate_detail;
    using C = typename d::Acc<T>::Type;
    static_assert(d::IsFloating<T>() || d::Same<T, int32_t>::value,
                  "opgen_index::IndexAdd: T must be float, half, bfloat16_t or int32_t");
    static_assert(d::Same<TIdx, int32_t>::value || d::Same<TIdx, int64_t>::value,
                  "opgen_index::IndexAdd: TIdx must be int32_t or int64_t");
    OPGEN_INDEX_NEEDS_DATACOPYPAD("IndexAdd");
    const d::Share share = d::CoreShare(t);
    if (share.count == 0) return;
    const uint64_t elems = t.outer * t.axis * t.inner, blockRows = static_cast<uint64_t>(t.ints[0]);
    d::IndexAddTiles<T, TIdx, C> s;
    s.x = d::Gm<T>(x, elems);
    s.y = d::Gm<T>(y, elems);
    s.src = d::Gm<T>(src, t.outer * t.count * t.inner);
    s.index = d::Gm<TIdx>(index, t.count);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf, addBuf, stageBuf, idxBuf;
    pipe.InitBuffer(accBuf, blockRows * t.tileElems * sizeof(C));
    pipe.InitBuffer(addBuf, t.tileElems * sizeof(C));
    pipe.InitBuffer(stageBuf, d::Same<T, C>::value ? 32 : blockRows * t.tileElems * sizeof(T));
    pipe.InitBuffer(idxBuf, static_cast<uint32_t>(t.ints[1]) * sizeof(TIdx));
    s.acc = accBuf.Get<C>();
    s.add = addBuf.Get<C>();
    s.stage = stageBuf.Get<T>();
    s.idx = idxBuf.Get<TIdx>();
    const uint64_t pieces = d::Ceil(t.inner, t.tileElems), blocks = d::Ceil(t.axis, blockRows);
    for (uint64_t u = share.first; u < share.first + share.count; ++u) {
        d::RowBlock b;
        b.start = (u % pieces) * t.tileElems;
        b.outer = u / pieces / blocks;
        b.firstRow = u / pieces % blocks * blockRows;
        b.rows = t.axis - b.firstRow < blockRows ? t.axis - b.firstRow : blockRows;
        b.n = static_cast<uint32_t>(t.inner - b.start < t.tileElems ? t.inner - b.start : t.tileElems);
        const uint32_t span = static_cast<uint32_t>(b.rows) * t.tileElems;  // the rows in UB
        d::MoveRows(s, t, b, true);
        d::Sync();
        if constexpr (!d::Same<T, C>::value) AscendC::Cast(s.acc, s.stage, AscendC::RoundMode::CAST_NONE, span);
        d::Sync();
        d::AddContributions(s, t, b);
        if constexpr (!d::Same<T, C>::value) {
            if constexpr (d::Same<T, half>::value) {
                AscendC::Cast(s.stage, s.acc, AscendC::RoundMode::CAST_NONE, span);  // to nearest even
            } else {
                AscendC::Cast(s.stage, s.acc, AscendC::RoundMode::CAST_RINT, span);
            }
        }
        d::Sync();
        d::MoveRows(s, t, b, false);
        d::Sync();
    }
}

namespace accumulate_detail {

// ScatterAdd's views of its tensors and its UB tiles.
template <typename T, typename TIdx, typename C>
struct ScatterTiles {
    AscendC::GlobalTensor<T> x, src, y;
    AscendC::GlobalTensor<TIdx> index;
    AscendC::LocalTensor<C> acc, add;
    AscendC::LocalTensor<T> stage;
    AscendC::LocalTensor<TIdx> idx;
};

// Adds the contributions of outer's index slab to acc, which holds output elements [first,
// first + n) of outer's [axis, inner] slab. Index and src rows 0 .. count-1 of an outer are one
// contiguous run of count x inner elements each (src's rows beyond count are not read), walked
// in pieces in row-major order: k ascending for every output element, as torch's CPU kernel.
template <typename T, typename TIdx, typename C>
__aicore__ inline void ScatterSlab(const ScatterTiles<T, TIdx, C>& s, const IndexTiling& t, uint64_t outer,
                                   uint64_t first, uint32_t n)
{
    const uint64_t run = t.count * t.inner, srcAxis = static_cast<uint64_t>(t.ints[0]);
    for (uint64_t start = 0; start < run; start += t.tileElems) {
        const uint32_t w = static_cast<uint32_t>(run - start < t.tileElems ? run - start : t.tileElems);
        Load(s.idx, s.index[outer * run + start], w);
        LoadAs(s.add, s.stage, s.src[outer * srcAxis * t.inner + start], w);
        for (uint32_t q = 0; q < w; ++q) {
            const int64_t pos = static_cast<int64_t>(s.idx.GetValue(q));
            if (pos < 0 || static_cast<uint64_t>(pos) >= t.axis) continue;  // out of range: nothing
            const uint64_t at = static_cast<uint64_t>(pos) * t.inner + (start + q) % t.inner;
            if (at < first || at >= first + n) continue;
            const uint32_t j = static_cast<uint32_t>(at - first);
            s.acc.SetValue(j, AddWrapping<C>(s.acc.GetValue(j), s.add.GetValue(q)));
        }
        Sync();  // the scalar unit is done with idx / add before the next copies overwrite them
    }
}

}  // namespace accumulate_detail

// y = torch.scatter_add(x, dim, index, src). x, y: [outer, axis, inner]; index: [outer, count,
// inner] (the host refuses an index smaller than x in another dim); src: [outer, ints[0],
// inner], ints[0] >= count. A unit is one piece (tileElems elements) of one outer's [axis,
// inner] slab of y: acc = x's piece, then for every index position of the outer in row-major
// order (k, then inner; read in contiguous pieces) whose target lies in the piece, acc[target]
// += src at that position (the scalar unit).
// Each output element thus sums its contributions in torch CPU's order (k ascending). UB:
// tileElems of C twice, of TIdx, and of T when T is 16-bit. T: float, half, bfloat16_t, int32_t.
template <typename T, typename TIdx>
__aicore__ inline void ScatterAdd(GM_ADDR x, GM_ADDR index, GM_ADDR src, GM_ADDR y, const IndexTiling& t)
{
    namespace d = accumulate_detail;
    using C = typename d::Acc<T>::Type;
    static_assert(d::IsFloating<T>() || d::Same<T, int32_t>::value,
                  "opgen_index::ScatterAdd: T must be float, half, bfloat16_t or int32_t");
    static_assert(d::Same<TIdx, int32_t>::value || d::Same<TIdx, int64_t>::value,
                  "opgen_index::ScatterAdd: TIdx must be int32_t or int64_t");
    OPGEN_INDEX_NEEDS_DATACOPYPAD("ScatterAdd");
    const d::Share share = d::CoreShare(t);
    if (share.count == 0) return;
    const uint64_t slab = t.axis * t.inner;
    d::ScatterTiles<T, TIdx, C> s;
    s.x = d::Gm<T>(x, t.outer * slab);
    s.y = d::Gm<T>(y, t.outer * slab);
    s.src = d::Gm<T>(src, t.outer * static_cast<uint64_t>(t.ints[0]) * t.inner);
    s.index = d::Gm<TIdx>(index, t.outer * t.count * t.inner);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf, addBuf, stageBuf, idxBuf;
    pipe.InitBuffer(accBuf, t.tileElems * sizeof(C));
    pipe.InitBuffer(addBuf, t.tileElems * sizeof(C));
    pipe.InitBuffer(stageBuf, d::Same<T, C>::value ? 32 : t.tileElems * sizeof(T));
    pipe.InitBuffer(idxBuf, t.tileElems * sizeof(TIdx));
    s.acc = accBuf.Get<C>();
    s.add = addBuf.Get<C>();
    s.stage = stageBuf.Get<T>();
    s.idx = idxBuf.Get<TIdx>();
    const uint64_t pieces = d::Ceil(slab, t.tileElems);
    for (uint64_t u = share.first; u < share.first + share.count; ++u) {
        const uint64_t outer = u / pieces, first = (u % pieces) * t.tileElems;
        const uint32_t n = static_cast<uint32_t>(slab - first < t.tileElems ? slab - first : t.tileElems);
        d::LoadAs(s.acc, s.stage, s.x[outer * slab + first], n);
        d::ScatterSlab(s, t, outer, first, n);
        d::StoreAs(s.y[outer * slab + first], s.stage, s.acc, n);
    }
}

namespace accumulate_detail {

// float32 CumSum: torch's CPU kernel accumulates float in double and rounds each output once.
// The NPU has no double, so the running sum is hi + lo (Neumaier's compensated sum: lo gathers
// each add's rounding error, exactly, by TwoSum); the output fl(hi + lo) is the double result's
// rounding but for sums next to a float tie, where the double's own accumulated error decides
// (measured: 4 of 140,000 outputs 1 ulp off over two 70,000-long rows). Once hi is inf or NaN it
// is the output (lo would be NaN from inf - inf). One difference is left: a partial sum beyond
// float's range is inf here and stays inf, where torch's double recovers ([3e38, 3e38, -3e38]:
// torch [3e38, inf, 3e38], here [3e38, inf, inf]). Scalar code: no FMA contraction may fuse it.
struct CompensatedSum {
    float hi = 0.0f;
    float lo = 0.0f;

    __aicore__ inline float Add(float v)
    {
        const float s = hi + v;
        const float big = s - hi;
        const float err = (hi - (s - big)) + (v - big);  // hi + v - s, exactly (TwoSum)
        hi = s;
        const float inf = s - s;  // NaN when s is inf or NaN
        if (inf != inf) {
            lo = 0.0f;
            return s;
        }
        lo = lo + err;
        return hi + lo;
    }
};

// float32 CumSum over a middle or first dim: as CumSumRowsFloat, with the running sums kept as
// hi and lo per element by the scalar unit (CompensatedSum; there is no vector double).
__aicore__ inline void CumSumRowsFloat32(const AscendC::GlobalTensor<float>& xG, const AscendC::GlobalTensor<float>& yG,
                                         const IndexTiling& t, const Share& share)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> hiBuf, loBuf, rowBuf;
    pipe.InitBuffer(hiBuf, t.tileElems * sizeof(float));
    pipe.InitBuffer(loBuf, t.tileElems * sizeof(float));
    pipe.InitBuffer(rowBuf, t.tileElems * sizeof(float));
    const AscendC::LocalTensor<float> hi = hiBuf.Get<float>(), lo = loBuf.Get<float>(), row = rowBuf.Get<float>();
    const uint64_t pieces = Ceil(t.inner, t.tileElems);
    for (uint64_t u = share.first; u < share.first + share.count; ++u) {
        const uint64_t outer = u / pieces, start = (u % pieces) * t.tileElems;
        const uint32_t n = static_cast<uint32_t>(t.inner - start < t.tileElems ? t.inner - start : t.tileElems);
        for (uint64_t a = 0; a < t.axis; ++a) {
            const uint64_t at = (outer * t.axis + a) * t.inner + start;
            Load(row, xG[at], n);
            Sync();
            for (uint32_t q = 0; q < n; ++q) {
                CompensatedSum sum;
                if (a > 0) {
                    sum.hi = hi.GetValue(q);
                    sum.lo = lo.GetValue(q);
                }
                row.SetValue(q, sum.Add(row.GetValue(q)));
                hi.SetValue(q, sum.hi);
                lo.SetValue(q, sum.lo);
            }
            Sync();
            Store(yG[at], row, n);
            Sync();
        }
    }
}

// CumSum over a middle or first dim (inner > 1) of a 16-bit float T: a unit is one piece of the
// inner elements of one outer; acc (float for 16-bit T) starts at +0 (torch's cumsum turns -0
// into +0 as well) and adds row after row with the vector unit, writing each running sum.
template <typename T>
__aicore__ inline void CumSumRowsFloat(const AscendC::GlobalTensor<T>& xG, const AscendC::GlobalTensor<T>& yG,
                                       const IndexTiling& t, const Share& share)
{
    using C = typename Acc<T>::Type;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf, addBuf, stageBuf;
    pipe.InitBuffer(accBuf, t.tileElems * sizeof(C));
    pipe.InitBuffer(addBuf, t.tileElems * sizeof(C));
    pipe.InitBuffer(stageBuf, Same<T, C>::value ? 32 : t.tileElems * sizeof(T));
    const AscendC::LocalTensor<C> acc = accBuf.Get<C>(), add = addBuf.Get<C>();
    const AscendC::LocalTensor<T> stage = stageBuf.Get<T>();
    const uint64_t pieces = Ceil(t.inner, t.tileElems);
    for (uint64_t u = share.first; u < share.first + share.count; ++u) {
        const uint64_t outer = u / pieces, start = (u % pieces) * t.tileElems;
        const uint32_t n = static_cast<uint32_t>(t.inner - start < t.tileElems ? t.inner - start : t.tileElems);
        AscendC::Duplicate(acc, static_cast<C>(0), n);
        Sync();
        for (uint64_t a = 0; a < t.axis; ++a) {
            const uint64_t at = (outer * t.axis + a) * t.inner + start;
            LoadAs(add, stage, xG[at], n);
            AscendC::Add(acc, acc, add, n);
            Sync();
            StoreAs(yG[at], stage, acc, n);
        }
    }
}

// CumSum over the last dim (inner == 1) of a floating T: a unit is one row of axis elements,
// in pieces; the scalar unit carries the running sum (float for 16-bit T, a CompensatedSum for
// float32) along the row. A
// vector prefix (log-step shifted adds) would add in another order than torch and round
// differently; the sequential scalar sum gives torch's bits.
template <typename T>
__aicore__ inline void CumSumLastFloat(const AscendC::GlobalTensor<T>& xG, const AscendC::GlobalTensor<T>& yG,
                                       const IndexTiling& t, const Share& share)
{
    using C = typename Acc<T>::Type;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf, stageBuf;
    pipe.InitBuffer(accBuf, t.tileElems * sizeof(C));
    pipe.InitBuffer(stageBuf, Same<T, C>::value ? 32 : t.tileElems * sizeof(T));
    const AscendC::LocalTensor<C> acc = accBuf.Get<C>();
    const AscendC::LocalTensor<T> stage = stageBuf.Get<T>();
    for (uint64_t row = share.first; row < share.first + share.count; ++row) {
        C running = static_cast<C>(0);
        CompensatedSum sum;  // float32: torch's double accumulation, see CompensatedSum
        for (uint64_t start = 0; start < t.axis; start += t.tileElems) {
            const uint32_t n = static_cast<uint32_t>(t.axis - start < t.tileElems ? t.axis - start : t.tileElems);
            LoadAs(acc, stage, xG[row * t.axis + start], n);
            for (uint32_t q = 0; q < n; ++q) {
                if constexpr (Same<T, float>::value) {
                    acc.SetValue(q, sum.Add(acc.GetValue(q)));
                } else {
                    running = running + acc.GetValue(q);
                    acc.SetValue(q, running);
                }
            }
            Sync();
            StoreAs(yG[row * t.axis + start], stage, acc, n);
        }
    }
}

// CumSum of an integer T into int64_t, any dim: the scalar unit adds in int64 (Ascend C has no
// int64 vector Add). A unit is one piece of inner elements of one outer (inner > 1; acc holds
// the running sums) or one row (inner == 1; a scalar carries the sum along the row).
template <typename T>
__aicore__ inline void CumSumInt(const AscendC::GlobalTensor<T>& xG, const AscendC::GlobalTensor<int64_t>& yG,
                                 const IndexTiling& t, const Share& share)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf, stageBuf;
    pipe.InitBuffer(accBuf, t.tileElems * sizeof(int64_t));
    pipe.InitBuffer(stageBuf, t.tileElems * sizeof(T));
    const AscendC::LocalTensor<int64_t> acc = accBuf.Get<int64_t>();
    const AscendC::LocalTensor<T> stage = stageBuf.Get<T>();
    const bool last = t.inner == 1;
    const uint64_t span = last ? t.axis : t.inner;  // the elements a unit walks in pieces
    const uint64_t pieces = last ? 1 : Ceil(t.inner, t.tileElems);
    for (uint64_t u = share.first; u < share.first + share.count; ++u) {
        const uint64_t outer = u / pieces;
        const uint64_t lo = last ? 0 : (u % pieces) * t.tileElems;
        const uint64_t hi = last ? span : (span - lo < t.tileElems ? span : lo + t.tileElems);
        int64_t running = 0;
        for (uint64_t a = 0; a < (last ? 1 : t.axis); ++a) {
            for (uint64_t start = lo; start < hi; start += t.tileElems) {
                const uint32_t n = static_cast<uint32_t>(hi - start < t.tileElems ? hi - start : t.tileElems);
                const uint64_t at = last ? outer * t.axis + start : (outer * t.axis + a) * t.inner + start;
                Load(stage, xG[at], n);
                Sync();
                for (uint32_t q = 0; q < n; ++q) {
                    const int64_t v = static_cast<int64_t>(stage.GetValue(q));
                    if (last) {
                        running = AddWrapping<int64_t>(running, v);
                        acc.SetValue(q, running);
                    } else {
                        acc.SetValue(q, a == 0 ? v : AddWrapping<int64_t>(acc.GetValue(q), v));
                    }
                }
                Sync();
                Store(yG[at], acc, n);
                Sync();
            }
        }
    }
}

}  // namespace accumulate_detail

// y = torch.cumsum(x, dim). x: [outer, axis, inner]; y the same shape, TOut = T for float,
// half, bfloat16_t; TOut = int64_t for int8_t, uint8_t, int16_t, int32_t, int64_t (torch's
// integer promotion; pass bool as uint8_t). 16-bit floats accumulate in float and round each
// output once, as torch's CPU kernel does: inner > 1 adds whole rows with the vector unit
// (units: outer x pieces of inner); inner == 1 runs a scalar prefix per row (units: rows).
// float32 accumulates as hi + lo with the scalar unit (CompensatedSum), for torch CPU's double
// accumulation. Integers: the scalar unit in int64 (units as above).
template <typename T, typename TOut>
__aicore__ inline void CumSum(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    namespace d = accumulate_detail;
    constexpr bool floating = d::IsFloating<T>();
    static_assert(floating || d::Same<T, int8_t>::value || d::Same<T, uint8_t>::value ||
                      d::Same<T, int16_t>::value || d::Same<T, int32_t>::value || d::Same<T, int64_t>::value,
                  "opgen_index::CumSum: T must be float, half, bfloat16_t or an integer type");
    static_assert(floating ? d::Same<TOut, T>::value : d::Same<TOut, int64_t>::value,
                  "opgen_index::CumSum: TOut is T for a floating T and int64_t for an integer T (torch)");
    OPGEN_INDEX_NEEDS_DATACOPYPAD("CumSum");
    const d::Share share = d::CoreShare(t);
    if (share.count == 0) return;
    const uint64_t elems = t.outer * t.axis * t.inner;
    const auto xG = d::Gm<T>(x, elems);
    const auto yG = d::Gm<TOut>(y, elems);
    if constexpr (floating) {
        if (t.inner == 1) {
            d::CumSumLastFloat<T>(xG, yG, t, share);
        } else {
            if constexpr (d::Same<T, float>::value) {
                d::CumSumRowsFloat32(xG, yG, t, share);
            } else {
                d::CumSumRowsFloat<T>(xG, yG, t, share);
            }
        }
    } else {
        d::CumSumInt<T>(xG, yG, t, share);
    }
}

}  // namespace opgen_index

#endif  // OPGEN_INDEX_ACCUMULATE_H
