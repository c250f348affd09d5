// opgen CPU twin: lib/matmul_intf.h (same include name as CANN): the Matmul high-level API,
// AscendC::Matmul (also matmul::Matmul), MatmulType, CubeFormat, MatmulConfig/CFG_NORM/CFG_MDL and
// REGIST_MATMUL_OBJ. See opgen_twin/detail/kernel_matmul.h and opgen/twin/README.md ("Matmul").
#ifndef OPGEN_TWIN_LIB_MATMUL_INTF_H
#define OPGEN_TWIN_LIB_MATMUL_INTF_H

#include "kernel_operator.h"
#include "opgen_twin/detail/kernel_matmul.h"

// Whether this translation unit defined ASCENDC_CUBE_ONLY before including this header (a pure cube
// kernel: REGIST_MATMUL_OBJ then takes an undeclared kernel type as KERNEL_TYPE_AIC_ONLY).
namespace {
struct opgen_twin_matmul_cube_only {
#ifdef ASCENDC_CUBE_ONLY
    static constexpr bool value = true;
#else
    static constexpr bool value = false;
#endif
};
}  // namespace

#endif  // OPGEN_TWIN_LIB_MATMUL_INTF_H
