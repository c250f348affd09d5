// opgen CPU twin: kernel_tiling/kernel_tiling.h (same include name as CANN, where it is generated
// from the *_tilingdata.h headers). Only the high-level API tiling structs the twin emulates:
// AscendC::tiling::TCubeTiling, the Matmul tiling, with the fields of asc-devkit
// include/adv_api/matmul/matmul_tilingdata.h in their order (all int32_t, 8-byte packing as
// generated), also visible as ::TCubeTiling like CANN's generated header exports it.
// Plain C++ (no macros): usable from a struct-style op tiling header on the host and the kernel.
#ifndef OPGEN_TWIN_KERNEL_TILING_H
#define OPGEN_TWIN_KERNEL_TILING_H

#include <cstdint>

namespace AscendC {
namespace tiling {
#pragma pack(push, 8)
struct TCubeTiling {
    int32_t usedCoreNum = 0;
    int32_t M = 0;
    int32_t N = 0;
    int32_t Ka = 0;
    int32_t Kb = 0;
    int32_t singleCoreM = 0;
    int32_t singleCoreN = 0;
    int32_t singleCoreK = 0;
    int32_t baseM = 0;
    int32_t baseN = 0;
    int32_t baseK = 0;
    int32_t depthA1 = 0;
    int32_t depthB1 = 0;
    int32_t stepM = 0;
    int32_t stepN = 0;
    int32_t isBias = 0;
    int32_t transLength = 0;
    int32_t iterateOrder = 0;
    int32_t shareMode = 0;
    int32_t shareL1Size = 0;
    int32_t shareL0CSize = 0;
    int32_t shareUbSize = 0;
    int32_t batchM = 0;
    int32_t batchN = 0;
    int32_t singleBatchM = 0;
    int32_t singleBatchN = 0;
    int32_t stepKa = 0;
    int32_t stepKb = 0;
    int32_t depthAL1CacheUB = 0;
    int32_t depthBL1CacheUB = 0;
    int32_t dbL0A = 0;
    int32_t dbL0B = 0;
    int32_t dbL0C = 0;
    int32_t ALayoutInfoB = 0;
    int32_t ALayoutInfoS = 0;
    int32_t ALayoutInfoN = 0;
    int32_t ALayoutInfoG = 0;
    int32_t ALayoutInfoD = 0;
    int32_t BLayoutInfoB = 0;
    int32_t BLayoutInfoS = 0;
    int32_t BLayoutInfoN = 0;
    int32_t BLayoutInfoG = 0;
    int32_t BLayoutInfoD = 0;
    int32_t CLayoutInfoB = 0;
    int32_t CLayoutInfoS1 = 0;
    int32_t CLayoutInfoN = 0;
    int32_t CLayoutInfoG = 0;
    int32_t CLayoutInfoS2 = 0;
    int32_t BatchNum = 0;
    int32_t mxTypePara = 0;
};
#pragma pack(pop)
static_assert(sizeof(TCubeTiling) == 50 * sizeof(int32_t), "TCubeTiling: 50 int32_t fields");
}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::TCubeTiling;

#endif  // OPGEN_TWIN_KERNEL_TILING_H
