// opgen CPU twin: host-side tiling umbrella (same include name as CANN). Emulated: the platform
// query, the Tanh/Sigmoid tmp-size functions and the Matmul tiling (matmul_tiling::
// MultiCoreMatmulTiling / MatmulApiTiling filling AscendC::tiling::TCubeTiling).
#ifndef OPGEN_TWIN_TILING_API_H
#define OPGEN_TWIN_TILING_API_H
#ifdef OPGEN_TWIN_KERNEL_TILING
// A macro-style tiling header compiled for the kernel (opgen_twin/kernel_tiling_macros.h): only
// the API tiling structs its TILING_DATA_FIELD_DEF_STRUCT fields name (::TCubeTiling).
#include "kernel_tiling/kernel_tiling.h"
#else
#include "opgen_twin/host_tiling.h"
#include "tiling/platform/platform_ascendc.h"
#include "kernel_tiling/kernel_tiling.h"
#include "opgen_twin/matmul_tiling.h"
#endif
#endif
