// opgen CPU twin: host-side registration header (same include name as CANN). Brings in
// ops::OpDef & co., OP_ADD, the gert contexts and ge types.
#ifndef OPGEN_TWIN_REGISTER_OP_DEF_REGISTRY_H
#define OPGEN_TWIN_REGISTER_OP_DEF_REGISTRY_H

#include <iostream>  // CANN's register/op_def.h includes it: host files use std::cout without including it

#include "opgen_twin/ge_types.h"
#include "opgen_twin/gert.h"
#include "opgen_twin/op_def.h"

#endif  // OPGEN_TWIN_REGISTER_OP_DEF_REGISTRY_H
