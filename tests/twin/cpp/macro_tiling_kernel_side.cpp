// The kernel side of macro_layout_tiling.h (linked into test_macro_tiling): sizes and offsets of the
// structs the twin's kernel-mode macros make, and a GET_TILING_DATA that resolves the op's type.
#include <cstddef>
#include <cstdint>

#include "kernel_operator.h"
#define OPGEN_TWIN_KERNEL_TILING
#include "register/tilingdata_base.h"
#include "macro_layout_tiling.h"
#define OPGEN_TWIN_OP_TYPE LayoutOp

#define OFF(T, m) static_cast<size_t>(offsetof(T, m))
extern "C" void macro_layout_kernel_side(size_t* out)
{
    const size_t v[] = {sizeof(LayoutTop), OFF(LayoutTop, c), OFF(LayoutTop, d), OFF(LayoutTop, e),
                        OFF(LayoutTop, f), OFF(LayoutTop, mid), OFF(LayoutTop, g), OFF(LayoutTop, h),
                        OFF(LayoutTop, k), OFF(LayoutTop, last), sizeof(LayoutMid), OFF(LayoutMid, a),
                        OFF(LayoutMid, inner), OFF(LayoutMid, b), sizeof(LayoutInner)};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); ++i) out[i] = v[i];
}

// GET_TILING_DATA / GET_TILING_DATA_MEMBER outside a launch (no GM bounds to check): copies.
extern "C" void macro_layout_kernel_read(const uint8_t* tiling, double* out)
{
    GET_TILING_DATA(t, tiling);
    GET_TILING_DATA_MEMBER(LayoutTop, mid, mid, tiling);
    out[0] = t.c;
    out[1] = static_cast<double>(t.d);
    out[2] = t.e[2];
    out[3] = t.f;
    out[4] = t.mid.inner.s;
    out[5] = t.mid.b;
    out[6] = static_cast<double>(t.h[1]);
    out[7] = t.k;
    out[8] = t.last;
    out[9] = mid.a;
    out[10] = t.g;
}

// tik2::ParamOffset<T>(gm, n) = gm + GetBlockIdx() * n * sizeof(T) (the first Ascend C's API).
extern "C" uint8_t* macro_param_offset(uint8_t* gm, int64_t blockIdx)
{
    opgen_twin::detail::g_launch.blockIdx = blockIdx;
    uint8_t* p = tik2::ParamOffset<half>(gm, 100);
    opgen_twin::detail::g_launch.blockIdx = 0;
    return p;
}

// The matmul tiling as the kernel reads it: 50 TCubeTiling words, then alpha and tail; sizes.
extern "C" void macro_matmul_kernel_read(const uint8_t* tiling, int64_t* out)
{
    GET_TILING_DATA_WITH_STRUCT(LayoutMatmul, t, tiling);
    std::memcpy(out, &t.cubeTilingData, 0);  // (no-op; keeps <cstring> used)
    const int32_t* w = reinterpret_cast<const int32_t*>(&t.cubeTilingData);
    for (int i = 0; i < 50; ++i) out[i] = w[i];
    out[50] = t.alpha;
    out[51] = t.tail;
    out[52] = static_cast<int64_t>(sizeof(LayoutMatmul));
    out[53] = static_cast<int64_t>(offsetof(LayoutMatmul, cubeTilingData));
    out[54] = t.cubeTilingData.baseM;
}
