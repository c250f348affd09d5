// opgen's index-op library, the "select" group's host side: the tiling of ArgMax, ArgMin, TopK
// and Sort (kernels in op_kernel/opgen_index_select.h). Plain C++.
//
// x is seen as [outer, axis, inner] around dim; the units are split over the cores. TopK/Sort
// work on the last axis only: a dim with axes after it (inner > 1) is refused, the caller moves
// it last (a transpose) first. What the tiling carries:
//   ArgMax/ArgMin: count = 1. inner == 1: a unit is a row, tileElems the float elements per UB
//     tile (a multiple of 64), a longer row runs in tiles. inner > 1: a unit is (outer row,
//     chunk of tileElems columns of inner); the axis (at most 2^24) is walked row by row.
//   TopK: count = k (HostArgs ints[0]), ints[0] = k, ints[1] = largest (1/0); Sort: count =
//     the row's length, ints[1] = descending (HostArgs ints[0]). tileElems = the row rounded up
//     to 64: the whole row is in UB, and a row that does not fit (or is over 8160, Sort32's 255
//     repeats) is refused.
#ifndef OPGEN_INDEX_SELECT_TILING_H
#define OPGEN_INDEX_SELECT_TILING_H

#include <cstdint>

#include "../op_kernel/opgen_index_tiling.h"

namespace opgen_index {

namespace select_tiling {

constexpr uint64_t kUbReserve = 8192 + 1024;  // Select's 8 KB (Select.md), the small buffers
constexpr uint64_t kMaxArgTile = 8192;
constexpr uint64_t kMaxSortRow = 255 * 32;  // Sort32's repeatTime <= 255

inline uint64_t RoundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// x as [outer, axis] around dim; nullptr, or why not.
inline const char* RowsOf(const HostArgs& a, IndexTiling& t)
{
    if (a.x.rank > MAX_RANK || a.dim < 0 || (a.x.rank > 0 && a.dim >= static_cast<int64_t>(a.x.rank))) {
        return "opgen_index select: dim is outside x's rank";
    }
    t = IndexTiling{};
    t.outer = 1;
    t.axis = 1;
    t.inner = 1;
    for (uint32_t d = 0; d < a.x.rank; ++d) {
        const uint64_t size = static_cast<uint64_t>(a.x.dims[d]);
        if (static_cast<int64_t>(d) < a.dim) t.outer *= size;
        if (static_cast<int64_t>(d) == a.dim) t.axis = size;
        if (static_cast<int64_t>(d) > a.dim) t.inner *= size;
    }
    if (a.dtypeBytes != 2 && a.dtypeBytes != 4) return "opgen_index select: x is half, bfloat16 or float";
    if (a.outBytes != 4 && a.outBytes != 8) return "opgen_index select: the index output is int32 or int64";
    return nullptr;
}

inline void SplitRows(const HostArgs& a, IndexTiling& t)
{
    t.units = t.outer;
    const uint64_t cores = a.coreNum == 0 ? 1 : a.coreNum;
    t.unitsPerCore = (t.units + cores - 1) / cores;
    if (t.unitsPerCore == 0) t.unitsPerCore = 1;
    t.usedCores = static_cast<uint32_t>((t.units + t.unitsPerCore - 1) / t.unitsPerCore);
}

// ArgMax/ArgMin over a dim with axes after it: units are (outer row, chunk of tileElems columns
// of inner), each column's running best in UB while the axis is walked row by row.
inline const char* TileArgColumns(const HostArgs& a, IndexTiling& t)
{
    if (t.axis > (uint64_t{1} << 24)) {
        return "opgen_index ArgMax/ArgMin: a dim with axes after it longer than 2^24 (its index is kept in float)";
    }
    // per column: x, its float copy, the best, the row number, the best's row (4 each), three
    // masks, the int64 result
    const uint64_t perElem = a.dtypeBytes + 16 + 1 + 8;
    if (a.ubBytes <= kUbReserve + 64 * perElem) return "opgen_index ArgMax/ArgMin: UB is too small for 64 columns";
    uint64_t tile = (a.ubBytes - kUbReserve) / perElem / 64 * 64;
    if (tile > kMaxArgTile) tile = kMaxArgTile;
    const uint64_t columns = RoundUp(t.inner, 64);
    t.tileElems = static_cast<uint32_t>(columns < tile ? columns : tile);
    t.count = 1;
    t.units = t.outer * ((t.inner + t.tileElems - 1) / t.tileElems);
    const uint64_t cores = a.coreNum == 0 ? 1 : a.coreNum;
    t.unitsPerCore = (t.units + cores - 1) / cores;
    if (t.unitsPerCore == 0) t.unitsPerCore = 1;
    t.usedCores = static_cast<uint32_t>((t.units + t.unitsPerCore - 1) / t.unitsPerCore);
    return nullptr;
}

inline const char* TileArg(const HostArgs& a, IndexTiling& t)
{
    const char* why = RowsOf(a, t);
    if (why != nullptr) return why;
    if (t.axis == 0) return "opgen_index ArgMax/ArgMin: the reduced dim is empty (torch refuses it too)";
    if (t.inner > 1) return TileArgColumns(a, t);
    // per element: x, its float copy (4), the NE mask and the calIndex work space (under 1)
    const uint64_t perElem = a.dtypeBytes + 4 + 1;
    const uint64_t fixed = kUbReserve + 256 * 8;  // and the 256 results gathered before a copy out
    if (a.ubBytes <= fixed + 64 * perElem) return "opgen_index ArgMax/ArgMin: UB is too small for a 64-element tile";
    uint64_t tile = (a.ubBytes - fixed) / perElem / 64 * 64;
    if (tile > kMaxArgTile) tile = kMaxArgTile;
    const uint64_t rowTile = RoundUp(t.axis, 64);
    t.tileElems = static_cast<uint32_t>(rowTile < tile ? rowTile : tile);
    t.count = 1;
    SplitRows(a, t);
    return nullptr;
}

inline const char* TileSortRows(const HostArgs& a, IndexTiling& t, uint64_t k, bool descending)
{
    const char* why = RowsOf(a, t);
    if (why != nullptr) return why;
    if (t.inner != 1) {
        return "opgen_index TopK/Sort: the kernels sort the last axis only; move dim last (a transpose) before "
               "the op";
    }
    if (t.axis > kMaxSortRow) {
        return "opgen_index TopK/Sort: the row is longer than 8160 elements (Sort32's 255 repeats of 32)";
    }
    const uint64_t tile = RoundUp(t.axis == 0 ? 1 : t.axis, 64);
    // per element: x and its copy out, key, sort key, order, index (4 each), two record lists
    // (8 each), the NE mask, and the int64 indexes
    const uint64_t perElem = 2 * a.dtypeBytes + 16 + 16 + 1 + (a.outBytes == 8 ? 8 : 0);
    if (tile * perElem + kUbReserve > a.ubBytes) {
        return "opgen_index TopK/Sort: the row does not fit in UB (the whole row is sorted in UB)";
    }
    t.tileElems = static_cast<uint32_t>(tile);
    t.count = k;
    t.ints[0] = static_cast<int64_t>(k);
    t.ints[1] = descending ? 1 : 0;
    SplitRows(a, t);
    if (t.axis == 0 || k == 0) t.usedCores = 0;  // nothing to write; the caller launches nothing
    return nullptr;
}

}  // namespace select_tiling

// Fills t for these args; nullptr, or a text saying why the shapes cannot run.
inline const char* TileArgMax(const HostArgs& a, IndexTiling& t) { return select_tiling::TileArg(a, t); }

inline const char* TileArgMin(const HostArgs& a, IndexTiling& t) { return select_tiling::TileArg(a, t); }

// ints[0] = k, ints[1] = largest (1/0).
inline const char* TileTopK(const HostArgs& a, IndexTiling& t)
{
    const int64_t k = a.ints[0];
    const int64_t axis = a.x.rank == 0 ? 1 : a.x.dims[a.dim < 0 ? 0 : a.dim];
    if (k < 0 || k > axis) return "opgen_index TopK: k is outside [0, the dim's size] (torch refuses it too)";
    return select_tiling::TileSortRows(a, t, static_cast<uint64_t>(k), a.ints[1] != 0);
}

// ints[0] = descending (1/0).
inline const char* TileSort(const HostArgs& a, IndexTiling& t)
{
    const int64_t axis = a.x.rank == 0 ? 1 : a.x.dims[a.dim < 0 ? 0 : a.dim];
    return select_tiling::TileSortRows(a, t, static_cast<uint64_t>(axis), a.ints[0] != 0);
}

}  // namespace opgen_index

#endif  // OPGEN_INDEX_SELECT_TILING_H
