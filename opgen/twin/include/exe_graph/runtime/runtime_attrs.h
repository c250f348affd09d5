// opgen CPU twin: forwards to the gert emulation (same include name as CANN).
#ifndef OPGEN_TWIN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H
#define OPGEN_TWIN_EXE_GRAPH_RUNTIME_RUNTIME_ATTRS_H
#include "opgen_twin/gert.h"
#endif
