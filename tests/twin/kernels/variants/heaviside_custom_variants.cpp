// The fp16 and fp32 variants of kernels/heaviside/op_kernel/heaviside_custom.cpp in one TU (see
// opgen/twin/README.md "Dtype variants in one binary").
#include "kernel_operator.h"
#include "opgen_twin/kernel_type.h"
#include "heaviside_custom_tiling.h"

#define DTYPE_X half
#define heaviside_custom opgen_kernel_heaviside_custom_fp16
namespace opgen_variant_heaviside_custom_fp16 {
#include "heaviside_custom.cpp"
}  // namespace opgen_variant_heaviside_custom_fp16
#undef heaviside_custom
#undef DTYPE_X

#define DTYPE_X float
#define heaviside_custom opgen_kernel_heaviside_custom_fp32
namespace opgen_variant_heaviside_custom_fp32 {
#include "heaviside_custom.cpp"
}  // namespace opgen_variant_heaviside_custom_fp32
#undef heaviside_custom
#undef DTYPE_X
