// opgen CPU twin: the kernel side's DT_* numbers, as macros, as CANN's kernel_type.h defines
// them (asc-devkit include/basic_api/kernel_type.h), so that a kernel can branch on the
// ORIG_DTYPE_<NAME> macros a project build passes: `#if ORIG_DTYPE_X == DT_COMPLEX64`.
// CANN's kernel_operator.h includes its kernel_type.h; the twin's does not, because the twin's
// own tests mix kernel and host headers in one translation unit: a kernel's dtype variant
// includes this header itself (opgen/twin/README.md, "Dtype variants"). The host side's
// ge::DataType (opgen_twin/ge_types.h) spells the same names as enumerators, so a translation
// unit that includes this header includes no host header.
#ifndef OPGEN_TWIN_KERNEL_TYPE_H
#define OPGEN_TWIN_KERNEL_TYPE_H

#ifdef OPGEN_TWIN_GE_TYPES_H
#error "opgen_twin/kernel_type.h after a host header (ge types): its DT_* macros would rename ge::DataType's enumerators; keep kernel and host code in separate translation units"
#endif

#define DT_FLOAT 0
#define DT_FLOAT16 1
#define DT_INT8 2
#define DT_INT32 3
#define DT_UINT8 4
#define DT_INT16 6
#define DT_UINT16 7
#define DT_UINT32 8
#define DT_INT64 9
#define DT_UINT64 10
#define DT_DOUBLE 11
#define DT_BOOL 12
#define DT_STRING 13
#define DT_COMPLEX64 16
#define DT_COMPLEX128 17
#define DT_QINT8 18
#define DT_QINT16 19
#define DT_QINT32 20
#define DT_QUINT8 21
#define DT_QUINT16 22
#define DT_RESOURCE 23
#define DT_BF16 27
#define DT_INT4 29
#define DT_UINT1 30
#define DT_INT2 31
#define DT_COMPLEX32 33

#endif  // OPGEN_TWIN_KERNEL_TYPE_H
