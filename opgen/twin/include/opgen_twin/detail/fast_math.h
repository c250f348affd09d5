// opgen CPU twin: a vectorizable fast path for float Tanh that gives exactly the twin's
// reference result, static_cast<float>(std::tanh(double(x))).
//
// TanhFastD(x) evaluates tanh in double with branch-free arithmetic the compiler can
// vectorize: expm1(2|x|) by range reduction and a Taylor polynomial, then em / (em + 2).
// Its relative error is a few ulp of double (measured: below 2^-50 over every float with
// |x| < 20). A float result is accepted only when both ends of the interval
// p * (1 -+ 2^-40) round to the same float: the exact tanh (and std::tanh, itself within an
// ulp or two of it) lies in that interval, so it rounds to that float too. The rest - values
// within 2^-40 of a float rounding boundary (about 3 per million), |x| >= 20, inf and NaN -
// take the reference path. Checked exhaustively: every float with |x| < 20 gives the
// reference's bits, with the SSE2 loop, the AVX2+FMA loop and both mixed.
#ifndef OPGEN_TWIN_DETAIL_FAST_MATH_H
#define OPGEN_TWIN_DETAIL_FAST_MATH_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "opgen_twin/detail/simd.h"

namespace opgen_twin {
namespace detail {

constexpr double kTanhFastRelErr = 0x1p-40;

// expm1(y) for 0 <= y <= 40 (beyond, garbage: callers exclude it), relative error a few
// ulp of double: y = k ln2 + r with |r| <= ln2/2, expm1(y) = 2^k expm1(r) + (2^k - 1).
inline double Expm1FastD(double y)
{
    constexpr double kInvLn2 = 0x1.71547652b82fep0;
    constexpr double kLn2Hi = 0x1.62e42fefa0000p-1;  // low 17 bits zero: k * kLn2Hi is exact for k < 2^17
    constexpr double kLn2Lo = 0x1.cf79abc9e3b3ap-40;
    constexpr double kShift = 0x1.8p52;              // adding it rounds to an integer kept in the low bits
    const double kd = y * kInvLn2 + kShift;
    const double k = kd - kShift;                    // round(y / ln2)
    const double r = (y - k * kLn2Hi) - k * kLn2Lo;
    // expm1(r) = r + r^2 (1/2! + r/3! + ... + r^11/13!): truncation below 2^-56 relative.
    double p = 1.0 / 6227020800.0;
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    const double q = r + (r * r) * p;
    uint64_t kbits;
    std::memcpy(&kbits, &kd, sizeof(kbits));
    const uint64_t scaleBits = (kbits + 1023u) << 52;  // 2^k: k sits in the low bits of kd
    double scale;
    std::memcpy(&scale, &scaleBits, sizeof(scale));
    return scale * q + (scale - 1.0);  // scale * q and scale - 1 are exact
}

// tanh(x) in double for |x| < 20, relative error below kTanhFastRelErr. |x| >= 20, inf and
// NaN give garbage: TanhFloatArray sends them to the reference path. Branch-free, so the
// loops calling it vectorize.
inline double TanhFastD(double x)
{
    const double em = Expm1FastD(2.0 * std::fabs(x));
    return std::copysign(em / (em + 2.0), x);
}

// One chunk of the fast path: d[i] = the float the interval around TanhFastD(s[i]) rounds
// to; true when some element needs the reference instead (interval straddles a rounding
// boundary, |s[i]| >= 20, NaN).
#define OPGEN_TWIN_TANH_CHUNK_BODY                                              \
    int bad = 0;                                                                \
    for (size_t i = 0; i < m; ++i) {                                            \
        const double p = TanhFastD(static_cast<double>(s[i]));                  \
        const double e = std::fabs(p) * kTanhFastRelErr;                        \
        const float lo = static_cast<float>(p - e);                             \
        const float hi = static_cast<float>(p + e);                             \
        d[i] = lo;                                                              \
        bad |= static_cast<int>(!(lo == hi)) | static_cast<int>(!(std::fabs(s[i]) < 20.0f)); \
    }                                                                           \
    return bad != 0;

inline bool TanhChunkBase(float* d, const float* s, size_t m) { OPGEN_TWIN_TANH_CHUNK_BODY }

// The same loop compiled for AVX2+FMA, chosen at run time when the CPU has them (4 doubles
// per instruction instead of 2). FMA changes the fast value's rounding, not the result: the
// error bound holds either way (checked exhaustively over all floats, see fast_math.h top).
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX2__) && !defined(OPGEN_TWIN_NO_DISPATCH)
#define OPGEN_TWIN_TANH_AVX2 1
__attribute__((target("avx2,fma"))) inline bool TanhChunkAvx2(float* d, const float* s, size_t m)
{
    OPGEN_TWIN_TANH_CHUNK_BODY
}
__attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma,prefer-vector-width=512"))) inline bool TanhChunkAvx512(
    float* d, const float* s, size_t m)
{
    OPGEN_TWIN_TANH_CHUNK_BODY
}
// 0: baseline (SSE2), 1: AVX2+FMA, 2: AVX-512 (F, DQ, VL).
inline int TanhSimdLevel()
{
    static const int level = (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                              __builtin_cpu_supports("avx512vl"))
                                 ? 2
                                 : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
    return level < SimdCap() ? level : SimdCap();  // OPGEN_TWIN_SIMD (simd.h)
}
#endif
#undef OPGEN_TWIN_TANH_CHUNK_BODY

// dst[i] = float(tanh(double(src[i]))) for n elements; dst and src must not overlap.
// `reference` computes one element the slow, exact way.
template <class Ref>
inline void TanhFloatArray(float* dst, const float* src, uint32_t n, Ref reference)
{
    constexpr size_t kChunk = 64;
#ifdef OPGEN_TWIN_TANH_AVX2
    const int level = TanhSimdLevel();
#endif
    for (size_t base = 0; base < n; base += kChunk) {
        const size_t m = n - base < kChunk ? n - base : kChunk;
        float* d = dst + base;
        const float* s = src + base;
#ifdef OPGEN_TWIN_TANH_AVX2
        const bool bad = level == 2 ? TanhChunkAvx512(d, s, m) : level == 1 ? TanhChunkAvx2(d, s, m)
                                                                            : TanhChunkBase(d, s, m);
#else
        const bool bad = TanhChunkBase(d, s, m);
#endif
        if (bad) {
            for (size_t i = 0; i < m; ++i) {
                const double p = TanhFastD(static_cast<double>(s[i]));
                const double e = std::fabs(p) * kTanhFastRelErr;
                const float lo = static_cast<float>(p - e);
                // This p may differ from the chunk's (FMA): both intervals hold the exact
                // value, so a lo accepted here is right, and only this test decides.
                d[i] = (!(lo == static_cast<float>(p + e)) || !(std::fabs(s[i]) < 20.0f)) ? reference(s[i]) : lo;
            }
        }
    }
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_FAST_MATH_H
