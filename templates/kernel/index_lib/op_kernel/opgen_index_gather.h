// opgen's index-op library, kernel side of the gather group: IndexSelect, Gather, Roll, OneHot.
// The tiling comes from op_host/opgen_index_gather_tiling.h (Tile<Kind>); what a unit is, per kind,
// is said there. Every kernel splits its units over GetBlockIdx() < t.usedCores.
//
// Data moves are byte moves (GM -> UB -> GM with DataCopyPad), so any T of 1, 2, 4 or 8 bytes
// works; Gather's UB `Gather` instruction moves T as the unsigned word of its size (an 8-byte T as
// two uint32_t words), since the instruction's dtypes differ per SoC (asc-devkit Gather.md). A
// 1-byte T is gathered by the scalar unit (GetValue/SetValue in UB) where the SoC has no 8-bit
// Gather (all but ascend310b and ascend950). Gather's byte offsets come from Maxs/Mins/Muls/Adds
// for int32 indices along the last axis, from the scalar unit otherwise (int64 indices are
// range-checked as int64, never narrowed first). IndexSelect's indices and OneHot's ids are read
// as real kernels do: up to kIndexWindow at a time copied into UB, then GetValue.
//
// An out-of-range index (negative, or >= the size along dim; torch raises, the adapter refuses)
// reads nothing outside x and gives 0: a 0 row (IndexSelect), a 0 element (Gather), a row of zeros
// (OneHot). SoCs: DataCopyPad is required (not ascend910 / ascend310p: static_assert).
#ifndef OPGEN_INDEX_GATHER_H
#define OPGEN_INDEX_GATHER_H

#include "kernel_operator.h"
#include "opgen_index_tiling.h"
#include "opgen_soc.h"

#if defined(__NPU_ARCH__)
#define OPGEN_INDEX_GATHER_ARCH __NPU_ARCH__
#else
#define OPGEN_INDEX_GATHER_ARCH 2201  // the host pass and the twin's default (ascend910b)
#endif

// The UB Gather of 8-bit words: Atlas 200I/500 A2 and Ascend 950 only (asc-devkit Gather.md).
#define OPGEN_INDEX_HAS_GATHER_B8(arch) ((arch) == 3002 || (arch) == 3510)

namespace opgen_index {

namespace gather_detail {

using AscendC::GlobalTensor;
using AscendC::HardEvent;
using AscendC::LocalTensor;

static_assert(OPGEN_SOC_HAS_DATACOPYPAD(OPGEN_INDEX_GATHER_ARCH),
              "opgen_index gather group: DataCopyPad is missing on this SoC (ascend910 / ascend310p, "
              "OPGEN_SOC_HAS_DATACOPYPAD); the index ops do not run there");

template <HardEvent E>
__aicore__ inline void Sync()
{
    AscendC::SetFlag<E>(0);
    AscendC::WaitFlag<E>(0);
}

// This core's units [begin, end); begin >= end when it has none.
struct Span {
    uint64_t begin;
    uint64_t end;
};

__aicore__ inline Span CoreSpan(const IndexTiling& t)
{
    const uint64_t core = AscendC::GetBlockIdx();
    Span s{0, 0};
    if (core >= t.usedCores) return s;
    s.begin = core * t.unitsPerCore;
    s.end = s.begin + t.unitsPerCore < t.units ? s.begin + t.unitsPerCore : t.units;
    return s;
}

__aicore__ inline AscendC::DataCopyExtParams Bytes(uint64_t n)
{
    return AscendC::DataCopyExtParams(1, static_cast<uint32_t>(n), 0, 0, 0);
}

// Copies n bytes GM -> UB buf -> GM in tiles of tileBytes; leaves every pipe done with buf.
__aicore__ inline void CopyBytes(const GlobalTensor<uint8_t>& dst, const GlobalTensor<uint8_t>& src, uint64_t n,
                                 const LocalTensor<uint8_t>& buf, uint64_t tileBytes)
{
    for (uint64_t off = 0; off < n; off += tileBytes) {
        const uint64_t len = n - off < tileBytes ? n - off : tileBytes;
        AscendC::DataCopyPad(buf, src[off], Bytes(len), AscendC::DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
        Sync<HardEvent::MTE2_MTE3>();
        AscendC::DataCopyPad(dst[off], buf, Bytes(len));
        Sync<HardEvent::MTE3_MTE2>();
        Sync<HardEvent::MTE3_V>();
    }
}

// Writes n zero bytes to dst through buf (the vector unit fills buf with int16_t zeros).
__aicore__ inline void ZeroBytes(const GlobalTensor<uint8_t>& dst, uint64_t n, const LocalTensor<uint8_t>& buf,
                                 uint64_t tileBytes)
{
    if (n == 0) return;
    const uint64_t fill = n < tileBytes ? (n + 31) / 32 * 32 : tileBytes;
    AscendC::Duplicate(buf.ReinterpretCast<int16_t>(), static_cast<int16_t>(0), static_cast<int32_t>(fill / 2));
    Sync<HardEvent::V_MTE3>();
    for (uint64_t off = 0; off < n; off += tileBytes) {
        const uint64_t len = n - off < tileBytes ? n - off : tileBytes;
        AscendC::DataCopyPad(dst[off], buf, Bytes(len));
    }
    Sync<HardEvent::MTE3_MTE2>();
    Sync<HardEvent::MTE3_V>();
}

template <typename TIdx>
__aicore__ inline bool InRange(TIdx v, uint64_t size)
{
    return v >= 0 && static_cast<uint64_t>(v) < size;
}

// The unsigned word the UB Gather moves a T as (an 8-byte T as two uint32_t).
template <int Bytes>
struct GatherWord {
    using Type = uint32_t;
};
template <>
struct GatherWord<1> {
    using Type = uint8_t;
};
template <>
struct GatherWord<2> {
    using Type = uint16_t;
};

// Up to kIndexWindow indices (ids) at a time in UB: DataCopyPad in, GetValue by the scalar unit.
constexpr uint32_t kIndexWindow = 256;  // 2 KB of int64; the host leaves it out of the tiles

template <typename TIdx>
struct IndexWindow {
    GlobalTensor<TIdx> gm;
    LocalTensor<TIdx> ub;
    uint64_t size;
    uint64_t begin;
    uint64_t len;

    // index[j], loading the window that starts at j when j is outside the loaded one.
    __aicore__ inline TIdx Get(uint64_t j)
    {
        if (j < begin || j >= begin + len) {
            begin = j;
            len = size - j < kIndexWindow ? size - j : kIndexWindow;
            Sync<HardEvent::S_MTE2>();  // the scalar unit is done with the old window
            AscendC::DataCopyPad(ub, gm[j], Bytes(len * sizeof(TIdx)),
                                 AscendC::DataCopyPadExtParams<TIdx>(false, 0, 0, 0));
            Sync<HardEvent::MTE2_S>();
        }
        return ub.GetValue(static_cast<uint32_t>(j - begin));
    }
};

}  // namespace gather_detail

// y[o, j, :] = x[o, index[j], :]; x seen as [outer, axis, inner]. A unit is a row of y.
template <typename T, typename TIdx>
__aicore__ inline void IndexSelect(GM_ADDR x, GM_ADDR index, GM_ADDR y, const IndexTiling& t)
{
    using namespace gather_detail;
    const Span span = CoreSpan(t);
    if (span.begin >= span.end) return;
    GlobalTensor<uint8_t> xG, yG;
    IndexWindow<TIdx> win{};
    xG.SetGlobalBuffer((__gm__ uint8_t*)x, t.outer * t.axis * t.inner * sizeof(T));
    yG.SetGlobalBuffer((__gm__ uint8_t*)y, t.outer * t.count * t.inner * sizeof(T));
    win.gm.SetGlobalBuffer((__gm__ TIdx*)index, t.count);
    win.size = t.count;
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tbuf, ibuf;
    const uint64_t tileBytes = uint64_t(t.tileElems) * sizeof(T);
    pipe.InitBuffer(tbuf, static_cast<uint32_t>(tileBytes));
    pipe.InitBuffer(ibuf, kIndexWindow * sizeof(TIdx));
    win.ub = ibuf.Get<TIdx>();
    const LocalTensor<uint8_t> buf = tbuf.Get<uint8_t>();
    const uint64_t rowBytes = t.inner * sizeof(T);
    for (uint64_t u = span.begin; u < span.end; ++u) {
        const uint64_t o = u / t.count;
        const TIdx idx = win.Get(u % t.count);
        if (InRange(idx, t.axis)) {
            CopyBytes(yG[u * rowBytes], xG[(o * t.axis + static_cast<uint64_t>(idx)) * rowBytes], rowBytes, buf,
                      tileBytes);
        } else {
            ZeroBytes(yG[u * rowBytes], rowBytes, buf, tileBytes);
        }
    }
}

namespace gather_detail {

// The UB of a Gather core: the slab x[o] ([axis, inner] elements) starts kSlabLead bytes into
// `slab`, after a block of zeros, and one zero element follows it: an out-of-range index points at
// one of the zeros.
constexpr uint32_t kSlabLead = 32;

template <typename T, typename TIdx>
struct GatherRowArgs {
    LocalTensor<uint8_t> slab;
    LocalTensor<uint8_t> out;
    LocalTensor<uint32_t> offs;
    LocalTensor<TIdx> idx;
    uint64_t zeroAt;  // the slab element after x[o], which holds 0
};

// Whether a 1-byte T is gathered by the scalar unit (no 8-bit UB Gather on this SoC).
template <typename T>
constexpr bool ScalarGather()
{
    return sizeof(T) == 1 && !OPGEN_INDEX_HAS_GATHER_B8(OPGEN_INDEX_GATHER_ARCH);
}

// The vector path of the offsets: int32 indices along the last axis (inner 1), one word per T.
// v = min(max(idx, -1), axis) puts every bad index on -1 or axis, both zeros; offset = v * sizeof(T)
// + kSlabLead (Muls by sizeof(T) as the real kernels do).
template <typename T, typename TIdx>
constexpr bool VectorOffsets()
{
    return sizeof(TIdx) == 4 && sizeof(T) != 8 && !ScalarGather<T>();
}

// offs[k] (per word) = the byte offset in `slab` of element (idx[k] * inner + col0 + k) of x[o], or
// of a zero for an out-of-range index. The index tile is in UB (MTE2 done).
template <typename T, typename TIdx>
__aicore__ inline void WriteOffsets(const GatherRowArgs<T, TIdx>& g, uint32_t n, uint64_t col0, const IndexTiling& t)
{
    if constexpr (VectorOffsets<T, TIdx>()) {
        if (t.inner == 1) {
            const LocalTensor<int32_t> v = g.offs.template ReinterpretCast<int32_t>();
            const int32_t count = static_cast<int32_t>(n);
            Sync<HardEvent::MTE2_V>();
            AscendC::Maxs(v, g.idx, int32_t(-1), count);
            AscendC::Mins(v, v, static_cast<int32_t>(t.axis), count);
            AscendC::Muls(v, v, static_cast<int32_t>(sizeof(T)), count);
            AscendC::Adds(v, v, static_cast<int32_t>(kSlabLead), count);
            return;
        }
    }
    constexpr uint32_t words = sizeof(T) == 8 ? 2 : 1;
    Sync<HardEvent::MTE2_S>();
    for (uint32_t k = 0; k < n; ++k) {
        const TIdx v = g.idx.GetValue(k);
        const uint64_t e = InRange(v, t.axis) ? static_cast<uint64_t>(v) * t.inner + col0 + k : g.zeroAt;
        const uint32_t byteOff = static_cast<uint32_t>(kSlabLead + e * sizeof(T));
        for (uint32_t w = 0; w < words; ++w) g.offs.SetValue(k * words + w, byteOff + w * 4);
    }
    Sync<HardEvent::S_V>();
}

// out[k] = the slab element at offs[k], by the UB Gather (T moved as its unsigned word), or by the
// scalar unit for a 1-byte T on a SoC without the 8-bit Gather.
template <typename T, typename TIdx>
__aicore__ inline void GatherRow(const GatherRowArgs<T, TIdx>& g, uint32_t n)
{
    using W = typename GatherWord<sizeof(T)>::Type;
    constexpr uint32_t words = sizeof(T) == 8 ? 2 : 1;
    if constexpr (ScalarGather<T>()) {
        for (uint32_t k = 0; k < n; ++k) g.out.SetValue(k, g.slab.GetValue(g.offs.GetValue(k)));
        Sync<HardEvent::S_MTE3>();
        Sync<HardEvent::S_MTE2>();  // the next index tile overwrites what the scalar unit read
    } else {
        AscendC::Gather(g.out.template ReinterpretCast<W>(), g.slab.template ReinterpretCast<W>(), g.offs, 0u,
                        n * words);
        Sync<HardEvent::V_MTE3>();
        Sync<HardEvent::V_S>();     // the next offsets overwrite what this Gather read
        Sync<HardEvent::V_MTE2>();  // the next index tile overwrites what the offsets were made of
        Sync<HardEvent::S_MTE2>();
    }
}

// Loads the slab x[o] after its lead of zeros, and the zero element after it.
template <typename T, typename TIdx>
__aicore__ inline void LoadSlab(const GatherRowArgs<T, TIdx>& g, const GlobalTensor<uint8_t>& xG, uint64_t o)
{
    const uint64_t bytes = g.zeroAt * sizeof(T);
    Sync<HardEvent::V_MTE2>();  // the last Gather read the old slab
    Sync<HardEvent::S_MTE2>();
    if (bytes > 0) {
        AscendC::DataCopyPad(g.slab[kSlabLead], xG[o * bytes], Bytes(bytes),
                             AscendC::DataCopyPadExtParams<uint8_t>(false, 0, 0, 0));
    }
    Sync<HardEvent::MTE2_S>();
    for (uint32_t b = 0; b < kSlabLead; ++b) g.slab.SetValue(b, uint8_t(0));
    for (uint32_t b = 0; b < sizeof(T); ++b) g.slab.SetValue(kSlabLead + bytes + b, uint8_t(0));
    Sync<HardEvent::S_V>();
    Sync<HardEvent::MTE2_V>();
}

}  // namespace gather_detail

// torch.gather: y[o, j, i] = x[o, index[o, j, i], i]; x is [outer, axis, inner], index and y
// [outer, count, inner]. A unit is a row y[o, j, :]. A core keeps the slab x[o] in UB (ints[0]
// bytes with the zeros around it) and gathers each row with the UB Gather from byte offsets
// (index * inner + i) * sizeof(T): computed by Maxs/Mins/Muls/Adds for int32 indices along the
// last axis, by the scalar unit otherwise (int64 indices are range-checked before any narrowing).
template <typename T, typename TIdx>
__aicore__ inline void Gather(GM_ADDR x, GM_ADDR index, GM_ADDR y, const IndexTiling& t)
{
    using namespace gather_detail;
    static_assert(OPGEN_INDEX_GATHER_ARCH != 1001,
                  "opgen_index::Gather: ascend910 (__NPU_ARCH__ 1001) has no UB Gather (asc-devkit Gather.md)");
    const Span span = CoreSpan(t);
    if (span.begin >= span.end) return;
    const uint64_t slabElems = t.axis * t.inner;
    GlobalTensor<uint8_t> xG, yG;
    GlobalTensor<TIdx> idxG;
    xG.SetGlobalBuffer((__gm__ uint8_t*)x, t.outer * slabElems * sizeof(T));
    yG.SetGlobalBuffer((__gm__ uint8_t*)y, t.units * t.inner * sizeof(T));
    idxG.SetGlobalBuffer((__gm__ TIdx*)index, t.units * t.inner);
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> slabBuf, outBuf, offBuf, idxBuf;
    constexpr uint32_t words = sizeof(T) == 8 ? 2 : 1;
    pipe.InitBuffer(slabBuf, static_cast<uint32_t>(t.ints[0]));
    pipe.InitBuffer(outBuf, t.tileElems * sizeof(T));
    pipe.InitBuffer(offBuf, t.tileElems * 4 * words);
    pipe.InitBuffer(idxBuf, t.tileElems * sizeof(TIdx));
    GatherRowArgs<T, TIdx> g{slabBuf.Get<uint8_t>(), outBuf.Get<uint8_t>(), offBuf.Get<uint32_t>(),
                             idxBuf.Get<TIdx>(), slabElems};
    uint64_t loaded = ~uint64_t(0);
    for (uint64_t u = span.begin; u < span.end; ++u) {
        const uint64_t o = u / t.count;
        if (o != loaded) {
            LoadSlab(g, xG, o);
            loaded = o;
        }
        for (uint64_t col0 = 0; col0 < t.inner; col0 += t.tileElems) {
            const uint32_t n = static_cast<uint32_t>(t.inner - col0 < t.tileElems ? t.inner - col0 : t.tileElems);
            AscendC::DataCopyPad(g.idx, idxG[u * t.inner + col0], Bytes(uint64_t(n) * sizeof(TIdx)),
                                 AscendC::DataCopyPadExtParams<TIdx>(false, 0, 0, 0));
            WriteOffsets(g, n, col0, t);
            GatherRow(g, n);
            AscendC::DataCopyPad(yG[(u * t.inner + col0) * sizeof(T)], g.out, Bytes(uint64_t(n) * sizeof(T)));
            Sync<HardEvent::MTE3_V>();
            Sync<HardEvent::MTE3_S>();
        }
    }
}

// torch.roll with one dim: y[o, (j + s) % axis, :] = x[o, j, :], s = ints[0] in [0, axis). A unit
// is an element of y; a core copies its range of y in runs contiguous in both x and y.
template <typename T>
__aicore__ inline void Roll(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    using namespace gather_detail;
    const Span span = CoreSpan(t);
    if (span.begin >= span.end) return;
    GlobalTensor<uint8_t> xG, yG;
    xG.SetGlobalBuffer((__gm__ uint8_t*)x, t.units * sizeof(T));
    yG.SetGlobalBuffer((__gm__ uint8_t*)y, t.units * sizeof(T));
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tbuf;
    const uint64_t tileBytes = uint64_t(t.tileElems) * sizeof(T);
    pipe.InitBuffer(tbuf, static_cast<uint32_t>(tileBytes));
    const LocalTensor<uint8_t> buf = tbuf.Get<uint8_t>();
    const uint64_t rowElems = t.axis * t.inner;  // one [axis, inner] block
    const uint64_t shiftElems = static_cast<uint64_t>(t.ints[0]) * t.inner;
    for (uint64_t e = span.begin; e < span.end;) {
        const uint64_t o = e / rowElems, r = e % rowElems;
        const uint64_t src = (r + rowElems - shiftElems) % rowElems;
        uint64_t run = span.end - e;
        if (run > rowElems - r) run = rowElems - r;
        if (run > rowElems - src) run = rowElems - src;
        CopyBytes(yG[e * sizeof(T)], xG[(o * rowElems + src) * sizeof(T)], run * sizeof(T), buf, tileBytes);
        e += run;
    }
}

// one_hot: y[i, c] = (x[i] == c) in TOut, c < count = ints[0]; y seen flat. An id outside
// [0, count) gives a row of zeros. A unit is an id (a row of y).
template <typename TIdx, typename TOut>
__aicore__ inline void OneHot(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    using namespace gather_detail;
    const Span span = CoreSpan(t);
    if (span.begin >= span.end) return;
    IndexWindow<TIdx> ids{};
    GlobalTensor<uint8_t> yG;
    ids.gm.SetGlobalBuffer((__gm__ TIdx*)x, t.units);
    ids.size = t.units;
    yG.SetGlobalBuffer((__gm__ uint8_t*)y, t.units * t.count * sizeof(TOut));
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tbuf, ibuf;
    pipe.InitBuffer(tbuf, t.tileElems * sizeof(TOut));
    pipe.InitBuffer(ibuf, kIndexWindow * sizeof(TIdx));
    ids.ub = ibuf.Get<TIdx>();
    const LocalTensor<uint8_t> buf = tbuf.Get<uint8_t>();
    const LocalTensor<TOut> row = buf.ReinterpretCast<TOut>();
    const uint64_t first = span.begin * t.count, last = span.end * t.count;
    for (uint64_t e0 = first; e0 < last; e0 += t.tileElems) {
        const uint64_t n = last - e0 < t.tileElems ? last - e0 : t.tileElems;
        const uint64_t fill = (n * sizeof(TOut) + 31) / 32 * 32;
        AscendC::Duplicate(buf.ReinterpretCast<int16_t>(), static_cast<int16_t>(0), static_cast<int32_t>(fill / 2));
        Sync<HardEvent::V_S>();  // the scalar unit writes the ones over the zeros
        for (uint64_t i = e0 / t.count; i * t.count < e0 + n; ++i) {
            const TIdx id = ids.Get(i);
            if (!InRange(id, t.count)) continue;
            const uint64_t at = i * t.count + static_cast<uint64_t>(id);
            if (at >= e0 && at < e0 + n) row.SetValue(static_cast<uint32_t>(at - e0), static_cast<TOut>(1));
        }
        Sync<HardEvent::S_MTE3>();
        Sync<HardEvent::V_MTE3>();
        AscendC::DataCopyPad(yG[e0 * sizeof(TOut)], buf, Bytes(n * sizeof(TOut)));
        Sync<HardEvent::MTE3_V>();
        Sync<HardEvent::MTE3_S>();
    }
}

}  // namespace opgen_index

#endif  // OPGEN_INDEX_GATHER_H
