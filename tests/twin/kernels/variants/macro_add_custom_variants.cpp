// The dtype variants of kernels/macro_add/op_kernel/macro_add_custom.cpp, a kernel with macro-style
// tiling (opgen/twin/README.md "Macro-style tiling"): OPGEN_TWIN_KERNEL_TILING before the first
// include of register/tilingdata_base.h makes the op's host tiling header define the kernel's
// struct; OPGEN_TWIN_OP_TYPE names the op whose REGISTER_TILING_DATA_CLASS gives GET_TILING_DATA
// its type. Then the usual steps: pre-include, DTYPE_* macros, renamed entry, per-variant namespace.
#include "kernel_operator.h"
#include "opgen_twin/kernel_type.h"
#define OPGEN_TWIN_KERNEL_TILING
#include "register/tilingdata_base.h"
#include "macro_add_custom_tiling.h"
#define OPGEN_TWIN_OP_TYPE MacroAddCustom

#define DTYPE_X half
#define DTYPE_Y half
#define DTYPE_Z half
#define macro_add_custom opgen_kernel_macro_add_custom_fp16
namespace opgen_variant_macro_add_custom_fp16 {
#include "macro_add_custom.cpp"
}  // namespace opgen_variant_macro_add_custom_fp16
#undef macro_add_custom
#undef DTYPE_X
#undef DTYPE_Y
#undef DTYPE_Z

#define DTYPE_X float
#define DTYPE_Y float
#define DTYPE_Z float
#define macro_add_custom opgen_kernel_macro_add_custom_fp32
namespace opgen_variant_macro_add_custom_fp32 {
#include "macro_add_custom.cpp"
}  // namespace opgen_variant_macro_add_custom_fp32
#undef macro_add_custom
