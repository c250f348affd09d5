// opgen CPU twin: macro-style tiling (BEGIN_TILING_DATA_DEF / TILING_DATA_FIELD_DEF /
// END_TILING_DATA_DEF / REGISTER_TILING_DATA_CLASS) is not emulated.
#error "opgen twin: register/tilingdata_base.h (macro-style tiling) is not supported. opgen uses struct-style tiling: a plain struct <Op>TilingData in op_kernel/<op>_tiling.h, filled on the host via context->GetTilingData<<Op>TilingData>() and read in the kernel with REGISTER_TILING_DEFAULT(<Op>TilingData); GET_TILING_DATA(t, tiling);"
