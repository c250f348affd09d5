// One dtype variant (bfloat16_t) of the unchanged op_kernel/gelu_custom.cpp per translation unit.
// See opgen/twin/README.md "Dtype variants".
#include "kernel_operator.h"
#include "gelu_custom_tiling.h"

#define DTYPE_X bfloat16_t
#define DTYPE_Y bfloat16_t
#define gelu_custom opgen_kernel_gelu_custom_bf16
namespace opgen_variant_gelu_custom_bf16 {
#include "gelu_custom.cpp"
}  // namespace opgen_variant_gelu_custom_bf16
