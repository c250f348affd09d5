// The twin's UB Gather (opgen_twin/detail/kernel_gather.h; asc-devkit 离散与聚合/Gather.md): the
// count form and both repeat forms print their inputs and outputs as unsigned words (IN/OUT lines)
// for tests/twin/test_gather_api.py's numpy reference; the per-SoC availability and dtypes, and
// misuse, are checked here (HardwareErrors naming the rule).
#include <cstdio>
#include <cstring>
#include <string>

#include "kernel_operator.h"

using namespace AscendC;

#include "check.h"
#include "kernel_check.h"

namespace {

using Scratch = BasicScratch<16>;

uint32_t g_seed = 777;
uint32_t Next()
{
    g_seed = g_seed * 1103515245u + 12345u;
    return g_seed >> 8;
}

// The unsigned word of T's size (bit patterns: a gather is a pure move).
template <size_t N> struct WordOf { using type = uint64_t; };
template <> struct WordOf<1> { using type = uint8_t; };
template <> struct WordOf<2> { using type = uint16_t; };
template <> struct WordOf<4> { using type = uint32_t; };
template <class T>
using Word = typename WordOf<sizeof(T)>::type;

template <class T>
void DumpWords(const char* tag, const std::string& name, const LocalTensor<T>& t, uint32_t n)
{
    const LocalTensor<Word<T>> w = t.template ReinterpretCast<Word<T>>();
    std::printf("%s %s", tag, name.c_str());
    for (uint32_t i = 0; i < n; ++i) std::printf(" %llu", static_cast<unsigned long long>(w.GetValue(i)));
    std::printf("\n");
}

template <class T>
void FillWords(const LocalTensor<T>& t, uint32_t n)
{
    const LocalTensor<Word<T>> w = t.template ReinterpretCast<Word<T>>();
    for (uint32_t i = 0; i < n; ++i) w.SetValue(i, static_cast<Word<T>>(Next()));
}

// src of 96 elements, 70 offsets (random elements at or after base), base 2 elements in.
template <class T>
void CountCase(const char* tn)
{
    Scratch s;
    auto src = s.Get<T>(96);
    auto dst = s.Get<T>(96);
    auto off = s.Get<uint32_t>(96);
    FillWords(src, 96);
    FillWords(dst, 96);
    const uint32_t base = 2 * sizeof(T);
    for (uint32_t i = 0; i < 70; ++i) off.SetValue(i, (Next() % 94) * sizeof(T));
    off.SetValue(0, 93 * sizeof(T));  // the last element src has
    DumpWords("IN", std::string("src_") + tn, src, 96);
    DumpWords("IN", std::string("off_") + tn, off, 70);
    DumpWords("IN", std::string("dst0_") + tn, dst, 96);
    Gather(dst, src, off, base, 70);
    DumpWords("OUT", std::string("count_") + tn, dst, 96);
}

void SectionCount()
{
    CountCase<half>("half");
    CountCase<bfloat16_t>("bfloat16");
    CountCase<int16_t>("int16");
    CountCase<uint16_t>("uint16");
    CountCase<float>("float");
    CountCase<int32_t>("int32");
    CountCase<uint32_t>("uint32");
}

// half, continuous mask 100, 2 iterations, dstRepStride 10 blocks; float, bit mask, 2 iterations,
// dstRepStride 9 blocks. Unselected dst elements keep their values.
void SectionRepeat()
{
    Scratch s;
    auto src = s.Get<half>(256);
    auto dst = s.Get<half>(320);
    auto off = s.Get<uint32_t>(256);
    FillWords(src, 256);
    FillWords(dst, 320);
    for (uint32_t i = 0; i < 256; ++i) off.SetValue(i, (Next() % 256) * 2);
    DumpWords("IN", "rsrc_half", src, 256);
    DumpWords("IN", "roff_half", off, 256);
    DumpWords("IN", "rdst0_half", dst, 320);
    Gather(dst, src, off, 0u, uint64_t(100), 2, 10);
    DumpWords("OUT", "repeat_half", dst, 320);
    auto fsrc = s.Get<float>(64);
    auto fdst = s.Get<float>(160);
    auto foff = s.Get<uint32_t>(128);
    FillWords(fsrc, 64);
    FillWords(fdst, 160);
    for (uint32_t i = 0; i < 128; ++i) foff.SetValue(i, (Next() % 64) * 4);
    DumpWords("IN", "rsrc_float", fsrc, 64);
    DumpWords("IN", "roff_float", foff, 128);
    DumpWords("IN", "rdst0_float", fdst, 160);
    const uint64_t mask[2] = {0xF0F0F0F00F0F0F0Full, 0};
    Gather(fdst, fsrc, foff, 0u, mask, 2, 9);
    DumpWords("OUT", "repeat_float", fdst, 160);
}

// Per SoC (Gather.md 产品支持情况, 数据类型): Arch is the template argument after T.
void SectionSoc()
{
    Scratch s;
    auto b8 = s.Get<int8_t>(64);
    auto d8 = s.Get<int8_t>(64);
    auto off = s.Get<uint32_t>(64);
    for (uint32_t i = 0; i < 64; ++i) {
        b8.SetValue(i, static_cast<int8_t>(i - 30));
        off.SetValue(i, 63 - i);
    }
    ExpectOk("int8_310b", [&] { Gather<int8_t, 3002>(d8, b8, off, 0, 64); });
    CHECK(d8.GetValue(0) == 33 && d8.GetValue(63) == -30, "int8 reversed on ascend310b: %d %d", d8.GetValue(0),
          d8.GetValue(63));
    ExpectHw("int8_910b", [&] { Gather<int8_t, 2201>(d8, b8, off, 0, 64); }, {"ascend910b", "int8_t", "Gather.md"});
    ExpectHw("int8_950_repeat", [&] { Gather<int8_t, 3510>(d8, b8, off, 0, uint64_t(64), 1, 8); },
             {"count form only"});
    auto h = s.Get<half>(64);
    auto hd = s.Get<half>(64);
    for (uint32_t i = 0; i < 64; ++i) off.SetValue(i, 2 * (63 - i));
    ExpectHw("ascend910", [&] { Gather<half, 1001>(hd, h, off, 0, 64); }, {"ascend910", "has no Gather"});
    auto bf = s.Get<bfloat16_t>(64);
    auto bfd = s.Get<bfloat16_t>(64);
    ExpectHw("bf16_310p", [&] { Gather<bfloat16_t, 2002>(bfd, bf, off, 0, 64); }, {"ascend310p", "bfloat16_t"});
    ExpectHw("bf16_310b", [&] { Gather<bfloat16_t, 3002>(bfd, bf, off, 0, 64); }, {"ascend310b", "bfloat16_t"});
    ExpectOk("half_310p", [&] { Gather<half, 2002>(hd, h, off, 0, 64); });
    auto q = s.Get<int64_t>(32);
    auto qd = s.Get<int64_t>(32);
    for (uint32_t i = 0; i < 32; ++i) {
        q.SetValue(i, (int64_t(1) << 40) + i);
        off.SetValue(i, 8 * (31 - i));
    }
    ExpectOk("int64_950", [&] { Gather<int64_t, 3510>(qd, q, off, 0, 32); });
    CHECK(qd.GetValue(0) == (int64_t(1) << 40) + 31, "int64 on ascend950");
    ExpectHw("int64_910b", [&] { Gather<int64_t, 2201>(qd, q, off, 0, 32); }, {"ascend910b", "int64_t"});
}

void SectionMisuse()
{
    Scratch s;
    auto src = s.Get<float>(64);
    auto dst = s.Get<float>(64);
    auto off = s.Get<uint32_t>(72);
    for (uint32_t i = 0; i < 72; ++i) off.SetValue(i, 4 * (i % 64));
    ExpectOk("valid", [&] { Gather(dst, src, off, 0, 64); });
    off.SetValue(5, 6);
    ExpectHw("unaligned_offset", [&] { Gather(dst, src, off, 0, 64); },
             {"srcOffset[5]", "not a multiple of sizeof(float)"});
    off.SetValue(5, 256);
    ExpectHw("outside_src", [&] { Gather(dst, src, off, 0, 64); }, {"beyond the src tensor's 64", "out of bounds"});
    off.SetValue(5, 252);
    ExpectHw("outside_with_base", [&] { Gather(dst, src, off, 8, 64); }, {"srcBaseAddr 8", "beyond the src"});
    off.SetValue(5, 20);
    ExpectHw("base_unaligned", [&] { Gather(dst, src, off, 2, 8); }, {"srcBaseAddr 2"});
    ExpectHw("base_outside", [&] { Gather(dst, src, off, 256, 8); }, {"srcBaseAddr 256", "outside src"});
    ExpectHw("same_memory", [&] { Gather(src, src, off, 0, 8); }, {"same memory"});
    ExpectHw("count_beyond_dst", [&] { Gather(dst, src, off, 0, 65); }, {"count 65", "UB buffer overrun"});
    ExpectHw("offset_unaligned_start", [&] { Gather(dst, src, off[1], 0, 8); },
             {"srcOffset starts", "32-byte aligned"});
    ExpectHw("dst_unaligned_start", [&] { Gather(dst[3], src, off, 0, 8); }, {"dst starts", "32-byte aligned"});
    ExpectHw("repeat_beyond_dst", [&] { Gather(dst, src, off, 0u, uint64_t(64), 2, 8); },
             {"Gather(mask, repeatTime)", "UB buffer overrun"});
}

}  // namespace

int main(int argc, char** argv)
{
    static const CheckSection kSections[] = {
        {"count", SectionCount}, {"repeat", SectionRepeat}, {"soc", SectionSoc}, {"misuse", SectionMisuse}};
    return RunSections(argc, argv, kSections);
}
