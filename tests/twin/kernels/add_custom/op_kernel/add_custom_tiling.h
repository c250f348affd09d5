#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H

#include <cstdint>

struct AddCustomTilingData {
    uint32_t totalLength;   // elements of x (= y = z)
    uint32_t formerNum;     // the first formerNum cores take formerLength elements
    uint32_t formerLength;  // elements, multiple of 32 bytes
    uint32_t tailLength;    // elements for the other cores (the last core may get fewer)
    uint32_t tileLength;    // elements per UB tile, multiple of 32 bytes
};

#endif  // ADD_CUSTOM_TILING_H
