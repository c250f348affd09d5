// Tiling classes with awkward layouts for tests/twin/cpp/test_macro_tiling.cpp: the host class
// (register/tilingdata_base.h) and the kernel struct (the same header with OPGEN_TWIN_KERNEL_TILING,
// macro_tiling_kernel_side.cpp) must put every field at the same offset.
#ifndef OPGEN_TWIN_TEST_MACRO_LAYOUT_TILING_H
#define OPGEN_TWIN_TEST_MACRO_LAYOUT_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"  // TCubeTiling (kernel mode: the kernel struct only)

namespace optiling {
BEGIN_TILING_DATA_DEF(LayoutInner)
  TILING_DATA_FIELD_DEF(int16_t, s);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayoutInnerOp, LayoutInner)

BEGIN_TILING_DATA_DEF(LayoutMid)
  TILING_DATA_FIELD_DEF(int8_t, a);
  TILING_DATA_FIELD_DEF_STRUCT(LayoutInner, inner);
  TILING_DATA_FIELD_DEF(uint32_t, b);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayoutMidOp, LayoutMid)

BEGIN_TILING_DATA_DEF(LayoutTop)
  TILING_DATA_FIELD_DEF(uint8_t, c);
  TILING_DATA_FIELD_DEF(uint64_t, d);
  TILING_DATA_FIELD_DEF_ARR(uint16_t, 3, e);
  TILING_DATA_FIELD_DEF(float, f);
  TILING_DATA_FIELD_DEF_STRUCT(LayoutMid, mid);
  TILING_DATA_FIELD_DEF(int8_t, g);
  TILING_DATA_FIELD_DEF_ARR(int64_t, 2, h);
  TILING_DATA_FIELD_DEF(double, k);
  TILING_DATA_FIELD_DEF(uint16_t, last);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayoutOp, LayoutTop)

// A matmul op's tiling: the API's TCubeTiling nested (msopgen matmul projects).
BEGIN_TILING_DATA_DEF(LayoutMatmul)
  TILING_DATA_FIELD_DEF(uint32_t, alpha);
  TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
  TILING_DATA_FIELD_DEF(uint8_t, tail);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(LayoutMatmulOp, LayoutMatmul)
}  // namespace optiling
#endif
