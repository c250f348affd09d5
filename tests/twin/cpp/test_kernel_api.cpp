// Unit checks of the kernel-side twin (kernel_operator.h). Run as `test_kernel_api SECTION`;
// prints "FAIL ..." lines for failed checks, "MSG name: text" for captured error messages,
// and "SUMMARY pass=N fail=M"; exit status 1 when a check failed.
#include <cfloat>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
#include "opgen_twin/detail/list_layout.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

#include "check.h"
#include "kernel_check.h"

namespace {

uint16_t HB(float f) { return half(f).Bits(); }
uint16_t BB(float f) { return bfloat16_t(f).Bits(); }
float F(uint32_t bits)
{
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}
[[maybe_unused]] uint32_t U(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

using Scratch = BasicScratch<16>;

template <class T>
void Fill(const LocalTensor<T>& t, const std::vector<float>& v)
{
    for (size_t i = 0; i < v.size(); ++i) t.SetValue(static_cast<uint32_t>(i), T(v[i]));
}

// ---------------------------------------------------------------- fp16 / bf16
void SectionFp16()
{
    CHECK(HB(1.0f) == 0x3C00, "1.0 -> %04x", HB(1.0f));
    CHECK(HB(-2.0f) == 0xC000, "-2 -> %04x", HB(-2.0f));
    CHECK(HB(65504.0f) == 0x7BFF, "max");
    CHECK(HB(65519.0f) == 0x7BFF, "65519 rounds down to max");
    CHECK(HB(65520.0f) == 0x7C00, "65520 (tie to even) overflows to inf: %04x", HB(65520.0f));
    CHECK(HB(-70000.0f) == 0xFC00, "-70000 -> -inf");
    CHECK(HB(INFINITY) == 0x7C00 && HB(-INFINITY) == 0xFC00, "inf");
    const uint16_t nanBits = HB(NAN);
    CHECK((nanBits & 0x7C00) == 0x7C00 && (nanBits & 0x3FF) != 0, "nan -> %04x", nanBits);
    CHECK(HB(-0.0f) == 0x8000, "-0");
    CHECK(HB(std::ldexp(1.0f, -24)) == 0x0001, "smallest subnormal");
    CHECK(HB(std::ldexp(1.0f, -25)) == 0x0000, "half of smallest subnormal ties to even (0)");
    CHECK(HB(std::ldexp(3.0f, -25)) == 0x0002, "1.5 ulp subnormal ties to even (2)");
    CHECK(HB(std::ldexp(1.0f, -14)) == 0x0400, "smallest normal");
    CHECK(HB(std::ldexp(1023.0f, -24)) == 0x03FF, "largest subnormal");
    CHECK(HB(1.0f + std::ldexp(1.0f, -11)) == 0x3C00, "tie 1+2^-11 -> even 1.0");
    CHECK(HB(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02, "tie 1+3*2^-11 -> even 0x3C02");
    CHECK(HB(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3C01, "above tie rounds up");
    CHECK(half::FromBits(0x0001) == std::ldexp(1.0f, -24), "decode subnormal");
    CHECK(float(half::FromBits(0x7BFF)) == 65504.0f, "decode max");
    CHECK(std::isinf(float(half::FromBits(0xFC00))) && float(half::FromBits(0xFC00)) < 0, "decode -inf");
    CHECK(std::isnan(float(half::FromBits(0x7E00))), "decode nan");
    // half arithmetic: computed exactly then rounded once to half.
    half a = 1.0f, b = std::ldexp(1.0f, -11);
    CHECK((a + b).Bits() == 0x3C00, "1 + 2^-11 in half ties to 1");
    CHECK((a - b).Bits() == HB(1.0f - std::ldexp(1.0f, -11)), "1 - 2^-11 exact");
    CHECK((half(3.0f) * half(0.5f)).Bits() == 0x3E00, "3*0.5");
    CHECK((half(1.0f) / half(3.0f)).Bits() == 0x3555, "1/3 -> %04x", (half(1.0f) / half(3.0f)).Bits());
    half c = 2.0f;
    c += 1.0f;
    CHECK(c.Bits() == 0x4200, "+=");
    CHECK(half(1.0f) < half(2.0f) && half(2.0f) == 2.0f, "compare");
    float mixed = half(1.5f) * 2.0f;  // promotes to float like the builtin
    CHECK(mixed == 3.0f, "mixed promotes");
}

void SectionBf16()
{
    CHECK(BB(1.0f) == 0x3F80, "1.0");
    CHECK(BB(-1.0f) == 0xBF80, "-1.0");
    CHECK(BB(1.0f + std::ldexp(1.0f, -8)) == 0x3F80, "tie 1+2^-8 -> even");
    CHECK(BB(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3F82, "tie 1+3*2^-8 -> even 0x3F82");
    CHECK(BB(FLT_MAX) == 0x7F80, "FLT_MAX rounds to inf: %04x", BB(FLT_MAX));
    CHECK(BB(F(0x7F7F0000)) == 0x7F7F, "max bf16 exact");
    CHECK(BB(std::ldexp(1.0f, -130)) == 0x0008, "subnormal exact: %04x", BB(std::ldexp(1.0f, -130)));
    CHECK(BB(std::ldexp(1.0f, -140)) == 0x0000, "tiny flushes by rounding");
    CHECK(BB(-0.0f) == 0x8000, "-0");
    const uint16_t n = BB(NAN);
    CHECK((n & 0x7F80) == 0x7F80 && (n & 0x7F) != 0, "nan");
    CHECK(float(bfloat16_t::FromBits(0x4049)) == 3.140625f, "decode");
    CHECK((bfloat16_t(1.0f) + bfloat16_t(std::ldexp(1.0f, -9))).Bits() == 0x3F80, "bf16 add rounds");
}

// Dumps conversions for the Python side to verify independently (struct 'e' / bit math).
void SectionDump()
{
    std::mt19937 rng(1234);
    std::vector<uint32_t> pats = {0x00000000, 0x80000000, 0x3F800000, 0x477FE000, 0x477FEFFF, 0x477FF000,
                                  0x33800000, 0x33000000, 0x33000001, 0x387FC000, 0x38800000, 0x7F7FFFFF,
                                  0x7F7F7FFF, 0x7F7F8000, 0x00000001, 0x3F808000, 0x3F818000, 0x3F800001};
    for (int i = 0; i < 4000; ++i) {
        uint32_t u = rng();
        const uint32_t e = (u >> 23) & 0xFF;
        if (e == 0xFF) continue;  // NaN/inf checked in C++
        if (i % 2 == 0) {          // concentrate half of the samples in half's range
            u = (u & 0x807FFFFF) | ((100 + e % 60) << 23);
        }
        pats.push_back(u);
    }
    for (uint32_t u : pats) {
        const float f = F(u);
        std::printf("DUMP %08x %04x %04x\n", u, HB(f), BB(f));
    }
}

// ---------------------------------------------------------------- Cast
template <class D, class S>
D CastOne(S v, RoundMode m)
{
    Scratch s;
    auto src = s.Get<S>(32);
    auto dst = s.Get<D>(32);
    src.SetValue(0, v);
    Cast(dst, src, m, 1);
    return dst.GetValue(0);
}

void SectionCast()
{
    const RoundMode modes[] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                               RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC, RoundMode::CAST_ODD};
    const char* names[] = {"NONE", "RINT", "FLOOR", "CEIL", "ROUND", "TRUNC", "ODD"};
    struct Case {
        float x;
        uint16_t want[7];  // NONE RINT FLOOR CEIL ROUND TRUNC ODD
    };
    const float u10 = std::ldexp(1.0f, -10), u11 = std::ldexp(1.0f, -11), u12 = std::ldexp(1.0f, -12);
    const Case cases[] = {
        {1.0f + u10 + u12, {0x3C01, 0x3C01, 0x3C01, 0x3C02, 0x3C01, 0x3C01, 0x3C01}},  // below the midpoint
        {1.0f + u11, {0x3C00, 0x3C00, 0x3C00, 0x3C01, 0x3C01, 0x3C00, 0x3C01}},        // tie, even below
        {1.0f + 3 * u11, {0x3C02, 0x3C02, 0x3C01, 0x3C02, 0x3C02, 0x3C01, 0x3C01}},    // tie, even above
        {1.0f + u10 + 3 * u12, {0x3C02, 0x3C02, 0x3C01, 0x3C02, 0x3C02, 0x3C01, 0x3C01}},  // above the midpoint
        {-(1.0f + u10 + u12), {0xBC01, 0xBC01, 0xBC02, 0xBC01, 0xBC01, 0xBC01, 0xBC01}},
        {-(1.0f + u11), {0xBC00, 0xBC00, 0xBC01, 0xBC00, 0xBC01, 0xBC00, 0xBC01}},
        {2.0f, {0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000, 0x4000}},  // exact: no mode changes it
        {70000.0f, {0x7C00, 0x7C00, 0x7BFF, 0x7C00, 0x7C00, 0x7BFF, 0x7BFF}},
        {-70000.0f, {0xFC00, 0xFC00, 0xFC00, 0xFBFF, 0xFC00, 0xFBFF, 0xFBFF}},
        {std::ldexp(3.0f, -25), {0x0002, 0x0002, 0x0001, 0x0002, 0x0002, 0x0001, 0x0001}},  // subnormal tie
    };
    for (const Case& c : cases) {
        for (int m = 0; m < 7; ++m) {
            const uint16_t got = CastOne<half, float>(c.x, modes[m]).Bits();
            CHECK(got == c.want[m], "float->half %.10g CAST_%s: got %04x want %04x", c.x, names[m], got, c.want[m]);
        }
    }
    // float -> bfloat16_t: directed modes only (CAST_NONE/CAST_ODD are not in the A2 table).
    CHECK((CastOne<bfloat16_t, float>(1.0f + std::ldexp(1.0f, -8), RoundMode::CAST_RINT).Bits() == 0x3F80), "bf16 rint");
    CHECK((CastOne<bfloat16_t, float>(1.0f + std::ldexp(1.0f, -8), RoundMode::CAST_ROUND).Bits() == 0x3F81), "bf16 round");
    CHECK((CastOne<bfloat16_t, float>(-1.01f, RoundMode::CAST_FLOOR).Bits() == 0xBF82), "bf16 floor");
    CHECK((CastOne<bfloat16_t, float>(1.01f, RoundMode::CAST_TRUNC).Bits() == 0x3F81), "bf16 trunc");
    ExpectHw("cast_bf16_none", [] { CastOne<bfloat16_t, float>(1.0f, RoundMode::CAST_NONE); },
             {"Cast(float->bfloat16_t)", "CAST_NONE", "not supported"});
    ExpectHw("cast_half_float_rint", [] { CastOne<float, half>(half(1.0f), RoundMode::CAST_RINT); },
             {"Cast(half->float)", "CAST_RINT"});
    // ascend310p (2002) and ascend910 (1001): float -> half only with CAST_NONE/CAST_ODD, no bfloat16_t
    {
        Scratch s;
        auto f = s.Get<float>(32);
        auto h = s.Get<half>(32);
        auto b = s.Get<bfloat16_t>(32);
        f.SetValue(0, 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -13));
        ExpectOk("cast_310p_none", [&] { Cast<half, float, 2002>(h, f, RoundMode::CAST_NONE, 8); });
        CHECK(h.GetValue(0).Bits() == 0x3C01, "310P float->half CAST_NONE rounds to nearest: %04x",
              h.GetValue(0).Bits());
        ExpectHw("cast_310p_rint", [&] { Cast<half, float, 2002>(h, f, RoundMode::CAST_RINT, 8); },
                 {"Cast(float->half)", "CAST_RINT", "ascend310p (__NPU_ARCH__ 2002)", "CAST_NONE"});
        ExpectHw("cast_910a_bf16", [&] { Cast<bfloat16_t, float, 1001>(b, f, RoundMode::CAST_RINT, 8); },
                 {"ascend910 (__NPU_ARCH__ 1001)", "no bfloat16_t Cast"});
        ExpectOk("cast_910b_rint", [&] { Cast<half, float, 2201>(h, f, RoundMode::CAST_RINT, 8); });
    }
    // widening is exact
    CHECK((CastOne<float, half>(half::FromBits(0x0001), RoundMode::CAST_NONE) == std::ldexp(1.0f, -24)), "half->float");
    CHECK((CastOne<float, bfloat16_t>(bfloat16_t::FromBits(0x4049), RoundMode::CAST_NONE) == 3.140625f), "bf16->float");
    // float -> int32
    const float ints[] = {2.5f, -2.5f, 2.4f};
    const int32_t want[3][5] = {{2, 2, 3, 3, 2}, {-2, -3, -2, -3, -2}, {2, 2, 3, 2, 2}};  // RINT FLOOR CEIL ROUND TRUNC
    for (int i = 0; i < 3; ++i) {
        for (int m = 1; m <= 5; ++m) {
            const int32_t got = CastOne<int32_t, float>(ints[i], modes[m]);
            CHECK(got == want[i][m - 1], "float->int32 %g CAST_%s: %d", ints[i], names[m], got);
        }
    }
    CHECK((CastOne<int32_t, float>(3e9f, RoundMode::CAST_RINT) == INT32_MAX), "saturate");
    CHECK((CastOne<float, float>(2.7f, RoundMode::CAST_FLOOR) == 2.0f), "float->float floor");
    CHECK((CastOne<float, int32_t>(16777217, RoundMode::CAST_RINT) == 16777216.0f), "int32->float rint");
    CHECK((CastOne<float, int32_t>(16777217, RoundMode::CAST_CEIL) == 16777218.0f), "int32->float ceil");
    CHECK((CastOne<int8_t, half>(half(3.5f), RoundMode::CAST_NONE) == 4), "half->int8 none = rint");
    CHECK((CastOne<int8_t, half>(half(300.0f), RoundMode::CAST_TRUNC) == 127), "half->int8 saturates");
    CHECK((CastOne<half, int16_t>(int16_t(2049), RoundMode::CAST_NONE).Bits() == HB(2048.0f)), "int16->half");
    ExpectHw("cast_overrun", [] {
        Scratch s;
        auto a = s.Get<float>(8);
        auto b = s.Get<half>(64);
        Cast(b, a, RoundMode::CAST_RINT, 64);
    }, {"Cast", "count 64", "src"});
}

// ---------------------------------------------------------------- vector ops
void SectionVec()
{
    Scratch s;
    auto x = s.Get<float>(64);
    auto y = s.Get<float>(64);
    auto z = s.Get<float>(64);
    Fill(x, {1.5f, -2.0f, 4.0f, 0.25f, 9.0f, -0.5f, 3.0f, 1e-3f});
    Fill(y, {2.0f, 3.0f, -4.0f, 0.5f, 3.0f, 0.5f, 7.0f, 2.0f});
    Add(z, x, y, 8);
    CHECK(z.GetValue(0) == 3.5f && z.GetValue(2) == 0.0f, "Add");
    Sub(z, x, y, 8);
    CHECK(z.GetValue(1) == -5.0f && z.GetValue(4) == 6.0f, "Sub");
    Mul(z, x, y, 8);
    CHECK(z.GetValue(0) == 3.0f && z.GetValue(2) == -16.0f, "Mul");
    Div(z, x, y, 8);
    CHECK(z.GetValue(4) == 3.0f && z.GetValue(6) == 3.0f / 7.0f, "Div");
    Max(z, x, y, 8);
    CHECK(z.GetValue(2) == 4.0f && z.GetValue(1) == 3.0f, "Max");
    Min(z, x, y, 8);
    CHECK(z.GetValue(2) == -4.0f && z.GetValue(1) == -2.0f, "Min");
    // FusedMulAdd: z = x * z + y, rounded once: (1 + 2^-20)^2 - (1 + 2^-19) is 2^-40, not 0
    const float near = 1.0f + std::ldexp(1.0f, -20);
    Fill(z, {near, 2.0f});
    auto w = s.Get<float>(64);
    Fill(w, {near, 3.0f});
    auto minus = s.Get<float>(64);
    Fill(minus, {-(1.0f + std::ldexp(1.0f, -19)), 1.0f});
    FusedMulAdd(z, w, minus, 2);
    CHECK(z.GetValue(0) == std::ldexp(1.0f, -40) && z.GetValue(1) == 7.0f, "FusedMulAdd rounds once: %g",
          z.GetValue(0));
    // documented for 310P's AI Core and 200I/500 A2 too, not for the training series (910A)
    Fill(z, {near, 2.0f});
    FusedMulAdd<float, 2002>(z, w, minus, 2);
    CHECK(z.GetValue(0) == std::ldexp(1.0f, -40) && z.GetValue(1) == 7.0f, "FusedMulAdd on 310P");
    Fill(z, {near, 2.0f});
    FusedMulAdd<float, 3002>(z, w, minus, 2);
    CHECK(z.GetValue(0) == std::ldexp(1.0f, -40) && z.GetValue(1) == 7.0f, "FusedMulAdd on 310B");
    ExpectHw("fused_mul_add_910a", [&] { FusedMulAdd<float, 1001>(z, w, minus, 2); },
             {"ascend910 (__NPU_ARCH__ 1001) has no FusedMulAdd", "FusedMulAdd.md"});
    Adds(z, x, 1.0f, 8);
    CHECK(z.GetValue(3) == 1.25f, "Adds");
    Muls(z, x, -2.0f, 8);
    CHECK(z.GetValue(0) == -3.0f, "Muls");
    Maxs(z, x, 0.0f, 8);
    CHECK(z.GetValue(1) == 0.0f && z.GetValue(0) == 1.5f, "Maxs");
    Mins(z, x, 0.0f, 8);
    CHECK(z.GetValue(1) == -2.0f && z.GetValue(0) == 0.0f, "Mins");
    Exp(z, x, 8);
    CHECK(z.GetValue(0) == static_cast<float>(std::exp(1.5)), "Exp");
    Abs(z, x, 8);
    CHECK(z.GetValue(1) == 2.0f, "Abs");
    Ln(z, y, 8);
    CHECK(z.GetValue(0) == static_cast<float>(std::log(2.0)) && std::isnan(z.GetValue(2)), "Ln (nan for <0)");
    Sqrt(z, x, 8);
    CHECK(z.GetValue(2) == 2.0f && z.GetValue(4) == 3.0f, "Sqrt");
    Rsqrt(z, x, 8);
    CHECK(z.GetValue(2) == 0.5f, "Rsqrt");
    Reciprocal(z, x, 8);
    CHECK(z.GetValue(2) == 0.25f && z.GetValue(3) == 4.0f, "Reciprocal");
    Relu(z, x, 8);
    CHECK(z.GetValue(1) == 0.0f && z.GetValue(0) == 1.5f && z.GetValue(5) == 0.0f, "Relu");
    Duplicate(z, 7.25f, 64);
    CHECK(z.GetValue(63) == 7.25f, "Duplicate");
    // in place, and on 32-byte aligned sub-tensors
    Adds(x, x, 1.0f, 8);
    CHECK(x.GetValue(0) == 2.5f, "in place");
    Duplicate(z, 0.0f, 64);
    Adds(z[8], x, 10.0f, 8);
    CHECK(z.GetValue(7) == 0.0f && z.GetValue(8) == 12.5f, "sub-tensor dst");

    // half: exact result rounded once
    auto hx = s.Get<half>(64);
    auto hy = s.Get<half>(64);
    auto hz = s.Get<half>(64);
    Duplicate(hx, half(1.0f), 16);
    Duplicate(hy, half(std::ldexp(1.0f, -11)), 16);
    Add(hz, hx, hy, 16);
    CHECK(hz.GetValue(0).Bits() == 0x3C00, "half add ties to even");
    Duplicate(hy, half(3 * std::ldexp(1.0f, -11)), 16);
    Add(hz, hx, hy, 16);
    CHECK(hz.GetValue(0).Bits() == 0x3C02, "half add rounds up");
    Duplicate(hx, half(60000.0f), 16);
    Add(hz, hx, hx, 16);
    CHECK(std::isinf(float(hz.GetValue(0))), "half overflow -> inf");
    Duplicate(hx, half(3.0f), 16);
    Exp(hz, hx, 16);
    CHECK(hz.GetValue(0).Bits() == HB(static_cast<float>(std::exp(3.0))), "half Exp");
    Muls(hz, hx, half(0.5f), 16);
    CHECK(float(hz.GetValue(15)) == 1.5f, "half Muls");
    Duplicate(hz, half(-1.0f), 16);
    Relu(hz, hz, 16);
    CHECK(float(hz.GetValue(3)) == 0.0f, "half Relu");

    // integers: two's complement wrap
    auto ia = s.Get<int32_t>(8);
    auto ib = s.Get<int32_t>(8);
    Duplicate(ia, INT32_MAX, 8);
    Duplicate(ib, 1, 8);
    Add(ia, ia, ib, 8);
    CHECK(ia.GetValue(0) == INT32_MIN, "int32 add wraps");
    Muls(ib, ib, -7, 8);
    CHECK(ib.GetValue(7) == -7, "int32 Muls");
    auto bf = s.Get<bfloat16_t>(16);
    Duplicate(bf, bfloat16_t(1.5f), 16);
    CHECK(float(bf.GetValue(15)) == 1.5f, "bf16 Duplicate");

    // count checks
    ExpectHw("vec_overrun", [&] { Add(z, x, y, 65); }, {"Add", "count 65", "dst", "64"});
    ExpectHw("vec_overrun_src", [&] { Exp(z, x[32], 40); }, {"Exp", "count 40", "src", "32"});
    ExpectHw("vec_negative", [&] { Muls(z, x, 1.0f, -1); }, {"Muls", "negative count"});
    LocalTensor<float> never;
    ExpectHw("vec_uninit", [&] { Abs(z, never, 8); }, {"Abs", "default-constructed"});
}

// ---------------------------------------------------------------- high-level APIs
// ---------------------------------------------------------------- vectorized loops
// The vector ops and the hot Casts against scalar references, at the level SimdLevel() picks
// (OPGEN_TWIN_SIMD caps it; the Python test runs every level the CPU has): the same bits.
std::vector<float> SimdInputs()
{
    std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.5f, 65504.0f, 65520.0f, -65519.0f, 1e-8f, -6e-8f, 3e-5f,
                            FLT_MIN, FLT_TRUE_MIN, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN, -NAN};
    std::mt19937 rng(77);
    while (v.size() < 4096) {
        uint32_t u = rng();
        if (v.size() % 2 == 0) u = (u & 0x807FFFFF) | ((96 + (u >> 23) % 64) << 23);  // half's range
        v.push_back(F(u));
    }
    return v;
}

template <class Op>
bool SameBits(const LocalTensor<float>& z, const std::vector<float>& a, const std::vector<float>& b, Op ref)
{
    for (uint32_t i = 0; i < a.size(); ++i) {
        if (U(z.GetValue(i)) != U(ref(a[i], b[i]))) return false;
    }
    return true;
}

void SectionSimd()
{
    std::printf("MSG simd_level: %d\n", opgen_twin::detail::SimdLevel());
    const std::vector<float> a = SimdInputs();
    std::vector<float> b(a.rbegin(), a.rend());
    const uint32_t n = static_cast<uint32_t>(a.size());
    Scratch s;
    auto x = s.Get<float>(n);
    auto y = s.Get<float>(n);
    auto z = s.Get<float>(n);
    for (uint32_t i = 0; i < n; ++i) {
        x.SetValue(i, a[i]);
        y.SetValue(i, b[i]);
    }
    Add(z, x, y, n);
    CHECK(SameBits(z, a, b, [](float p, float q) { return p + q; }), "Add");
    Sub(z, x, y, n);
    CHECK(SameBits(z, a, b, [](float p, float q) { return p - q; }), "Sub");
    Mul(z, x, y, n);
    CHECK(SameBits(z, a, b, [](float p, float q) { return p * q; }), "Mul");
    Div(z, x, y, n);
    CHECK(SameBits(z, a, b, [](float p, float q) { return p / q; }), "Div");
    // Max/Min with a NaN: the other operand wins (the twin's rule; see OpMax in kernel_vec.h)
    Max(z, x, y, n);
    CHECK(SameBits(z, a, b, [](float p, float q) { return p != p ? q : q != q ? p : double(p) >= double(q) ? p : q; }),
          "Max");
    Min(z, x, y, n);
    CHECK(SameBits(z, a, b, [](float p, float q) { return p != p ? q : q != q ? p : double(p) <= double(q) ? p : q; }),
          "Min");
    Muls(z, x, 0.7978846f, n);
    CHECK(SameBits(z, a, b, [](float p, float) { return p * 0.7978846f; }), "Muls");
    Adds(z, x, -3.25f, n);
    CHECK(SameBits(z, a, b, [](float p, float) { return p + -3.25f; }), "Adds");
    Maxs(z, x, 0.5f, n);
    CHECK(SameBits(z, a, b, [](float p, float) { return p != p || double(p) < 0.5 ? 0.5f : p; }), "Maxs");
    Sqrt(z, x, n);
    CHECK(SameBits(z, a, b, [](float p, float) { return static_cast<float>(std::sqrt(double(p))); }), "Sqrt");
    Relu(z, x, n);
    CHECK(SameBits(z, a, b, [](float p, float) { return p > 0 ? p : 0.0f; }), "Relu");
    Duplicate(z, -7.5f, n);
    CHECK(SameBits(z, a, b, [](float, float) { return -7.5f; }), "Duplicate");
    Add(x, x, y, n);  // in place
    CHECK(SameBits(x, a, b, [](float p, float q) { return p + q; }), "Add in place");

    // Casts: every half and bfloat16; floats across the whole range (every 1021st bit pattern)
    // and the inputs above.
    Scratch c;
    constexpr uint32_t kChunk = 8192;
    auto f32 = c.Get<float>(kChunk);
    auto f16 = c.Get<half>(kChunk);
    auto b16 = c.Get<bfloat16_t>(kChunk);
    bool toFloat = true, bfToFloat = true;
    for (uint32_t base = 0; base < 65536; base += kChunk) {
        for (uint32_t i = 0; i < kChunk; ++i) {
            f16.SetValue(i, half::FromBits(static_cast<uint16_t>(base + i)));
            b16.SetValue(i, bfloat16_t::FromBits(static_cast<uint16_t>(base + i)));
        }
        Cast(f32, f16, RoundMode::CAST_NONE, kChunk);
        for (uint32_t i = 0; i < kChunk; ++i) {
            toFloat = toFloat && U(f32.GetValue(i)) == U(opgen_twin::fp::HalfBitsToFloatFast(static_cast<uint16_t>(base + i)));
        }
        Cast(f32, b16, RoundMode::CAST_NONE, kChunk);
        for (uint32_t i = 0; i < kChunk; ++i) {
            bfToFloat = bfToFloat && U(f32.GetValue(i)) == (base + i) << 16;
        }
    }
    CHECK(toFloat, "Cast half->float, every half");
    CHECK(bfToFloat, "Cast bfloat16->float, every bfloat16");
    bool toHalf = true, toBf16 = true;
    std::vector<float> src(kChunk);
    for (uint64_t u = 0; u < (uint64_t{1} << 32); u += uint64_t{kChunk} * 1021) {
        for (uint32_t i = 0; i < kChunk; ++i) {
            src[i] = u == 0 && i < a.size() ? a[i] : F(static_cast<uint32_t>(u + uint64_t{i} * 1021));
            f32.SetValue(i, src[i]);
        }
        Cast(f16, f32, RoundMode::CAST_RINT, kChunk);
        Cast(b16, f32, RoundMode::CAST_RINT, kChunk);
        for (uint32_t i = 0; i < kChunk; ++i) {
            toHalf = toHalf && f16.GetValue(i).Bits() == opgen_twin::fp::FloatToHalfBits(double(src[i]));
            toBf16 = toBf16 && b16.GetValue(i).Bits() == opgen_twin::fp::FloatToBf16Bits(double(src[i]));
        }
    }
    CHECK(toHalf, "Cast float->half (RINT)");
    CHECK(toBf16, "Cast float->bfloat16 (RINT)");
}

void SectionAdv()
{
    Scratch s;
    auto x = s.Get<float>(64);
    auto y = s.Get<float>(64);
    auto tmp = s.Get<uint8_t>(256);
    for (uint32_t i = 0; i < 64; ++i) x.SetValue(i, -4.0f + 0.125f * i);
    Tanh(y, x, tmp, 64);
    bool ok = true;
    for (uint32_t i = 0; i < 64; ++i) ok = ok && y.GetValue(i) == static_cast<float>(std::tanh(-4.0 + 0.125 * i));
    CHECK(ok, "Tanh float values");
    Sigmoid(y, x, tmp, 64);
    CHECK(std::fabs(y.GetValue(32) - 0.5f) < 1e-7f && std::fabs(y.GetValue(0) - 1.0f / (1.0f + std::exp(4.0f))) < 1e-7f,
          "Sigmoid values");
    auto hx = s.Get<half>(64);
    auto hy = s.Get<half>(64);
    auto htmp = s.Get<uint8_t>(1024);
    for (uint32_t i = 0; i < 64; ++i) hx.SetValue(i, half(-2.0f + 0.0625f * i));
    Tanh(hy, hx, htmp, 64);
    CHECK(hy.GetValue(10).Bits() == HB(static_cast<float>(std::tanh(double(float(half(-2.0f + 0.625f)))))), "Tanh half");
    ExpectHw("tanh_tmp_small", [&] { Tanh(hy, hx, tmp, 64); }, {"Tanh", "sharedTmpBuffer", "256", "1024"});
    ExpectHw("tanh_overlap", [&] { Tanh(x, x, tmp, 64); }, {"Tanh", "overlap"});
    ExpectHw("sigmoid_tmp_overlap", [&] { Sigmoid(y, x, y.ReinterpretCast<uint8_t>(), 64); }, {"Sigmoid", "overlap"});
    // Without a tmp buffer the framework needs unused UB: this pipe still has plenty.
    ExpectOk("tanh_no_tmp", [&] { Tanh(y, x, 64); });
    // ascend310p's Floor/Ceil take |x| <= 2147483647 only (Floor.md): beyond it, as through int32
    for (uint32_t i = 0; i < 64; ++i) x.SetValue(i, 2.5f);
    x.SetValue(0, 3e9f);
    x.SetValue(1, -INFINITY);
    x.SetValue(2, NAN);
    Floor<float, false, 2002>(y, x, tmp, 64);
    CHECK(y.GetValue(0) == 2147483647.0f && y.GetValue(1) == -2147483648.0f && y.GetValue(2) == 0.0f &&
              y.GetValue(3) == 2.0f,
          "Floor on 310P: %g %g %g %g", y.GetValue(0), y.GetValue(1), y.GetValue(2), y.GetValue(3));
    Ceil<float, false, 2201>(y, x, tmp, 64);
    CHECK(y.GetValue(0) == 3e9f && y.GetValue(1) == -INFINITY && std::isnan(y.GetValue(2)) && y.GetValue(3) == 3.0f,
          "Ceil on 910B: %g %g %g %g", y.GetValue(0), y.GetValue(1), y.GetValue(2), y.GetValue(3));

    // Host-side tmp sizes (tiling/tiling_api.h).
    uint32_t mx = 0, mn = 0;
    GetTanhMaxMinTmpSize(ge::Shape({1024}), 2, false, mx, mn);
    CHECK(mn == 1024 && mx == 8192, "tanh half: min %u max %u", mn, mx);
    GetTanhMaxMinTmpSize(ge::Shape({1024}), 4, false, mx, mn);
    CHECK(mn == 256 && mx == 4096, "tanh float: min %u max %u", mn, mx);
    GetTanhMaxMinTmpSize(ge::Shape({10}), 4, false, mx, mn);
    CHECK(mn == 256 && mx == 256, "tanh small: min %u max %u", mn, mx);
    GetSigmoidMaxMinTmpSize(ge::Shape({1024}), 2, false, mx, mn);
    CHECK(mn == 256 && mx == 2048, "sigmoid half: min %u max %u", mn, mx);
    mx = mn = 77;
    GetTanhMaxMinTmpSize(ge::Shape({0}), 4, false, mx, mn);
    CHECK(mx == 77 && mn == 77, "empty shape leaves outputs untouched");
    uint32_t live = 0, extra = 9;
    GetTanhTmpBufferFactorSize(2, live, extra);
    CHECK(live == 4 && extra == 0, "tanh factor");
}

void SectionAdvNoTmp()
{
    // A pipe that filled the whole UB leaves no room for the framework's scratch.
    opgen_twin::detail::g_launch.ubSize = 4096;
    {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a, b;
        pipe.InitBuffer(a, 2048);
        pipe.InitBuffer(b, 2048);
        auto x = a.Get<float>(64);
        auto y = b.Get<float>(64);
        Duplicate(x, 0.5f, 64);
        ExpectHw("tanh_no_ub_left", [&] { Tanh(y, x, 64); }, {"Tanh", "without sharedTmpBuffer", "0 bytes"});
    }
    opgen_twin::detail::g_launch.ubSize = opgen_twin::kDefaultUbSize;
}

// ---------------------------------------------------------------- Compare / Compares / Select
void SectionCmpSel()
{
    Scratch s;
    auto x = s.Get<float>(128);
    auto y = s.Get<float>(128);
    auto z = s.Get<float>(128);
    auto mask = s.Get<uint8_t>(32);
    Duplicate(x, 1.0f, 128);
    Duplicate(y, 2.0f, 128);
    Fill(x, {3.0f, 2.0f, 1.0f, 2.0f, 5.0f, 0.0f, 2.0f, 9.0f, 2.0f});
    Compare(mask, x, y, CMPMODE::GT, 64);
    CHECK(mask.GetValue(0) == 0x91 && mask.GetValue(1) == 0 && mask.GetValue(7) == 0, "Compare GT bits, little-endian");
    Compare(mask, x, y, CMPMODE::EQ, 64);
    CHECK(mask.GetValue(0) == 0x4A && mask.GetValue(1) == 0x01, "Compare EQ: ties");
    Compares(mask, x, 2.0f, CMPMODE::LE, 128);
    CHECK(mask.GetValue(0) == 0x6E && mask.GetValue(15) == 0xFF, "Compares LE");
    Select(z, mask, x, y, SELMODE::VSEL_TENSOR_TENSOR_MODE, 9);
    CHECK(z.GetValue(0) == 2.0f && z.GetValue(1) == 2.0f && z.GetValue(5) == 0.0f && z.GetValue(7) == 2.0f,
          "Select tensor-tensor");
    Select(z, mask, x, -1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 9);
    CHECK(z.GetValue(0) == -1.0f && z.GetValue(2) == 1.0f && z.GetValue(8) == 2.0f, "Select tensor-scalar");
    ExpectHw("compare_partial_block", [&] { Compare(mask, x, y, CMPMODE::LT, 37); },
             {"Compare", "count 37", "256-byte blocks", "multiple of 64"});
    ExpectHw("compares_partial_block", [&] { Compares(mask, x, 0.0f, CMPMODE::LT, 100); },
             {"Compares", "count 100", "multiple of 64"});
    auto wide = s.Get<float>(512);
    ExpectHw("compare_mask_overrun", [&] { Compares(mask, wide, 0.0f, CMPMODE::LT, 512); }, {"Compares", "dst", "64"});
    ExpectHw("select_mode_scalar", [&] { Select(z, mask, x, y, SELMODE::VSEL_TENSOR_SCALAR_MODE, 8); },
             {"Select", "tensor src1"});
    ExpectHw("compares_910a", [&] { Compares<float, uint8_t, 1001>(mask, x, 0.0f, CMPMODE::LT, 64); },
             {"Compares", "ascend910", "no Compares"});
    ExpectHw("select_910a_mode2", [&] { Select<float, uint8_t, 1001>(z, mask, x, y, SELMODE::VSEL_TENSOR_TENSOR_MODE, 8); },
             {"Select", "ascend910", "VSEL_CMPMASK_SPR"});
    ExpectOk("select_910a_mode0", [&] { Select<float, uint8_t, 1001>(z, mask, x, y, SELMODE::VSEL_CMPMASK_SPR, 8); });
}

void SectionCmpSelUb()
{
    // Select's tensor modes keep 8 KB of UB on Atlas A2 and 310P: a pipe that took it all fails.
    opgen_twin::detail::g_launch.ubSize = 8192;
    {
        TPipe pipe;
        TBuf<TPosition::VECCALC> a;
        pipe.InitBuffer(a, 1024);
        auto x = a.Get<float>(64);
        auto mask = a.Get<uint8_t>(1024)[512];
        Duplicate(x, 0.5f, 64);
        ExpectHw("select_no_8k", [&] { Select(x, mask, x, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64); },
                 {"Select", "8192 bytes of UB free", "1024 of 8192"});
        ExpectOk("select_310b_no_reserve",
                 [&] { Select<float, uint8_t, 3002>(x, mask, x, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64); });
    }
    opgen_twin::detail::g_launch.ubSize = opgen_twin::kDefaultUbSize;
}

// ---------------------------------------------------------------- DataCopy / DataCopyPad
void SectionCopy()
{
    std::vector<half> gm(100);
    for (int i = 0; i < 100; ++i) gm[i] = half(static_cast<float>(i));
    std::vector<half> out(100, half(-1.0f));
    GlobalTensor<half> g, o;
    g.SetGlobalBuffer(gm.data(), 100);
    o.SetGlobalBuffer(out.data(), 100);
    Scratch s;
    auto l = s.Get<half>(128);
    ExpectHw("datacopy_gm_ub", [&] { DataCopy(l, g, 7); },
             {"DataCopy(GM->UB)", "count 7", "sizeof(half)=14 bytes", "multiple of 32 bytes", "DataCopyPad"});
    ExpectHw("datacopy_ub_gm", [&] { DataCopy(o, l, 20); }, {"DataCopy(UB->GM)", "40 bytes"});
    auto l2 = s.Get<half>(128);
    ExpectOk("datacopy_ub_ub", [&] { DataCopy<half, 2201>(l2, l, 16); });
    ExpectHw("datacopy_ub_ub_310b", [&] { DataCopy<half, 3002>(l2, l, 16); },
             {"DataCopy(UB->UB)", "ascend310b", "Atlas 200I/500 A2"});
    ExpectHw("datacopy_ub_ub", [&] { DataCopy(l, l[64], 24); }, {"DataCopy(UB->UB)", "48 bytes"});
    ExpectOk("datacopy_aligned", [&] { DataCopy(l, g, 64); });
    CHECK(float(l.GetValue(63)) == 63.0f, "DataCopy values");
    ExpectHw("datacopy_ub_overrun", [&] {
        auto small = s.Get<half>(16);
        DataCopy(small, g, 32);
    }, {"DataCopy(GM->UB)", "count 32", "dst", "16"});
    ExpectHw("datacopy_gm_overrun", [&] { DataCopy(l, g[80], 32); }, {"DataCopy(GM->UB)", "[80, 112)", "100"});

    // DataCopyPad GM->UB: 7 halves -> padded to 16 with the first element as dummy.
    Duplicate(l, half(-9.0f), 128);
    DataCopyExtParams p1{1, 7 * sizeof(half), 0, 0, 0};
    DataCopyPadExtParams<half> noPad{false, 0, 0, half(0.0f)};
    DataCopyPad(l, g[3], p1, noPad);
    bool ok = true;
    for (int i = 0; i < 7; ++i) ok = ok && float(l.GetValue(i)) == 3.0f + i;
    for (int i = 7; i < 16; ++i) ok = ok && float(l.GetValue(i)) == 3.0f;  // dummy = first element
    CHECK(ok && float(l.GetValue(16)) == -9.0f, "DataCopyPad dummy fill");
    // isPad with left/right padding and paddingValue.
    DataCopyPadExtParams<half> pad{true, 2, 3, half(5.0f)};
    DataCopyPad(l, g, p1, pad);
    CHECK(float(l.GetValue(0)) == 5.0f && float(l.GetValue(1)) == 5.0f && float(l.GetValue(2)) == 0.0f &&
              float(l.GetValue(8)) == 6.0f && float(l.GetValue(9)) == 5.0f && float(l.GetValue(15)) == 5.0f,
          "DataCopyPad left/right padding");
    // DataCopyPad on the SoCs without it: a hardware error naming the SoC.
    ExpectHw("datacopypad_310p", [&] { DataCopyPad<half, 2002>(l, g[3], p1, noPad); },
             {"DataCopyPad(GM->UB)", "ascend310p (__NPU_ARCH__ 2002) has no working DataCopyPad"});
    ExpectHw("datacopypad_910a", [&] { DataCopyPad<half, 1001>(g, l, p1); },
             {"DataCopyPad(UB->GM)", "ascend910 (__NPU_ARCH__ 1001) has no DataCopyPad"});
    // two blocks, GM gap 2 elements (4 bytes), UB rows 32-byte aligned + 1 block stride
    Duplicate(l, half(-9.0f), 128);
    DataCopyExtParams p2{2, 5 * sizeof(half), 4, 1, 0};
    DataCopyPad(l, g, p2, DataCopyPadExtParams<half>{true, 0, 0, half(0.0f)});
    CHECK(float(l.GetValue(4)) == 4.0f && float(l.GetValue(5)) == 0.0f && float(l.GetValue(16)) == -9.0f &&
              float(l.GetValue(32)) == 7.0f && float(l.GetValue(36)) == 11.0f,
          "DataCopyPad strides: %g %g %g", float(l.GetValue(16)), float(l.GetValue(32)), float(l.GetValue(36)));
    ExpectHw("datacopypad_gm_overrun", [&] { DataCopyPad(l, g[95], p1, noPad); }, {"DataCopyPad(GM->UB)", "[95, 102)"});
    ExpectHw("datacopypad_pad_too_big", [&] { DataCopyPad(l, g, p1, DataCopyPadExtParams<half>{true, 17, 0, half(0.0f)}); },
             {"DataCopyPad(GM->UB)", "exceed 32 bytes"});
    ExpectHw("datacopypad_blocklen", [&] { DataCopyPad(l, g, DataCopyExtParams{1, 7, 0, 0, 0}, noPad); },
             {"blockLen 7", "sizeof(half)"});
    // UB->GM writes exactly blockLen bytes per block.
    for (int i = 0; i < 16; ++i) l.SetValue(i, half(100.0f + i));
    DataCopyPad(o[10], l, DataCopyExtParams{1, 3 * sizeof(half), 0, 0, 0});
    CHECK(float(out[9]) == -1.0f && float(out[10]) == 100.0f && float(out[12]) == 102.0f && float(out[13]) == -1.0f,
          "DataCopyPad UB->GM");
    ExpectHw("datacopypad_ub_gm_overrun", [&] { DataCopyPad(o[98], l, DataCopyExtParams{1, 3 * sizeof(half), 0, 0, 0}); },
             {"DataCopyPad(UB->GM)", "[98, 101)"});
    // DataCopyParams: blocks of 32 bytes
    DataCopy(l, g, DataCopyParams{2, 1, 1, 0});
    CHECK(float(l.GetValue(16)) == 32.0f, "DataCopy with DataCopyParams (src gap 1 block)");
}

// ---------------------------------------------------------------- queues
void SectionQueue()
{
    TPipe pipe;
    TQue<TPosition::VECIN, 2> q;
    TQue<TPosition::VECOUT, 2> other;
    pipe.InitBuffer(q, 2, 256);
    pipe.InitBuffer(other, 2, 256);
    // happy path, double buffering
    auto a = q.AllocTensor<float>();
    auto b = q.AllocTensor<float>();
    CHECK(a.GetSize() == 64 && a.GetPhyAddr() != b.GetPhyAddr(), "two distinct buffers");
    q.EnQue(a);
    q.EnQue<float>(b);
    CHECK(q.GetTensorCountInQue() == 2 && !q.VacantInQue(), "count");
    auto a2 = q.DeQue<float>();
    CHECK(a2.GetPhyAddr() == a.GetPhyAddr(), "FIFO order");
    q.FreeTensor(a2);
    ExpectHw("queue_alloc_beyond", [&] {
        auto c = q.AllocTensor<float>();
        auto d = q.AllocTensor<float>();
        (void)d;
        q.FreeTensor(c);
    }, {"TQue<VECIN, depth 2>::AllocTensor", "all 2 buffers", "FreeTensor"});
    auto b2 = q.DeQue<float>();
    q.FreeTensor(b2);
    ExpectHw("queue_deque_empty", [&] { q.DeQue<float>(); }, {"DeQue", "empty"});
    ExpectHw("queue_double_free", [&] {
        auto t = q.AllocTensor<float>();
        q.FreeTensor(t);
        q.FreeTensor(t);
    }, {"FreeTensor", "already released"});
    ExpectHw("queue_free_foreign", [&] {
        auto t = other.AllocTensor<float>();
        q.FreeTensor(t);
    }, {"TQue<VECIN, depth 2>::FreeTensor", "not allocated from this queue"});
    ExpectHw("queue_enque_foreign", [&] {
        auto t = other.DeQue<float>();
        (void)t;
    }, {"DeQue", "empty"});
    ExpectHw("queue_enque_not_ours", [&] {
        auto t = other.AllocTensor<half>();
        q.EnQue(t);
    }, {"EnQue", "not allocated from this queue"});
    ExpectHw("queue_free_enqueued", [&] {
        auto t = q.AllocTensor<float>();
        q.EnQue(t);
        q.FreeTensor(t);
    }, {"FreeTensor", "still in the queue"});
    ExpectOk("queue_drain", [&] {
        auto t = q.DeQue<float>();
        q.FreeTensor(t);
    });
    ExpectHw("queue_use_after_free", [&] {
        auto t = q.AllocTensor<float>();
        q.FreeTensor(t);
        Duplicate(t, 1.0f, 8);
    }, {"Duplicate", "FreeTensor", "stale"});
    // EnQue beyond the depth (queue with more buffers than depth)
    TQue<TPosition::VECIN, 1> shallow;
    pipe.InitBuffer(shallow, 2, 64);
    ExpectHw("queue_depth", [&] {
        auto t1 = shallow.AllocTensor<float>();
        auto t2 = shallow.AllocTensor<float>();
        shallow.EnQue(t1);
        shallow.EnQue(t2);
    }, {"TQue<VECIN, depth 1>::EnQue", "depth"});
    TQue<TPosition::VECIN, 1> uninit;
    ExpectHw("queue_no_initbuffer", [&] { uninit.AllocTensor<float>(); }, {"AllocTensor", "InitBuffer"});
    ExpectHw("queue_init_twice", [&] { pipe.InitBuffer(q, 2, 256); }, {"InitBuffer", "already"});
}

// ---------------------------------------------------------------- UB capacity
void SectionUb()
{
    {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> a;
        TQue<TPosition::VECOUT, 2> b;
        pipe.InitBuffer(a, 2, 65536);
        ExpectHw("ub_exceeded", [&] { pipe.InitBuffer(b, 2, 40000); },
                 {"TPipe::InitBuffer(TQue<VECOUT, depth 2>, num=2, len=40000)", "UB", "196608", "211072"});
        TBuf<TPosition::VECCALC> rest;
        ExpectOk("ub_exact_fit", [&] { pipe.InitBuffer(rest, 65536); });
        CHECK(pipe.TwinUsedBytes() == 196608, "used %llu", static_cast<unsigned long long>(pipe.TwinUsedBytes()));
        TBuf<TPosition::VECCALC> one;
        ExpectHw("ub_full", [&] { pipe.InitBuffer(one, 1); }, {"UB exhausted", "32"});
    }
    // configurable UB size (what the runner sets from PlatformConfig::ubSize)
    opgen_twin::detail::g_launch.ubSize = 65536;
    {
        TPipe pipe;
        TQue<TPosition::VECIN, 2> a;
        ExpectHw("ub_configured", [&] { pipe.InitBuffer(a, 2, 40000); }, {"65536"});
    }
    opgen_twin::detail::g_launch.ubSize = opgen_twin::kDefaultUbSize;
    {
        TPipe pipe;
        TBuf<TPosition::VECCALC> t;
        pipe.InitBuffer(t, 33);  // lengths are rounded up to 32 bytes
        CHECK(pipe.TwinUsedBytes() == 64 && t.GetBufLen() == 64, "rounding to 32 bytes");
    }
    // Every pipe's UB starts out as 0xFF (NaN), also where the thread's previous pipe wrote
    // (the thread keeps its UB memory from one pipe to the next); two pipes alive together do
    // not share it.
    {
        TPipe first;
        TBuf<TPosition::VECCALC> t;
        first.InitBuffer(t, 64);
        LocalTensor<float> a = t.Get<float>();
        a.SetValue(0, 1.0f);
        {
            TPipe second;
            TBuf<TPosition::VECCALC> u;
            second.InitBuffer(u, 64);
            LocalTensor<float> b = u.Get<float>();
            CHECK(std::isnan(b.GetValue(0)), "a second pipe's fresh UB reads %g", b.GetValue(0));
            b.SetValue(0, 2.0f);
            CHECK(a.GetValue(0) == 1.0f, "pipes alive together share UB: %g", a.GetValue(0));
        }
    }
    {
        TPipe later;
        TBuf<TPosition::VECCALC> t;
        later.InitBuffer(t, 64);
        CHECK(std::isnan(t.Get<float>().GetValue(0)), "a later pipe's fresh UB reads %g",
              t.Get<float>().GetValue(0));
    }
    // UB is filled when first touched: an op that writes part of a fresh buffer without reading
    // it leaves the rest NaN, and one that reads the buffer it writes (dst == src) reads NaN.
    {
        std::vector<float> gm(64, 3.0f);
        GlobalTensor<float> g;
        g.SetGlobalBuffer(gm.data(), 64);
        Scratch s;
        auto copied = s.Get<float>(64);
        DataCopy(copied[8], g, 16);  // bytes 32..95 of 256
        CHECK(std::isnan(copied.GetValue(7)) && copied.GetValue(8) == 3.0f && copied.GetValue(23) == 3.0f &&
                  std::isnan(copied.GetValue(24)) && std::isnan(copied.GetValue(63)),
              "DataCopy into fresh UB: %g %g %g %g", copied.GetValue(7), copied.GetValue(8), copied.GetValue(23),
              copied.GetValue(24));
        auto sum = s.Get<float>(64);
        Add(sum, copied[8], copied[8], 8);
        CHECK(sum.GetValue(7) == 6.0f && std::isnan(sum.GetValue(8)), "Add into fresh UB: %g %g", sum.GetValue(7),
              sum.GetValue(8));
        auto inPlace = s.Get<float>(64);
        Add(inPlace, inPlace, inPlace, 8);
        Duplicate(inPlace[8], 1.0f, 8);
        CHECK(std::isnan(inPlace.GetValue(0)) && inPlace.GetValue(8) == 1.0f && std::isnan(inPlace.GetValue(16)),
              "in-place Add on fresh UB: %g %g %g", inPlace.GetValue(0), inPlace.GetValue(8), inPlace.GetValue(16));
        auto half16 = s.Get<half>(64);
        Cast(half16, sum, RoundMode::CAST_NONE, 8);
        CHECK(float(half16.GetValue(7)) == 6.0f && std::isnan(float(half16.GetValue(8))), "Cast into fresh UB");
    }
    // After TPipe::Reset(), UB carved again keeps what was written there (as on the NPU) and
    // reads 0xFF where nothing was written, also in a buffer that was carved but never touched.
    {
        TPipe pipe;
        TBuf<TPosition::VECCALC> written, untouched, again;
        pipe.InitBuffer(written, 64);
        pipe.InitBuffer(untouched, 64);
        written.Get<float>().SetValue(0, 5.0f);
        pipe.Reset();
        pipe.InitBuffer(again, 128);
        const LocalTensor<float> t = again.Get<float>();
        CHECK(t.GetValue(0) == 5.0f && std::isnan(t.GetValue(1)) && std::isnan(t.GetValue(16)),
              "UB after Reset: %g %g %g", t.GetValue(0), t.GetValue(1), t.GetValue(16));
    }
}

// ---------------------------------------------------------------- reductions
void SectionReduce()
{
    Scratch s;
    auto src = s.Get<float>(1024);
    auto dst = s.Get<float>(8);
    auto tmp = s.Get<float>(8);  // ReduceSum.md: ceil(200 / 64) = 4 values, one 32-byte block
    for (uint32_t i = 0; i < 200; ++i) src.SetValue(i, static_cast<float>(i + 1));
    ReduceSum(dst, src, tmp, 200);
    CHECK(dst.GetValue(0) == 20100.0f, "ReduceSum 1..200 = %g", dst.GetValue(0));
    ReduceMax(dst, src, tmp, 200);
    CHECK(dst.GetValue(0) == 200.0f, "ReduceMax");
    ReduceMin(dst, src, tmp, 37);
    CHECK(dst.GetValue(0) == 1.0f, "ReduceMin");
    // a NaN loses wherever it stands in the row (the kernel compares for torch's NaN)
    src.SetValue(0, NAN);
    src.SetValue(199, NAN);
    ReduceMax(dst, src, tmp, 200);
    CHECK(dst.GetValue(0) == 199.0f, "ReduceMax over NaN: %g", dst.GetValue(0));
    ReduceMin(dst, src, tmp, 37);
    CHECK(dst.GetValue(0) == 2.0f, "ReduceMin over NaN: %g", dst.GetValue(0));
    // a binary tree within the 64-element repeat: (big + 1) + (-big + 0) ... loses the 1 as the
    // NPU does, where a left-to-right sum would keep it
    Fill(src, {1e8f, 1.0f, -1e8f, 0.0f});
    ReduceSum(dst, src, tmp, 4);
    CHECK(dst.GetValue(0) == 0.0f, "ReduceSum tree order: %g", dst.GetValue(0));
    ExpectHw("reduce_count", [&] { ReduceSum(dst, src, tmp, 0); }, {"ReduceSum", "count 0"});
    ExpectHw("reduce_tmp", [&] { ReduceSum(dst, src, tmp, 1024); },  // 16 values > 8
             {"ReduceSum", "exceeds"});
    // 310P and 310B take float and half (ReduceMax.md); ascend910 half only; ascend950 is not listed
    ExpectOk("reduce_310p", [&] { ReduceMax<float, 2002>(dst, src, tmp, 8); });
    ExpectOk("reduce_310b", [&] { ReduceSum<float, true, 3002>(dst, src, tmp, 8); });
    ExpectHw("reduce_soc", [&] { ReduceMax<float, 1001>(dst, src, tmp, 8); }, {"ReduceMax", "ascend910", "half only"});
    ExpectHw("reduce_950", [&] { ReduceMin<float, 3510>(dst, src, tmp, 8); }, {"ReduceMin", "310P", "ascend950"});

    // calIndex = true (ReduceMax.md, ReduceMin.md): dst = [value, index], the index in the bits of
    // T (uint32_t for float, uint16_t for half), the smallest index among equal values.
    auto idx32 = [](float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; };
    auto tmpIdx = s.Get<float>(40);  // 1000 floats: 15 repeats -> 30 + 2 -> 32 + 8 = 40 elements
    for (uint32_t i = 0; i < 1000; ++i) src.SetValue(i, static_cast<float>((i * 37) % 101));
    src.SetValue(613, 500.0f);
    src.SetValue(990, 500.0f);  // the same maximum later (in the tail after 15 whole repeats)
    src.SetValue(777, -3.0f);
    src.SetValue(5, -3.0f);
    ReduceMax(dst, src, tmpIdx, 1000, true);
    CHECK(dst.GetValue(0) == 500.0f && idx32(dst.GetValue(1)) == 613u, "ReduceMax calIndex: %g at %u",
          dst.GetValue(0), idx32(dst.GetValue(1)));
    ReduceMin(dst, src, tmpIdx, 1000, true);
    CHECK(dst.GetValue(0) == -3.0f && idx32(dst.GetValue(1)) == 5u, "ReduceMin calIndex: %g at %u",
          dst.GetValue(0), idx32(dst.GetValue(1)));
    src.SetValue(0, NAN);  // a NaN loses, as without the index
    src.SetValue(1, 9.0f);
    ReduceMax(dst, src, tmpIdx, 60, true);
    CHECK(dst.GetValue(0) == 100.0f && idx32(dst.GetValue(1)) == 30u, "ReduceMax calIndex over NaN: %g at %u",
          dst.GetValue(0), idx32(dst.GetValue(1)));
    auto srcH = src.ReinterpretCast<half>();
    for (uint32_t i = 0; i < 2000; ++i) srcH.SetValue(i, half(static_cast<float>(i % 50)));
    srcH.SetValue(1777, half(60.0f));
    auto dstH = dst.ReinterpretCast<half>();
    ReduceMax(dstH, srcH, tmpIdx.ReinterpretCast<half>(), 2000, true);
    uint16_t hbits = dstH.GetValue(1).Bits();
    CHECK(float(dstH.GetValue(0)) == 60.0f && hbits == 1777u, "ReduceMax<half> calIndex: %g at %u",
          float(dstH.GetValue(0)), hbits);
    ReduceMin(dstH, srcH, tmpIdx.ReinterpretCast<half>(), 2000, true);
    hbits = dstH.GetValue(1).Bits();
    CHECK(float(dstH.GetValue(0)) == 0.0f && hbits == 0u, "ReduceMin<half> calIndex: %g at %u",
          float(dstH.GetValue(0)), hbits);
    ExpectHw("reduce_index_tmp", [&] { ReduceMax(dst, src, tmp, 1000, true); },
             {"ReduceMax", "sharedTmpBuffer (the size documented for calIndex = true)", "exceeds"});
    ExpectHw("reduce_index_dst", [&] { ReduceMin(dst[7], src, tmpIdx, 100, true); },
             {"ReduceMin", "dst (value and index)"});
    ExpectOk("reduce_index_part_repeat", [&] { ReduceMax(dst, src, tmp, 63, true); });  // no whole repeat: no tmp
}

// ---------------------------------------------------------------- LocalTensor
void SectionLocal()
{
    Scratch s;
    auto t = s.Get<half>(64);
    // Any element may start a sub-tensor; a vector call refuses it as an operand unless 32-byte aligned.
    ExpectOk("local_element_offset", [&] { t[7].SetValue(0, half(1.0f)); });
    ExpectHw("local_misaligned", [&] { Adds(t[7], t[16], half(1.0f), 16); },
             {"Adds", "dst tensor starts at UB byte", "not 32-byte aligned"});
    ExpectOk("local_aligned", [&] { (void)t[16]; });
    auto sub = t[16];
    CHECK(sub.GetSize() == 48 && sub.GetPhyAddr() == t.GetPhyAddr() + 32, "sub-tensor size/addr");
    sub.SetValue(0, half(3.0f));
    CHECK(float(t.GetValue(16)) == 3.0f, "sub-tensor aliases");
    ExpectHw("local_past_end", [&] { (void)t[80]; }, {"operator[](80)", "past the end"});
    ExpectHw("local_index", [&] { t.GetValue(64); }, {"GetValue(64)", "out of range"});
    auto f = t.ReinterpretCast<float>();
    CHECK(f.GetSize() == 32, "ReinterpretCast size");
    auto u8 = t.ReinterpretCast<uint8_t>();
    CHECK(u8.GetSize() == 128, "ReinterpretCast bytes");
    TBuf<TPosition::VECCALC>& tb = s.b[0];
    ExpectHw("tbuf_get_len", [&] { tb.Get<float>(100); }, {"TBuf::Get<float>(100)", "400 bytes", "128 bytes"});
    CHECK(tb.Get<half>(10).GetSize() == 10, "TBuf::Get(len)");
    ExpectHw("tbuf_offset", [&] { tb.GetWithOffset<half>(8, 16); }, {"GetWithOffset", "not 32-byte aligned"});
    CHECK(tb.GetWithOffset<half>(16, 32).GetPhyAddr() == t.GetPhyAddr() + 32, "GetWithOffset");
    ExpectHw("local_setsize", [&] { t.SetSize(65); }, {"SetSize(65)", "exceed"});
    CHECK(t.GetLength() == 128, "GetLength");
}

// ---------------------------------------------------------------- GlobalTensor
void SectionGlobal()
{
    std::vector<float> buf(64, 1.0f);
    GlobalTensor<float> g;
    ExpectHw("global_unset", [&] { g.GetValue(0); }, {"GlobalTensor<float>", "SetGlobalBuffer"});
    g.SetGlobalBuffer(buf.data() + 8, 16);
    CHECK(g.GetSize() == 16 && g[4].GetSize() == 12, "GetSize");
    g.SetValue(15, 2.0f);
    CHECK(buf[23] == 2.0f && g.GetValue(15) == 2.0f, "Get/SetValue");
    ExpectHw("global_getvalue_oob", [&] { g.GetValue(16); }, {"GlobalTensor::GetValue", "[16, 17)", "16 elements"});
    ExpectHw("global_view_oob", [&] { g[10].SetValue(6, 0.0f); }, {"GlobalTensor::SetValue", "[16, 17)"});
    Scratch s;
    auto l = s.Get<float>(64);
    ExpectHw("global_datacopy_oob", [&] { DataCopy(l, g[8], 16); }, {"DataCopy(GM->UB)", "[8, 24)", "16 elements"});
    // GM allocation check (what the runner registers): unsized tensor beyond the allocation.
    opgen_twin::detail::g_launch.gm.push_back({reinterpret_cast<uint8_t*>(buf.data()), 64 * sizeof(float), "input 'x'"});
    GlobalTensor<float> u;
    u.SetGlobalBuffer(buf.data());
    ExpectOk("global_inside_alloc", [&] { DataCopy(l, u[56], 8); });
    ExpectHw("global_outside_alloc", [&] { DataCopy(l, u[60], 8); }, {"input 'x'", "[240, 272)", "256 bytes"});
    ExpectHw("global_read_outside_alloc", [&] { g.GetValue(56); }, {"input 'x'", "[256, 260)"});
    float elsewhere[8] = {};
    GlobalTensor<float> e;
    e.SetGlobalBuffer(elsewhere);
    ExpectHw("global_unknown_addr", [&] { e.GetValue(0); }, {"not inside any buffer"});
    opgen_twin::detail::g_launch.gm.clear();
}

// ---------------------------------------------------------------- cache lines
// The runner's cache-line rule: a 64-byte line of GM that one block writes with SetValue and
// another block writes at all fails the launch (opgen_twin::detail::CacheLineConflict).
void SectionCacheLine()
{
    using opgen_twin::detail::BlockGmWrites;
    using opgen_twin::detail::CacheLineConflict;
    auto& launch = opgen_twin::detail::g_launch;
    alignas(64) static float out[64];
    launch.gm.push_back({reinterpret_cast<uint8_t*>(out), sizeof(out), "output 'y'"});
    GlobalTensor<float> y;
    y.SetGlobalBuffer(out, 64);
    Scratch s;
    auto tile = s.Get<float>(16);
    // Runs `writes` as block `b` of `blocks`, recording its GM writes.
    auto as = [&](std::vector<BlockGmWrites>& blocks, size_t b, const std::function<void()>& writes) {
        launch.gmWrites = &blocks[b];
        writes();
        launch.gmWrites = nullptr;
    };

    std::vector<BlockGmWrites> scalars(2);
    as(scalars, 0, [&] { y.SetValue(3, 1.0f); });
    as(scalars, 1, [&] { y.SetValue(4, 1.0f); });  // the same line: bytes [0, 64)
    const std::string both = CacheLineConflict(scalars, launch.gm);
    std::printf("MSG cacheline_scalar_scalar: %s\n", both.c_str());
    CHECK(both.find("blocks 0 and 1") != std::string::npos && both.find("[0, 64) of output 'y'") != std::string::npos,
          "two blocks' SetValue in one line: %s", both.c_str());

    std::vector<BlockGmWrites> mixed(3);
    as(mixed, 2, [&] { y.SetValue(31, 1.0f); });           // line [64, 128)
    as(mixed, 1, [&] { DataCopy(y[24], tile, 8); });      // bytes [96, 128): that line
    as(mixed, 0, [&] { DataCopy(y[0], tile, 16); });      // bytes [0, 64): another line
    const std::string dma = CacheLineConflict(mixed, launch.gm);
    std::printf("MSG cacheline_scalar_dma: %s\n", dma.c_str());
    CHECK(dma.find("blocks 1 and 2") != std::string::npos && dma.find("[64, 128)") != std::string::npos &&
              dma.find("block 2 with the scalar unit") != std::string::npos,
          "SetValue and another block's DataCopy in one line: %s", dma.c_str());

    std::vector<BlockGmWrites> apart(2);
    as(apart, 0, [&] {
        for (uint64_t i = 0; i < 16; ++i) y.SetValue(i, 1.0f);  // the whole line [0, 64)
    });
    as(apart, 1, [&] {
        y.SetValue(16, 1.0f);
        DataCopy(y[24], tile, 8);
    });
    CHECK(CacheLineConflict(apart, launch.gm).empty(), "blocks on lines of their own: %s",
          CacheLineConflict(apart, launch.gm).c_str());
    std::vector<BlockGmWrites> dmaOnly(2);
    as(dmaOnly, 0, [&] { DataCopy(y[0], tile, 8); });
    as(dmaOnly, 1, [&] { DataCopy(y[8], tile, 8); });  // DMA writes only the bytes it copies
    CHECK(CacheLineConflict(dmaOnly, launch.gm).empty(), "DataCopy of two blocks in one line is fine");

    // Two blocks' DMA writes of the same bytes: fine with the same values (a block writing whole
    // 32-byte blocks past its part), a race with different ones, whatever the order.
    using opgen_twin::detail::DmaWriteConflict;
    for (uint32_t i = 0; i < 16; ++i) tile.SetValue(i, static_cast<float>(i));
    std::vector<BlockGmWrites> same(2);
    as(same, 0, [&] { DataCopy(y[0], tile, 16); });     // elements [0, 16): 8 past its part
    as(same, 1, [&] { DataCopy(y[8], tile[8], 8); });   // its part [8, 16), the same values
    CHECK(DmaWriteConflict(same, launch.gm).empty(), "the same values: %s", DmaWriteConflict(same, launch.gm).c_str());
    std::vector<BlockGmWrites> race(2);
    as(race, 1, [&] { DataCopy(y[8], tile, 8); });      // values 0..7 at [8, 16)
    as(race, 0, [&] { DataCopy(y[0], tile, 16); });     // values 8..15 there
    const std::string differ = DmaWriteConflict(race, launch.gm);
    std::printf("MSG dma_race: %s\n", differ.c_str());
    CHECK(differ.find("blocks 0 and 1") != std::string::npos && differ.find("of output 'y'") != std::string::npos,
          "different values: %s", differ.c_str());
    std::vector<BlockGmWrites> summed(2);
    SetAtomicAdd<float>();
    as(summed, 0, [&] { DataCopy(y[0], tile, 16); });
    as(summed, 1, [&] { DataCopy(y[0], tile, 16); });
    SetAtomicNone();
    CHECK(DmaWriteConflict(summed, launch.gm).empty(), "SetAtomicAdd accumulates by design");
    // With the buffers known, the SetGlobalBuffer size bounds nothing (as on the NPU).
    GlobalTensor<float> part;
    part.SetGlobalBuffer(out, 8);
    ExpectOk("global_past_part", [&] { DataCopy(part, tile, 16); part.GetValue(12); });
    launch.gm.clear();
}

// ---------------------------------------------------------------- tiling / sys vars / sync
struct DemoTilingData {
    uint32_t a;
    uint32_t b;
    float c;
};

DemoTilingData ReadTiling(GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(DemoTilingData);
    GET_TILING_DATA(t, tiling);
    return t;
}

void SectionTiling()
{
    DemoTilingData src{7, 9, 1.5f};
    uint8_t buf[64] = {};
    std::memcpy(buf, &src, sizeof(src));
    DemoTilingData got = ReadTiling(buf);
    CHECK(got.a == 7 && got.b == 9 && got.c == 1.5f, "GET_TILING_DATA copies");
    opgen_twin::detail::g_launch.gm.push_back({buf, 8, "tiling"});  // host wrote only 8 bytes
    ExpectHw("tiling_too_small", [&] { ReadTiling(buf); }, {"GET_TILING_DATA(t)", "sizeof(tiling struct)=12", "only 8 bytes"});
    opgen_twin::detail::g_launch.gm.back().bytes = 12;
    ExpectOk("tiling_exact", [&] { ReadTiling(buf); });
    opgen_twin::detail::g_launch.gm.clear();
    GET_TILING_DATA_WITH_STRUCT(DemoTilingData, t2, buf);
    CHECK(t2.b == 9, "GET_TILING_DATA_WITH_STRUCT");
    opgen_twin::detail::g_launch.tilingKey = 3;
    CHECK(TILING_KEY_IS(3) && !TILING_KEY_IS(1), "TILING_KEY_IS");
    opgen_twin::detail::g_launch.tilingKey = 0;

    opgen_twin::detail::g_launch.blockIdx = 5;
    opgen_twin::detail::g_launch.blockNum = 8;
    CHECK(GetBlockIdx() == 5 && GetBlockNum() == 8, "block idx/num");
    opgen_twin::detail::g_launch.blockIdx = 0;
    opgen_twin::detail::g_launch.blockNum = 1;
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    CHECK(opgen_twin::detail::g_launch.kernelType == KERNEL_TYPE_AIV_ONLY, "kernel type recorded");

    PipeBarrier<PIPE_ALL>();
    PipeBarrier<PIPE_V>();
    opgen_twin::detail::ResetLaunchFlags();
    ExpectHw("waitflag_unpaired", [] { WaitFlag<HardEvent::MTE2_V>(0); }, {"WaitFlag", "no matching SetFlag"});
    ExpectOk("flags_paired", [] {
        SetFlag<HardEvent::V_MTE3>(1);
        WaitFlag<HardEvent::V_MTE3>(1);
    });
    ExpectHw("waitflag_twice", [] { WaitFlag<HardEvent::V_MTE3>(1); }, {"WaitFlag"});
    opgen_twin::detail::g_launch.kernelType = KERNEL_TYPE_MIX_AIV_1_0;
    ExpectOk("syncall_one_block", [] { SyncAll(); });  // one core: nothing to wait for
}

// ---------------------------------------------------------------- SyncAll
// The cores of a launch as the runner runs a kernel that calls SyncAll: coroutines on one
// thread (opgen_twin::detail::CoopScheduler), each with its own launch state.
void SectionSyncAll()
{
    using opgen_twin::detail::BlockGmWrites;
    using opgen_twin::detail::CoopScheduler;
    using opgen_twin::detail::DmaWriteConflict;
    constexpr uint32_t n = 6;
    alignas(64) static float ws[n * 8];
    alignas(64) static float out[n * 8];
    alignas(64) static int32_t sync[n * 8 + 8];
    auto& launch = opgen_twin::detail::g_launch;
    launch.gm = {{reinterpret_cast<uint8_t*>(ws), sizeof(ws), "workspace"},
                 {reinterpret_cast<uint8_t*>(out), sizeof(out), "output 'y'"},
                 {reinterpret_cast<uint8_t*>(sync), sizeof(sync), "sync workspace"}};
    launch.blockNum = n;
    std::vector<std::string> errors(n);
    std::vector<BlockGmWrites> writes(n);
    auto name = [](uint32_t u) { return "kernel block " + std::to_string(u); };
    // Runs `body(b)` as block b of n, the way RunBlocks does.
    auto run = [&](const std::function<void(uint32_t)>& body) {
        errors.assign(n, "");
        writes.assign(n, BlockGmWrites{});
        return CoopScheduler::Run(n, [&](uint32_t b) {
            auto& mine = opgen_twin::detail::g_launch;
            mine.blockIdx = b;
            mine.gmWrites = &writes[b];
            mine.syncPhase = 0;
            mine.softSyncCalls = 0;
            mine.kernelType = KERNEL_TYPE_MIX_AIV_1_0;
            try {
                body(b);
                return true;
            } catch (const std::exception& e) {
                errors[b] = e.what();
                return false;
            }
        }, name);
    };
    GlobalTensor<float> wsG, outG;
    wsG.SetGlobalBuffer(ws, n * 8);
    outG.SetGlobalBuffer(out, n * 8);
    // Phase 1: block b writes 8 values b*10+i to its part of the workspace; phase 2: it reads
    // what block (b+1)%n wrote and copies it to its part of y, then writes its neighbour's part
    // of the workspace (a write of bytes another block wrote in phase 1: ordered by SyncAll).
    std::fill(out, out + n * 8, -1.0f);
    std::vector<int> order;
    std::string err = run([&](uint32_t b) {
        BasicScratch<2> s;
        auto t = s.Get<float>(8);
        for (uint32_t i = 0; i < 8; ++i) t.SetValue(i, static_cast<float>(b * 10 + i));
        DataCopy(wsG[b * 8], t, 8);
        order.push_back(static_cast<int>(b));
        SyncAll();
        order.push_back(100 + static_cast<int>(b));
        auto u = s.Get<float>(8);
        DataCopy(u, wsG[((b + 1) % n) * 8], 8);
        DataCopy(outG[b * 8], u, 8);
        CHECK(GetBlockIdx() == b, "block %u's GetBlockIdx() after SyncAll: %lld", b, (long long)GetBlockIdx());
        SyncAll();  // every block has read before anyone overwrites
        for (uint32_t i = 0; i < 8; ++i) t.SetValue(i, -1.0f);
        DataCopy(wsG[((b + 1) % n) * 8], t, 8);
    });
    CHECK(err.empty(), "two phases: %s", err.c_str());
    for (uint32_t b = 0; b < n; ++b) {
        CHECK(errors[b].empty(), "block %u: %s", b, errors[b].c_str());
        for (uint32_t i = 0; i < 8; ++i) {
            const float want = static_cast<float>(((b + 1) % n) * 10 + i);
            CHECK(out[b * 8 + i] == want, "y[%u] = %g, want %g (block %u read its neighbour's phase-1 part)",
                  b * 8 + i, out[b * 8 + i], want, b);
        }
    }
    bool barrier = order.size() == 2 * n;
    for (uint32_t i = 0; i < n && barrier; ++i) barrier = order[i] < 100 && order[n + i] >= 100;
    CHECK(barrier, "every block reaches SyncAll before any continues");
    CHECK(DmaWriteConflict(writes, launch.gm).empty(), "writes a SyncAll apart are ordered: %s",
          DmaWriteConflict(writes, launch.gm).c_str());
    // The same writes in one phase are a race.
    err = run([&](uint32_t b) {
        BasicScratch<1> s;
        auto t = s.Get<float>(8);
        for (uint32_t i = 0; i < 8; ++i) t.SetValue(i, static_cast<float>(b));
        DataCopy(wsG[b * 8], t, 8);
        DataCopy(wsG[((b + 1) % n) * 8], t, 8);
        SyncAll();
    });
    const std::string race = DmaWriteConflict(writes, launch.gm);
    CHECK(err.empty() && race.find("different values") != std::string::npos, "one phase: a race: %s", race.c_str());

    // A block that returns while the others wait in a SyncAll: the NPU hangs; the twin says so.
    err = run([&](uint32_t b) {
        SyncAll();
        if (b != 2) SyncAll();
    });
    std::printf("MSG syncall_count: %s\n", err.c_str());
    CHECK(err.find("SyncAll()") == 0 && err.find("kernel block 0 waits in its SyncAll call number 2") != std::string::npos &&
              err.find("kernel block 2 returned after 1 SyncAll call") != std::string::npos,
          "mismatched SyncAll counts: %s", err.c_str());
    // A core that fails ends the launch; the waiting ones unwind (their TPipe destructors run).
    err = run([&](uint32_t b) {
        BasicScratch<1> s;
        (void)s.Get<float>(8);
        SyncAll();
        if (b == 3) opgen_twin::detail::ThrowHardware("block 3 fails");
        SyncAll();
    });
    CHECK(err.empty() && errors[3] == "block 3 fails", "a failing core: '%s' / '%s'", err.c_str(), errors[3].c_str());
    ExpectOk("syncall_pipe_after_abort", [] { BasicScratch<1> s; (void)s.Get<float>(8); });

    // The kernel type and the template argument (asc-devkit SyncAll.md).
    err = run([&](uint32_t) {
        opgen_twin::detail::g_launch.kernelType = KERNEL_TYPE_AIV_ONLY;
        SyncAll();
    });
    std::printf("MSG syncall_aiv_only: %s\n", errors[0].c_str());
    CHECK(errors[0].find("SyncAll(): the kernel type is KERNEL_TYPE_AIV_ONLY") == 0 &&
              errors[0].find("KERNEL_TYPE_MIX_AIV_1_0") != std::string::npos,
          "AIV_ONLY: %s", errors[0].c_str());
    err = run([&](uint32_t) { SyncAll<false>(); });
    std::printf("MSG syncall_not_aiv_only: %s\n", errors[0].c_str());
    CHECK(errors[0].find("SyncAll<false>(): isAIVOnly = false") == 0, "isAIVOnly false: %s", errors[0].c_str());

    // The software form: slots counted in a zeroed GM workspace, polled through UB.
    GlobalTensor<int32_t> syncG;
    syncG.SetGlobalBuffer(sync, n * 8);
    std::fill(sync, sync + n * 8 + 8, 0);
    std::fill(out, out + n * 8, -1.0f);
    err = run([&](uint32_t b) {
        BasicScratch<2> s;
        auto t = s.Get<float>(8);
        auto ub = s.Get<int32_t>(n * 8);
        for (uint32_t i = 0; i < 8; ++i) t.SetValue(i, static_cast<float>(b + 1));
        DataCopy(wsG[b * 8], t, 8);
        SyncAll(syncG, ub);
        DataCopy(t, wsG[((b + 1) % n) * 8], 8);
        DataCopy(outG[b * 8], t, 8);
        SyncAll(syncG, ub);
        CHECK(ub.GetValue(8 * ((b + 1) % n)) == 2, "UB holds the slots after the call");
    });
    CHECK(err.empty(), "soft SyncAll: %s", err.c_str());
    for (uint32_t b = 0; b < n; ++b) {
        CHECK(errors[b].empty(), "soft SyncAll block %u: %s", b, errors[b].c_str());
        CHECK(out[b * 8] == static_cast<float>((b + 1) % n + 1), "soft SyncAll: y[%u] = %g", b * 8, out[b * 8]);
        CHECK(sync[b * 8] == 2, "slot %u counts 2 calls: %d", b, sync[b * 8]);
    }
    // SyncAll.md's other way: every core sets the whole gmWorkspace to 0 in the kernel first.
    std::fill(sync, sync + n * 8 + 8, -1);
    err = run([&](uint32_t) {
        BasicScratch<1> s;
        auto ub = s.Get<int32_t>(n * 8);
        Duplicate(ub, 0, n * 8);
        DataCopy(syncG, ub, n * 8);
        SyncAll(syncG, ub);
        SyncAll(syncG, ub);
    });
    CHECK(err.empty() && errors[0].empty() && errors[n - 1].empty() && sync[0] == 2 && sync[(n - 1) * 8] == 2,
          "soft SyncAll, zeroed by every core: %s %s", err.c_str(), errors[0].c_str());
    CHECK(DmaWriteConflict(writes, launch.gm).empty(), "the cores' zeroing is no race: %s",
          DmaWriteConflict(writes, launch.gm).c_str());
    std::fill(sync, sync + n * 8 + 8, -1);  // not set to 0
    err = run([&](uint32_t) {
        BasicScratch<1> s;
        SyncAll(syncG, s.Get<int32_t>(n * 8));
    });
    std::printf("MSG syncall_soft_unset: %s\n", errors[0].c_str());
    CHECK(errors[0].find("gmWorkspace was not set to 0") != std::string::npos, "soft, not zeroed: %s", errors[0].c_str());
    std::fill(sync, sync + n * 8 + 8, 0);
    err = run([&](uint32_t) {
        BasicScratch<1> s;
        SyncAll(syncG, s.Get<int32_t>(n * 8 - 8));
    });
    std::printf("MSG syncall_soft_ub: %s\n", errors[0].c_str());
    CHECK(errors[0].find("ubWorkspace holds 40 int32") != std::string::npos && errors[0].find("192 bytes") != std::string::npos,
          "soft, small UB: %s", errors[0].c_str());
    GlobalTensor<int32_t> small;
    small.SetGlobalBuffer(sync, n * 8 - 8);
    err = run([&](uint32_t) {
        BasicScratch<1> s;
        SyncAll(small, s.Get<int32_t>(n * 8), n + 1);
    });
    std::printf("MSG syncall_soft_used: %s\n", errors[0].c_str());
    CHECK(errors[0].find("usedCores 7") != std::string::npos, "soft, usedCores: %s", errors[0].c_str());
    err = run([&](uint32_t) {
        BasicScratch<1> s;
        SyncAll(small, s.Get<int32_t>(n * 8));
    });
    std::printf("MSG syncall_soft_gm: %s\n", errors[0].c_str());
    CHECK(errors[0].find("gmWorkspace holds 40 int32") != std::string::npos, "soft, small GM: %s", errors[0].c_str());
    launch = opgen_twin::detail::LaunchState();
}


// ---------------------------------------------------------------- ListTensorDesc
void SectionList()
{
    using opgen_twin::detail::EncodeTensorList;
    // The example of the Ascend C ListTensorDesc docs: two tensors of shape [1,2,3] and
    // [3,4,5]; the documented descriptor is 72, (3|0<<32), 1, 2, 3, (3|1<<32), 3, 4, 5, ptr0, ptr1.
    std::vector<int32_t> a(6), b(60);
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int32_t>(i) * 3;
    std::vector<uint64_t> d = EncodeTensorList({{1, 2, 3}, {3, 4, 5}}, {a.data(), b.data()});
    const std::vector<uint64_t> want = {72, 3, 1, 2, 3, (uint64_t(1) << 32) | 3, 3, 4, 5,
                                        reinterpret_cast<uintptr_t>(a.data()), reinterpret_cast<uintptr_t>(b.data())};
    CHECK(d == want, "descriptor layout as documented (ptr_offset %llu)", static_cast<unsigned long long>(d[0]));
    GM_ADDR list = reinterpret_cast<GM_ADDR>(d.data());

    ListTensorDesc ltd(reinterpret_cast<__gm__ void*>(list));
    CHECK(ltd.GetSize() == 2, "GetSize %u", ltd.GetSize());
    CHECK(ltd.GetDataPtr<int32_t>(0) == a.data() && ltd.GetDataPtr<int32_t>(1) == b.data(), "GetDataPtr");
    CHECK(reinterpret_cast<void*>(ltd.GetDataPtr<__gm__ uint8_t>(1)) == b.data(), "GetDataPtr<uint8_t> as in the guide");
    uint64_t shapeBuf[8] = {};
    TensorDesc<int32_t> desc;
    desc.SetShapeAddr(shapeBuf);
    ltd.GetDesc(desc, 1);
    CHECK(desc.GetDim() == 3 && desc.GetIndex() == 1 && desc.GetShape(0) == 3 && desc.GetShape(1) == 4 &&
              desc.GetShape(2) == 5 && shapeBuf[2] == 5,
          "GetDesc(1): dim %llu index %llu", static_cast<unsigned long long>(desc.GetDim()),
          static_cast<unsigned long long>(desc.GetIndex()));
    CHECK(desc.GetDataPtr() == b.data(), "TensorDesc::GetDataPtr");
    GlobalTensor<int32_t> g = desc.GetDataObj();
    CHECK(g.GetSize() == 60 && g.GetValue(59) == 59 * 3, "GetDataObj covers the 60 elements");
    ExpectHw("list_dataobj_oob", [&] { g.GetValue(60); }, {"GlobalTensor::GetValue", "60 elements"});
    ExpectHw("list_getshape_oob", [&] { desc.GetShape(3); }, {"TensorDesc::GetShape(3)", "3 dims"});
    ListTensorDesc init;
    init.Init(reinterpret_cast<__gm__ void*>(list), 88, 2);  // length and shapeSize that match
    CHECK(init.GetSize() == 2, "Init with matching length/shapeSize");

    ExpectHw("list_index_oob", [&] { ltd.GetDataPtr<int32_t>(2); }, {"GetDataPtr(2)", "holds 2 tensors"});
    ExpectHw("list_desc_oob", [&] { ltd.GetDesc(desc, 2); }, {"GetDesc(2)", "holds 2 tensors"});
    TensorDesc<int32_t> noShape;
    ExpectHw("list_no_shape_addr", [&] { ltd.GetDesc(noShape, 0); }, {"SetShapeAddr"});
    ExpectHw("list_shapesize", [&] { ListTensorDesc x(reinterpret_cast<__gm__ void*>(list), 0xffffffff, 3); },
             {"shapeSize 3", "holds 2 tensors"});
    ExpectHw("list_length", [&] { ListTensorDesc x(reinterpret_cast<__gm__ void*>(list), 80); },
             {"length 80", "88 bytes"});
    ExpectHw("list_nullptr", [] { ListTensorDesc x(nullptr); }, {"nullptr"});
    ExpectHw("list_uninit", [] {
        ListTensorDesc x;
        x.GetSize();
    }, {"never Init()-ed"});
    std::vector<uint64_t> junk = {12, 0, 0};
    ExpectHw("list_not_a_descriptor", [&] { ListTensorDesc x(reinterpret_cast<__gm__ void*>(junk.data())); },
             {"ptr_offset", "not a multiple of 8"});
    junk = {32, 1, 7, (uint64_t(5) << 32) | 1, 0};  // second entry claims index 5
    ExpectHw("list_bad_index", [&] { ListTensorDesc x(reinterpret_cast<__gm__ void*>(junk.data())); },
             {"index field 5", "expected index 1"});

    // Mixed ranks: pointers are fine, but the NPU decoder would misread sizes and shapes.
    std::vector<uint64_t> mixed = EncodeTensorList({{2, 3}, {6}, {2, 3}}, {a.data(), b.data(), a.data()});
    ListTensorDesc m(reinterpret_cast<__gm__ void*>(mixed.data()));
    CHECK(m.GetDataPtr<int32_t>(1) == b.data() && m.GetDataPtr<int32_t>(2) == a.data(), "mixed ranks: GetDataPtr");
    ExpectOk("list_mixed_desc0", [&] { m.GetDesc(desc, 0); });
    ExpectHw("list_mixed_size", [&] { m.GetSize(); }, {"tensor 1 of the list has 1 dims, tensor 0 has 2"});
    ExpectHw("list_mixed_desc", [&] { m.GetDesc(desc, 2); }, {"GetDesc", "tensor 1"});
    std::vector<uint64_t> scalar = EncodeTensorList({{}, {}}, {a.data(), b.data()});
    CHECK(scalar[0] == 24 && scalar[1] == 0 && scalar[2] == (uint64_t(1) << 32), "rank-0 entries: dim 0, no shape words");
    ListTensorDesc sc(reinterpret_cast<__gm__ void*>(scalar.data()));
    CHECK(sc.GetDataPtr<int32_t>(1) == b.data(), "rank-0 list: GetDataPtr");
    ExpectHw("list_rank0_size", [&] { sc.GetSize(); }, {"rank 0"});

    // Under the runner the descriptor must lie inside a GM buffer of the launch.
    opgen_twin::detail::g_launch.gm.push_back({reinterpret_cast<uint8_t*>(d.data()), 80, "input 'parts' (tensor list descriptor)"});
    ExpectHw("list_outside_gm", [&] { ListTensorDesc x(reinterpret_cast<__gm__ void*>(list)); },
             {"ListTensorDesc::Init", "input 'parts' (tensor list descriptor)", "80 bytes"});
    opgen_twin::detail::g_launch.gm.back().bytes = 88;
    ExpectOk("list_inside_gm", [&] { ListTensorDesc x(reinterpret_cast<__gm__ void*>(list)); });
    opgen_twin::detail::g_launch.gm.clear();
}

}  // namespace

// ---------------------------------------------------------------- level-0 (mask / repeat) forms
void SectionRepeat()
{
    Scratch s;
    auto a = s.Get<half>(512);
    auto c = s.Get<half>(512);
    auto d = s.Get<half>(512);
    for (uint32_t i = 0; i < 512; ++i) {
        a.SetValue(i, half(float(i % 50)));
        c.SetValue(i, half(1.0f));
        d.SetValue(i, half(-7.0f));
    }
    // Continuous mask 128, 4 iterations, contiguous: the first 512 elements.
    Add(d, a, c, 128, 4, {1, 1, 1, 8, 8, 8});
    int bad = 0;
    for (uint32_t i = 0; i < 512; ++i) bad += float(d.GetValue(i)) != float(i % 50) + 1;
    CHECK(bad == 0, "Add level 0, full mask: %d wrong", bad);
    // Continuous mask 20 of 128: elements 20.. of each iteration keep their bytes.
    for (uint32_t i = 0; i < 512; ++i) d.SetValue(i, half(-7.0f));
    Mul(d, a, a, 20, 2, {1, 1, 1, 8, 8, 8});
    CHECK(float(d.GetValue(19)) == 361.0f && float(d.GetValue(20)) == -7.0f && float(d.GetValue(128 + 3)) == 961.0f &&
              float(d.GetValue(128 + 20)) == -7.0f,
          "Mul level 0, mask 20");
    // Bit mask: elements 0 and 2 of each iteration; dst iterations 16 blocks apart, src 8.
    for (uint32_t i = 0; i < 512; ++i) d.SetValue(i, half(-7.0f));
    uint64_t bits[2] = {0x5, 0};
    Add(d, a, c, bits, 2, {2, 1, 1, 16, 8, 8});
    CHECK(float(d.GetValue(0)) == 1.0f && float(d.GetValue(1)) == -7.0f && float(d.GetValue(2)) == 3.0f &&
              float(d.GetValue(256)) == 29.0f && float(d.GetValue(258)) == 31.0f,
          "Add level 0, bit mask and strides");
    // Block stride 2 inside an iteration (block b at 2b), src block stride 0 (always block 0).
    for (uint32_t i = 0; i < 512; ++i) d.SetValue(i, half(-7.0f));
    Adds(d, a, half(100.0f), 128, 1, {2, 0, 16, 16});
    CHECK(float(d.GetValue(0)) == 100.0f && float(d.GetValue(16)) == -7.0f && float(d.GetValue(32 + 5)) == 105.0f &&
              float(d.GetValue(7 * 32 + 15)) == 115.0f,
          "Adds level 0, block strides");
    auto f = s.Get<float>(256);
    Duplicate(f, 2.0f, 64, 4, 1, 8);
    CHECK(f.GetValue(0) == 2.0f && f.GetValue(255) == 2.0f, "Duplicate level 0");
    Exp(f, f, 3, 1, {1, 1, 8, 8});
    CHECK(std::fabs(f.GetValue(2) - std::exp(2.0f)) < 1e-5f && f.GetValue(3) == 2.0f, "Exp level 0, mask 3");
    Add(d, a, c, uint64_t(0), 4, {1, 1, 1, 8, 8, 8});  // mask 0: a no-op
    Add(d, a, c, 128, 0, {1, 1, 1, 8, 8, 8});  // repeatTime 0: a no-op
    ++g_pass;
    ExpectHw("repeat_overrun", [&] { Add(d, a, c, 128, 5, {1, 1, 1, 8, 8, 8}); },
             {"Add(mask, repeatTime, BinaryRepeatParams)", "dst reaches element 639", "512 half elements"});
    ExpectHw("repeat_src_stride_overrun", [&] { Sub(d, a, c, 128, 2, {1, 1, 1, 8, 40, 8}); },
             {"Sub(mask, repeatTime", "src0 reaches element"});
    // A 32-bit type's bit mask is one word (掩码.md: effective length 1): the word after it, here
    // as past a kernel's single uint64_t, is not read on Atlas A2.
    uint64_t hi[2] = {1, ~uint64_t(0)};
    Duplicate(f, 2.0f, 64, 4, 1, 8);
    Exp(f, f, hi, 1, {1, 1, 8, 8});
    CHECK(std::fabs(f.GetValue(0) - std::exp(2.0f)) < 1e-5f && f.GetValue(1) == 2.0f && f.GetValue(63) == 2.0f,
          "Exp level 0, 32-bit bit mask: mask[1] not read");
    ExpectHw("repeat_dst_blk_zero", [&] { Add(d, a, c, 128, 1, {0, 1, 1, 8, 8, 8}); }, {"dstBlkStride 0"});
    ExpectHw("repeat_negative_mask", [&] { Add(d, a, c, static_cast<uint64_t>(-1), 1, {1, 1, 1, 8, 8, 8}); },
             {"is negative"});
}

// ---------------------------------------------------------------- atomic UB->GM copies
void SectionAtomic()
{
    Scratch s;
    auto u = s.Get<float>(64);
    for (uint32_t i = 0; i < 64; ++i) u.SetValue(i, float(i));
    std::vector<float> gmBuf(64, 123.0f);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gmBuf.data(), 64);
    InitGlobalMemory(g, 64, 1.0f);
    CHECK(gmBuf[0] == 1.0f && gmBuf[63] == 1.0f, "InitGlobalMemory");
    SetAtomicAdd<float>();
    DataCopy(g, u, 64);
    DataCopy(g, u, 64);
    CHECK(gmBuf[5] == 11.0f && gmBuf[63] == 127.0f, "SetAtomicAdd + DataCopy adds: %g", gmBuf[5]);
    DataCopyExtParams p{1, 8 * sizeof(float), 0, 0, 0};
    DataCopyPad(g, u, p);
    CHECK(gmBuf[7] == 22.0f && gmBuf[8] == 17.0f, "SetAtomicAdd + DataCopyPad adds only blockLen: %g %g", gmBuf[7], gmBuf[8]);
    SetAtomicMax<float>();
    for (uint32_t i = 0; i < 64; ++i) u.SetValue(i, 50.0f);
    DataCopy(g, u, 64);
    CHECK(gmBuf[5] == 50.0f && gmBuf[63] == 127.0f, "SetAtomicMax");
    auto h = s.Get<half>(64);
    ExpectHw("atomic_type_mismatch", [&] {
        std::vector<uint16_t> hb(64);
        GlobalTensor<half> gh;
        gh.SetGlobalBuffer(reinterpret_cast<half*>(hb.data()), 64);
        DataCopy(gh, h, 64);
    }, {"DataCopy(UB->GM)", "SetAtomicMax<float>", "half"});
    DisableDmaAtomic();
    DataCopy(g, u, 64);
    CHECK(gmBuf[63] == 50.0f, "DisableDmaAtomic: plain copies again");
}

// ---------------------------------------------------------------- Axpy, And/Or, Gather, intrinsics
void SectionMiscApi()
{
    Scratch sc;
    auto d = sc.Get<float>(64);
    auto s = sc.Get<half>(64);
    auto off = sc.Get<uint32_t>(64);
    auto g = sc.Get<half>(64);
    for (uint32_t i = 0; i < 64; ++i) {
        d.SetValue(i, 1.0f);
        s.SetValue(i, half(float(i)));
        off.SetValue(i, (63 - i) * 2);
    }
    Axpy(d, s, half(2.0f), 64);
    CHECK(d.GetValue(0) == 1.0f && d.GetValue(10) == 21.0f, "Axpy half->float");
    Gather(g, s, off, 0, 64);
    CHECK(float(g.GetValue(0)) == 63.0f && float(g.GetValue(63)) == 0.0f, "Gather reverses");
    for (uint32_t i = 0; i < 63; ++i) off.SetValue(i, (62 - i) * 2);
    Gather(g, s, off, 2, 63);
    CHECK(float(g.GetValue(0)) == 63.0f && float(g.GetValue(62)) == 1.0f, "Gather with srcBaseAddr");
    off.SetValue(3, 1);
    ExpectHw("gather_unaligned", [&] { Gather(g, s, off, 0, 64); }, {"Gather", "not a multiple of sizeof(half)"});
    off.SetValue(3, 4000);
    ExpectHw("gather_oob", [&] { Gather(g, s, off, 0, 64); }, {"Gather", "beyond the src tensor's 64"});
    ExpectHw("gather_same", [&] { Gather(s, s, off, 0, 4); }, {"same memory"});
    auto u = sc.Get<uint16_t>(64);
    auto v = sc.Get<uint16_t>(64);
    for (uint32_t i = 0; i < 64; ++i) {
        u.SetValue(i, 0xF0F0);
        v.SetValue(i, 0x0FF0);
    }
    And(d.ReinterpretCast<uint16_t>(), u, v, 64);
    CHECK(d.ReinterpretCast<uint16_t>().GetValue(7) == 0x00F0, "And");
    Or(u, u, v, 64);
    CHECK(u.GetValue(7) == 0xFFF0, "Or");
    pipe_barrier(PIPE_ALL);
    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
    ++g_pass;
}

int main(int argc, char** argv)
{
    // "dump" runs only by name: "all" leaves it out
    static const CheckSection sections[] = {
        {"fp16", SectionFp16},         {"bf16", SectionBf16},
        {"dump", SectionDump, true},   {"cast", SectionCast},
        {"vec", SectionVec},           {"adv", SectionAdv},
        {"adv_notmp", SectionAdvNoTmp}, {"copy", SectionCopy},
        {"queue", SectionQueue},       {"ub", SectionUb},
        {"local", SectionLocal},       {"global", SectionGlobal},
        {"tiling", SectionTiling},     {"list", SectionList},
        {"simd", SectionSimd},         {"cmpsel", SectionCmpSel},
        {"cmpsel_ub", SectionCmpSelUb}, {"reduce", SectionReduce},
        {"cacheline", SectionCacheLine}, {"repeat", SectionRepeat},
        {"atomic", SectionAtomic},     {"misc_api", SectionMiscApi},
        {"syncall", SectionSyncAll},
    };
    return RunSections(argc, argv, sections);
}
