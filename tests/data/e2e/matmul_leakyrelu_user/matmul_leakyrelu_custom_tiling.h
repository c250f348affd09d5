// MatmulLeakyreluCustom tiling data: a hand-written cube op's, as a user writes it in place of
// opgen's skeleton (tests/test_golden_only.py). The Matmul API's own tiling (TCubeTiling, filled
// by matmul_tiling::MultiCoreMatmulTiling on the host) travels inside the op's struct.
#ifndef MATMUL_LEAKYRELU_CUSTOM_TILING_H
#define MATMUL_LEAKYRELU_CUSTOM_TILING_H

#include <cstdint>

#include "kernel_tiling/kernel_tiling.h"

struct MatmulLeakyreluCustomTilingData {
    uint32_t blockDim;  // cube cores the launch uses: each drives two vector cores
    float alpha;        // the negative slope
    AscendC::tiling::TCubeTiling cubeTiling;
};

#endif  // MATMUL_LEAKYRELU_CUSTOM_TILING_H
