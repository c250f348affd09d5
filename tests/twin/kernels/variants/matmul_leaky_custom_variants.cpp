// The dtype variants of kernels/matmul_leaky/op_kernel/matmul_leaky_custom.cpp in one TU (see
// add_custom_variants.cpp): columns fp16/fp16/float->float, fp16/fp16/half->half,
// bf16/bf16/float->bf16, bf16/bf16/half->float, float/float/float->float.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "opgen_twin/kernel_type.h"
#include "matmul_leaky_custom_tiling.h"

#define OPGEN_MM_VARIANT(NAME, A, BIAS, C)                 \
    namespace opgen_variant_matmul_leaky_custom_##NAME {   \
    using DTYPE_A = A;                                     \
    using DTYPE_BIAS = BIAS;                               \
    using DTYPE_C = C;                                     \
    }

OPGEN_MM_VARIANT(fp16_fp32, half, float, float)
OPGEN_MM_VARIANT(fp16_fp16, half, half, half)
OPGEN_MM_VARIANT(bf16_bf16, bfloat16_t, float, bfloat16_t)
OPGEN_MM_VARIANT(bf16_fp32, bfloat16_t, half, float)
OPGEN_MM_VARIANT(fp32_fp32, float, float, float)

#define matmul_leaky_custom opgen_kernel_matmul_leaky_custom_fp16_fp32
namespace opgen_variant_matmul_leaky_custom_fp16_fp32 {
#include "matmul_leaky_custom.cpp"
}
#undef matmul_leaky_custom
#define matmul_leaky_custom opgen_kernel_matmul_leaky_custom_fp16_fp16
namespace opgen_variant_matmul_leaky_custom_fp16_fp16 {
#include "matmul_leaky_custom.cpp"
}
#undef matmul_leaky_custom
#define matmul_leaky_custom opgen_kernel_matmul_leaky_custom_bf16_bf16
namespace opgen_variant_matmul_leaky_custom_bf16_bf16 {
#include "matmul_leaky_custom.cpp"
}
#undef matmul_leaky_custom
#define matmul_leaky_custom opgen_kernel_matmul_leaky_custom_bf16_fp32
namespace opgen_variant_matmul_leaky_custom_bf16_fp32 {
#include "matmul_leaky_custom.cpp"
}
#undef matmul_leaky_custom
#define matmul_leaky_custom opgen_kernel_matmul_leaky_custom_fp32_fp32
namespace opgen_variant_matmul_leaky_custom_fp32_fp32 {
#include "matmul_leaky_custom.cpp"
}
#undef matmul_leaky_custom
