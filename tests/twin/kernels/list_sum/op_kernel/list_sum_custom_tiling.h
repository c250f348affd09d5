#ifndef LIST_SUM_CUSTOM_TILING_H
#define LIST_SUM_CUSTOM_TILING_H
#include <cstdint>

struct ListSumCustomTilingData {
    uint32_t totalLength;  // elements of x, y and of every parts/rest tensor
    uint32_t numParts;     // instances of the dynamic input `parts`
    uint32_t numRest;      // instances of the dynamic output `rest`
    uint32_t hasBias;      // the optional input `bias` is present
};

#endif  // LIST_SUM_CUSTOM_TILING_H
