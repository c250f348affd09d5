// opgen's index-op library, host side of the gather group: IndexSelect, Gather, Roll, OneHot.
// Each Tile* fills opgen_index::IndexTiling for its kernel (op_kernel/opgen_index_gather.h) and
// returns nullptr, or a text saying why the shapes cannot run. Plain C++, no kernel API.
//
// What a unit is, per kind (the work is split in units over usedCores cores, unitsPerCore each):
//   IndexSelect: one output row of `inner` elements (units = outer * count).
//   Gather:      one output row of `inner` elements (units = outer * count); ints[0] = the UB bytes
//                of the x slab [axis, inner] a core holds (with 32 + 1 element of zeros).
//   Roll:        one output element (units = numel); ints[0] = the shift normalised to [0, axis).
//   OneHot:      one id (units = numel(x)); count = num_classes; y is [units, count].
// tileElems: elements of the moved type per UB tile (x's type; OneHot: y's type).
#ifndef OPGEN_INDEX_GATHER_TILING_H
#define OPGEN_INDEX_GATHER_TILING_H

#include <cstdint>

#include "../op_kernel/opgen_index_tiling.h"

namespace opgen_index {

namespace gather_detail {

constexpr uint64_t kUbReserve = 1024;  // UB bytes left aside (scalar stack, alignment)
constexpr uint64_t kIndexWindowBytes = 256 * 8;  // the kernel's window of indices (kIndexWindow)

inline uint64_t Numel(const Shape& s)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < s.rank; ++d) n *= static_cast<uint64_t>(s.dims[d]);
    return n;
}

// x seen as [outer, axis, inner] around dim (a 0-d x is [1, 1, 1]).
inline void SplitAround(const Shape& x, int64_t dim, IndexTiling& t)
{
    t.outer = 1;
    t.axis = 1;
    t.inner = 1;
    for (uint32_t d = 0; d < x.rank; ++d) {
        const uint64_t n = static_cast<uint64_t>(x.dims[d]);
        if (static_cast<int64_t>(d) < dim) t.outer *= n;
        if (static_cast<int64_t>(d) == dim) t.axis = n;
        if (static_cast<int64_t>(d) > dim) t.inner *= n;
    }
}

// Splits t.units over at most coreNum cores, at least minPerCore units each (1 core for none).
inline void SplitCores(const HostArgs& a, uint64_t minPerCore, IndexTiling& t)
{
    const uint64_t cores = a.coreNum == 0 ? 1 : a.coreNum;
    uint64_t per = (t.units + cores - 1) / cores;
    if (per < minPerCore) per = minPerCore;
    t.unitsPerCore = per;
    t.usedCores = t.units == 0 ? 1 : static_cast<uint32_t>((t.units + per - 1) / per);
}

// Elements of `bytes`-byte size in a tile of at most `budget` UB bytes, a whole number of
// 32-byte blocks; 0 when not even one block fits.
inline uint32_t TileElemsFor(uint64_t budget, uint64_t bytesPerElem)
{
    const uint64_t perBlockGroup = 32 * bytesPerElem;  // 32 elements: every buffer stays 32-byte aligned
    const uint64_t groups = budget / perBlockGroup;
    const uint64_t elems = groups * 32;
    return static_cast<uint32_t>(elems > 0x7fffffffu ? 0x7fffffffu : elems);
}

inline void Clear(IndexTiling& t)
{
    t = IndexTiling{};
}

inline bool IsByteSize(uint32_t b)
{
    return b == 1 || b == 2 || b == 4 || b == 8;
}

inline const char* CheckCommon(const HostArgs& a, const Shape& data, uint32_t dataBytes)
{
    if (!IsByteSize(dataBytes)) return "opgen_index: the data element size must be 1, 2, 4 or 8 bytes";
    if (data.rank > MAX_RANK) return "opgen_index: rank above MAX_RANK (8)";
    if (a.ubBytes <= kUbReserve + 64) return "opgen_index: ubBytes too small";
    return nullptr;
}

}  // namespace gather_detail

// index_select(x, dim, index): index 1-D of TIdx (indexBytes 4 or 8).
inline const char* TileIndexSelect(const HostArgs& a, IndexTiling& t)
{
    gather_detail::Clear(t);
    if (const char* e = gather_detail::CheckCommon(a, a.x, a.dtypeBytes)) return e;
    if (a.index.rank > 1) return "IndexSelect: index must be 0-d or 1-D (torch.index_select)";
    if (a.indexBytes != 4 && a.indexBytes != 8) return "IndexSelect: index must be int32 or int64";
    gather_detail::SplitAround(a.x, a.dim, t);
    t.count = gather_detail::Numel(a.index);
    t.units = t.outer * t.count;
    if (a.ubBytes < gather_detail::kUbReserve + gather_detail::kIndexWindowBytes + 32 * 8) {
        return "IndexSelect: ubBytes too small";
    }
    const uint64_t ub = a.ubBytes - gather_detail::kUbReserve - gather_detail::kIndexWindowBytes;
    t.tileElems = gather_detail::TileElemsFor(ub, a.dtypeBytes);
    gather_detail::SplitCores(a, 1, t);
    return nullptr;
}

// torch.gather(x, dim, index): index has x's rank and x's sizes except along dim (the kernel
// refuses a smaller index in another dim), any size along dim.
inline const char* TileGather(const HostArgs& a, IndexTiling& t)
{
    gather_detail::Clear(t);
    if (const char* e = gather_detail::CheckCommon(a, a.x, a.dtypeBytes)) return e;
    if (a.indexBytes != 4 && a.indexBytes != 8) return "Gather: index must be int32 or int64";
    if (a.index.rank != a.x.rank) return "Gather: index must have x's rank (torch.gather)";
    for (uint32_t d = 0; d < a.x.rank; ++d) {
        if (static_cast<int64_t>(d) != a.dim && a.index.dims[d] != a.x.dims[d]) {
            return "Gather: index.size(d) differs from x.size(d) for a d other than dim; this kernel "
                   "gathers only an index of x's sizes outside dim";
        }
    }
    gather_detail::SplitAround(a.x, a.dim, t);
    t.count = a.x.rank == 0 ? 1 : static_cast<uint64_t>(a.index.dims[a.dim]);
    if (gather_detail::Numel(a.index) == 0) t.count = 0;
    t.units = t.inner == 0 ? 0 : t.outer * t.count;
    // The slab x[o] = [axis, inner] after a 32-byte block of zeros and before one zero element
    // (the targets of an out-of-range index).
    const uint64_t slabBytes = 32 + ((t.axis * t.inner + 1) * a.dtypeBytes + 31) / 32 * 32;
    t.ints[0] = static_cast<int64_t>(slabBytes);
    const uint64_t ub = a.ubBytes - gather_detail::kUbReserve;
    if (slabBytes >= 0xffffffffull || slabBytes + 32 * 64 > ub) {
        return "Gather: x's slab along dim and the dims after it ([x.size(dim), inner]) does not fit "
               "the UB next to the tiles; the UB Gather reads it whole";
    }
    // Per element: the output (T), the offsets (uint32_t, two per 8-byte element), the index.
    const uint64_t perElem = a.dtypeBytes + (a.dtypeBytes == 8 ? 8 : 4) + a.indexBytes;
    t.tileElems = gather_detail::TileElemsFor(ub - slabBytes, perElem);
    if (t.tileElems == 0) return "Gather: no UB left for a tile next to x's slab";
    gather_detail::SplitCores(a, 1, t);
    return nullptr;
}

// torch.roll(x, shift, dim) with one dim; several dims are several rolls the caller chains.
inline const char* TileRoll(const HostArgs& a, IndexTiling& t)
{
    gather_detail::Clear(t);
    if (const char* e = gather_detail::CheckCommon(a, a.x, a.dtypeBytes)) return e;
    gather_detail::SplitAround(a.x, a.dim, t);
    t.count = t.axis;
    const int64_t axis = static_cast<int64_t>(t.axis);
    t.ints[0] = axis == 0 ? 0 : ((a.ints[0] % axis) + axis) % axis;
    t.units = gather_detail::Numel(a.x);
    t.tileElems = gather_detail::TileElemsFor(a.ubBytes - gather_detail::kUbReserve, a.dtypeBytes);
    // At least one 32-byte block per core: cores write disjoint byte ranges anyway.
    gather_detail::SplitCores(a, 32 / a.dtypeBytes > 0 ? 32 / a.dtypeBytes : 1, t);
    return nullptr;
}

// one_hot(x, num_classes = ints[0]): x the ids (indexBytes... given as dtypeBytes of x, 4 or 8),
// y of outBytes per element.
inline const char* TileOneHot(const HostArgs& a, IndexTiling& t)
{
    gather_detail::Clear(t);
    if (const char* e = gather_detail::CheckCommon(a, a.x, a.outBytes)) return e;
    if (a.dtypeBytes != 4 && a.dtypeBytes != 8) return "OneHot: the ids must be int32 or int64";
    if (a.ints[0] <= 0) {
        return "OneHot: num_classes must be given and positive (the kernel cannot infer max(x) + 1; "
               "the caller computes it)";
    }
    t.units = gather_detail::Numel(a.x);
    t.outer = t.units;
    t.axis = 1;
    t.inner = 1;
    t.count = static_cast<uint64_t>(a.ints[0]);
    t.ints[0] = a.ints[0];
    if (a.ubBytes < gather_detail::kUbReserve + gather_detail::kIndexWindowBytes + 32 * 8) {
        return "OneHot: ubBytes too small";
    }
    const uint64_t ub = a.ubBytes - gather_detail::kUbReserve - gather_detail::kIndexWindowBytes;
    t.tileElems = gather_detail::TileElemsFor(ub, a.outBytes);
    gather_detail::SplitCores(a, 1, t);
    return nullptr;
}

}  // namespace opgen_index

#endif  // OPGEN_INDEX_GATHER_TILING_H
