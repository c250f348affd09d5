// The float variant of the unchanged op_kernel/list_sum_custom.cpp (README "Dtype variants").
// Only this one is compiled: an fp16 call finds no kernel variant.
#include "kernel_operator.h"
#include "list_sum_custom_tiling.h"

#define DTYPE_X float
#define DTYPE_BIAS float
#define DTYPE_PARTS float
#define DTYPE_Y float
#define DTYPE_REST float
#define list_sum_custom opgen_kernel_list_sum_custom_fp32
namespace opgen_variant_list_sum_custom_fp32 {
#include "list_sum_custom.cpp"
}  // namespace opgen_variant_list_sum_custom_fp32
