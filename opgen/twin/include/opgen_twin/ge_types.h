// opgen CPU twin: host-side `ge` basics - DataType/Format with the metadef numeric values,
// graphStatus, and ge::Shape (what AscendC::TensorShape aliases in the tiling APIs).
#ifndef OPGEN_TWIN_GE_TYPES_H
#define OPGEN_TWIN_GE_TYPES_H

#include <cstdint>
#include <string>
#include <vector>

#ifdef OPGEN_TWIN_KERNEL_TYPE_H
#error "a host header (ge types) after opgen_twin/kernel_type.h: its DT_* macros would rename ge::DataType's enumerators; keep kernel and host code in separate translation units"
#endif

namespace ge {

using graphStatus = uint32_t;
const graphStatus GRAPH_SUCCESS = 0;
const graphStatus GRAPH_FAILED = 0xFFFFFFFF;
using char_t = char;

// Values as in metadef inc/external/graph/c_types.h (C_DT_*).
enum DataType {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_QINT8 = 18,
    DT_QINT16 = 19,
    DT_QINT32 = 20,
    DT_QUINT8 = 21,
    DT_QUINT16 = 22,
    DT_RESOURCE = 23,
    DT_STRING_REF = 24,
    DT_DUAL = 25,
    DT_VARIANT = 26,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_UINT1 = 30,
    DT_INT2 = 31,
    DT_UINT2 = 32,
    DT_COMPLEX32 = 33,
    DT_HIFLOAT8 = 34,
    DT_FLOAT8_E5M2 = 35,
    DT_FLOAT8_E4M3FN = 36,
    DT_FLOAT8_E8M0 = 37,
    DT_MAX
};

// Values as in metadef inc/external/graph/c_types.h (C_FORMAT_*).
enum Format {
    FORMAT_NCHW = 0,
    FORMAT_NHWC = 1,
    FORMAT_ND = 2,
    FORMAT_NC1HWC0 = 3,
    FORMAT_FRACTAL_Z = 4,
    FORMAT_NC1C0HWPAD = 5,
    FORMAT_NHWC1C0 = 6,
    FORMAT_FSR_NCHW = 7,
    FORMAT_FRACTAL_DECONV = 8,
    FORMAT_C1HWNC0 = 9,
    FORMAT_FRACTAL_DECONV_TRANSPOSE = 10,
    FORMAT_FRACTAL_DECONV_SP_STRIDE_TRANS = 11,
    FORMAT_NC1HWC0_C04 = 12,
    FORMAT_FRACTAL_Z_C04 = 13,
    FORMAT_CHWN = 14,
    FORMAT_FRACTAL_DECONV_SP_STRIDE8_TRANS = 15,
    FORMAT_HWCN = 16,
    FORMAT_NC1KHKWHWC0 = 17,
    FORMAT_BN_WEIGHT = 18,
    FORMAT_FILTER_HWCK = 19,
    FORMAT_C1HWNCoC0 = 25,
    FORMAT_MD = 26,
    FORMAT_NDHWC = 27,
    FORMAT_FRACTAL_ZZ = 28,
    FORMAT_FRACTAL_NZ = 29,
    FORMAT_NCDHW = 30,
    FORMAT_DHWCN = 31,
    FORMAT_NDC1HWC0 = 32,
    FORMAT_FRACTAL_Z_3D = 33,
    FORMAT_CN = 34,
    FORMAT_NC = 35,
    FORMAT_DHWNC = 36,
    FORMAT_FRACTAL_Z_3D_TRANSPOSE = 37,
    FORMAT_FRACTAL_ZN_LSTM = 38,
    FORMAT_FRACTAL_Z_G = 39,
    FORMAT_RESERVED = 40,
    FORMAT_ALL = 41,
    FORMAT_NULL = 42,
    FORMAT_ND_RNN_BIAS = 43,
    FORMAT_FRACTAL_ZN_RNN = 44,
    FORMAT_NYUV = 45,
    FORMAT_NYUV_A = 46,
    FORMAT_NCL = 47,
    FORMAT_END = 55,
    FORMAT_MAX = 0xff
};

// ge::Shape (graph/tensor.h): the dynamic shape class used by the high-level API tiling
// functions (AscendC::TensorShape).
class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const
    {
        if (dims_.empty()) {
            return 0;  // ge::Shape reports 0 for a scalar/empty dim list
        }
        int64_t n = 1;
        for (int64_t d : dims_) {
            if (d < 0) return -1;
            n *= d;
        }
        return n;
    }
    void SetDim(size_t idx, int64_t v)
    {
        if (idx < dims_.size()) dims_[idx] = v;
    }

private:
    std::vector<int64_t> dims_;
};

namespace detail_types {

// Each data type the twin names: its name and bytes per element (sub-byte types rounded up; 0
// for those without a size).
struct DataTypeRow {
    DataType dt;
    const char* name;
    int bytes;
};

constexpr DataTypeRow kDataTypes[] = {
    {DT_FLOAT, "DT_FLOAT", 4},
    {DT_FLOAT16, "DT_FLOAT16", 2},
    {DT_INT8, "DT_INT8", 1},
    {DT_INT32, "DT_INT32", 4},
    {DT_UINT8, "DT_UINT8", 1},
    {DT_INT16, "DT_INT16", 2},
    {DT_UINT16, "DT_UINT16", 2},
    {DT_UINT32, "DT_UINT32", 4},
    {DT_INT64, "DT_INT64", 8},
    {DT_UINT64, "DT_UINT64", 8},
    {DT_DOUBLE, "DT_DOUBLE", 8},
    {DT_BOOL, "DT_BOOL", 1},
    {DT_STRING, "DT_STRING", 0},
    {DT_COMPLEX64, "DT_COMPLEX64", 8},
    {DT_COMPLEX128, "DT_COMPLEX128", 16},
    {DT_QINT8, "DT_QINT8", 1},
    {DT_QINT16, "DT_QINT16", 2},
    {DT_QINT32, "DT_QINT32", 4},
    {DT_QUINT8, "DT_QUINT8", 1},
    {DT_QUINT16, "DT_QUINT16", 2},
    {DT_RESOURCE, "DT_RESOURCE", 0},
    {DT_BF16, "DT_BF16", 2},
    {DT_UNDEFINED, "DT_UNDEFINED", 0},
    {DT_INT4, "DT_INT4", 0},
    {DT_UINT1, "DT_UINT1", 0},
    {DT_INT2, "DT_INT2", 0},
    {DT_COMPLEX32, "DT_COMPLEX32", 4},
    {DT_HIFLOAT8, "DT_HIFLOAT8", 1},
    {DT_FLOAT8_E5M2, "DT_FLOAT8_E5M2", 1},
    {DT_FLOAT8_E4M3FN, "DT_FLOAT8_E4M3FN", 1},
    {DT_FLOAT8_E8M0, "DT_FLOAT8_E8M0", 1},
};

inline const DataTypeRow* FindDataType(DataType dt)
{
    for (const DataTypeRow& row : kDataTypes) {
        if (row.dt == dt) return &row;
    }
    return nullptr;
}

}  // namespace detail_types

// Bytes per element (sub-byte types rounded up; 0 for unknown).
inline int GetSizeByDataType(DataType dt)
{
    const detail_types::DataTypeRow* row = detail_types::FindDataType(dt);
    return row != nullptr ? row->bytes : 0;
}

}  // namespace ge

namespace opgen_twin {

inline const char* DataTypeName(ge::DataType dt)
{
    const ge::detail_types::DataTypeRow* row = ge::detail_types::FindDataType(dt);
    return row != nullptr ? row->name : "DT_UNKNOWN";
}

namespace detail {

struct FormatRow {
    ge::Format format;
    const char* name;
};

constexpr FormatRow kFormats[] = {
    {ge::FORMAT_NCHW, "FORMAT_NCHW"},
    {ge::FORMAT_NHWC, "FORMAT_NHWC"},
    {ge::FORMAT_ND, "FORMAT_ND"},
    {ge::FORMAT_NC1HWC0, "FORMAT_NC1HWC0"},
    {ge::FORMAT_FRACTAL_Z, "FORMAT_FRACTAL_Z"},
    {ge::FORMAT_HWCN, "FORMAT_HWCN"},
    {ge::FORMAT_NDHWC, "FORMAT_NDHWC"},
    {ge::FORMAT_FRACTAL_NZ, "FORMAT_FRACTAL_NZ"},
    {ge::FORMAT_NCDHW, "FORMAT_NCDHW"},
    {ge::FORMAT_DHWCN, "FORMAT_DHWCN"},
    {ge::FORMAT_NDC1HWC0, "FORMAT_NDC1HWC0"},
    {ge::FORMAT_FRACTAL_Z_3D, "FORMAT_FRACTAL_Z_3D"},
    {ge::FORMAT_CHWN, "FORMAT_CHWN"},
    {ge::FORMAT_NC, "FORMAT_NC"},
    {ge::FORMAT_CN, "FORMAT_CN"},
    {ge::FORMAT_NCL, "FORMAT_NCL"},
    {ge::FORMAT_ALL, "FORMAT_ALL"},
    {ge::FORMAT_NULL, "FORMAT_NULL"},
};

}  // namespace detail

inline const char* FormatName(ge::Format f)
{
    for (const detail::FormatRow& row : detail::kFormats) {
        if (row.format == f) return row.name;
    }
    return "FORMAT_OTHER";
}

}  // namespace opgen_twin

#endif  // OPGEN_TWIN_GE_TYPES_H
