#ifndef HEAVISIDE_CUSTOM_TILING_H
#define HEAVISIDE_CUSTOM_TILING_H

#include <cstdint>

struct HeavisideCustomTilingData {
    uint32_t totalLength;  // elements of x (= values = y)
    uint32_t blockLength;  // elements per core, a multiple of 32 bytes (the last core may get fewer)
    uint32_t tileLength;   // elements per UB tile, a multiple of 256 bytes (CompareScalar's unit)
};

#endif  // HEAVISIDE_CUSTOM_TILING_H
