// A hand-written msopgen-style tiling header (macro tiling), shared by the host and - compiled
// with OPGEN_TWIN_KERNEL_TILING by the variant TU - the kernel. Layout (CANN's rules: a field at a
// multiple of its size, a STRUCT field at a multiple of 8, the total a multiple of 8):
//   0 totalLength  4 tileNum  8 formerNum  [10 PH 2]  12 coreLength[2]  [20 PH 4]  24 tile (8 bytes:
//   0 bufferNum [1 PH 3] 4 tileLength)  32 alpha  36 reserved  [37 PH 3]  = 40 bytes.
#ifndef MACRO_ADD_CUSTOM_TILING_H
#define MACRO_ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MacroAddTileInfo)
  TILING_DATA_FIELD_DEF(uint8_t, bufferNum);
  TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(MacroAddTileInfoOp, MacroAddTileInfo)

BEGIN_TILING_DATA_DEF(MacroAddTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);       // elements
  TILING_DATA_FIELD_DEF(uint32_t, tileNum);           // tiles of a former core
  TILING_DATA_FIELD_DEF(uint16_t, formerNum);         // cores that take coreLength[0] elements
  TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, coreLength); // former, tail core lengths
  TILING_DATA_FIELD_DEF_STRUCT(MacroAddTileInfo, tile);
  TILING_DATA_FIELD_DEF(float, alpha);                // z = x + alpha * y (tiling key 2)
  TILING_DATA_FIELD_DEF(uint8_t, reserved);           // never set by the host: reads 0
#ifdef MACRO_ADD_KERNEL_EXTRA_FIELD
  TILING_DATA_FIELD_DEF(uint64_t, extra);             // a kernel built from a newer header
#endif
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MacroAddCustom, MacroAddTilingData)
}  // namespace optiling
#endif  // MACRO_ADD_CUSTOM_TILING_H
