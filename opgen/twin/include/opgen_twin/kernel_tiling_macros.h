// opgen CPU twin: the kernel side of macro-style tiling. CANN's build turns an op's
// BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF into a plain struct for the kernel, from the field
// list the host class registered (asc-devkit tools/build/asc_op_compile_base/adapter/
// get_op_tiling.py), placeholders included, so the kernel's struct has the host buffer's bytes.
// Here the same tiling header is compiled with these definitions instead: a variant TU defines
// OPGEN_TWIN_KERNEL_TILING and includes register/tilingdata_base.h (or this header) before the op's
// op_host/<op>_tiling.h.
//
// The struct: fields in order, naturally aligned (a scalar or array at a multiple of its element
// size, as the host's placeholders put it), a STRUCT field at a multiple of 8, the size a multiple
// of 8 - alignas(8) gives exactly the host class's layout (GetDataSize() == sizeof). No default
// member initializers: the struct is trivial, as the generated one GET_TILING_DATA fills, so
// identically named tiling structs of two ops in two TUs emit no clashing inline functions.
//
// REGISTER_TILING_DATA_CLASS(Op, Name) declares the alias opgen_twin_macro_tiling_<Op> = Name;
// GET_TILING_DATA (opgen_twin/detail/kernel_misc.h) uses opgen_twin_macro_tiling_<OPGEN_TWIN_OP_TYPE>
// when the kernel did not call REGISTER_TILING_DEFAULT. The op's headers usually wrap the macros in
// namespace optiling (CANN's generated struct is global): `using namespace optiling;` below makes
// the struct and the alias visible to the kernel by their plain names.
#ifndef OPGEN_TWIN_KERNEL_TILING_MACROS_H
#define OPGEN_TWIN_KERNEL_TILING_MACROS_H

#include <cstdint>

#if defined(BEGIN_TILING_DATA_DEF)
#error "opgen twin: opgen_twin/kernel_tiling_macros.h after the host-side register/tilingdata_base.h: define OPGEN_TWIN_KERNEL_TILING before the first include of register/tilingdata_base.h in a kernel translation unit"
#endif

#define BEGIN_TILING_DATA_DEF(class_name) struct alignas(8) class_name {
#define TILING_DATA_FIELD_DEF(data_type, field_name) data_type field_name;
#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name) arr_type field_name[arr_size];
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name) alignas(8) struct_type field_name;
#define END_TILING_DATA_DEF };
#define REGISTER_TILING_DATA_CLASS(op_type, class_name) \
    using opgen_twin_macro_tiling_##op_type [[maybe_unused]] = class_name;

namespace optiling {
}
using namespace optiling;  // NOLINT: CANN's kernel struct is global

#endif  // OPGEN_TWIN_KERNEL_TILING_MACROS_H
