// MatmulLeakyreluCustom tiling: c = leaky_relu(a @ b + bias, alpha) for a [M, K], b [K, N],
// bias [N]. The Matmul API's multi-core tiling splits C over the vector cores; its base blocks
// are capped so that a block of C (float) and its temporary fit the UB beside the API's use.
#ifndef MATMUL_LEAKYRELU_CUSTOM_TILING_POLICY_H
#define MATMUL_LEAKYRELU_CUSTOM_TILING_POLICY_H

#include <cstddef>
#include <cstdint>

#include "../op_kernel/matmul_leakyrelu_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
namespace matmul_leakyrelu_custom {

constexpr int32_t MAX_BASE_M = 128;
constexpr int32_t MAX_BASE_N = 64;

inline int64_t SplitMatmul(const platform_ascendc::PlatformAscendC& platform, int32_t m, int32_t n,
                           int32_t k, int32_t baseM, int32_t baseN, AscendC::tiling::TCubeTiling& out)
{
    using namespace matmul_tiling;
    MultiCoreMatmulTiling api(platform);
    api.SetDim(static_cast<int32_t>(platform.GetCoreNumAiv()));
    api.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16, false);
    api.SetCType(TPosition::VECIN, CubeFormat::ND_ALIGN, DataType::DT_FLOAT);
    api.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    api.SetOrgShape(m, n, k);
    api.SetShape(m, n, k);
    api.EnableBias(true);
    if (baseM > 0) {
        api.SetFixSplit(baseM, baseN, -1);
    }
    uint64_t ub = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    // the kernel's two float tiles of a base block
    const uint64_t epilogue = 2ULL * MAX_BASE_M * MAX_BASE_N * sizeof(float);
    api.SetBufferSpace(-1, -1, static_cast<int32_t>(ub - epilogue));
    return api.GetTiling(out);
}

inline ge::graphStatus PlanTiling(gert::TilingContext* context, MatmulLeakyreluCustomTilingData& tiling)
{
    const gert::Shape& a = context->GetRequiredInputShape(0)->GetStorageShape();
    const gert::Shape& b = context->GetRequiredInputShape(1)->GetStorageShape();
    const int32_t m = static_cast<int32_t>(a.GetDim(0));
    const int32_t k = static_cast<int32_t>(a.GetDim(1));
    const int32_t n = static_cast<int32_t>(b.GetDim(1));
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    // First the API's own split, then again with its base blocks capped to the kernel's UB tiles.
    if (SplitMatmul(platform, m, n, k, -1, -1, tiling.cubeTiling) == -1) {
        return ge::GRAPH_FAILED;
    }
    const int32_t baseM = tiling.cubeTiling.baseM < MAX_BASE_M ? tiling.cubeTiling.baseM : MAX_BASE_M;
    const int32_t baseN = tiling.cubeTiling.baseN < MAX_BASE_N ? tiling.cubeTiling.baseN : MAX_BASE_N;
    if (SplitMatmul(platform, m, n, k, baseM, baseN, tiling.cubeTiling) == -1) {
        return ge::GRAPH_FAILED;
    }
    tiling.alpha = *context->GetAttrs()->GetAttrPointer<float>(0);
    // a mixed kernel's block is one cube core and the vector cores it serves
    tiling.blockDim = platform.CalcTschBlockDim(static_cast<uint32_t>(tiling.cubeTiling.usedCoreNum),
                                                platform.GetCoreNumAic(), platform.GetCoreNumAiv());
    context->SetBlockDim(tiling.blockDim);
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}

}  // namespace matmul_leakyrelu_custom
}  // namespace optiling

#endif  // MATMUL_LEAKYRELU_CUSTOM_TILING_POLICY_H
