#ifndef MATMUL_LEAKY_CUSTOM_TILING_H
#define MATMUL_LEAKY_CUSTOM_TILING_H

#include <cstdint>

#include "kernel_tiling/kernel_tiling.h"

// A plain (struct-style) tiling struct embedding the Matmul API's TCubeTiling.
struct MatmulLeakyCustomTilingData {
    AscendC::tiling::TCubeTiling cubeTiling;
    float alpha;         // LeakyReLU slope of the epilogue
    uint32_t transA;     // A is [K, M]
    uint32_t transB;     // B is [N, K]
    uint32_t hasBias;
    uint32_t mode;       // 0: Iterate + GetTensorC into UB + LeakyReLU epilogue; 1: IterateAll into GM
};

#endif  // MATMUL_LEAKY_CUSTOM_TILING_H
