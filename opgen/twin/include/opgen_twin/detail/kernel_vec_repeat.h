// opgen CPU twin: the level-0 ("high-dimensional split", 高维切分) forms of the vector instructions:
// mask + repeatTime + BinaryRepeatParams / UnaryRepeatParams; isSetMask = false takes the mask
// register and its mode (Normal or Counter) as SetVectorMask / SetMaskCount left them (kernel_mask.h).
//
// asc-devkit docs (基础API/Memory矢量计算/SIMD计算说明/掩码.md, 高维切分.md; 辅助数据结构/
// BinaryRepeatParams.md, UnaryRepeatParams.md): an instruction runs repeatTime iterations; each
// iteration covers 8 data blocks of 32 bytes (256 bytes: 128 16-bit or 64 32-bit elements); element
// k of an iteration is element k % (32 / sizeof(T)) of block k / (32 / sizeof(T)); block b of
// iteration r of an operand starts blkStride * b + repStride * r blocks after the tensor's start.
// The mask selects the elements of each iteration: continuous mode (uint64_t mask) the first `mask`
// ones (at most 128 / 64; a larger value counts as the maximum, 0 is a no-op), bit mode
// (uint64_t mask[2]) bit k of mask[k / 64] (32-bit types: mask[0] only, mask[1] not read; it must be
// 0 on ascend950). repeatTime 0 is a no-op.
// Checked (HardwareError naming the call): every element touched lies inside its tensor; dstBlkStride
// 0 (undefined); on ascend950 bit mode's mask[1] != 0 for 32-bit types; a continuous mask of 2^63 or more (a
// negative value, undefined). Unselected destination elements keep their bytes. All reads of one
// call happen before its writes.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_VEC_REPEAT_H
#define OPGEN_TWIN_DETAIL_KERNEL_VEC_REPEAT_H

#include <cstdint>
#include <vector>

#include "opgen_twin/detail/kernel_mask.h"
#include "opgen_twin/detail/kernel_vec.h"

namespace AscendC {

const int32_t DEFAULT_BLK_NUM = 8;
const int32_t DEFAULT_BLK_STRIDE = 1;
const uint8_t DEFAULT_REPEAT_STRIDE = 8;

struct BinaryRepeatParams {
    BinaryRepeatParams() {}
    BinaryRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                       const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
        : dstBlkStride(dstBlkStrideIn),
          src0BlkStride(src0BlkStrideIn),
          src1BlkStride(src1BlkStrideIn),
          dstRepStride(dstRepStrideIn),
          src0RepStride(src0RepStrideIn),
          src1RepStride(src1RepStrideIn)
    {
    }
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
};

struct UnaryRepeatParams {
    UnaryRepeatParams() {}
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn)
    {
    }
    UnaryRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                      const uint8_t srcRepStrideIn, const bool halfBlockIn)
        : dstBlkStride(dstBlkStrideIn), srcBlkStride(srcBlkStrideIn), dstRepStride(dstRepStrideIn),
          srcRepStride(srcRepStrideIn), halfBlock(halfBlockIn)
    {
    }
    uint32_t blockNumber = DEFAULT_BLK_NUM;
    uint16_t dstBlkStride = DEFAULT_BLK_STRIDE;
    uint16_t srcBlkStride = DEFAULT_BLK_STRIDE;
    uint8_t dstRepStride = DEFAULT_REPEAT_STRIDE;
    uint8_t srcRepStride = DEFAULT_REPEAT_STRIDE;
    bool repeatStrideMode = false;
    bool strideSizeMode = false;
    bool halfBlock = false;
};

}  // namespace AscendC

namespace opgen_twin {
namespace detail {

// dst[iteration element] = f(src0[...], src1[...]) for the selected elements.
template <class T, class F>
inline void BinaryRepeat(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src0,
                         const AscendC::LocalTensor<T>& src1, const RepeatPlan<T>& plan,
                         const AscendC::BinaryRepeatParams& p, F f)
{
    if (plan.None()) return;
    if (p.dstBlkStride == 0) {
        ThrowHardware(Format("%s: dstBlkStride 0 is undefined on the NPU (asc-devkit 高维切分.md)", api));
    }
    CheckPlanFits(api, "dst", dst, plan, p.dstBlkStride, p.dstRepStride);
    CheckPlanFits(api, "src0", src0, plan, p.src0BlkStride, p.src0RepStride);
    CheckPlanFits(api, "src1", src1, plan, p.src1BlkStride, p.src1RepStride);
    const void* a = src0.TwinData();
    const void* b = src1.TwinData();
    constexpr uint32_t perRepeat = 256 / sizeof(T);
    std::vector<std::pair<uint64_t, T>> out;
    out.reserve(static_cast<size_t>(plan.repeats) * perRepeat);
    for (uint64_t r = 0; r < plan.repeats; ++r) {
        const RepeatMask m = plan.Iter(r);
        for (uint32_t k = 0; k < perRepeat; ++k) {
            if (!m.Has(k)) continue;
            const T x = Load<T>(a, RepeatElem<T>(r, k, p.src0BlkStride, p.src0RepStride));
            const T y = Load<T>(b, RepeatElem<T>(r, k, p.src1BlkStride, p.src1RepStride));
            out.emplace_back(RepeatElem<T>(r, k, p.dstBlkStride, p.dstRepStride), f(x, y));
        }
    }
    void* d = dst.TwinData();
    for (const auto& e : out) Store<T>(d, e.first, e.second);
}

template <class T, class F>
inline void UnaryRepeat(const char* api, const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                        const RepeatPlan<T>& plan, const AscendC::UnaryRepeatParams& p, F f)
{
    if (plan.None()) return;
    if (p.dstBlkStride == 0) {
        ThrowHardware(Format("%s: dstBlkStride 0 is undefined on the NPU (asc-devkit 高维切分.md)", api));
    }
    CheckPlanFits(api, "dst", dst, plan, p.dstBlkStride, p.dstRepStride);
    CheckPlanFits(api, "src", src, plan, p.srcBlkStride, p.srcRepStride);
    const void* s = src.TwinData();
    constexpr uint32_t perRepeat = 256 / sizeof(T);
    std::vector<std::pair<uint64_t, T>> out;
    out.reserve(static_cast<size_t>(plan.repeats) * perRepeat);
    for (uint64_t r = 0; r < plan.repeats; ++r) {
        const RepeatMask m = plan.Iter(r);
        for (uint32_t k = 0; k < perRepeat; ++k) {
            if (!m.Has(k)) continue;
            out.emplace_back(RepeatElem<T>(r, k, p.dstBlkStride, p.dstRepStride),
                             f(Load<T>(s, RepeatElem<T>(r, k, p.srcBlkStride, p.srcRepStride))));
        }
    }
    void* d = dst.TwinData();
    for (const auto& e : out) Store<T>(d, e.first, e.second);
}

}  // namespace detail
}  // namespace opgen_twin

// The binary and unary instructions' level-0 overloads, both mask forms.
#define OPGEN_TWIN_BINARY_REPEAT(NAME, COND, LIST, OP)                                                            \
    namespace AscendC {                                                                                          \
    template <typename T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams)          \
    {                                                                                                            \
        OPGEN_TWIN_SUPPORTED_TYPES(COND, #NAME, LIST);                                                           \
        const char* api = #NAME "(mask[], repeatTime, BinaryRepeatParams)";                                      \
        opgen_twin::detail::BinaryRepeat(api, dst, src0, src1, opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime), \
                                         repeatParams, [](T a, T b) { return OP(a, b); });           \
    }                                                                                                            \
    template <typename T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams)            \
    {                                                                                                            \
        OPGEN_TWIN_SUPPORTED_TYPES(COND, #NAME, LIST);                                                           \
        const char* api = #NAME "(mask, repeatTime, BinaryRepeatParams)";                                        \
        opgen_twin::detail::BinaryRepeat(api, dst, src0, src1, opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime), \
                                         repeatParams, [](T a, T b) { return OP(a, b); });           \
    }                                                                                                            \
    }

#define OPGEN_TWIN_UNARY_REPEAT(NAME, COND, LIST, FN)                                                             \
    namespace AscendC {                                                                                          \
    template <typename T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask[],                      \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams)                            \
    {                                                                                                            \
        OPGEN_TWIN_SUPPORTED_TYPES(COND, #NAME, LIST);                                                           \
        const char* api = #NAME "(mask[], repeatTime, UnaryRepeatParams)";                                       \
        opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime),     \
                                        repeatParams, [](T x) { return FN; });                                   \
    }                                                                                                            \
    template <typename T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                        \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams)                            \
    {                                                                                                            \
        OPGEN_TWIN_SUPPORTED_TYPES(COND, #NAME, LIST);                                                           \
        const char* api = #NAME "(mask, repeatTime, UnaryRepeatParams)";                                         \
        opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime), \
                                        repeatParams, [](T x) { return FN; });                       \
    }                                                                                                            \
    }

// Tensor-scalar instructions (Adds, Muls, Maxs, Mins): the scalar has the tensor's element type.
#define OPGEN_TWIN_SCALAR_REPEAT(NAME, COND, LIST, OP)                                                            \
    namespace AscendC {                                                                                          \
    template <typename T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask[], \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams)                            \
    {                                                                                                            \
        OPGEN_TWIN_SUPPORTED_TYPES(COND, #NAME, LIST);                                                           \
        const char* api = #NAME "(mask[], repeatTime, UnaryRepeatParams)";                                       \
        const T s = scalarValue;                                                                                 \
        opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime),     \
                                        repeatParams, [s](T x) { return OP(x, s); });                            \
    }                                                                                                            \
    template <typename T, bool isSetMask = true>                                                                 \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue, uint64_t mask,   \
                     const uint8_t repeatTime, const UnaryRepeatParams& repeatParams)                            \
    {                                                                                                            \
        OPGEN_TWIN_SUPPORTED_TYPES(COND, #NAME, LIST);                                                           \
        const char* api = #NAME "(mask, repeatTime, UnaryRepeatParams)";                                         \
        const T s = scalarValue;                                                                                 \
        opgen_twin::detail::UnaryRepeat(api, dst, src, opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime), \
                                        repeatParams, [s](T x) { return OP(x, s); });                \
    }                                                                                                            \
    }

OPGEN_TWIN_BINARY_REPEAT(Add, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpAdd<T>)
OPGEN_TWIN_BINARY_REPEAT(Sub, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpSub<T>)
OPGEN_TWIN_BINARY_REPEAT(Mul, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpMul<T>)
OPGEN_TWIN_BINARY_REPEAT(Div, opgen_twin::detail::IsFloatT<T>::value, "half, float", opgen_twin::detail::OpDiv<T>)
OPGEN_TWIN_BINARY_REPEAT(Max, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpMax<T>)
OPGEN_TWIN_BINARY_REPEAT(Min, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpMin<T>)

OPGEN_TWIN_SCALAR_REPEAT(Adds, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpAdd<T>)
OPGEN_TWIN_SCALAR_REPEAT(Muls, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpMul<T>)
OPGEN_TWIN_SCALAR_REPEAT(Maxs, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpMax<T>)
OPGEN_TWIN_SCALAR_REPEAT(Mins, opgen_twin::detail::IsArithT<T>::value, "int16_t, half, int32_t, float", opgen_twin::detail::OpMin<T>)

OPGEN_TWIN_UNARY_REPEAT(Exp, opgen_twin::detail::IsFloatT<T>::value, "half, float",
                        opgen_twin::detail::Transcend(x, [](double v) { return std::exp(v); }))
OPGEN_TWIN_UNARY_REPEAT(Ln, opgen_twin::detail::IsFloatT<T>::value, "half, float",
                        opgen_twin::detail::Transcend(x, [](double v) { return std::log(v); }))
OPGEN_TWIN_UNARY_REPEAT(Sqrt, opgen_twin::detail::IsFloatT<T>::value, "half, float",
                        opgen_twin::detail::Transcend(x, [](double v) { return std::sqrt(v); }))
OPGEN_TWIN_UNARY_REPEAT(Abs, opgen_twin::detail::IsFloatT<T>::value, "half, float",
                        opgen_twin::detail::Transcend(x, [](double v) { return std::fabs(v); }))
OPGEN_TWIN_UNARY_REPEAT(Reciprocal, opgen_twin::detail::IsFloatT<T>::value, "half, float",
                        opgen_twin::detail::Transcend(x, [](double v) { return 1.0 / v; }))
OPGEN_TWIN_UNARY_REPEAT(Relu, opgen_twin::detail::IsReluT<T>::value, "half, int32_t, float",
                        opgen_twin::detail::ToDouble(x) > 0 ? x : T(0))


namespace AscendC {
// Duplicate's level-0 forms: the scalar into the selected elements of each iteration.
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask[], const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsDupT<T>::value, "Duplicate",
                               "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    const char* api = "Duplicate(mask[], repeatTime, dstBlockStride, dstRepeatStride)";
    const T s = scalarValue;
    opgen_twin::detail::UnaryRepeat(api, dst, dst, opgen_twin::detail::PlanBits<T, isSetMask>(api, mask, repeatTime),
                                    UnaryRepeatParams(dstBlockStride, dstBlockStride, dstRepeatStride, dstRepeatStride),
                                    [s](T) { return s; });
}
template <typename T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const T& scalarValue, uint64_t mask, const uint8_t repeatTime,
                      const uint16_t dstBlockStride, const uint8_t dstRepeatStride)
{
    OPGEN_TWIN_SUPPORTED_TYPES(opgen_twin::detail::IsDupT<T>::value, "Duplicate",
                               "int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float");
    const char* api = "Duplicate(mask, repeatTime, dstBlockStride, dstRepeatStride)";
    const T s = scalarValue;
    opgen_twin::detail::UnaryRepeat(api, dst, dst, opgen_twin::detail::PlanContinuous<T, isSetMask>(api, mask, repeatTime),
                                    UnaryRepeatParams(dstBlockStride, dstBlockStride, dstRepeatStride, dstRepeatStride),
                                    [s](T) { return s; });
}
}  // namespace AscendC

namespace AscendC {
// Axpy (asc-devkit 复合计算/Axpy.md): dst = scalar * src + dst; Atlas A2 combinations (src, scalar, dst):
// (half, half, half), (float, float, float), (half, half, float). Computed exactly (double) and
// rounded once to dst's type; the NPU may round the product first (half: within one ulp).
template <typename T, typename U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, const int32_t& count)
{
    static_assert((std::is_same<T, U>::value && opgen_twin::detail::IsFloatT<T>::value) ||
                      (std::is_same<T, float>::value && std::is_same<U, half>::value),
                  "opgen twin: AscendC::Axpy: Atlas A2 takes (src, scalar, dst) = (half, half, half), "
                  "(float, float, float) or (half, half, float) (asc-devkit Axpy.md)");
    const char* api = "Axpy";
    if (count < 0) opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format("%s: negative count %d", api, count));
    dst.TwinCheckFits(api, "dst", static_cast<uint64_t>(count));
    src.TwinCheckFits(api, "src", static_cast<uint64_t>(count));
    const void* sp = src.TwinData();
    void* dp = dst.TwinData();
    const double a = opgen_twin::detail::ToDouble(scalarValue);
    for (int32_t i = 0; i < count; ++i) {
        const double v = a * opgen_twin::detail::ToDouble(opgen_twin::detail::Load<U>(sp, i)) +
                         opgen_twin::detail::ToDouble(opgen_twin::detail::Load<T>(dp, i));
        opgen_twin::detail::Store<T>(dp, i, opgen_twin::detail::FromDouble<T>(v));
    }
}

// And / Or (asc-devkit 逻辑计算/And.md, Or.md): bitwise, int16_t and uint16_t.
template <typename T>
inline void And(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES((opgen_twin::detail::IsAnyOf<T, int16_t, uint16_t>::value), "And", "int16_t, uint16_t");
    opgen_twin::detail::Binary("And", dst, src0, src1, count, [](T a, T b) { return static_cast<T>(a & b); });
}
template <typename T>
inline void Or(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, const int32_t& count)
{
    OPGEN_TWIN_SUPPORTED_TYPES((opgen_twin::detail::IsAnyOf<T, int16_t, uint16_t>::value), "Or", "int16_t, uint16_t");
    opgen_twin::detail::Binary("Or", dst, src0, src1, count, [](T a, T b) { return static_cast<T>(a | b); });
}

// Gather: opgen_twin/detail/kernel_gather.h.
}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_VEC_REPEAT_H
