// Checks of the twin's ShiftLeft/ShiftRight, MulAddDst, Copy (level 0), GatherMask, Sort32,
// Broadcast/BroadCast, LocalTensor's expression operators and the CCE scalar max/min.
// Prints "IN name v..." (the inputs) and "OUT name v..." (what the twin computed) for
// test_misc_api.py to check against numpy, "MSG name: text" for the expected HardwareErrors,
// "FAIL ..." for failed checks and "SUMMARY pass=N fail=M".
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernel_operator.h"
#include "tiling/tiling_api.h"
#include "graph/utils/type_utils.h"
#include "lib/pad/broadcast.h"
#include "lib/pad/broadcast_tiling.h"

using namespace AscendC;

#include "check.h"
#include "kernel_check.h"

namespace {

using Scratch = BasicScratch<24>;

template <class T>
double D(T v)
{
    return static_cast<double>(static_cast<float>(v));
}
template <>
double D<int16_t>(int16_t v) { return v; }
template <>
double D<uint16_t>(uint16_t v) { return v; }
template <>
double D<int32_t>(int32_t v) { return v; }
template <>
double D<uint32_t>(uint32_t v) { return v; }

template <class T>
void Dump(const char* tag, const char* name, const LocalTensor<T>& t, uint32_t n)
{
    std::printf("%s %s", tag, name);
    for (uint32_t i = 0; i < n; ++i) std::printf(" %.17g", D<T>(t.GetValue(i)));
    std::printf("\n");
}

// Deterministic pseudo-random values (the Python side reads them from the IN lines).
uint32_t g_seed = 12345;
uint32_t Next()
{
    g_seed = g_seed * 1103515245u + 12345u;
    return g_seed >> 8;
}

template <class T>
void FillInt(const LocalTensor<T>& t, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, static_cast<T>(Next()));
}
template <class T>
void FillReal(const LocalTensor<T>& t, uint32_t n, int levels = 1000)
{
    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, T(static_cast<float>(static_cast<int>(Next() % levels) - levels / 2) / 64.0f));
}

template <class T>
void ShiftCases(const char* tn)
{
    Scratch s;
    auto x = s.Get<T>(256);
    auto y = s.Get<T>(256);
    FillInt(x, 256);
    char name[64];
    Dump("IN", (std::string("shift_") + tn).c_str(), x, 256);
    const T amounts[] = {0, 1, 3, 8, static_cast<T>(8 * sizeof(T) - 1), static_cast<T>(8 * sizeof(T))};
    for (T a : amounts) {
        ShiftLeft(y, x, a, 200);
        std::snprintf(name, sizeof name, "shl_%s_%d", tn, static_cast<int>(a));
        Dump("OUT", name, y, 200);
        ShiftRight(y, x, a, 200);
        std::snprintf(name, sizeof name, "shr_%s_%d", tn, static_cast<int>(a));
        Dump("OUT", name, y, 200);
    }
    // level 0: continuous mask 20 of each iteration, 2 iterations, src repeat stride 4 blocks,
    // dst repeat stride 8; the other dst elements keep 7.
    const uint32_t per = 256 / sizeof(T);
    for (uint32_t i = 0; i < 256; ++i) y.SetValue(i, T(7));
    ShiftRight(y, x, T(5), uint64_t(20), 2, UnaryRepeatParams(1, 1, 8, 4), true);
    std::snprintf(name, sizeof name, "shr0_round_%s_%u", tn, per);
    Dump("OUT", name, y, 256);
    for (uint32_t i = 0; i < 256; ++i) y.SetValue(i, T(7));
    uint64_t bits[2] = {0x00000000F0F0F0F1ull, 0};
    ShiftLeft(y, x, T(2), bits, 1, UnaryRepeatParams(1, 1, 8, 8));
    std::snprintf(name, sizeof name, "shl0_bits_%s_%u", tn, per);
    Dump("OUT", name, y, 256);
}

template <class T, class U>
void MulAddDstCase(const char* name)
{
    Scratch s;
    auto a = s.Get<U>(64);
    auto b = s.Get<U>(64);
    auto d = s.Get<T>(64);
    FillReal(a, 64);
    FillReal(b, 64);
    FillReal(d, 64);
    Dump("IN", (std::string(name) + "_a").c_str(), a, 64);
    Dump("IN", (std::string(name) + "_b").c_str(), b, 64);
    Dump("IN", (std::string(name) + "_d").c_str(), d, 64);
    MulAddDst(d, a, b, 50);
    Dump("OUT", name, d, 64);
    if constexpr (std::is_same<T, U>::value) {
        // level 0: continuous mask 20, 2 iterations, src0 repeat stride 4 blocks; the rest keeps d.
        Scratch s2;
        const uint32_t per = 256 / sizeof(T);
        auto a2 = s2.Get<T>(2 * per), b2 = s2.Get<T>(2 * per), d2 = s2.Get<T>(2 * per);
        FillReal(a2, 2 * per);
        FillReal(b2, 2 * per);
        FillReal(d2, 2 * per);
        Dump("IN", (std::string(name) + "_l0_a").c_str(), a2, 2 * per);
        Dump("IN", (std::string(name) + "_l0_b").c_str(), b2, 2 * per);
        Dump("IN", (std::string(name) + "_l0_d").c_str(), d2, 2 * per);
        MulAddDst(d2, a2, b2, uint64_t(20), 2, BinaryRepeatParams(1, 1, 1, 8, 4, 8));
        Dump("OUT", (std::string(name) + "_l0").c_str(), d2, 2 * per);
        ExpectHw((std::string(name) + "_l0_overrun").c_str(),
                 [&] { MulAddDst(d2, a2, b2, uint64_t(20), 3, BinaryRepeatParams(1, 1, 1, 8, 8, 8)); },
                 {"MulAddDst(mask, repeatTime, BinaryRepeatParams)", "UB buffer overrun"});
    }
}

void SectionShift()
{
    ShiftCases<int16_t>("int16");
    ShiftCases<uint16_t>("uint16");
    ShiftCases<int32_t>("int32");
    ShiftCases<uint32_t>("uint32");
    Scratch s;
    auto x = s.Get<int16_t>(64);
    FillInt(x, 64);
    ExpectHw("shift_amount", [&] { ShiftLeft(x, x, int16_t(17), 64); }, {"ShiftLeft", "scalarValue 17", "[0, 16]"});
    ExpectHw("shift_negative", [&] { ShiftRight(x, x, int16_t(-1), 64); }, {"ShiftRight", "scalarValue -1"});
    ExpectHw("shift_overrun", [&] { ShiftLeft(x, x, int16_t(1), 65); }, {"ShiftLeft", "65"});
    MulAddDstCase<half, half>("muladddst_half");
    MulAddDstCase<float, float>("muladddst_float");
    MulAddDstCase<float, half>("muladddst_half_float");
    // CCE scalar max/min: mixed types take the common type.
    static_assert(std::is_same<decltype(max(int32_t(1), int64_t(2))), int64_t>::value, "max common type");
    CHECK(max(int32_t(-3), int64_t(2)) == 2 && min(int32_t(-3), int64_t(2)) == -3, "max/min int");
    CHECK(max(1.5f, 2) == 2.0f && min(7u, 9u) == 7u && max(-1, 0) == 0, "max/min");
}

template <class T>
void CopyGatherCases(const char* tn)
{
    using P = typename std::conditional<sizeof(T) == 2, uint16_t, uint32_t>::type;
    Scratch s;
    auto x = s.Get<T>(512);
    auto y = s.Get<T>(512);
    auto pat = s.Get<P>(64);
    FillReal(x, 512);
    Dump("IN", (std::string("gm_x_") + tn).c_str(), x, 512);
    char name[64];
    // Copy, continuous mask 20, 3 iterations, src blocks every 2, src repeat 8, dst repeat 4.
    for (uint32_t i = 0; i < 512; ++i) y.SetValue(i, T(9.0f));
    Copy(y, x, uint64_t(20), 3, CopyRepeatParams(1, 2, 4, 8));
    std::snprintf(name, sizeof name, "copy_cont_%s", tn);
    Dump("OUT", name, y, 512);
    for (uint32_t i = 0; i < 512; ++i) y.SetValue(i, T(9.0f));
    uint64_t bits[2] = {0x8000000000000001ull, sizeof(T) == 2 ? 0x00000000000000FFull : 0};
    Copy(y, x, bits, 2, CopyRepeatParams(1, 1, 8, 8));
    std::snprintf(name, sizeof name, "copy_bits_%s", tn);
    Dump("OUT", name, y, 512);
    // GatherMask: the built-in patterns, Normal mode, 2 iterations, src0 repeat stride 8.
    for (uint8_t p = 1; p <= 7; ++p) {
        uint64_t cnt = 0;
        for (uint32_t i = 0; i < 512; ++i) y.SetValue(i, T(9.0f));
        GatherMask(y, x, p, false, 0, GatherMaskParams(1, 2, 8, 0), cnt);
        std::snprintf(name, sizeof name, "gm_builtin_%s_%u_%llu", tn, p, static_cast<unsigned long long>(cnt));
        Dump("OUT", name, y, 512);
    }
    // User pattern, Counter mode: 40 elements per iteration, 3 iterations, src0 repeat stride 4,
    // pattern repeat stride 1 block.
    FillInt(pat, 64);
    Dump("IN", (std::string("gm_pat_") + tn).c_str(), pat, 64);
    uint64_t cnt = 0;
    for (uint32_t i = 0; i < 512; ++i) y.SetValue(i, T(9.0f));
    GatherMask(y, x, pat, true, 40, GatherMaskParams(1, 3, 4, 1), cnt);
    std::snprintf(name, sizeof name, "gm_user_%s_%llu", tn, static_cast<unsigned long long>(cnt));
    Dump("OUT", name, y, 512);
    ExpectHw((std::string("gm_pattern8_") + tn).c_str(),
             [&] { GatherMask(y, x, uint8_t(8), false, 0, GatherMaskParams(1, 1, 8, 0), cnt); },
             {"GatherMask", "src1Pattern 8", "1..7"});
}

void SectionGather()
{
    CopyGatherCases<float>("float");
    CopyGatherCases<half>("half");
    CopyGatherCases<uint16_t>("uint16");
    Scratch s;
    auto x = s.Get<float>(64);
    auto y = s.Get<float>(64);
    ExpectHw("copy_dst_stride0", [&] { Copy(y, x, uint64_t(64), 1, CopyRepeatParams()); }, {"Copy", "dstStride"});
    ExpectHw("copy_overrun", [&] { Copy(y, x, uint64_t(64), 2, CopyRepeatParams(1, 1, 8, 8)); },
             {"Copy(mask, repeatTime, CopyRepeatParams)", "UB buffer overrun"});
    uint64_t cnt = 0;
    ExpectHw("gm_dst_small", [&] { GatherMask(y[32], x, uint8_t(7), false, 0, GatherMaskParams(1, 1, 8, 0), cnt); },
             {"GatherMask", "64 elements gathered", "32"});
}

template <class T>
void SortCase(const char* tn)
{
    Scratch s;
    auto x = s.Get<T>(96);
    auto idx = s.Get<uint32_t>(96);
    auto y = s.Get<T>(96 * 8 / sizeof(T));
    FillReal(x, 96, 16);  // few distinct values: ties
    for (uint32_t i = 0; i < 96; ++i) idx.SetValue(i, 1000u + 3u * i);
    Dump("IN", (std::string("sort_x_") + tn).c_str(), x, 96);
    Sort32(y, x, idx, 3);
    auto yb = y.template ReinterpretCast<uint32_t>();
    std::printf("OUT sort_%s", tn);
    for (uint32_t j = 0; j < 96; ++j) {
        T sc;
        uint32_t lo = yb.GetValue(2 * j);
        std::memcpy(&sc, &lo, sizeof(T));
        std::printf(" %.17g %u", D<T>(sc), yb.GetValue(2 * j + 1));
        if (sizeof(T) == 2) CHECK((lo >> 16) == 0, "half reserved bytes 0");
    }
    std::printf("\n");
    ExpectHw((std::string("sort_dst_small_") + tn).c_str(), [&] { Sort32(y, x, idx, 4); }, {"Sort32", "src0"});
}

void SectionSort()
{
    SortCase<float>("float");
    SortCase<half>("half");
    Scratch s;
    auto x = s.Get<float>(32);
    auto idx = s.Get<uint32_t>(32);
    auto y = s.Get<float>(32);
    ExpectHw("sort_dst_too_small", [&] { Sort32(y, x, idx, 1); }, {"Sort32", "dst"});
    auto big = s.Get<float>(64);
    ExpectHw("sort_910", [&] { Sort32<float, 1001>(big, x, idx, 1); }, {"Sort32", "ascend910", "no Sort32"});
}

// Prints n (score, index) records of `rec` as "score index" pairs.
template <class T>
void DumpRecords(const char* tag, const std::string& name, const LocalTensor<T>& rec, uint32_t n)
{
    auto bits = rec.template ReinterpretCast<uint32_t>();
    std::printf("%s %s", tag, name.c_str());
    for (uint32_t j = 0; j < n; ++j) {
        T sc;
        uint32_t lo = bits.GetValue(2 * j);
        std::memcpy(&sc, &lo, sizeof(T));
        std::printf(" %.17g %u", D<T>(sc), bits.GetValue(2 * j + 1));
    }
    std::printf("\n");
}

// MrgSort.md: runs of Sort32 records (8 runs of 32, ties across runs) merged 2, 3 and 4 at a
// time, with a short 4th list, repeatTimes 2 and ifExhaustedSuspension.
template <class T>
void MrgSortCase(const char* tn)
{
    Scratch s;
    auto x = s.Get<T>(256);
    auto idx = s.Get<uint32_t>(256);
    auto runs = s.Get<T>(256 * 8 / sizeof(T));
    auto y = s.Get<T>(256 * 8 / sizeof(T));
    const uint32_t perRecord = 8 / sizeof(T);
    FillReal(x, 256, 16);
    for (uint32_t i = 0; i < 256; ++i) idx.SetValue(i, i);
    Sort32(runs, x, idx, 8);
    const std::string name = std::string("mrg_") + tn;
    DumpRecords("IN", name + "_runs", runs, 256);
    const uint16_t four[4] = {32, 32, 32, 17};
    MrgSort(y, MrgSortSrcList<T>(runs, runs[32 * perRecord], runs[64 * perRecord], runs[96 * perRecord]),
            MrgSort4Info(four, false, 15, 1));
    DumpRecords("OUT", name + "_four", y, 113);
    const uint16_t two[4] = {32, 20, 0, 0};
    MrgSort(y, MrgSortSrcList<T>(runs[128 * perRecord], runs[160 * perRecord], runs, runs), MrgSort4Info(two, false, 3, 1));
    DumpRecords("OUT", name + "_two", y, 52);
    const uint16_t three[4] = {32, 32, 5, 0};
    MrgSort(y, MrgSortSrcList<T>(runs, runs[32 * perRecord], runs[64 * perRecord], runs), MrgSort4Info(three, false, 7, 1));
    DumpRecords("OUT", name + "_three", y, 69);
    const uint16_t even[4] = {32, 32, 32, 32};
    MrgSort(y, MrgSortSrcList<T>(runs, runs[32 * perRecord], runs[64 * perRecord], runs[96 * perRecord]),
            MrgSort4Info(even, false, 15, 2));
    DumpRecords("OUT", name + "_repeat2", y, 256);
    const uint16_t uneven[4] = {32, 3, 0, 0};
    auto yb = y.template ReinterpretCast<uint32_t>();
    for (uint32_t i = 0; i < 70; ++i) yb.SetValue(i, 0xFFFFFFFFu);  // what is left unwritten
    MrgSort(y, MrgSortSrcList<T>(runs, runs[32 * perRecord], runs, runs), MrgSort4Info(uneven, true, 3, 1));
    DumpRecords("OUT", name + "_suspend", y, 35);
}

void SectionMrgSort()
{
    MrgSortCase<float>("float");
    MrgSortCase<half>("half");
    Scratch s;
    auto runs = s.Get<float>(512);
    auto y = s.Get<float>(512);
    const uint16_t len[4] = {32, 32, 32, 32};
    const MrgSortSrcList<float> list(runs, runs[64], runs[128], runs[192]);
    ExpectHw("mrg_valid_bit", [&] { MrgSort(y, list, MrgSort4Info(len, false, 5, 1)); }, {"MrgSort", "validBit 5"});
    const uint16_t big[4] = {4096, 32, 0, 0};
    ExpectHw("mrg_length", [&] { MrgSort(y, list, MrgSort4Info(big, false, 3, 1)); }, {"MrgSort", "4095"});
    ExpectHw("mrg_overlap", [&] { MrgSort(runs[128], list, MrgSort4Info(len, false, 15, 1)); }, {"MrgSort", "overlap"});
    ExpectHw("mrg_repeat", [&] { MrgSort(y, list, MrgSort4Info(len, false, 7, 2)); }, {"MrgSort", "repeatTimes 2"});
    ExpectHw("mrg_dst_align", [&] { MrgSort(y[2], list, MrgSort4Info(len, false, 15, 1)); }, {"MrgSort", "aligned"});
    const MrgSortSrcList<float> odd(runs[1], runs[64], runs[128], runs[192]);
    ExpectHw("mrg_src_align", [&] { MrgSort(y, odd, MrgSort4Info(len, false, 15, 1)); }, {"MrgSort", "aligned"});
    ExpectHw("mrg_small", [&] { MrgSort(y, list, MrgSort4Info(len, false, 15, 3)); }, {"MrgSort", "source list"});
    ExpectHw("mrg_310p", [&] { MrgSort<float, 2002>(y, list, MrgSort4Info(len, false, 15, 1)); },
             {"MrgSort", "ascend310p", "no MrgSort"});
}

template <class T>
void BroadcastCases(const char* tn)
{
    Scratch s;
    auto x = s.Get<T>(64);
    auto y = s.Get<T>(1024);
    auto tmp = s.Get<uint8_t>(8192);
    FillReal(x, 64, 200);
    Dump("IN", (std::string("bc_x_") + tn).c_str(), x, 64);
    char name[64];
    {
        const uint32_t src[] = {5, 1}, dst[] = {5, 40};
        BroadCast<T, 2, 1>(y, x, dst, src, tmp);
        std::snprintf(name, sizeof name, "bc_axis1_%s_5_40", tn);
        Dump("OUT", name, y, 200);
    }
    {
        const uint32_t src[] = {1, 32}, dst[] = {6, 32};
        Broadcast<T, 2, 0>(y, x, dst, src);
        std::snprintf(name, sizeof name, "bc_axis0_%s_6_32", tn);
        Dump("OUT", name, y, 192);
    }
    {
        const uint32_t src[] = {1}, dst[] = {37};
        BroadCast<T, 1, 0>(y, x, dst, src);
        std::snprintf(name, sizeof name, "bc_dim1_%s_37", tn);
        Dump("OUT", name, y, 37);
    }
}

void SectionBroadcast()
{
    BroadcastCases<float>("float");
    BroadcastCases<half>("half");
    BroadcastCases<int8_t>("int8");
    Scratch s;
    auto x = s.Get<float>(64);
    auto y = s.Get<float>(256);
    auto tmp = s.Get<uint8_t>(64);
    const uint32_t src[] = {4, 1}, dst[] = {4, 16}, bad[] = {5, 16}, src0[] = {1, 12}, dst0[] = {3, 12};
    ExpectHw("bc_shape", [&] { BroadCast<float, 2, 1>(y, x, bad, src); }, {"BroadCast", "srcShape[0] = 4", "dstShape[0] = 5"});
    ExpectHw("bc_align", [&] { BroadCast<float, 2, 0>(y, x, dst0, src0); }, {"BroadCast", "48 bytes", "32"});
    ExpectHw("bc_tmp_small", [&] { BroadCast<float, 2, 1>(y, x, dst, src, tmp); },
             {"BroadCast", "64 bytes", "256"});
    ExpectHw("bc_overlap", [&] { Broadcast<float, 2, 1>(y, y, dst, src); }, {"Broadcast", "overlap"});
    // TBuf's queue calls (CANN's TBuf inherits them): AllocTensor/DeQue = Get, EnQue/FreeTensor no-ops.
    auto t2 = s.b[2].AllocTensor<uint8_t>();
    CHECK(t2.GetSize() == 64 && t2.GetPhyAddr() == tmp.GetPhyAddr(), "TBuf::AllocTensor is Get");
    s.b[2].EnQue(t2);
    auto t3 = s.b[2].DeQue<uint8_t>();
    s.b[2].FreeTensor(t3);
    CHECK(t3.GetPhyAddr() == tmp.GetPhyAddr() && tmp.GetSize() == 64, "TBuf::DeQue/FreeTensor");
    // host side: GetBroadCastMaxMinTmpSize (hand values from broadcast_tiling.cpp's formulas)
    fe::PlatFormInfos info;
    platform_ascendc::PlatformAscendC plat(&info);
    uint32_t mx = 1, mn = 1;
    GetBroadCastMaxMinTmpSize(plat, ge::Shape({16, 1}), ge::Shape({16, 16}), 4, false, mx, mn);
    CHECK(mn == 256 && mx == 512, "float [16,1]->[16,16]: min %u max %u", mn, mx);
    GetBroadCastMaxMinTmpSize(plat, ge::Shape({20, 1}), ge::Shape({20, 10}), 2, false, mx, mn);
    // half: 16 per block; 10 not aligned -> 32 (brcb) ... min 16*16*2 + 16*16*2 = 1024; max 24*16*2 + 20*16*2 = 1408
    CHECK(mn == 1024 && mx == 1408, "half [20,1]->[20,10]: min %u max %u", mn, mx);
    GetBroadCastMaxMinTmpSize(plat, ge::Shape({16, 1}), ge::Shape({16, 40}), 1, false, mx, mn);
    CHECK(mn == 3360 && mx == 3360, "int8 [16,1]->[16,40]: min %u max %u", mn, mx);
    GetBroadCastMaxMinTmpSize(plat, ge::Shape({1, 32}), ge::Shape({8, 32}), 4, false, mx, mn);
    CHECK(mn == 32 && mx == 32, "float axis 0: min %u max %u", mn, mx);
    GetBroadCastMaxMinTmpSize(plat, ge::Shape({1}), ge::Shape({8}), 4, false, mx, mn);
    CHECK(mn == 0 && mx == 0, "float scalar: min %u max %u", mn, mx);
}

void SectionSymbol()
{
    Scratch s;
    auto a = s.Get<float>(128);
    auto b = s.Get<float>(128);
    auto d = s.Get<float>(128);
    FillReal(a, 128);
    FillReal(b, 128);
    for (uint32_t i = 0; i < 128; ++i) b.SetValue(i, b.GetValue(i) == 0.0f ? 1.0f : b.GetValue(i));
    Dump("IN", "sym_a", a, 128);
    Dump("IN", "sym_b", b, 128);
    auto d72 = d;
    d72.SetSize(72);  // dst.GetSize() is the count
    for (uint32_t i = 0; i < 128; ++i) d.SetValue(i, 5.0f);
    d72 = a * b;
    Dump("OUT", "sym_mul_72", d, 128);
    d72 = a + b;
    Dump("OUT", "sym_add_72", d, 128);
    d72 = a - b;
    Dump("OUT", "sym_sub_72", d, 128);
    d72 = a / b;
    Dump("OUT", "sym_div_72", d, 128);
    auto hi = s.Get<int16_t>(64), lo = s.Get<int16_t>(64), r = s.Get<int16_t>(64);
    FillInt(hi, 64);
    FillInt(lo, 64);
    Dump("IN", "sym_i", hi, 64);
    Dump("IN", "sym_j", lo, 64);
    r = hi & lo;
    Dump("OUT", "sym_and_64", r, 64);
    r = hi | lo;
    Dump("OUT", "sym_or_64", r, 64);
    auto small = a;
    small.SetSize(32);
    ExpectHw("sym_src_small", [&] { d = small * b; }, {"operator*", "Mul", "src0"});
}

// The kernel-side assert (asc_assert.h) and the host's ge::TypeUtils::GetDataTypeLength.
void SectionAssert()
{
    int evaluated = 0;
    assert(++evaluated == 1);
    assert(evaluated == 1, "with a message %d", evaluated);
    CHECK(evaluated == 1, "assert evaluates its condition once");
    ExpectHw("assert_fails", [&] { assert(evaluated == 2); }, {"assert(evaluated == 2) failed", "test_misc_api.cpp"});
    ExpectHw("assert_fails_msg", [&] { assert(evaluated > 5, "evaluated %d", evaluated); }, {"assert(evaluated > 5"});
    // TQueBind's EnQue/DeQue naming the user positions behave as the plain ones.
    {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 64);
        auto t = q.AllocTensor<float>();
        t.SetValue(0, 2.5f);
        const bool queued = q.EnQue<TPosition::GM, TPosition::VECIN, float>(t);
        CHECK(queued, "EnQue<GM, VECIN, float>");
        ExpectHw("enque_userpos_depth", [&] { q.EnQue<TPosition::GM, TPosition::VECIN, float>(t); }, {"EnQue"});
        auto u = q.DeQue<TPosition::GM, TPosition::VECIN, float>();
        CHECK(u.GetValue(0) == 2.5f, "DeQue<GM, VECIN, float>");
        q.FreeTensor(u);
    }
    uint32_t len = 7;
    CHECK(ge::TypeUtils::GetDataTypeLength(ge::DT_FLOAT16, len) && len == 2, "fp16 %u", len);
    CHECK(ge::TypeUtils::GetDataTypeLength(ge::DT_INT64, len) && len == 8, "int64 %u", len);
    CHECK(ge::TypeUtils::GetDataTypeLength(ge::DT_STRING, len) && len == 16, "string %u", len);
    len = 7;
    CHECK(!ge::TypeUtils::GetDataTypeLength(ge::DT_UNDEFINED, len) && len == 7, "undefined %u", len);
}

}  // namespace

int main(int argc, char** argv)
{
    static const CheckSection sections[] = {{"shift", SectionShift}, {"gather", SectionGather}, {"sort", SectionSort},
                    {"mrgsort", SectionMrgSort},
                    {"broadcast", SectionBroadcast}, {"symbol", SectionSymbol}, {"assert", SectionAssert}};
    return RunSections(argc, argv, sections);
}
