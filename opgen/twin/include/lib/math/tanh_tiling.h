#pragma once
// opgen CPU twin: forwards to the emulated high-level API tiling functions.
#include "opgen_twin/host_tiling.h"
