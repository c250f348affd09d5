// opgen CPU twin: level-2 vector instructions (count mode) and Cast.
//
// Every op checks that `count` fits each operand tensor, computes each element from the
// decoded inputs (exactly in double for half/bfloat16 inputs, IEEE float for float
// inputs) and rounds once to the destination type. The loops over float and integer elements
// and the hot Casts run vectorized for the CPU's instruction set (simd.h) with the same bits:
// no multiply feeds an add that an FMA could fuse. Element types follow the
// "Atlas A2 training/inference" support tables of the AscendC API docs; other types are
// rejected at compile time.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_VEC_H
#define OPGEN_TWIN_DETAIL_KERNEL_VEC_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/simd.h"
#include "opgen_twin/detail/soc.h"

#ifdef OPGEN_TWIN_SIMD_DISPATCH
#include <immintrin.h>
#endif

namespace AscendC {

enum class RoundMode : uint8_t {
    CAST_NONE = 0,  // no rounding when exact, CAST_RINT when the conversion loses precision
    CAST_RINT,      // to nearest, ties to even
    CAST_FLOOR,
    CAST_CEIL,
    CAST_ROUND,  // to nearest, ties away from zero
    CAST_TRUNC,  // toward zero
    CAST_ODD,    // round to odd (von Neumann)
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

template <class T> struct IsArithT : IsAnyOf<T, int16_t, half, int32_t, float> {};  // Add/Sub/Mul/Max/Min + scalar forms
template <class T> struct IsFloatT : IsAnyOf<T, half, float> {};                    // Div/Exp/Ln/Sqrt/...
template <class T> struct IsReluT : IsAnyOf<T, half, int32_t, float> {};
template <class T> struct IsDupT : IsAnyOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float> {};

#define OPGEN_TWIN_SUPPORTED_TYPES(cond, api, list)                                                            \
    static_assert(cond, "opgen twin: AscendC::" api " does not support this element type on ascend910b (Atlas "  \
                        "A2); supported: " list ". For bfloat16_t, Cast to float (RoundMode::CAST_NONE), compute, " \
                        "and Cast back (RoundMode::CAST_RINT).")

template <class T>
inline double ToDouble(T v)
{
    return static_cast<double>(v);
}

// Rounds a double result to T: round-to-nearest-even for the float types, wrap-around
// (two's complement) for integers.
template <class T>
inline T FromDouble(double v)
{
    if constexpr (std::is_same<T, float>::value) {
        return static_cast<float>(v);
    } else if constexpr (IsFp16Like<T>::value) {
        return T(v);
    } else {
        return static_cast<T>(static_cast<int64_t>(v));
    }
}

template <class T> inline T OpAdd(T a, T b)
{
    if constexpr (std::is_same<T, float>::value) return a + b;
    else if constexpr (IsFp16Like<T>::value) return T(ToDouble(a) + ToDouble(b));
    else return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template <class T> inline T OpSub(T a, T b)
{
    if constexpr (std::is_same<T, float>::value) return a - b;
    else if constexpr (IsFp16Like<T>::value) return T(ToDouble(a) - ToDouble(b));
    else return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
template <class T> inline T OpMul(T a, T b)
{
    if constexpr (std::is_same<T, float>::value) return a * b;
    else if constexpr (IsFp16Like<T>::value) return T(ToDouble(a) * ToDouble(b));
    else return static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(a)) * static_cast<uint64_t>(static_cast<int64_t>(b)));
}
template <class T> inline T OpDiv(T a, T b)
{
    if constexpr (std::is_same<T, float>::value) return a / b;
    else return T(ToDouble(a) / ToDouble(b));
}
// Max/Min (and Maxs, Mins, ReduceMax, ReduceMin) with a NaN operand: asc-devkit's Max.md and
// Min.md say nothing of NaN, so the twin takes the rule that loses NaN most, IEEE maxNum's: the
// other operand wins. A kernel that must propagate NaN as torch does compares and selects.
template <class T> inline T OpMax(T a, T b)
{
    const double x = ToDouble(a), y = ToDouble(b);
    if (x != x) return b;
    if (y != y) return a;
    return x >= y ? a : b;
}
template <class T> inline T OpMin(T a, T b)
{
    const double x = ToDouble(a), y = ToDouble(b);
    if (x != x) return b;
    if (y != y) return a;
    return x <= y ? a : b;
}

// body(i) for i < count: vectorized for float and integer T; for half/bfloat16 (arithmetic in
// double, then rounding code) a plain loop.
template <class T, class Body>
inline void ForEachElement(int32_t count, const Body& body)
{
    if constexpr (IsFp16Like<T>::value) {
        SimdForBase(static_cast<uint32_t>(count), body);
    } else {
        SimdFor(static_cast<uint32_t>(count), body);
    }
}

// Applies f elementwise: dst[i] = f(src0[i], src1[i]).
template <class T, class F>
inline void Binary(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                   const AscendC::LocalTensor<T>& src1, int32_t count, F f)
{
    if (count < 0) {
        ThrowHardware(Format("%s: negative count %d", api, count));
    }
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    src0.TwinCheckFits(api, "src0", static_cast<uint64_t>(count));
    src1.TwinCheckFits(api, "src1", static_cast<uint64_t>(count));
    const void* a = src0.TwinData();
    const void* b = src1.TwinData();
    void* d = dst.TwinDataToOverwrite(static_cast<uint64_t>(count) * sizeof(T));  // after the reads: dst may be a src
    ForEachElement<T>(count, [d, a, b, f](uint32_t i) { Store<T>(d, i, f(Load<T>(a, i), Load<T>(b, i))); });
}

template <class T, class F>
inline void Unary(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                  int32_t count, F f)
{
    if (count < 0) {
        ThrowHardware(Format("%s: negative count %d", api, count));
    }
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    src.TwinCheckFits(api, "src", static_cast<uint64_t>(count));
    const void* s = src.TwinData();
    void* d = dst.TwinDataToOverwrite(static_cast<uint64_t>(count) * sizeof(T));  // after the read: dst may be src
    ForEachElement<T>(count, [d, s, f](uint32_t i) { Store<T>(d, i, f(Load<T>(s, i))); });
}

// Transcendental helper: evaluate in double, round once to T.
template <class T, class G>
inline T Transcend(T x, G g)
{
    return FromDouble<T>(g(ToDouble(x)));
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

// ---------------- binary ----------------
template <typename T>
inline void Add(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Add", "int16_t, half, int32_t, float");
    opgen_twin::detail::Binary("Add", dst, src0, src1, count,
                               [](T a, T b) { return opgen_twin::detail::OpAdd<T>(a, b); });
}
template <typename T>
inline void Sub(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Sub", "int16_t, half, int32_t, float");
    opgen_twin::detail::Binary("Sub", dst, src0, src1, count,
                               [](T a, T b) { return opgen_twin::detail::OpSub<T>(a, b); });
}
template <typename T>
inline void Mul(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Mul", "int16_t, half, int32_t, float");
    opgen_twin::detail::Binary("Mul", dst, src0, src1, count,
                               [](T a, T b) { return opgen_twin::detail::OpMul<T>(a, b); });
}
template <typename T>
inline void Div(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Div", "half, float");
    opgen_twin::detail::Binary("Div", dst, src0, src1, count,
                               [](T a, T b) { return opgen_twin::detail::OpDiv<T>(a, b); });
}
// FusedMulAdd (asc-devkit FusedMulAdd.md): dst = src0 * dst + src1, half and float, documented for
// Atlas A2/A3, 310P's AI Core and 200I/500 A2 (产品支持情况); where opgen's SoC catalog has no
// FusedMulAdd (OPGEN_SOC_HAS_API_FMA), an error naming the SoC. Rounded once, as a fused
// multiply-add: float by std::fma, half in double (its product is exact there). Arch as for
// DataCopyPad (opgen_twin/detail/soc.h).
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                        const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "FusedMulAdd", "half, float");
    const char* api = "FusedMulAdd";
    if (!OPGEN_SOC_HAS_API_FMA(Arch)) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: %s (__NPU_ARCH__ %d) has no FusedMulAdd (asc-devkit FusedMulAdd.md); multiply and add",
            api, opgen_twin::detail::SocName(Arch), Arch));
    }
    if (count < 0) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format("%s: negative count %d", api, count));
    }
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    src0.TwinCheckFits(api, "src0", static_cast<uint64_t>(count));
    src1.TwinCheckFits(api, "src1", static_cast<uint64_t>(count));
    const void* a = src0.TwinData();
    const void* b = src1.TwinData();
    void* d = dst.TwinData();  // read and written
    for (int32_t i = 0; i < count; ++i) {
        const T x = opgen_twin::detail::Load<T>(a, i);
        const T y = opgen_twin::detail::Load<T>(d, i);
        const T z = opgen_twin::detail::Load<T>(b, i);
        if constexpr (std::is_same<T, float>::value) {
            opgen_twin::detail::Store<T>(d, i, std::fma(x, y, z));
        } else {
            opgen_twin::detail::Store<T>(d, i, opgen_twin::detail::FromDouble<T>(
                opgen_twin::detail::ToDouble(x) * opgen_twin::detail::ToDouble(y) + opgen_twin::detail::ToDouble(z)));
        }
    }
}
template <typename T>
inline void Max(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Max", "int16_t, half, int32_t, float");
    opgen_twin::detail::Binary("Max", dst, src0, src1, count,
                               [](T a, T b) { return opgen_twin::detail::OpMax<T>(a, b); });
}
template <typename T>
inline void Min(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Min", "int16_t, half, int32_t, float");
    opgen_twin::detail::Binary("Min", dst, src0, src1, count,
                               [](T a, T b) { return opgen_twin::detail::OpMin<T>(a, b); });
}

// ---------------- tensor-scalar ----------------
// The scalar has the tensor's element type, as in the real signature (`const T&`): a
// float literal with a half tensor does not compile there either.
template <typename T>
inline void Adds(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Adds", "int16_t, half, int32_t, float");
    const T s = scalarValue;
    opgen_twin::detail::Unary("Adds", dst, src, count, [s](T x) { return opgen_twin::detail::OpAdd<T>(x, s); });
}
template <typename T>
inline void Muls(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Muls", "int16_t, half, int32_t, float");
    const T s = scalarValue;
    opgen_twin::detail::Unary("Muls", dst, src, count, [s](T x) { return opgen_twin::detail::OpMul<T>(x, s); });
}
template <typename T>
inline void Maxs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Maxs", "int16_t, half, int32_t, float");
    const T s = scalarValue;
    opgen_twin::detail::Unary("Maxs", dst, src, count, [s](T x) { return opgen_twin::detail::OpMax<T>(x, s); });
}
template <typename T>
inline void Mins(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsArithT<T>::value, "Mins", "int16_t, half, int32_t, float");
    const T s = scalarValue;
    opgen_twin::detail::Unary("Mins", dst, src, count, [s](T x) { return opgen_twin::detail::OpMin<T>(x, s); });
}

// ---------------- unary ----------------
template <typename T>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Exp", "half, float");
    opgen_twin::detail::Unary("Exp", dst, src, count,
                              [](T x) { return opgen_twin::detail::Transcend(x, [](double v) { return std::exp(v); }); });
}
template <typename T>
inline void Ln(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Ln", "half, float");
    opgen_twin::detail::Unary("Ln", dst, src, count,
                              [](T x) { return opgen_twin::detail::Transcend(x, [](double v) { return std::log(v); }); });
}
template <typename T>
inline void Sqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Sqrt", "half, float");
    opgen_twin::detail::Unary("Sqrt", dst, src, count,
                              [](T x) { return opgen_twin::detail::Transcend(x, [](double v) { return std::sqrt(v); }); });
}
template <typename T>
inline void Rsqrt(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Rsqrt", "half, float");
    opgen_twin::detail::Unary("Rsqrt", dst, src, count, [](T x) {
        return opgen_twin::detail::Transcend(x, [](double v) { return 1.0 / std::sqrt(v); });
    });
}
template <typename T>
inline void Reciprocal(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Reciprocal", "half, float");
    opgen_twin::detail::Unary("Reciprocal", dst, src, count,
                              [](T x) { return opgen_twin::detail::Transcend(x, [](double v) { return 1.0 / v; }); });
}
template <typename T>
inline void Abs(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "Abs", "half, float");
    opgen_twin::detail::Unary("Abs", dst, src, count,
                              [](T x) { return opgen_twin::detail::Transcend(x, [](double v) { return std::fabs(v); }); });
}
template <typename T>
inline void Relu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsReluT<T>::value, "Relu", "half, int32_t, float");
    opgen_twin::detail::Unary("Relu", dst, src, count, [](T x) { return opgen_twin::detail::ToDouble(x) > 0 ? x : T(0); });
}

// LeakyRelu (asc-devkit LeakyRelu.md, the count form): dst = src >= 0 ? src : src * scalarValue;
// half and float, the product rounded once.
template <typename T, bool isSetMask = true>
inline void LeakyRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsFloatT<T>::value, "LeakyRelu", "half, float");
    const T s = scalarValue;
    opgen_twin::detail::Unary("LeakyRelu", dst, src, count, [s](T x) {
        if constexpr (std::is_same<T, float>::value) {
            return x >= 0.0f ? x : x * s;
        } else {
            return opgen_twin::detail::ToDouble(x) >= 0 ? x : T(opgen_twin::detail::ToDouble(x) * opgen_twin::detail::ToDouble(s));
        }
    });
}

// ---------------- fill ----------------
template <typename T>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsDupT<T>::value, "Duplicate",
                               "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    const char* api = "Duplicate";
    if (count < 0) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format("%s: negative count %d", api, count));
    }
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    void* d = dst.TwinDataToOverwrite(static_cast<uint64_t>(count) * sizeof(T));
    const T v = scalarValue;
    opgen_twin::detail::ForEachElement<T>(count, [d, v](uint32_t i) { opgen_twin::detail::Store<T>(d, i, v); });
}

// CreateVecIndex (asc-devkit CreateVecIndex.md, the count form): dst[i] = firstValue + i for
// i < count; int16_t, half, int32_t and float, documented for Atlas A2/A3 only (产品支持情况):
// elsewhere an error naming the SoC. firstValue + count - 1 must stay in the type's range (约束说明);
// each value is rounded to T as the hardware's add in T would. Arch as for DataCopyPad.
template <typename T, int Arch = opgen_twin::detail::kNpuArch>
inline void CreateVecIndex(LocalTensor<T> dst, const T& firstValue, uint32_t count)
{
    OPGEN_TWIN_SUPPORTED_TYPES((std::is_same<T, int16_t>::value || std::is_same<T, half>::value ||
                                std::is_same<T, int32_t>::value || std::is_same<T, float>::value),
                               "CreateVecIndex", "int16_t, half, int32_t, float");
    const char* api = "CreateVecIndex";
    if (!OPGEN_SOC_HAS_API_INDEX(Arch)) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: %s (__NPU_ARCH__ %d) has no CreateVecIndex (asc-devkit: Atlas A2/A3 only)", api,
            opgen_twin::detail::SocName(Arch), Arch));
    }
    const double first = opgen_twin::detail::ToDouble(firstValue);
    const double last = first + (count > 0 ? static_cast<double>(count - 1) : 0.0);
    const double high = std::is_same<T, int16_t>::value   ? 32767.0
                        : std::is_same<T, int32_t>::value ? 2147483647.0
                        : std::is_same<T, half>::value    ? 65504.0
                                                          : 3.4028234663852886e38;
    if (last > high) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "%s: firstValue %.17g + count %u - 1 exceeds the range of the element type", api, first, count));
    }
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    void* d = dst.TwinDataToOverwrite(static_cast<uint64_t>(count) * sizeof(T));
    for (uint32_t i = 0; i < count; ++i) {
        opgen_twin::detail::Store<T>(d, i, opgen_twin::detail::FromDouble<T>(first + static_cast<double>(i)));
    }
}

}  // namespace AscendC

// ---------------- Cast ----------------
namespace opgen_twin {
namespace detail {

enum ModeBits : uint32_t {
    kNone = 1u << 0,
    kRint = 1u << 1,
    kFloor = 1u << 2,
    kCeil = 1u << 3,
    kRound = 1u << 4,
    kTrunc = 1u << 5,
    kOddBit = 1u << 6,
    kDirected = kRint | kFloor | kCeil | kRound | kTrunc,
};

// Supported (src, dst) pairs and their round modes on Atlas A2 (ascend910b), from the
// AscendC Cast documentation table. 0 = pair not supported.
template <class S, class D>
struct CastModeRow {
    static constexpr uint32_t value = 0;
};
#define OPGEN_TWIN_CAST_MODES(S, D, MODES)     \
    template <>                                 \
    struct CastModeRow<S, D> {                  \
        static constexpr uint32_t value = MODES; \
    };
OPGEN_TWIN_CAST_MODES(int8_t, half, kNone)
OPGEN_TWIN_CAST_MODES(uint8_t, half, kNone)
OPGEN_TWIN_CAST_MODES(int16_t, half, kDirected | kNone)
OPGEN_TWIN_CAST_MODES(int16_t, float, kNone)
OPGEN_TWIN_CAST_MODES(half, int8_t, kDirected | kNone)
OPGEN_TWIN_CAST_MODES(half, uint8_t, kDirected | kNone)
OPGEN_TWIN_CAST_MODES(half, int16_t, kDirected)
OPGEN_TWIN_CAST_MODES(half, int32_t, kDirected)
OPGEN_TWIN_CAST_MODES(half, float, kNone)
OPGEN_TWIN_CAST_MODES(bfloat16_t, int32_t, kDirected)
OPGEN_TWIN_CAST_MODES(bfloat16_t, float, kNone)
OPGEN_TWIN_CAST_MODES(int32_t, int16_t, kNone)
OPGEN_TWIN_CAST_MODES(int32_t, float, kDirected | kNone)
OPGEN_TWIN_CAST_MODES(int32_t, int64_t, kNone)
OPGEN_TWIN_CAST_MODES(float, int16_t, kDirected)
OPGEN_TWIN_CAST_MODES(float, half, kDirected | kOddBit | kNone)
OPGEN_TWIN_CAST_MODES(float, bfloat16_t, kDirected)
OPGEN_TWIN_CAST_MODES(float, int32_t, kDirected)
OPGEN_TWIN_CAST_MODES(float, float, kDirected)
OPGEN_TWIN_CAST_MODES(float, int64_t, kDirected)
OPGEN_TWIN_CAST_MODES(int64_t, int32_t, kNone)
OPGEN_TWIN_CAST_MODES(int64_t, float, kDirected)
#undef OPGEN_TWIN_CAST_MODES

template <class S, class D>
constexpr uint32_t CastModes()
{
    return CastModeRow<S, D>::value;
}

inline const char* RoundModeName(AscendC::RoundMode m)
{
    switch (m) {
        case AscendC::RoundMode::CAST_NONE: return "CAST_NONE";
        case AscendC::RoundMode::CAST_RINT: return "CAST_RINT";
        case AscendC::RoundMode::CAST_FLOOR: return "CAST_FLOOR";
        case AscendC::RoundMode::CAST_CEIL: return "CAST_CEIL";
        case AscendC::RoundMode::CAST_ROUND: return "CAST_ROUND";
        case AscendC::RoundMode::CAST_TRUNC: return "CAST_TRUNC";
        case AscendC::RoundMode::CAST_ODD: return "CAST_ODD";
    }
    return "?";
}

inline Rounding ToRounding(AscendC::RoundMode m)
{
    switch (m) {
        case AscendC::RoundMode::CAST_FLOOR: return Rounding::kFloor;
        case AscendC::RoundMode::CAST_CEIL: return Rounding::kCeil;
        case AscendC::RoundMode::CAST_ROUND: return Rounding::kNearestAway;
        case AscendC::RoundMode::CAST_TRUNC: return Rounding::kTrunc;
        case AscendC::RoundMode::CAST_ODD: return Rounding::kOdd;
        default: return Rounding::kNearestEven;  // CAST_NONE (lossy case) and CAST_RINT
    }
}

inline double RoundToIntegral(double v, Rounding r)
{
    switch (r) {
        case Rounding::kFloor: return std::floor(v);
        case Rounding::kCeil: return std::ceil(v);
        case Rounding::kNearestAway: return std::round(v);
        case Rounding::kTrunc: return std::trunc(v);
        default: return std::nearbyint(v);  // default FP env: ties to even
    }
}

// Integer destinations saturate to their range (NaN -> 0).
template <class D>
inline D SaturateTo(double v)
{
    if (std::isnan(v)) return D(0);
    const double lo = static_cast<double>(std::numeric_limits<D>::min());
    const double hi = static_cast<double>(std::numeric_limits<D>::max());
    if (v <= lo) return std::numeric_limits<D>::min();
    if (v >= hi) return std::numeric_limits<D>::max();
    return static_cast<D>(v);
}

template <class D, class S>
inline D ConvertOne(S s, Rounding r)
{
    const double v = ToDouble(s);
    if constexpr (std::is_same<D, half>::value) {
        return half::FromBits(fp::FloatToHalfBits(v, r));
    } else if constexpr (std::is_same<D, bfloat16_t>::value) {
        return bfloat16_t::FromBits(fp::FloatToBf16Bits(v, r));
    } else if constexpr (std::is_same<D, float>::value) {
        if constexpr (std::is_same<S, float>::value) {
            return static_cast<float>(RoundToIntegral(v, r));  // float->float rounds to an integral value
        } else {
            return fp::DoubleToFloat(v, r);  // exact for half/bf16/int16; rounds large int32/int64
        }
    } else {
        static_assert(std::is_integral<D>::value, "unexpected Cast destination");
        if constexpr (std::is_integral<S>::value) {
            return SaturateTo<D>(v);
        } else {
            return SaturateTo<D>(RoundToIntegral(v, r));
        }
    }
}

#ifdef OPGEN_TWIN_SIMD_DISPATCH
// half <-> float with AVX-512's conversion instructions (the SIMD level 2 of simd.h), 16 at a
// time; the rest, and NaNs, as fp::HalfBitsToFloatFast / fp::FloatToHalfBitsRne do: the
// instructions keep a NaN's payload, the twin gives the quiet NaN without one (sign kept).
__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,f16c"))) inline void HalfToFloatAvx512(
    void* dst, const void* src, uint32_t count)
{
    const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
    const __m512i quiet = _mm512_set1_epi32(0x7FC00000);
    uint32_t i = 0;
    for (; i + 16 <= count; i += 16) {
        // the zero-masked forms: GCC 12 warns that the plain ones' undefined source may be
        // used uninitialized (it is not: every lane is written)
        const __m512 f = _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(src) + i)));
        const __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
        const __m512i bits = _mm512_castps_si512(f);
        _mm512_storeu_si512(static_cast<float*>(dst) + i,
                            _mm512_mask_or_epi32(bits, nan, _mm512_and_si512(bits, sign), quiet));
    }
    for (; i < count; ++i) {
        Store<float>(dst, i, fp::HalfBitsToFloatFast(Load<uint16_t>(src, i)));
    }
}

__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,f16c"))) inline void FloatToHalfAvx512(
    void* dst, const void* src, uint32_t count)
{
    const __m256i sign = _mm256_set1_epi16(static_cast<short>(0x8000));
    const __m256i quiet = _mm256_set1_epi16(0x7E00);
    uint32_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m512 f = _mm512_loadu_ps(static_cast<const float*>(src) + i);
        const __m256i h = _mm512_maskz_cvtps_ph(0xFFFF, f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<uint16_t*>(dst) + i),
                            _mm256_mask_blend_epi16(nan, h, _mm256_or_si256(_mm256_and_si256(h, sign), quiet)));
    }
    for (; i < count; ++i) {
        Store<uint16_t>(dst, i, fp::FloatToHalfBitsRne(Load<float>(src, i)));
    }
}
#endif

// Vectorizable loops for the casts elementwise kernels run on every tile (16-bit float <->
// float, to nearest even), bit-identical to ConvertOne; half <-> float with the CPU's
// conversion instructions at SIMD level 2. False: no fast loop for this pair and rounding (or
// the operands overlap); the caller takes the general path.
// half -> float and float -> half to nearest even, with the CPU's conversion instructions at
// SIMD level 2.
inline void HalfToFloatFast(void* dst, const void* src, uint32_t count)
{
#ifdef OPGEN_TWIN_SIMD_DISPATCH
    if (SimdLevel() >= 2) {
        HalfToFloatAvx512(dst, src, count);
        return;
    }
#endif
    SimdFor(count, [dst, src](uint32_t i) { Store<float>(dst, i, fp::HalfBitsToFloatFast(Load<uint16_t>(src, i))); });
}

inline void FloatToHalfFast(void* dst, const void* src, uint32_t count)
{
#ifdef OPGEN_TWIN_SIMD_DISPATCH
    if (SimdLevel() >= 2) {
        FloatToHalfAvx512(dst, src, count);
        return;
    }
#endif
    SimdFor(count, [dst, src](uint32_t i) { Store<uint16_t>(dst, i, fp::FloatToHalfBitsRne(Load<float>(src, i))); });
}

// Vectorizable loops for the casts elementwise kernels run on every tile (16-bit float <->
// float, to nearest even), bit-identical to ConvertOne; half <-> float with the CPU's
// conversion instructions at SIMD level 2. False: no fast loop for this pair and rounding (or
// the operands overlap); the caller takes the general path.
template <class D, class S>
inline bool CastFast(void* dst, const void* src, uint32_t count, Rounding r)
{
    const uint8_t* s0 = static_cast<const uint8_t*>(src);
    uint8_t* d0 = static_cast<uint8_t*>(dst);
    if (d0 < s0 + uint64_t{count} * sizeof(S) && s0 < d0 + uint64_t{count} * sizeof(D)) {
        return false;
    }
    if constexpr (std::is_same<S, half>::value && std::is_same<D, float>::value) {
        HalfToFloatFast(dst, src, count);
        return true;
    } else if constexpr (std::is_same<S, bfloat16_t>::value && std::is_same<D, float>::value) {
        SimdFor(count, [dst, src](uint32_t i) { Store<float>(dst, i, fp::Bf16BitsToFloat(Load<uint16_t>(src, i))); });
        return true;
    } else if constexpr (std::is_same<S, float>::value && std::is_same<D, half>::value) {
        if (r != Rounding::kNearestEven) return false;
        FloatToHalfFast(dst, src, count);
        return true;
    } else if constexpr (std::is_same<S, float>::value && std::is_same<D, bfloat16_t>::value) {
        if (r != Rounding::kNearestEven) return false;
        SimdFor(count, [dst, src](uint32_t i) { Store<uint16_t>(dst, i, fp::FloatToBf16BitsRne(Load<float>(src, i))); });
        return true;
    } else {
        (void)r;
        return false;
    }
}

}  // namespace detail
}  // namespace opgen_twin

namespace AscendC {

template <typename T, typename U, int Arch = opgen_twin::detail::kNpuArch>
inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode, const uint32_t count)
{
    constexpr uint32_t modes = opgen_twin::detail::CastModes<U, T>();
    static_assert(modes != 0,
                  "opgen twin: AscendC::Cast does not support this (src, dst) type pair on ascend910b (Atlas A2). "
                  "Supported: int8/uint8->half, int16->half/float, half->int8/uint8/int16/int32/float, "
                  "bfloat16_t->int32/float, int32->int16/float/int64, float->int16/half/bfloat16_t/int32/float/int64, "
                  "int64->int32/float");
    const char* api = "Cast";
    const uint32_t bit = 1u << static_cast<uint32_t>(roundMode);
    if ((modes & bit) == 0) {
        opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
            "Cast(%s->%s): RoundMode::%s is not supported for this conversion on ascend910b (see the AscendC Cast "
            "table; e.g. float->bfloat16_t needs CAST_RINT/FLOOR/CEIL/ROUND/TRUNC, half->float only CAST_NONE)",
            opgen_twin::detail::TypeName<U>(), opgen_twin::detail::TypeName<T>(),
            opgen_twin::detail::RoundModeName(roundMode)));
    }
    opgen_twin::detail::CheckCastExists<Arch>(
        opgen_twin::detail::TypeName<U>(), opgen_twin::detail::TypeName<T>(),
        std::is_same<T, bfloat16_t>::value || std::is_same<U, bfloat16_t>::value,
        std::is_same<T, half>::value && std::is_same<U, float>::value,
        roundMode == RoundMode::CAST_NONE || roundMode == RoundMode::CAST_ODD,
        opgen_twin::detail::RoundModeName(roundMode));
    dst.TwinCheckFits(api, "dst", count);
    src.TwinCheckFits(api, "src", count);
    const opgen_twin::Rounding r = opgen_twin::detail::ToRounding(roundMode);
    const void* s = src.TwinData();
    void* d = dst.TwinDataToOverwrite(uint64_t{count} * sizeof(T));  // after the read: dst may be src
    if (opgen_twin::detail::CastFast<T, U>(d, s, count, r)) {
        return;
    }
    if (static_cast<const void*>(d) == s || sizeof(T) == sizeof(U)) {
        for (uint32_t i = 0; i < count; ++i) {
            opgen_twin::detail::Store<T>(d, i, opgen_twin::detail::ConvertOne<T>(opgen_twin::detail::Load<U>(s, i), r));
        }
    } else {
        // Different widths may alias partially (in-place widening); read everything first.
        std::vector<T> tmp(count);
        for (uint32_t i = 0; i < count; ++i) {
            tmp[i] = opgen_twin::detail::ConvertOne<T>(opgen_twin::detail::Load<U>(s, i), r);
        }
        std::memcpy(d, tmp.data(), static_cast<size_t>(count) * sizeof(T));
    }
}

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_VEC_H
