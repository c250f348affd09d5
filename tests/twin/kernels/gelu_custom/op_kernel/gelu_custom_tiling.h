#ifndef GELU_CUSTOM_TILING_H
#define GELU_CUSTOM_TILING_H

#include <cstdint>

struct GeluCustomTilingData {
    uint32_t totalLength;   // elements
    uint32_t formerNum;     // cores [0, formerNum) take formerLength elements
    uint32_t formerLength;
    uint32_t tailLength;
    uint32_t tileLength;    // elements per tile, multiple of 32 bytes of DTYPE_X
    uint32_t tmpBufSize;    // bytes of Tanh scratch (GetTanhMaxMinTmpSize for float)
};

#endif  // GELU_CUSTOM_TILING_H
