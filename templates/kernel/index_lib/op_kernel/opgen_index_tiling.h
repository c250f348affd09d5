// opgen's index-op library: the tiling every index op's kernel reads, filled on the host by the
// op's Tile* function (op_host/opgen_index_*_tiling.h, templates/host/index_lib) and read by its kernel template
// (op_kernel/opgen_index_*.h). Plain C++: the host code and the kernel both include it.
#ifndef OPGEN_INDEX_TILING_H
#define OPGEN_INDEX_TILING_H

#include <cstdint>

namespace opgen_index {

constexpr uint32_t MAX_RANK = 8;
constexpr uint32_t MAX_INTS = 8;

// What the host knows when it tiles an index op: the shapes, the op's dim (normalised to
// [0, rank)), its int arguments in the grammar's order (roll's shift, topk's k and largest,
// one_hot's num_classes, pooling's kernel/stride/padding, ...), the element sizes and the chip.
struct Shape {
    int64_t dims[MAX_RANK];
    uint32_t rank;
};

struct HostArgs {
    Shape x;      // the data input (index_select's x, topk's x, the pooled input, ...)
    Shape index;  // the index input; rank 0 when the op has none
    Shape src;    // scatter_add's / index_add's src; rank 0 otherwise
    int64_t dim;
    int64_t ints[MAX_INTS];
    uint32_t dtypeBytes;  // x's element size
    uint32_t indexBytes;  // the index input's element size (4 or 8), 0 when none
    uint32_t outBytes;    // the index output's element size (argmax, topk/sort .indices, one_hot)
    uint32_t coreNum;     // vector cores
    uint64_t ubBytes;     // UB size per vector core
};

// The tiling: x seen as [outer, axis, inner] around dim; the work split in units (what a unit
// is, a row or an output element, each kind's header says) over usedCores cores, unitsPerCore
// each and the last core the rest; ints carries the kind's own values.
struct IndexTiling {
    uint64_t outer;
    uint64_t axis;
    uint64_t inner;
    uint64_t count;  // the output's size along dim (index length, k, num_classes, ...)
    uint64_t units;
    uint64_t unitsPerCore;
    uint32_t usedCores;
    uint32_t tileElems;  // elements per UB tile
    int64_t ints[MAX_INTS];
};

}  // namespace opgen_index

#endif  // OPGEN_INDEX_TILING_H
