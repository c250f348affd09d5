// opgen CPU twin: host-side tiling umbrella (same include name as CANN). Only the
// platform query and the Tanh/Sigmoid tmp-size functions are emulated.
#ifndef OPGEN_TWIN_TILING_API_H
#define OPGEN_TWIN_TILING_API_H
#include "opgen_twin/host_tiling.h"
#include "tiling/platform/platform_ascendc.h"
#endif
