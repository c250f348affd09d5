// Checks of the level-0 reductions (WholeReduceSum/Max/Min, BlockReduceSum/Max/Min, PairReduceSum)
// and the mask register (SetMaskCount/SetMaskNorm/SetVectorMask/ResetMask, isSetMask = false).
// Run as `test_reduce_api SECTION`. Prints "BITS name dtype v0 v1 ..." (the raw bits of a tensor's
// elements: uint16 for half, uint32 for float) for test_reduce_repeat.py to compare against numpy,
// "FAIL ..." for failed checks made here (hand values), "MSG name: text" for captured errors and
// "SUMMARY pass=N fail=M".
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "kernel_operator.h"

using namespace AscendC;

#include "check.h"
#include "kernel_check.h"

namespace {

using Scratch = BasicScratch<16>;

// Small exact values (multiples of 1/4 in [-12.5, 12.5]): sums of a few hundred are exact in
// float and, below 512 in magnitude, in half, so any summation order gives the same bits.
float Val(uint32_t i, uint32_t seed) { return static_cast<float>(static_cast<int>((i * 37u + seed * 11u) % 101u) - 50) / 4.0f; }

template <class T>
void FillPattern(const LocalTensor<T>& t, uint32_t n, uint32_t seed)
{
    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, T(Val(i, seed)));
}

template <class T>
void FillConst(const LocalTensor<T>& t, uint32_t n, float v)
{
    for (uint32_t i = 0; i < n; ++i) t.SetValue(i, T(v));
}

template <class T>
void Dump(const char* name, const LocalTensor<T>& t, uint32_t n)
{
    std::printf("BITS %s %s", name, sizeof(T) == 2 ? "half" : "float");
    const uint8_t* p = reinterpret_cast<const uint8_t*>(t.TwinData());
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t bits = 0;
        std::memcpy(&bits, p + i * sizeof(T), sizeof(T));
        std::printf(" %u", bits);
    }
    std::printf("\n");
    ++g_pass;
}

const float kSentinel = -999.0f;  // unwritten dst elements keep it

void SectionWhole()
{
    Scratch s;
    // 1. float, continuous mask 64, 4 iterations, contiguous.
    auto f = s.Get<float>(1024);
    auto fd = s.Get<float>(64);
    FillPattern(f, 1024, 1);
    Dump("src_f", f, 1024);
    FillConst(fd, 64, kSentinel);
    WholeReduceSum(fd, f, 64, 4, 1, 1, 8);
    Dump("sum_f_m64_r4", fd, 8);
    // 2. half, mask 100, 3 iterations, dst every 2nd element, iterations 10 blocks apart.
    auto h = s.Get<half>(1024);
    auto hd = s.Get<half>(64);
    FillPattern(h, 1024, 2);
    Dump("src_h", h, 1024);
    FillConst(hd, 64, kSentinel);
    WholeReduceSum(hd, h, 100, 3, 2, 1, 10);
    Dump("sum_h_m100_r3_d2_s10", hd, 8);
    // 3. float, bit mask, block stride 2, iterations 16 blocks apart: max with [value, index].
    FillConst(fd, 64, kSentinel);
    const uint64_t bitsF[2] = {0xF0F0F0F0F0F0F0F0ull, 0};
    WholeReduceMax(fd, f, bitsF, 2, 1, 2, 16);
    Dump("max_f_bits_vi_b2_s16", fd, 8);
    // 4. half, mask 128, 2 iterations, min with [index, value].
    FillConst(hd, 64, kSentinel);
    WholeReduceMin(hd, h, 128, 2, 1, 1, 8, ReduceOrder::ORDER_INDEX_VALUE);
    Dump("min_h_m128_iv", hd, 8);
    // 5. float, only value (dst stride 3) and only index (uint32 slots).
    FillConst(fd, 64, kSentinel);
    WholeReduceMax(fd, f, 50, 3, 3, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    Dump("max_f_m50_ov_d3", fd, 12);
    FillConst(fd, 64, kSentinel);
    WholeReduceMin(fd, f, 64, 3, 1, 1, 8, ReduceOrder::ORDER_ONLY_INDEX);
    Dump("min_f_m64_oi", fd, 4);
    // 6. Ties: the first position wins (hand values).
    auto t = s.Get<float>(64);
    FillConst(t, 64, 1.0f);
    t.SetValue(5, 3.0f);
    t.SetValue(9, 3.0f);
    WholeReduceMax(fd, t, 64, 1, 1, 1, 8);
    uint32_t idx = 0;
    const float v0 = fd.GetValue(0);
    std::memcpy(&idx, reinterpret_cast<const uint8_t*>(fd.TwinData()) + 4, 4);
    CHECK(v0 == 3.0f && idx == 5, "WholeReduceMax ties: value %g index %u (want 3, 5)", v0, idx);
    // 7. half saturation (WholeReduceSum.md's example): [60000, 60000, -30000, 100]. The doc's 35604 is
    // the exact arithmetic; in half -29900 is -29904 and 65504 - 29904 = 35600 ties to even 35584
    // (without saturation 60000 + 60000 would be inf and so the result).
    auto sat = s.Get<half>(128);
    FillConst(sat, 128, 0.0f);
    sat.SetValue(0, half(60000.0f));
    sat.SetValue(1, half(60000.0f));
    sat.SetValue(2, half(-30000.0f));
    sat.SetValue(3, half(100.0f));
    WholeReduceSum(hd, sat, 4, 1, 1, 1, 8);
    CHECK(float(hd.GetValue(0)) == 35584.0f, "half saturation: %g (want 35584)", float(hd.GetValue(0)));
    // 8. In place, as InstanceNorm does (dst == src): results after all reads.
    auto ip = s.Get<float>(256);
    FillConst(ip, 256, 1.0f);
    WholeReduceSum(ip, ip, 64, 4, 1, 1, 8);
    CHECK(ip.GetValue(0) == 64.0f && ip.GetValue(3) == 64.0f && ip.GetValue(4) == 1.0f, "in-place WholeReduceSum");
}

void SectionBlock()
{
    Scratch s;
    auto f = s.Get<float>(512);
    auto fd = s.Get<float>(64);
    FillPattern(f, 512, 3);
    Dump("src_f", f, 512);
    FillConst(fd, 64, kSentinel);
    BlockReduceSum(fd, f, 2, 64, 1, 1, 8);
    Dump("bsum_f_r2", fd, 16);
    // mask 20: blocks 0, 1 full, block 2 four elements, blocks 3..7 none (not written); dst stride 2.
    FillConst(fd, 64, kSentinel);
    BlockReduceMax(fd, f, 2, 20, 2, 1, 8);
    Dump("bmax_f_m20_d2", fd, 32);
    auto h = s.Get<half>(512);
    auto hd = s.Get<half>(256);
    FillPattern(h, 512, 4);
    Dump("src_h", h, 512);
    FillConst(hd, 64, kSentinel);
    const uint64_t bitsH[2] = {0x00000000FFFF0001ull, 0x8000000000000000ull};
    BlockReduceMin(hd, h, 2, bitsH, 1, 2, 16);
    Dump("bmin_h_bits_b2_s16", hd, 16);
    FillConst(hd, 64, kSentinel);
    PairReduceSum(hd, h, 2, 128, 1, 1, 8);
    Dump("psum_h_r2", hd, 128);
}

void SectionMask()
{
    Scratch s;
    auto f = s.Get<float>(1024);
    auto fd = s.Get<float>(1024);
    FillPattern(f, 1024, 5);
    Dump("src_f", f, 1024);
    // Counter mode: 1000 elements -> 16 iterations, the last of 40 (ReduceCustom's Compute3).
    SetMaskCount();
    SetVectorMask<float>(0, 1000);
    FillConst(fd, 1024, kSentinel);
    WholeReduceSum<float, false>(fd, f, MASK_PLACEHOLDER, 1, 1, 1, 8);
    Dump("cnt_sum_f_1000", fd, 20);
    // Counter mode, BlockReduceSum: 300 elements -> 38 blocks (ReduceCustom's Compute2).
    SetVectorMask<float, MaskMode::COUNTER>(300);
    FillConst(fd, 1024, kSentinel);
    BlockReduceSum<float, false>(fd, f, 1, MASK_PLACEHOLDER, 1, 1, 8);
    Dump("cnt_bsum_f_300", fd, 48);
    // Counter mode, Add level 0: 200 elements; repeatTime ignored.
    SetVectorMask<float>(0, 200);
    FillConst(fd, 1024, kSentinel);
    Add<float, false>(fd, f, f, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
    Dump("cnt_add_f_200", fd, 256);
    SetMaskNorm();
    // Normal mode with the register: bits 0..3 and 62, 2 iterations.
    SetVectorMask<float>(0, 0x400000000000000Full);
    FillConst(fd, 1024, kSentinel);
    Add<float, false>(fd, f, f, MASK_PLACEHOLDER, 2, {1, 1, 1, 8, 8, 8});
    Dump("norm_add_f_bits", fd, 128);
    // SetVectorMask(len) in Normal mode: the first 10 elements.
    SetVectorMask<float>(10);
    FillConst(fd, 1024, kSentinel);
    WholeReduceMax<float, false>(fd, f, MASK_PLACEHOLDER, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    Dump("norm_max_f_len10", fd, 4);
    // ResetMask: every element.
    ResetMask();
    FillConst(fd, 1024, kSentinel);
    Muls<float, false>(fd, f, 2.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    int bad = 0;
    for (uint32_t i = 0; i < 64; ++i) bad += fd.GetValue(i) != 2.0f * f.GetValue(i);
    CHECK(bad == 0 && fd.GetValue(64) == kSentinel, "ResetMask: full mask (%d wrong)", bad);
    // isSetMask = true leaves its mask in the register, as on the NPU.
    WholeReduceSum(fd, f, 7, 1, 1, 1, 8);
    FillConst(fd, 1024, kSentinel);
    Adds<float, false>(fd, f, 1.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    CHECK(fd.GetValue(6) == f.GetValue(6) + 1.0f && fd.GetValue(7) == kSentinel,
          "the register keeps the last isSetMask = true call's mask");
    // half in Normal mode uses both words.
    auto h = s.Get<half>(256);
    auto hd = s.Get<half>(256);
    FillConst(h, 256, 2.0f);
    FillConst(hd, 256, kSentinel);
    SetVectorMask<half>(0x1ull, 0x1ull);
    Duplicate<half, false>(hd, half(5.0f), MASK_PLACEHOLDER, 2, 1, 8);
    CHECK(float(hd.GetValue(0)) == 5.0f && float(hd.GetValue(1)) == kSentinel && float(hd.GetValue(64)) == 5.0f &&
              float(hd.GetValue(128)) == 5.0f && float(hd.GetValue(192)) == 5.0f && float(hd.GetValue(193)) == kSentinel,
          "half register mask: bits 0 and 64 of each iteration");
    ResetMask();
}

void SectionErrors()
{
    Scratch s;
    auto f = s.Get<float>(256);
    auto fd = s.Get<float>(16);
    auto h = s.Get<half>(256);
    FillConst(f, 256, 1.0f);
    FillConst(h, 256, 1.0f);
    ExpectHw("whole_mask_zero", [&] { WholeReduceSum(fd, f, 0, 1, 1, 1, 8); },
             {"WholeReduceSum(mask, ", "mask 0 out of the documented range [1, 64]"});
    ExpectHw("whole_mask_65_float", [&] { WholeReduceMax(fd, f, 65, 1, 1, 1, 8); }, {"WholeReduceMax", "[1, 64]"});
    const uint64_t none[2] = {0, 0};
    ExpectHw("whole_bits_none", [&] { WholeReduceMin(fd, f, none, 1, 1, 1, 8); }, {"WholeReduceMin(mask[]", "no element"});
    ExpectHw("whole_repeat_256", [&] { WholeReduceSum(fd, f, 64, 256, 1, 1, 0); }, {"repeatTime 256"});
    ExpectHw("whole_src_overrun", [&] { WholeReduceSum(fd, f, 64, 5, 1, 1, 8); },
             {"src reaches element 319", "UB buffer overrun"});
    ExpectHw("whole_dst_overrun", [&] { WholeReduceMax(fd, f, 64, 4, 3, 1, 8); }, {"dst write at bytes", "dstRepStride"});
    ExpectHw("negative_stride", [&] { BlockReduceMax(fd, f, 1, 64, -1, 1, 8); }, {"negative stride"});
    ExpectHw("counter_overrun", [&] {
        SetMaskCount();
        SetVectorMask<float>(0, 300);
        WholeReduceSum<float, false>(fd, f, MASK_PLACEHOLDER, 1, 1, 1, 8);
    }, {"Counter-mode count 300", "UB buffer overrun"});
    ExpectHw("counter_after_resetmask", [&] {
        SetMaskCount();
        ResetMask();  // all ones: read as a count in Counter mode
        Add<float, false>(fd, f, f, MASK_PLACEHOLDER, 1, {1, 1, 1, 8, 8, 8});
    }, {"Add(mask, repeatTime, BinaryRepeatParams)", "Counter mode with a count of 18446744073709551615"});
    ExpectHw("setvectormask_len_normal_in_counter", [&] { SetVectorMask<float>(100); },
             {"MaskMode::NORMAL while Counter mode is on"});
    SetMaskNorm();
    ExpectHw("setvectormask_high_32bit", [&] { SetVectorMask<float>(1, 0); }, {"maskHigh must be 0"});
    ExpectHw("setvectormask_zero", [&] { SetVectorMask<half>(0, 0); }, {"both words 0"});
    ResetMask();
}


void SectionCmpMask()
{
    Scratch s;
    auto a = s.Get<half>(128);
    auto b = s.Get<half>(128);
    auto m = s.Get<uint8_t>(32);
    for (uint32_t i = 0; i < 128; ++i) {
        a.SetValue(i, half(float(i % 3)));  // 0 1 2 0 1 2 ...
        b.SetValue(i, half(1.0f));
    }
    // GT over the first 10 elements: a > 1 at 2, 5, 8 -> bits 0b1_0010_0100 = 0x124.
    Compare(a, b, CMPMODE::GT, uint64_t(10), BinaryRepeatParams());
    for (uint32_t i = 0; i < 32; ++i) m.SetValue(i, uint8_t(0xAA));
    GetCmpMask(m);
    CHECK(m.GetValue(0) == 0x24 && m.GetValue(1) == 0x01 && m.GetValue(2) == 0 && m.GetValue(15) == 0 &&
              m.GetValue(16) == 0xAA,
          "Compare register GT, mask 10: %02x %02x %02x", m.GetValue(0), m.GetValue(1), m.GetValue(2));
    // Bit mask, EQ, element 127 only (a[127] = 1 == 1).
    const uint64_t hi[2] = {0, 0x8000000000000000ull};
    Compare(a, b, CMPMODE::EQ, hi, BinaryRepeatParams());
    GetCmpMask(m);
    CHECK(m.GetValue(15) == 0x80 && m.GetValue(0) == 0, "Compare register EQ, bit 127: %02x", m.GetValue(15));
    // float: 64 elements, LE everywhere -> the low 8 bytes all ones, the high 8 zero.
    auto fa = s.Get<float>(64);
    FillConst(fa, 64, 1.0f);
    Compare(fa, fa, CMPMODE::LE, uint64_t(64), BinaryRepeatParams());
    GetCmpMask(m);
    CHECK(m.GetValue(0) == 0xFF && m.GetValue(7) == 0xFF && m.GetValue(8) == 0, "float register LE");
    // SetCmpMask then GetCmpMask: the 16 bytes round-trip.
    for (uint32_t i = 0; i < 32; ++i) m.SetValue(i, uint8_t(i * 7));
    SetCmpMask(m);
    auto m2 = s.Get<uint16_t>(16);
    GetCmpMask(m2);
    CHECK(m2.GetValue(0) == uint16_t(0 | (7 << 8)) && m2.GetValue(7) == uint16_t(98 | (105 << 8)), "SetCmpMask round trip");
    // Level-0 Compare into a dst tensor: the mask is reserved on A2/A3 (every element compared); the
    // default params write the bits contiguously; dstRepStride 16 leaves a 16-byte gap per iteration (half).
    auto h2 = s.Get<half>(256);
    auto hb = s.Get<half>(256);
    for (uint32_t i = 0; i < 256; ++i) {
        h2.SetValue(i, half(float(i % 5)));  // > 2 at i % 5 in {3, 4}
        hb.SetValue(i, half(2.0f));
    }
    auto cm = s.Get<uint8_t>(128);
    for (uint32_t i = 0; i < 128; ++i) cm.SetValue(i, uint8_t(0xAA));
    Compare(cm, h2, hb, CMPMODE::GT, uint64_t(1), 2, {1, 1, 1, 8, 8, 8});
    int wrong = 0;
    for (uint32_t i = 0; i < 256; ++i) wrong += ((cm.GetValue(i / 8) >> (i % 8)) & 1) != (i % 5 >= 3 ? 1 : 0);
    CHECK(wrong == 0 && cm.GetValue(32) == 0xAA, "level-0 Compare, contiguous bits (%d wrong)", wrong);
    for (uint32_t i = 0; i < 128; ++i) cm.SetValue(i, uint8_t(0xAA));
    Compare(cm, h2, hb, CMPMODE::GT, uint64_t(1), 2, {1, 1, 1, 16, 8, 8});
    wrong = 0;
    for (uint32_t i = 0; i < 256; ++i) {
        const uint32_t byte = (i / 128) * 32 + (i % 128) / 8;
        wrong += ((cm.GetValue(byte) >> (i % 8)) & 1) != (i % 5 >= 3 ? 1 : 0);
    }
    CHECK(wrong == 0 && cm.GetValue(16) == 0xAA && cm.GetValue(31) == 0xAA, "level-0 Compare, dstRepStride 16 (%d wrong)",
          wrong);
    ExpectHw("compare_level0_dst_overrun", [&] { Compare(cm, h2, hb, CMPMODE::GT, uint64_t(1), 2, {1, 1, 1, 64, 8, 8}); },
             {"Compare(dst, src0, src1, cmpMode, mask, repeatTime", "UB buffer overrun"});
    // ArgMaxWithValue's pattern: GetCmpMask into a LocalTensor never allocated.
    ExpectHw("getcmpmask_default_tensor", [&] {
        LocalTensor<uint8_t> none;
        GetCmpMask(none);
    }, {"GetCmpMask", "default-constructed LocalTensor"});
}


void SectionSelect()
{
    Scratch s;
    auto a = s.Get<float>(128);
    auto b = s.Get<float>(128);
    auto d = s.Get<float>(128);
    auto sel = s.Get<uint32_t>(8);  // 256 bits
    for (uint32_t i = 0; i < 128; ++i) {
        a.SetValue(i, float(i));
        b.SetValue(i, -float(i));
    }
    for (uint32_t w = 0; w < 8; ++w) sel.SetValue(w, 0x0000FFFFu ^ (w * 0x01010101u));  // bit i of word i/32
    auto bit = [&](uint32_t i) { return ((sel.GetValue(i / 32) >> (i % 32)) & 1u) != 0; };
    // Mode 2, mask 50 of 64, 2 iterations: iteration r reads bits 64r..64r+63; elements 50..63 keep their bytes.
    FillConst(d, 128, kSentinel);
    Select(d, sel, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, uint64_t(50), 2, {1, 1, 1, 8, 8, 8});
    int wrong = 0;
    for (uint32_t i = 0; i < 128; ++i) {
        const float want = (i % 64) >= 50 ? kSentinel : (bit(i) ? float(i) : -float(i));
        wrong += d.GetValue(i) != want;
    }
    CHECK(wrong == 0, "Select level 0, tensor-tensor mode, mask 50 (%d wrong)", wrong);
    // Mode 1 (scalar), bit mask: elements 0 and 63 of each iteration only.
    FillConst(d, 128, kSentinel);
    uint64_t two[2] = {0x8000000000000001ull, 0};  // Select takes a non-const uint64_t mask[]
    Select(d, sel, a, 7.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, two, 2, {1, 1, 1, 8, 8, 8});
    CHECK(d.GetValue(0) == (bit(0) ? 0.0f : 7.0f) && d.GetValue(63) == (bit(63) ? 63.0f : 7.0f) &&
              d.GetValue(64) == (bit(64) ? 64.0f : 7.0f) && d.GetValue(1) == kSentinel,
          "Select level 0, tensor-scalar mode, bit mask");
    // Mode 0 through the registers: Compare(src0, src1, GT, ...) then Select(dst, src0, src1, repeat, params)
    // with the mask register ResetMask left: max(a, c) elementwise for one iteration.
    auto c = s.Get<float>(128);
    for (uint32_t i = 0; i < 128; ++i) c.SetValue(i, float(i % 7) * 10.0f);
    Compare(a, c, CMPMODE::GT, uint64_t(64), BinaryRepeatParams());
    ResetMask();
    FillConst(d, 128, kSentinel);
    Select(d, a, c, 1, {1, 1, 1, 8, 8, 8});
    wrong = 0;
    for (uint32_t i = 0; i < 64; ++i) wrong += d.GetValue(i) != std::max(a.GetValue(i), c.GetValue(i));
    CHECK(wrong == 0 && d.GetValue(64) == kSentinel, "Compare register + Select mode 0 (%d wrong)", wrong);
    ExpectHw("select_level0_selmask_short", [&] {
        auto tiny = sel;  // 256 bits; 5 iterations need 320
        Select(d, tiny, a, b, SELMODE::VSEL_TENSOR_TENSOR_MODE, uint64_t(64), 5, {1, 1, 1, 0, 0, 0});
    }, {"Select(dst, selMask, src0, src1, selMode, mask,", "selMask"});
}

}  // namespace

int main(int argc, char** argv)
{
    static const CheckSection sections[] = {{"whole", SectionWhole}, {"block", SectionBlock}, {"mask", SectionMask}, {"errors", SectionErrors},
                    {"cmpmask", SectionCmpMask}, {"select", SectionSelect}};
    return RunSections(argc, argv, sections);
}
