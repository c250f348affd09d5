// opgen CPU twin: forwards to the OpDef emulation (same include name as CANN).
#ifndef OPGEN_TWIN_REGISTER_OP_DEF_H
#define OPGEN_TWIN_REGISTER_OP_DEF_H
#include "opgen_twin/op_def.h"
#endif
