// Runs opgen_index's pooling (templates/*/index_lib: TileAvgPool2d / TileMaxPool2d, then the
// AvgPool2d / MaxPool2d kernel on its cores through opgen_twin::LaunchDirect) for
// tests/twin/test_index_pool.py, which compares the output with torch:
//   index_pool_driver avg|max|avg_nhwc|max_nhwc f32|f16|bf16 cores ubBytes kH kW sH sW pH pW ceil cip x.bin y.bin
//   D0 D1 D2 [D3]
// (the _nhwc kinds: TileAvgPool2dNhwc / TileMaxPool2dNhwc and x, y [N, H, W, C]). ubBytes 0: the platform's. Prints "SHAPE OH OW" and writes y.bin, or "REFUSED <text>" (exit 3)
// or "ERROR <launch error>" (exit 1).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "opgen_index_pool.h"
#include "opgen_index_pool_tiling.h"
#include "opgen_twin/launch_direct.h"

#define POOL_ENTRY(name, kind, type)                                                                \
    extern "C" __global__ __aicore__ void name(GM_ADDR x, GM_ADDR y, GM_ADDR, GM_ADDR tiling)      \
    {                                                                                               \
        const opgen_index::IndexTiling t = *reinterpret_cast<__gm__ opgen_index::IndexTiling*>(tiling); \
        opgen_index::kind<type>(x, y, t);                                                           \
    }

POOL_ENTRY(avg_f32, AvgPool2d, float)
POOL_ENTRY(avg_f16, AvgPool2d, half)
POOL_ENTRY(avg_bf16, AvgPool2d, bfloat16_t)
POOL_ENTRY(max_f32, MaxPool2d, float)
POOL_ENTRY(max_f16, MaxPool2d, half)
POOL_ENTRY(max_bf16, MaxPool2d, bfloat16_t)
POOL_ENTRY(avg_nhwc_f32, AvgPool2dNhwc, float)
POOL_ENTRY(avg_nhwc_f16, AvgPool2dNhwc, half)
POOL_ENTRY(avg_nhwc_bf16, AvgPool2dNhwc, bfloat16_t)
POOL_ENTRY(max_nhwc_f32, MaxPool2dNhwc, float)
POOL_ENTRY(max_nhwc_f16, MaxPool2dNhwc, half)
POOL_ENTRY(max_nhwc_bf16, MaxPool2dNhwc, bfloat16_t)

using Entry = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

static Entry Pick(const std::string& kind, const std::string& dtype)
{
    const int d = dtype == "f32" ? 0 : dtype == "f16" ? 1 : 2;
    static const Entry entries[4][3] = {{avg_f32, avg_f16, avg_bf16},
                                        {max_f32, max_f16, max_bf16},
                                        {avg_nhwc_f32, avg_nhwc_f16, avg_nhwc_bf16},
                                        {max_nhwc_f32, max_nhwc_f16, max_nhwc_bf16}};
    const int k = kind == "avg" ? 0 : kind == "max" ? 1 : kind == "avg_nhwc" ? 2 : 3;
    return entries[k][d];
}

static const char* Tile(const std::string& kind, const opgen_index::HostArgs& a, opgen_index::IndexTiling& t)
{
    if (kind == "avg") return opgen_index::TileAvgPool2d(a, t);
    if (kind == "max") return opgen_index::TileMaxPool2d(a, t);
    if (kind == "avg_nhwc") return opgen_index::TileAvgPool2dNhwc(a, t);
    return opgen_index::TileMaxPool2dNhwc(a, t);
}

int main(int argc, char** argv)
{
    if (argc < 16 || argc > 15 + 8) {
        std::printf("usage: see the top of index_pool_driver.cpp\n");
        return 2;
    }
    const std::string kind = argv[1], dtype = argv[2];
    opgen_index::HostArgs a{};
    a.dtypeBytes = dtype == "f32" ? 4 : 2;
    a.coreNum = static_cast<uint32_t>(std::atoi(argv[3]));
    const uint64_t ub = std::strtoull(argv[4], nullptr, 10);
    a.ubBytes = ub != 0 ? ub : opgen_twin::DefaultPlatform().ubSize;
    for (int i = 0; i < 8; ++i) a.ints[i] = std::atoll(argv[5 + i]);
    a.x.rank = static_cast<uint32_t>(argc - 15);
    int64_t elems = 1;
    for (uint32_t d = 0; d < a.x.rank; ++d) elems *= a.x.dims[d] = std::atoll(argv[15 + d]);
    opgen_index::IndexTiling t{};
    const char* why = Tile(kind, a, t);
    if (why != nullptr) {
        std::printf("REFUSED %s\n", why);
        return 3;
    }
    std::ifstream in(argv[13], std::ios::binary);
    std::vector<uint8_t> x((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (x.size() != static_cast<size_t>(elems) * a.dtypeBytes) {
        std::printf("ERROR x.bin has %zu bytes\n", x.size());
        return 1;
    }
    const bool nhwc = kind.size() > 4;
    const uint64_t channels = nhwc ? static_cast<uint64_t>(t.outerDims[0]) : 1;
    std::vector<uint8_t> y(t.outer * t.count * static_cast<uint64_t>(t.ints[6]) * channels * a.dtypeBytes + 1);
    std::vector<uint8_t> ws(64);
    opgen_twin::DirectLaunch l;
    l.blockDim = t.usedCores;
    l.gm = {{x.data(), x.size(), "x"}, {y.data(), y.size() - 1, "y"}, {ws.data(), ws.size(), "workspace"},
            {&t, sizeof(t), "tiling"}};
    l.sysWorkspace = ws.data();
    if (ub != 0) l.platform.ubSize = ub;
    const std::string err = opgen_twin::LaunchDirect(l, Pick(kind, dtype), x.data(), y.data(), ws.data(),
                                                     reinterpret_cast<uint8_t*>(&t));
    if (!err.empty()) {
        std::printf("ERROR %s\n", err.c_str());
        return 1;
    }
    std::ofstream(argv[14], std::ios::binary).write(reinterpret_cast<const char*>(y.data()), y.size() - 1);
    std::printf("SHAPE %llu %lld cores %u lanes %u pixels %lld\n", static_cast<unsigned long long>(t.count),
                static_cast<long long>(t.ints[6]), t.usedCores, t.tileElems,
                static_cast<long long>(nhwc ? t.outerDims[1] : 0));
    return 0;
}
