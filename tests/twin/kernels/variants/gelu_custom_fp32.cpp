// One dtype variant (float) of the unchanged op_kernel/gelu_custom.cpp per translation unit.
// See opgen/twin/README.md "Dtype variants".
#include "kernel_operator.h"
#include "gelu_custom_tiling.h"

#define DTYPE_X float
#define DTYPE_Y float
#define gelu_custom opgen_kernel_gelu_custom_fp32
namespace opgen_variant_gelu_custom_fp32 {
#include "gelu_custom.cpp"
}  // namespace opgen_variant_gelu_custom_fp32
