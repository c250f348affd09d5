// opgen CPU twin: 16-bit floating point types `half` (IEEE binary16) and `bfloat16_t`.
//
// Both are stored in 16 bits. Conversion from float/double rounds to nearest, ties to
// even (like the NPU's default CAST_RINT/CAST_NONE), with IEEE overflow to +-inf,
// gradual underflow (subnormals) for half, and NaN preserved (quiet). Arithmetic on two
// half (or two bfloat16_t) values is carried out exactly in double and rounded once to
// the 16-bit type, which is what a correctly rounding 16-bit ALU produces.
//
// On the NPU `half` is a compiler builtin and `bfloat16_t` a global typedef; both live in
// the global namespace here too.
#ifndef OPGEN_TWIN_FP16_H
#define OPGEN_TWIN_FP16_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace opgen_twin {

// Rounding directions used by the converters (AscendC::RoundMode maps onto these).
enum class Rounding : uint8_t {
    kNearestEven,  // rint / CAST_RINT (and CAST_NONE when the conversion is lossy)
    kFloor,        // toward -inf
    kCeil,         // toward +inf
    kNearestAway,  // round half away from zero / CAST_ROUND
    kTrunc,        // toward zero
    kOdd,          // round to odd (von Neumann): truncate, then force the last bit to 1 if inexact
};

namespace fp {

// Whether a value of magnitude fl + frac (fl an integer, 0 <= frac < 1, in units of the last
// mantissa bit) rounds up to fl + 1 in `mode`; `neg` is the value's sign.
inline bool RoundsUp(Rounding mode, bool neg, double fl, double frac)
{
    switch (mode) {
        case Rounding::kNearestEven:
            return frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) != 0.0);
        case Rounding::kNearestAway:
            return frac >= 0.5;
        case Rounding::kTrunc:
            return false;
        case Rounding::kFloor:
            return neg && frac > 0.0;
        case Rounding::kCeil:
            return !neg && frac > 0.0;
        case Rounding::kOdd:
            return frac > 0.0 && std::fmod(fl, 2.0) == 0.0;
    }
    return false;
}

// IEEE 754's overflow: the modes that round away from zero in the value's direction give inf,
// the others the largest finite value.
inline bool OverflowsToInf(Rounding mode, bool neg)
{
    return mode == Rounding::kNearestEven || mode == Rounding::kNearestAway || (mode == Rounding::kCeil && !neg) ||
           (mode == Rounding::kFloor && neg);
}

// Encodes `x` into a binary floating-point format with EXP exponent bits and MANT
// explicit mantissa bits (half: 5/10, bfloat16: 8/7, float: 8/23). Returns the bit
// pattern in the low 1+EXP+MANT bits. Overflow follows IEEE 754 directed-rounding rules:
// modes that round away from zero in the value's direction give inf, the others give
// the largest finite value.
template <int EXP, int MANT>
inline uint32_t Encode(double x, Rounding mode)
{
    constexpr int kBias = (1 << (EXP - 1)) - 1;
    constexpr int kEmin = 1 - kBias;
    constexpr int kEmax = kBias;
    constexpr uint32_t kExpMask = (1u << EXP) - 1u;
    constexpr uint32_t kMaxFinite = ((kExpMask - 1u) << MANT) | ((1u << MANT) - 1u);
    const bool neg = std::signbit(x);
    const uint32_t sign = neg ? (1u << (EXP + MANT)) : 0u;
    if (std::isnan(x)) {
        return sign | (kExpMask << MANT) | (1u << (MANT - 1));
    }
    if (std::isinf(x)) {
        return sign | (kExpMask << MANT);
    }
    const double a = std::fabs(x);
    if (a == 0.0) {
        return sign;
    }
    const uint32_t overflowBits = sign | (OverflowsToInf(mode, neg) ? (kExpMask << MANT) : kMaxFinite);
    int e2 = 0;
    (void)std::frexp(a, &e2);
    int e = e2 - 1;  // a is in [2^e, 2^(e+1))
    if (e > kEmax) {
        return overflowBits;
    }
    if (e < kEmin) {
        e = kEmin;  // subnormal range: fixed quantum 2^(emin-MANT)
    }
    // Scaling by a power of two is exact in double for every input we see (float/int).
    const double q = std::ldexp(a, MANT - e);
    const double fl = std::floor(q);
    const bool up = RoundsUp(mode, neg, fl, q - fl);
    uint64_t m = static_cast<uint64_t>(fl) + (up ? 1u : 0u);
    if (m >= (uint64_t{1} << (MANT + 1))) {  // rounding carried into the next binade
        m >>= 1;
        ++e;
    }
    if (e > kEmax) {
        return overflowBits;
    }
    if (m < (uint64_t{1} << MANT)) {  // subnormal (only possible with e == emin)
        return sign | static_cast<uint32_t>(m);
    }
    return sign | (static_cast<uint32_t>(e + kBias) << MANT) | static_cast<uint32_t>(m - (uint64_t{1} << MANT));
}

template <int EXP, int MANT>
inline double Decode(uint32_t bits)
{
    constexpr int kBias = (1 << (EXP - 1)) - 1;
    constexpr uint32_t kExpMask = (1u << EXP) - 1u;
    const bool neg = ((bits >> (EXP + MANT)) & 1u) != 0;
    const uint32_t expField = (bits >> MANT) & kExpMask;
    const uint32_t mant = bits & ((1u << MANT) - 1u);
    double v;
    if (expField == kExpMask) {
        v = mant != 0 ? std::nan("") : HUGE_VAL;
    } else if (expField == 0) {
        v = std::ldexp(static_cast<double>(mant), 1 - kBias - MANT);
    } else {
        v = std::ldexp(static_cast<double>(mant | (1u << MANT)), static_cast<int>(expField) - kBias - MANT);
    }
    return neg ? -v : v;
}

inline uint16_t FloatToHalfBits(double v, Rounding r = Rounding::kNearestEven)
{
    return static_cast<uint16_t>(Encode<5, 10>(v, r));
}
inline uint16_t FloatToBf16Bits(double v, Rounding r = Rounding::kNearestEven)
{
    return static_cast<uint16_t>(Encode<8, 7>(v, r));
}
inline float HalfBitsToFloat(uint16_t b) { return static_cast<float>(Decode<5, 10>(b)); }
inline float Bf16BitsToFloat(uint16_t b)
{
    const uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, sizeof(f));
    return f;
}
// Rounds a double to float with a given direction (used by int32/int64 -> float casts).
inline float DoubleToFloat(double v, Rounding r)
{
    if (r == Rounding::kNearestEven) {
        return static_cast<float>(v);
    }
    const uint32_t u = Encode<8, 23>(v, r);
    float f;
    std::memcpy(&f, &u, sizeof(f));
    return f;
}

// c ? a : b on bit masks: keeps the loops below branch-free (a plain ?: lets the compiler
// move a float operation into a branch, which then blocks vectorization).
inline uint32_t SelectBits(bool c, uint32_t a, uint32_t b)
{
    const uint32_t m = 0u - static_cast<uint32_t>(c);
    return (a & m) | (b & ~m);
}

// Branch-free, vectorizable equivalents of the conversions above for the hot Cast pairs;
// bit-identical to them (checked over every input; the float->16-bit ones over all 2^32
// floats). Integer arithmetic apart from one float add, so FMA contraction cannot change them.

// == HalfBitsToFloat(b): exact; NaN -> the quiet NaN without payload, sign kept.
inline float HalfBitsToFloatFast(uint16_t b)
{
    const uint32_t sign = static_cast<uint32_t>(b & 0x8000u) << 16;
    const uint32_t em = b & 0x7FFFu;
    const uint32_t shifted = em << 13;  // half exponent/mantissa in float position: value * 2^-112
    float f;
    std::memcpy(&f, &shifted, sizeof(f));
    f *= 0x1p112f;  // exact, also for half subnormals
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    u = SelectBits(em >= 0x7C00u, SelectBits(em == 0x7C00u, 0x7F800000u, 0x7FC00000u), u);
    u |= sign;
    std::memcpy(&f, &u, sizeof(f));
    return f;
}
// == FloatToHalfBits(double(f), kNearestEven).
inline uint16_t FloatToHalfBitsRne(float f)
{
    uint32_t w;
    std::memcpy(&w, &f, sizeof(w));
    const uint32_t sign = (w >> 16) & 0x8000u;
    const uint32_t a = w & 0x7FFFFFFFu;
    // Normal half: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest
    // even; a carry moves into the exponent as it should.
    const uint32_t r = a - 0x38000000u;
    const uint32_t normal = (r + 0xFFFu + ((r >> 13) & 1u)) >> 13;
    // |f| < 2^-14 (half subnormal): 0.5f + |f| rounds |f| to a multiple of 2^-24, the half
    // subnormal quantum (0.5f's ulp), to nearest even.
    float af;
    std::memcpy(&af, &a, sizeof(af));
    const float t = af + 0.5f;
    uint32_t tb;
    std::memcpy(&tb, &t, sizeof(tb));
    const uint32_t sub = tb - 0x3F000000u;
    uint32_t h = SelectBits(a < 0x38800000u, sub, normal);
    h = SelectBits(a >= 0x477FF000u, 0x7C00u, h);  // >= 65520 rounds to inf
    h = SelectBits(a > 0x7F800000u, 0x7E00u, h);   // NaN: quiet, no payload
    return static_cast<uint16_t>(sign | h);
}
// == FloatToBf16Bits(double(f), kNearestEven).
inline uint16_t FloatToBf16BitsRne(float f)
{
    uint32_t w;
    std::memcpy(&w, &f, sizeof(w));
    const uint32_t rounded = (w + 0x7FFFu + ((w >> 16) & 1u)) >> 16;  // carries reach inf, never the sign
    const uint32_t nan = ((w >> 16) & 0x8000u) | 0x7FC0u;
    return static_cast<uint16_t>(SelectBits((w & 0x7FFFFFFFu) > 0x7F800000u, nan, rounded));
}

}  // namespace fp

namespace detail {
// CRTP base giving both 16-bit types the same interface.
template <class Derived, bool kIsBf16>
struct Fp16Base {
    static Derived FromBits(uint16_t b)
    {
        Derived d;
        d.bits_ = b;
        return d;
    }
    static uint16_t Encode(double v)
    {
        return kIsBf16 ? fp::FloatToBf16Bits(v) : fp::FloatToHalfBits(v);
    }
    static float DecodeBits(uint16_t b) { return kIsBf16 ? fp::Bf16BitsToFloat(b) : fp::HalfBitsToFloat(b); }
};
}  // namespace detail
}  // namespace opgen_twin

// NOLINTNEXTLINE(readability-identifier-naming): the NPU spelling.
struct half : opgen_twin::detail::Fp16Base<half, false> {
    uint16_t bits_;

    half() = default;  // trivial, like the builtin (uninitialised locals stay garbage)
    template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
    half(T v) : bits_(Encode(static_cast<double>(v)))  // NOLINT: implicit like the builtin
    {}
    operator float() const { return DecodeBits(bits_); }  // NOLINT: implicit like the builtin
    uint16_t Bits() const { return bits_; }
    half operator-() const { return FromBits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }
    half operator+() const { return *this; }
    template <class T> half& operator+=(T o) { return *this = half(static_cast<double>(float(*this)) + static_cast<double>(o)); }
    template <class T> half& operator-=(T o) { return *this = half(static_cast<double>(float(*this)) - static_cast<double>(o)); }
    template <class T> half& operator*=(T o) { return *this = half(static_cast<double>(float(*this)) * static_cast<double>(o)); }
    template <class T> half& operator/=(T o) { return *this = half(static_cast<double>(float(*this)) / static_cast<double>(o)); }
};

struct bfloat16_t : opgen_twin::detail::Fp16Base<bfloat16_t, true> {
    uint16_t bits_;

    bfloat16_t() = default;
    template <class T, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
    bfloat16_t(T v) : bits_(Encode(static_cast<double>(v)))  // NOLINT
    {}
    operator float() const { return DecodeBits(bits_); }  // NOLINT
    uint16_t Bits() const { return bits_; }
    bfloat16_t operator-() const { return FromBits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }
    bfloat16_t operator+() const { return *this; }
    template <class T> bfloat16_t& operator+=(T o) { return *this = bfloat16_t(static_cast<double>(float(*this)) + static_cast<double>(o)); }
    template <class T> bfloat16_t& operator-=(T o) { return *this = bfloat16_t(static_cast<double>(float(*this)) - static_cast<double>(o)); }
    template <class T> bfloat16_t& operator*=(T o) { return *this = bfloat16_t(static_cast<double>(float(*this)) * static_cast<double>(o)); }
    template <class T> bfloat16_t& operator/=(T o) { return *this = bfloat16_t(static_cast<double>(float(*this)) / static_cast<double>(o)); }
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half must be a 16-bit POD");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable<bfloat16_t>::value, "bfloat16_t must be a 16-bit POD");

namespace opgen_twin {
template <class T>
struct IsFp16Like : std::integral_constant<bool, std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value> {};
}  // namespace opgen_twin

// half OP half -> half and bfloat16_t OP bfloat16_t -> bfloat16_t, one rounding.
// Templates so that mixed expressions (half * float, half + 1) keep the builtin meaning
// (promotion to float) instead of becoming ambiguous.
template <class T, std::enable_if_t<opgen_twin::IsFp16Like<T>::value, int> = 0>
inline T operator+(T a, T b) { return T(static_cast<double>(float(a)) + static_cast<double>(float(b))); }
template <class T, std::enable_if_t<opgen_twin::IsFp16Like<T>::value, int> = 0>
inline T operator-(T a, T b) { return T(static_cast<double>(float(a)) - static_cast<double>(float(b))); }
template <class T, std::enable_if_t<opgen_twin::IsFp16Like<T>::value, int> = 0>
inline T operator*(T a, T b) { return T(static_cast<double>(float(a)) * static_cast<double>(float(b))); }
template <class T, std::enable_if_t<opgen_twin::IsFp16Like<T>::value, int> = 0>
inline T operator/(T a, T b) { return T(static_cast<double>(float(a)) / static_cast<double>(float(b))); }

#endif  // OPGEN_TWIN_FP16_H
