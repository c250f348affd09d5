// The float variant of op_kernel/sync_roll_custom.cpp (README "Dtype variants").
#include "kernel_operator.h"
#include "sync_roll_custom_tiling.h"

#define DTYPE_X float
#define DTYPE_Y float
#define sync_roll_custom opgen_kernel_sync_roll_custom_fp32
namespace opgen_variant_sync_roll_custom_fp32 {
#include "sync_roll_custom.cpp"
}  // namespace opgen_variant_sync_roll_custom_fp32
