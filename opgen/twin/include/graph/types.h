// opgen CPU twin: forwards to the ge types emulation (same include name as CANN).
#ifndef OPGEN_TWIN_GRAPH_TYPES_H
#define OPGEN_TWIN_GRAPH_TYPES_H
#include "opgen_twin/ge_types.h"
#endif
