// opgen CPU twin: elementwise loops compiled for the build's baseline, AVX2 and AVX-512, picked
// at run time from what the CPU has.
//
// SimdFor(n, body) runs body(0) .. body(n-1) in order, as a plain loop would; the loop is
// compiled three times (GCC/Clang target attributes, x86-64 only) so the compiler vectorizes it
// with 4, 8 or 16 floats per instruction. The results are the same bits at every level as long
// as no multiply in a body feeds an add or subtract (AVX-512 could fuse the two into one FMA,
// rounding once instead of twice); the callers' bodies (kernel_vec.h) are integer bit work, one
// IEEE operation, or a libm call and a rounding. Built with -mavx2 or for another architecture,
// or with OPGEN_TWIN_NO_DISPATCH defined, the baseline loop is all there is. The environment
// variable OPGEN_TWIN_SIMD=0 (or 1) caps the level at the baseline (or AVX2), Tanh's loops
// (fast_math.h) included: the tests compare the levels.
#ifndef OPGEN_TWIN_DETAIL_SIMD_H
#define OPGEN_TWIN_DETAIL_SIMD_H

#include <cstdint>
#include <cstdlib>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__AVX2__) && !defined(OPGEN_TWIN_NO_DISPATCH)
#define OPGEN_TWIN_SIMD_DISPATCH 1
#endif

namespace opgen_twin {
namespace detail {

template <class Body>
inline void SimdForBase(uint32_t n, Body body)
{
    for (uint32_t i = 0; i < n; ++i) body(i);
}

#ifdef OPGEN_TWIN_SIMD_DISPATCH
template <class Body>
__attribute__((target("avx2"))) inline void SimdForAvx2(uint32_t n, Body body)
{
    for (uint32_t i = 0; i < n; ++i) body(i);
}
template <class Body>
__attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,prefer-vector-width=512"))) inline void SimdForAvx512(
    uint32_t n, Body body)
{
    for (uint32_t i = 0; i < n; ++i) body(i);
}
#endif

// The highest level OPGEN_TWIN_SIMD allows: its value 0, 1 or 2, else 2.
inline int SimdCap()
{
    static const int cap = [] {
        const char* env = std::getenv("OPGEN_TWIN_SIMD");
        return env != nullptr && (env[0] == '0' || env[0] == '1') && env[1] == '\0' ? env[0] - '0' : 2;
    }();
    return cap;
}

// The level the loops run at: the best this CPU has (0 the baseline, 1 AVX2, 2 AVX-512 F, VL,
// BW and DQ), at most SimdCap().
inline int SimdLevel()
{
#ifdef OPGEN_TWIN_SIMD_DISPATCH
    static const int level = [] {
        const int best = (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
                             ? 2
                             : __builtin_cpu_supports("avx2") ? 1 : 0;
        return best < SimdCap() ? best : SimdCap();
    }();
    return level;
#else
    return 0;
#endif
}

// The loop at a given level (at most SimdLevel(); the tests compare the levels).
template <class Body>
inline void SimdForLevel(int level, uint32_t n, const Body& body)
{
#ifdef OPGEN_TWIN_SIMD_DISPATCH
    if (level >= 2) {
        SimdForAvx512(n, body);
        return;
    }
    if (level == 1) {
        SimdForAvx2(n, body);
        return;
    }
#else
    (void)level;
#endif
    SimdForBase(n, body);
}

template <class Body>
inline void SimdFor(uint32_t n, const Body& body)
{
    SimdForLevel(SimdLevel(), n, body);
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_SIMD_H
