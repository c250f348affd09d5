// One dtype variant (half) of the unchanged op_kernel/gelu_custom.cpp per translation unit.
// See opgen/twin/README.md "Dtype variants".
#include "kernel_operator.h"
#include "gelu_custom_tiling.h"

#define DTYPE_X half
#define DTYPE_Y half
#define gelu_custom opgen_kernel_gelu_custom_fp16
namespace opgen_variant_gelu_custom_fp16 {
#include "gelu_custom.cpp"
}  // namespace opgen_variant_gelu_custom_fp16
