// Checks of the twin's CompareScalar / Compares (count and level-0 forms, per-SoC element types), Subs
// and the debug output (printf, DumpTensor, DumpAccChkPoint) outside the runner.
// Prints "IN name v..." (the inputs) and "OUT name v..." (what the twin computed) for
// test_debug_cmp_api.py to check against references written from the asc-devkit docs, "MSG name: text"
// for the expected HardwareErrors, "FAIL ..." for failed checks and "SUMMARY pass=N fail=M"; the debug
// section's own output (DumpTensor and printf lines) goes to stdout between "BEGIN name" and "END name".
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"

using namespace AscendC;

#include "check.h"
#include "kernel_check.h"

namespace {

using Scratch = BasicScratch<16>;

template <class T>
double D(T v)
{
    if constexpr (std::is_integral<T>::value) return static_cast<double>(v);
    else return static_cast<double>(static_cast<float>(v));
}

template <class T>
void Print(const char* tag, const std::string& name, const LocalTensor<T>& t, uint32_t n)
{
    std::printf("%s %s", tag, name.c_str());
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.17g", D<T>(t.GetValue(i)));
    std::printf("\n");
}

uint32_t g_seed = 4242;
uint32_t Next()
{
    g_seed = g_seed * 1103515245u + 12345u;
    return g_seed >> 8;
}

// Small values with many ties, so EQ/LE/GE see equal elements.
template <class T>
void Fill(const LocalTensor<T>& t, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        const int v = static_cast<int>(Next() % 9) - 4;
        if constexpr (std::is_integral<T>::value) t.SetValue(i, static_cast<T>(v));
        else t.SetValue(i, T(static_cast<float>(v) / 2.0f));
    }
}

const char* kModes[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};

// `f` throws a TwinError (not emulated), not a HardwareError; printed as "MSG name: ...".
void ExpectTwin(const char* name, const std::function<void()>& f)
{
    try {
        f();
        ++g_fail;
        std::printf("FAIL %s: no TwinError\n", name);
    } catch (const opgen_twin::HardwareError& e) {
        ++g_fail;
        std::printf("FAIL %s: a HardwareError, not a TwinError: %s\n", name, e.what());
    } catch (const opgen_twin::TwinError& e) {
        std::printf("MSG %s: %s\n", name, e.what());
        CHECK(std::strstr(e.what(), "not emulated") != nullptr, "%s", e.what());
    }
}

// Count form (CompareScalar and Compares) of 2 repeats, and level 0: 3 iterations, src repeat stride 16
// blocks (every other iteration's data), dst block stride 1, dst repeat stride 8 (the default).
template <class T>
void CompareScalarCases(const char* tn, const std::vector<int>& modes)
{
    Scratch s;
    const uint32_t per = 256 / sizeof(T);
    auto x = s.Get<T>(6 * per);
    auto bits = s.Get<uint8_t>(256);
    Fill(x, 6 * per);
    Print("IN", std::string("cs_x_") + tn, x, 6 * per);
    const T scalar = std::is_integral<T>::value ? T(1) : T(0.5f);
    std::printf("IN cs_scalar_%s %.17g\n", tn, D<T>(scalar));
    for (int m : modes) {
        const CMPMODE mode = static_cast<CMPMODE>(m);
        Duplicate(bits.template ReinterpretCast<uint16_t>(), uint16_t(0xA5A5), 128);
        CompareScalar(bits, x, scalar, mode, 2 * per);
        Print("OUT", std::string("cs_count_") + tn + "_" + kModes[m], bits, 2 * per / 8 + 4);
        Duplicate(bits.template ReinterpretCast<uint16_t>(), uint16_t(0xA5A5), 128);
        Compares(bits, x, scalar, mode, 2 * per);
        Print("OUT", std::string("compares_count_") + tn + "_" + kModes[m], bits, 2 * per / 8 + 4);
        Duplicate(bits.template ReinterpretCast<uint16_t>(), uint16_t(0xA5A5), 128);
        CompareScalar(bits, x, scalar, mode, uint64_t(per), 3, UnaryRepeatParams(1, 1, 8, 16));
        Print("OUT", std::string("cs_l0_") + tn + "_" + kModes[m], bits, 3 * per / 8 + 4);
        Duplicate(bits.template ReinterpretCast<uint16_t>(), uint16_t(0xA5A5), 128);
        uint64_t mask[2] = {1, 0};  // reserved on Atlas A2/A3: every element is still compared
        Compares(bits, x, scalar, mode, mask, 1, UnaryRepeatParams(1, 1, 8, 8));
        Print("OUT", std::string("compares_l0bits_") + tn + "_" + kModes[m], bits, per / 8 + 4);
    }
}

void SectionCompare()
{
    CompareScalarCases<half>("half", {0, 1, 2, 3, 4, 5});
    CompareScalarCases<float>("float", {0, 1, 2, 3, 4, 5});
    CompareScalarCases<int32_t>("int32", {2});
    Scratch s;
    auto x = s.Get<float>(256);
    auto xi = s.Get<int32_t>(256);
    auto xs = s.Get<int16_t>(256);
    auto bits = s.Get<uint8_t>(64);
    Fill(x, 256);
    Fill(xi, 256);
    ExpectHw("cs_partial", [&] { CompareScalar(bits, x, 0.0f, CMPMODE::LT, 100); },
             {"CompareScalar", "count 100", "multiple of 64"});
    ExpectHw("cs_int32_lt", [&] { CompareScalar(bits, xi, 0, CMPMODE::LT, 64); },
             {"CompareScalar", "int32_t takes CMPMODE::EQ only", "ascend910b"});
    ExpectHw("cs_int32_310p", [&] { CompareScalar<int32_t, uint8_t, 2002>(bits, xi, 0, CMPMODE::EQ, 64); },
             {"CompareScalar", "ascend310p", "no int32_t Compares"});
    ExpectHw("cs_int16_910b", [&] { CompareScalar(bits, xs, int16_t(0), CMPMODE::EQ, 128); },
             {"CompareScalar", "ascend910b", "no int16_t Compares"});
    ExpectOk("cs_int16_310b", [&] { CompareScalar<int16_t, uint8_t, 3002>(bits, xs, int16_t(0), CMPMODE::GT, 128); });
    ExpectHw("cs_910", [&] { CompareScalar<float, uint8_t, 1001>(bits, x, 0.0f, CMPMODE::LT, 64); },
             {"CompareScalar", "ascend910", "no Compares"});
    ExpectHw("cs_l0_overrun", [&] { CompareScalar(bits, x, 0.0f, CMPMODE::LT, uint64_t(64), 5, UnaryRepeatParams()); },
             {"CompareScalar(dst, src0, scalar, cmpMode, mask, repeatTime, UnaryRepeatParams)", "src0"});
    ExpectHw("cs_l0_dst_overrun", [&] { CompareScalar(bits, x, 0.0f, CMPMODE::LT, uint64_t(64), 4, UnaryRepeatParams(1, 1, 32, 8)); },
             {"CompareScalar", "dst needs", "UB buffer overrun"});
    uint64_t mask[2] = {~0ull, 0};
    ExpectTwin("cs_l0_310b", [&] {
        CompareScalar<float, uint8_t, true, 3002>(bits, x, 0.0f, CMPMODE::LT, mask, 1, UnaryRepeatParams());
    });
    ExpectTwin("compare_l0_950", [&] {
        Compare<float, uint8_t, true, 3510>(bits, x, x, CMPMODE::LT, uint64_t(64), 1, BinaryRepeatParams());
    });
}

// Subs on Ascend 950 (Arch 3510 given explicitly): scalar after and before, as a value and as a single point.
template <class T>
void SubsCases(const char* tn)
{
    constexpr int A = 3510;
    using LT = LocalTensor<T>;
    Scratch s;
    const uint32_t per = 256 / sizeof(T);
    auto x = s.Get<T>(2 * per);
    auto p = s.Get<T>(per);
    auto y = s.Get<T>(2 * per);
    Fill(x, 2 * per);
    Fill(p, per);
    Print("IN", std::string("subs_x_") + tn, x, 2 * per);
    Print("IN", std::string("subs_p_") + tn, p, 1);
    const T v = std::is_integral<T>::value ? T(3) : T(1.25f);
    const int32_t n = static_cast<int32_t>(2 * per - 8);
    std::printf("IN subs_v_%s %.17g\n", tn, D<T>(v));
    Subs<BinaryDefaultType, true, DEFAULT_BINARY_CONFIG, LT, LT, T, A>(y, x, v, n);
    Print("OUT", std::string("subs_after_") + tn, y, n);
    Subs<BinaryDefaultType, true, DEFAULT_BINARY_CONFIG, LT, T, LT, A>(y, v, x, n);
    Print("OUT", std::string("subs_before_") + tn, y, n);
    Subs<BinaryDefaultType, true, DEFAULT_BINARY_CONFIG, LT, LT, LT, A>(y, x, p[0], n);
    Print("OUT", std::string("subs_point1_") + tn, y, n);
    static constexpr BinaryConfig first = {0};
    Subs<BinaryDefaultType, true, first, LT, LT, LT, A>(y, p[0], x, n);
    Print("OUT", std::string("subs_point0_") + tn, y, n);
    // level 0: continuous mask 20, 2 iterations, src repeat stride 4 blocks; the rest of y keeps 7
    for (uint32_t i = 0; i < 2 * per; ++i) y.SetValue(i, T(7));
    Subs<BinaryDefaultType, true, DEFAULT_BINARY_CONFIG, LT, LT, T, A>(y, x, v, uint64_t(20), 2, UnaryRepeatParams(1, 1, 8, 4));
    Print("OUT", std::string("subs_l0_") + tn, y, 2 * per);
}

void SectionSubs()
{
    SubsCases<half>("half");
    SubsCases<float>("float");
    SubsCases<int16_t>("int16");
    SubsCases<int32_t>("int32");
    SubsCases<bfloat16_t>("bfloat16");
    Scratch s;
    auto x = s.Get<float>(64);
    auto y = s.Get<float>(64);
    Fill(x, 64);
    ExpectHw("subs_910b", [&] { Subs(y, x, 1.0f, 64); }, {"Subs", "ascend910b", "Ascend 950"});
    using LF = LocalTensor<float>;
    ExpectHw("subs_overlap", [&] { Subs<BinaryDefaultType, true, DEFAULT_BINARY_CONFIG, LF, LF, LF, 3510>(y, x, y[8], 64); },
             {"Subs", "single-point scalar", "overlaps dst"});
    ExpectHw("subs_overrun", [&] { Subs<BinaryDefaultType, true, DEFAULT_BINARY_CONFIG, LF, LF, float, 3510>(y, x, 1.0f, 65); },
             {"Subs", "65"});
}

// Outside the runner the debug output goes to stdout at once (block 0 of 1).
void SectionDebug()
{
    Scratch s;
    auto h = s.Get<half>(64);
    auto f = s.Get<float>(16);
    auto i = s.Get<int32_t>(16);
    for (uint32_t k = 0; k < 64; ++k) h.SetValue(k, half(static_cast<float>(k) * 0.5f));
    for (uint32_t k = 0; k < 16; ++k) f.SetValue(k, static_cast<float>(k) - 7.25f), i.SetValue(k, static_cast<int32_t>(k) * -3);
    std::printf("BEGIN dump\n");
    DumpTensor(h, 5, 8);
    DumpTensor(f, 7, 4);
    DumpTensor(i, 9, 5);
    DumpAccChkPoint(h, 56, 32, 3);
    GlobalTensor<float> g;
    std::vector<float> gm = {1.5f, -2.0f, 3.25f, 0.0f};
    g.SetGlobalBuffer(gm.data(), 4);
    DumpTensor(g, 11, 4);
    AscendC::printf("fmt string int: %d, float: %f, half: %f, str: %s\n", 0x123, 3.14f, half(1.5f), "ok");
    PRINTF("PRINTF %u\n", 7u);
    std::printf("END dump\n");
    // DumpTensor.md's three ShapeInfo cases: shape = dumpSize, shape < dumpSize, shape > dumpSize
    std::printf("BEGIN shape\n");
    const uint32_t s88[] = {8, 8}, s78[] = {7, 8}, s98[] = {9, 8}, s234[] = {2, 3, 4};
    DumpTensor(h, 2, 64, ShapeInfo(2, s88));
    DumpTensor(h, 3, 64, ShapeInfo(2, s78));
    DumpTensor(h, 4, 64, ShapeInfo(2, s98));
    DumpTensor(h, 5, 24, ShapeInfo(3, s234, DataFormat::ND));
    std::printf("END shape\n");
    auto big = s.Get<float>(8192);
    std::printf("BEGIN big\n");
    DumpTensor(big, 3, 8000);
    std::printf("END big\n");
    ExpectHw("dump_overrun", [&] { DumpTensor(f, 1, 17); }, {"DumpTensor", "17"});
    ExpectHw("dump_910", [&] { DumpTensor<float, 1001>(f, 1, 4); }, {"DumpTensor", "ascend910"});
    ExpectHw("acc_offset", [&] { DumpAccChkPoint(f, 1, 17, 1); }, {"DumpAccChkPoint", "countOff 17"});
    ExpectHw("acc_align", [&] { DumpAccChkPoint(f, 1, 3, 1); }, {"DumpAccChkPoint", "32-byte aligned"});
    ExpectHw("printf_310p", [&] { opgen_twin::detail::KernelPrintf<2002>("printf", "x\n"); },
             {"printf", "ascend310p", "no printf"});
}

// TQueSync<src, dst>: the flag between two pipes, the same as SetFlag/WaitFlag<HardEvent::SRC_DST>.
void SectionSync()
{
    TQueSync<PIPE_MTE2, PIPE_V> sync;
    ExpectOk("tquesync_pair", [&] {
        sync.SetFlag(0);
        sync.WaitFlag(0);
        sync.SetFlag(1);
        WaitFlag<HardEvent::MTE2_V>(1);
    });
    ExpectHw("tquesync_unset", [&] { sync.WaitFlag(2); }, {"WaitFlag", "no matching SetFlag"});
    TQueSync<PIPE_V, PIPE_MTE3> out;
    ExpectHw("tquesync_other_pair", [&] {
        sync.SetFlag(3);
        out.WaitFlag(3);
    }, {"WaitFlag", "no matching SetFlag"});
}

}  // namespace

int main(int argc, char** argv)
{
    static const CheckSection sections[] = {{"compare", SectionCompare}, {"subs", SectionSubs}, {"debug", SectionDebug},
                    {"sync", SectionSync}};
    return RunSections(argc, argv, sections);
}
