// A hand-written msopgen project's tiling, in the classic macro style (opgen's test data for
// `opgen adopt`, written for it): the host class TilingData, which CANN's build turns into the
// kernel's struct of the same fields.
#ifndef ADD_CUSTOM_TILING_H
#define ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddCustom, TilingData)
}  // namespace optiling
#endif  // ADD_CUSTOM_TILING_H
