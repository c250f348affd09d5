#pragma once
// opgen CPU twin: GetBroadCastMaxMinTmpSize (asc-devkit adv_api/pad/broadcast_tiling.h).
#include "opgen_twin/host_tiling.h"
