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

// Bytes per element (sub-byte types rounded up; 0 for unknown).
inline int GetSizeByDataType(DataType dt)
{
    switch (dt) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: case DT_QINT32: return 4;
        case DT_FLOAT16: case DT_BF16: case DT_INT16: case DT_UINT16: case DT_QINT16: case DT_QUINT16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: case DT_QINT8: case DT_QUINT8: case DT_HIFLOAT8:
        case DT_FLOAT8_E5M2: case DT_FLOAT8_E4M3FN: case DT_FLOAT8_E8M0: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        case DT_COMPLEX32: return 4;
        default: return 0;
    }
}

}  // namespace ge

namespace opgen_twin {

inline const char* DataTypeName(ge::DataType dt)
{
    switch (dt) {
        case ge::DT_FLOAT: return "DT_FLOAT";
        case ge::DT_FLOAT16: return "DT_FLOAT16";
        case ge::DT_INT8: return "DT_INT8";
        case ge::DT_INT32: return "DT_INT32";
        case ge::DT_UINT8: return "DT_UINT8";
        case ge::DT_INT16: return "DT_INT16";
        case ge::DT_UINT16: return "DT_UINT16";
        case ge::DT_UINT32: return "DT_UINT32";
        case ge::DT_INT64: return "DT_INT64";
        case ge::DT_UINT64: return "DT_UINT64";
        case ge::DT_DOUBLE: return "DT_DOUBLE";
        case ge::DT_BOOL: return "DT_BOOL";
        case ge::DT_STRING: return "DT_STRING";
        case ge::DT_COMPLEX64: return "DT_COMPLEX64";
        case ge::DT_COMPLEX128: return "DT_COMPLEX128";
        case ge::DT_QINT8: return "DT_QINT8";
        case ge::DT_QINT16: return "DT_QINT16";
        case ge::DT_QINT32: return "DT_QINT32";
        case ge::DT_QUINT8: return "DT_QUINT8";
        case ge::DT_QUINT16: return "DT_QUINT16";
        case ge::DT_RESOURCE: return "DT_RESOURCE";
        case ge::DT_BF16: return "DT_BF16";
        case ge::DT_UNDEFINED: return "DT_UNDEFINED";
        case ge::DT_INT4: return "DT_INT4";
        case ge::DT_UINT1: return "DT_UINT1";
        case ge::DT_INT2: return "DT_INT2";
        case ge::DT_COMPLEX32: return "DT_COMPLEX32";
        case ge::DT_HIFLOAT8: return "DT_HIFLOAT8";
        case ge::DT_FLOAT8_E5M2: return "DT_FLOAT8_E5M2";
        case ge::DT_FLOAT8_E4M3FN: return "DT_FLOAT8_E4M3FN";
        case ge::DT_FLOAT8_E8M0: return "DT_FLOAT8_E8M0";
        default: return "DT_UNKNOWN";
    }
}

inline const char* FormatName(ge::Format f)
{
    switch (f) {
        case ge::FORMAT_NCHW: return "FORMAT_NCHW";
        case ge::FORMAT_NHWC: return "FORMAT_NHWC";
        case ge::FORMAT_ND: return "FORMAT_ND";
        case ge::FORMAT_NC1HWC0: return "FORMAT_NC1HWC0";
        case ge::FORMAT_FRACTAL_Z: return "FORMAT_FRACTAL_Z";
        case ge::FORMAT_HWCN: return "FORMAT_HWCN";
        case ge::FORMAT_NDHWC: return "FORMAT_NDHWC";
        case ge::FORMAT_FRACTAL_NZ: return "FORMAT_FRACTAL_NZ";
        case ge::FORMAT_NCDHW: return "FORMAT_NCDHW";
        case ge::FORMAT_DHWCN: return "FORMAT_DHWCN";
        case ge::FORMAT_NDC1HWC0: return "FORMAT_NDC1HWC0";
        case ge::FORMAT_FRACTAL_Z_3D: return "FORMAT_FRACTAL_Z_3D";
        case ge::FORMAT_CHWN: return "FORMAT_CHWN";
        case ge::FORMAT_NC: return "FORMAT_NC";
        case ge::FORMAT_CN: return "FORMAT_CN";
        case ge::FORMAT_NCL: return "FORMAT_NCL";
        case ge::FORMAT_ALL: return "FORMAT_ALL";
        case ge::FORMAT_NULL: return "FORMAT_NULL";
        default: return "FORMAT_OTHER";
    }
}

}  // namespace opgen_twin

#endif  // OPGEN_TWIN_GE_TYPES_H
