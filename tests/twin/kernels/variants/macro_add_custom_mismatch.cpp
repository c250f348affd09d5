// A kernel built from a newer tiling header than the host's (one more field): its struct is 48
// bytes, the host saves 40; GET_TILING_DATA must report it.
#include "kernel_operator.h"
#include "opgen_twin/kernel_type.h"
#define OPGEN_TWIN_KERNEL_TILING
#define MACRO_ADD_KERNEL_EXTRA_FIELD
#include "register/tilingdata_base.h"
#include "macro_add_custom_tiling.h"
#define OPGEN_TWIN_OP_TYPE MacroAddCustom

#define DTYPE_X float
#define DTYPE_Y float
#define DTYPE_Z float
#define macro_add_custom opgen_kernel_macro_add_custom_mismatch_fp32
namespace opgen_variant_macro_add_custom_mismatch_fp32 {
#include "macro_add_custom.cpp"
}  // namespace opgen_variant_macro_add_custom_mismatch_fp32
