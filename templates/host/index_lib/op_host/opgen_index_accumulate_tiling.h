// opgen's index-op library, host side of the accumulating kinds (op_kernel/
// opgen_index_accumulate.h): TileIndexAdd, TileScatterAdd, TileCumSum. Plain C++.
// Each returns nullptr, or a text saying why the shapes cannot run.
#ifndef OPGEN_INDEX_ACCUMULATE_TILING_H
#define OPGEN_INDEX_ACCUMULATE_TILING_H

#include <cstdint>

#include "../op_kernel/opgen_index_tiling.h"

namespace opgen_index {
namespace accumulate_host {

constexpr uint64_t TILE_ALIGN = 32;       // elements: every UB tile is whole 32-byte blocks
constexpr uint64_t UB_RESERVED = 1024;    // bytes of UB left to the framework
constexpr uint64_t MAX_TILE = 1u << 20;   // elements; also keeps DataCopyPad's byte length small
constexpr uint64_t INDEX_PIECE = 1024;    // index values IndexAdd reads into UB at a time

inline uint64_t Numel(const Shape& s)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s.rank; ++i) n *= static_cast<uint64_t>(s.dims[i]);
    return n;
}

// Checks the shape and dim, and fills outer / axis / inner of x around dim (a 0-d x is [1]).
inline const char* Split(const HostArgs& a, IndexTiling& t)
{
    if (a.x.rank > MAX_RANK) return "index op: x has more dims than opgen_index::MAX_RANK";
    for (uint32_t i = 0; i < a.x.rank; ++i) {
        if (a.x.dims[i] < 0) return "index op: x has a negative dim size";
    }
    if (a.x.rank == 0 ? a.dim != 0 : (a.dim < 0 || a.dim >= static_cast<int64_t>(a.x.rank))) {
        return "index op: dim out of range for x (the host normalises it to [0, rank))";
    }
    t = IndexTiling{};
    t.outer = 1;
    t.inner = 1;
    t.axis = a.x.rank == 0 ? 1 : static_cast<uint64_t>(a.x.dims[a.dim]);
    for (int64_t i = 0; i < a.dim; ++i) t.outer *= static_cast<uint64_t>(a.x.dims[i]);
    for (int64_t i = a.dim + 1; i < static_cast<int64_t>(a.x.rank); ++i) t.inner *= static_cast<uint64_t>(a.x.dims[i]);
    return nullptr;
}

// tileElems: as many elements as `bytesPerElem` per element fit in UB, whole 32-element
// multiples, at most `need` rounded up. nullptr or why not.
inline const char* SizeTile(const HostArgs& a, uint64_t bytesPerElem, uint64_t need, IndexTiling& t)
{
    if (a.ubBytes <= UB_RESERVED) return "index op: UB size unknown or too small";
    uint64_t fit = (a.ubBytes - UB_RESERVED) / bytesPerElem / TILE_ALIGN * TILE_ALIGN;
    if (fit > MAX_TILE) fit = MAX_TILE;
    if (fit < TILE_ALIGN) return "index op: UB holds fewer than 32 elements of this op's tiles";
    const uint64_t wanted = (need + TILE_ALIGN - 1) / TILE_ALIGN * TILE_ALIGN;
    t.tileElems = static_cast<uint32_t>(wanted < fit && wanted > 0 ? wanted : fit);
    return nullptr;
}

// Spreads t.units over at most coreNum cores.
inline const char* Spread(const HostArgs& a, IndexTiling& t)
{
    if (a.coreNum == 0) return "index op: no vector cores";
    t.unitsPerCore = t.units == 0 ? 0 : (t.units + a.coreNum - 1) / a.coreNum;
    t.usedCores = t.units == 0 ? 1 : static_cast<uint32_t>((t.units + t.unitsPerCore - 1) / t.unitsPerCore);
    return nullptr;
}

inline uint64_t Ceil(uint64_t v, uint64_t d) { return (v + d - 1) / d; }

// UB bytes per tile element of IndexAdd / ScatterAdd: acc and add in the accumulation type
// (float for a 16-bit T) and the 16-bit staging tile.
inline uint64_t AccBytes(uint32_t dtypeBytes) { return dtypeBytes == 2 ? 2 * 4 + 2 : 2 * uint64_t{dtypeBytes}; }

inline const char* CheckAccDtype(const HostArgs& a)
{
    if (a.dtypeBytes != 2 && a.dtypeBytes != 4) {
        return "index_add / scatter_add: x must be float32, float16, bfloat16 or int32";
    }
    if (a.indexBytes != 4 && a.indexBytes != 8) return "index_add / scatter_add: index must be int32 or int64";
    return nullptr;
}

inline const char* CheckCumSumDtypes(const HostArgs& a)
{
    if (a.dtypeBytes != 1 && a.dtypeBytes != 2 && a.dtypeBytes != 4 && a.dtypeBytes != 8) {
        return "cumsum: unsupported x element size";
    }
    const uint32_t outBytes = a.outBytes == 0 ? a.dtypeBytes : a.outBytes;
    if (outBytes != 8 && outBytes != a.dtypeBytes) return "cumsum: y must be x's dtype (float) or int64 (integer x)";
    if (a.dtypeBytes == 8 && a.outBytes == 0) {
        return "cumsum: set outBytes (8) for an int64 x; float64 is not supported";
    }
    return nullptr;
}

// IndexAdd's index piece: up to INDEX_PIECE values (whole 32s), at most a quarter of UB.
inline uint64_t IndexPiece(const HostArgs& a, uint64_t count)
{
    const uint64_t fit = (a.ubBytes - UB_RESERVED) / 4 / a.indexBytes / TILE_ALIGN * TILE_ALIGN;
    const uint64_t wanted = Ceil(count == 0 ? 1 : count, TILE_ALIGN) * TILE_ALIGN;
    uint64_t piece = fit < wanted ? fit : wanted;
    piece = piece < INDEX_PIECE ? piece : INDEX_PIECE;
    return piece < TILE_ALIGN ? TILE_ALIGN : piece;
}

// index_add's src: x's shape but len(index) along dim (a 0-d x: len(index) elements).
inline const char* CheckIndexAddSrc(const HostArgs& a, uint64_t count)
{
    if (a.x.rank == 0) {
        return a.src.rank <= 1 && Numel(a.src) == count ? nullptr : "index_add: src must have len(index) elements";
    }
    if (a.src.rank != a.x.rank) return "index_add: src must have x's rank";
    for (uint32_t i = 0; i < a.src.rank; ++i) {
        const int64_t want = static_cast<int64_t>(i) == a.dim ? static_cast<int64_t>(count) : a.x.dims[i];
        if (a.src.dims[i] != want) {
            return "index_add: src must have x's shape except along dim, where its size is len(index)";
        }
    }
    return nullptr;
}

}  // namespace accumulate_host

// torch.index_add(x, dim, index, src): index 1-D of count values, src x's shape with dim's size
// count. ints[0] = output rows per unit (as many as UB holds, at most axis); ints[1] = index
// values read into UB at a time. Units: outer x
// blocks of ints[0] rows along axis x pieces of inner (tileElems each).
inline const char* TileIndexAdd(const HostArgs& a, IndexTiling& t)
{
    namespace h = accumulate_host;
    if (const char* err = h::Split(a, t)) return err;
    if (const char* err = h::CheckAccDtype(a)) return err;
    if (a.index.rank > 1) return "index_add: index must be 1-D (or a scalar)";
    t.count = a.index.rank == 0 ? 1 : static_cast<uint64_t>(a.index.dims[0]);
    if (const char* err = h::CheckIndexAddSrc(a, t.count)) return err;
    if (a.ubBytes <= h::UB_RESERVED + 32 * uint64_t{a.indexBytes}) return "index op: UB size unknown or too small";
    const uint64_t piece = h::IndexPiece(a, t.count);
    t.ints[1] = static_cast<int64_t>(piece);
    HostArgs rows = a;
    rows.ubBytes -= piece * a.indexBytes;
    if (const char* err = h::SizeTile(rows, h::AccBytes(a.dtypeBytes), t.inner, t)) return err;
    // Rows per unit: acc and the 16-bit staging per row, one `add` tile besides.
    const uint64_t accBytes = a.dtypeBytes == 2 ? 4 : a.dtypeBytes, stageBytes = a.dtypeBytes == 2 ? 2 : 0;
    const uint64_t budget = rows.ubBytes - h::UB_RESERVED - uint64_t{t.tileElems} * accBytes - 32;
    uint64_t blockRows = budget / (uint64_t{t.tileElems} * (accBytes + stageBytes));
    blockRows = blockRows > t.axis ? t.axis : blockRows;
    t.ints[0] = static_cast<int64_t>(blockRows == 0 ? 1 : blockRows);
    t.units = t.outer * h::Ceil(t.axis, static_cast<uint64_t>(t.ints[0])) * h::Ceil(t.inner, t.tileElems);
    return h::Spread(a, t);
}

// torch.scatter_add(x, dim, index, src): index has x's rank and, in every dim but dim, x's size
// (an index smaller than x there is refused: the kernel walks index rows of x's inner size);
// src has index's size in every dim but dim and at least index's size along dim. count = index's
// size along dim; ints[0] = src's size along dim. Units: outer x pieces of the [axis, inner] slab.
inline const char* TileScatterAdd(const HostArgs& a, IndexTiling& t)
{
    namespace h = accumulate_host;
    if (const char* err = h::Split(a, t)) return err;
    if (const char* err = h::CheckAccDtype(a)) return err;
    if (a.index.rank != a.x.rank || a.src.rank != a.x.rank) {
        return "scatter_add: index and src must have x's rank";
    }
    for (uint32_t i = 0; i < a.x.rank; ++i) {
        if (static_cast<int64_t>(i) == a.dim) continue;
        if (a.index.dims[i] != a.x.dims[i]) {
            return "scatter_add: opgen supports an index of x's size in every dim but dim (torch also allows "
                   "a smaller one)";
        }
        if (a.src.dims[i] != a.index.dims[i]) {
            return "scatter_add: opgen supports a src of index's size in every dim but dim (torch also allows "
                   "a larger one)";
        }
    }
    t.count = a.x.rank == 0 ? h::Numel(a.index) : static_cast<uint64_t>(a.index.dims[a.dim]);
    const uint64_t srcAxis = a.x.rank == 0 ? h::Numel(a.src) : static_cast<uint64_t>(a.src.dims[a.dim]);
    if (srcAxis < t.count) return "scatter_add: src must be at least index's size along dim";
    t.ints[0] = static_cast<int64_t>(srcAxis);
    const uint64_t perElem = h::AccBytes(a.dtypeBytes) + a.indexBytes;
    const uint64_t slab = t.axis * t.inner, run = t.count * t.inner;  // y's and index's per outer
    if (const char* err = h::SizeTile(a, perElem, slab > run ? slab : run, t)) return err;
    t.units = t.outer * h::Ceil(t.axis * t.inner, t.tileElems);
    return h::Spread(a, t);
}

// torch.cumsum(x, dim). outBytes is y's element size: 8 for an integer x (int64 result, the
// kernel's integer path), x's size for a floating x. Units: outer x pieces of inner (inner > 1)
// or rows (inner == 1, dim last).
inline const char* TileCumSum(const HostArgs& a, IndexTiling& t)
{
    namespace h = accumulate_host;
    if (const char* err = h::Split(a, t)) return err;
    if (const char* err = h::CheckCumSumDtypes(a)) return err;
    const uint32_t outBytes = a.outBytes == 0 ? a.dtypeBytes : a.outBytes;
    // The integer path: an int64 acc and a T stage; the floating one: acc, add (float) and a stage.
    const uint64_t perElem = outBytes == 8 ? 8 + uint64_t{a.dtypeBytes} : 4 + 4 + uint64_t{a.dtypeBytes};
    t.count = t.axis;
    if (const char* err = h::SizeTile(a, perElem, t.inner == 1 ? t.axis : t.inner, t)) return err;
    t.units = t.inner == 1 ? t.outer : t.outer * h::Ceil(t.inner, t.tileElems);
    return h::Spread(a, t);
}

}  // namespace opgen_index

#endif  // OPGEN_INDEX_ACCUMULATE_TILING_H
