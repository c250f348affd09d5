// Two dtype variants of the unchanged op_kernel/add_custom.cpp in ONE translation unit.
// Pattern (see opgen/twin/README.md "Dtype variants"): pre-include every header the kernel
// includes (their include guards then make the kernel's own #includes no-ops), define the
// DTYPE_* macros, rename the extern "C" entry with a macro, and wrap the kernel in a
// namespace so its classes/constants (KernelAdd, BUFFER_NUM) get distinct mangled names.
#include "kernel_operator.h"
#include "add_custom_tiling.h"

#define DTYPE_X half
#define DTYPE_Y half
#define DTYPE_Z half
#define add_custom opgen_kernel_add_custom_fp16
namespace opgen_variant_add_custom_fp16 {
#include "add_custom.cpp"
}  // namespace opgen_variant_add_custom_fp16
#undef add_custom
#undef DTYPE_X
#undef DTYPE_Y
#undef DTYPE_Z

#define DTYPE_X float
#define DTYPE_Y float
#define DTYPE_Z float
#define add_custom opgen_kernel_add_custom_fp32
namespace opgen_variant_add_custom_fp32 {
#include "add_custom.cpp"
}  // namespace opgen_variant_add_custom_fp32
#undef add_custom
#undef DTYPE_X
#undef DTYPE_Y
#undef DTYPE_Z
