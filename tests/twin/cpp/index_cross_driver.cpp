// Driver of tests/twin/test_index_cross.py: runs the index library's Cross
// (templates/kernel/index_lib/op_kernel/opgen_index_cross.h) on the twin over all its cores, tiled
// by TileCross (op_host/opgen_index_cross_tiling.h).
//
//   index_cross_driver T DIM UB CORES X1RANK x1dims.. X2RANK x2dims.. X1FILE X2FILE YFILE
//
// T: float32 | float16 | int32 | int8. DIM: the dim as the attr gives it (-65530: unset, torch's
// None). x1 and x2 are raw bytes; y goes to YFILE. Prints "OK cores=N shape=d,d,..", "TILE
// <reason>" or "ERR <twin error>". The GM buffers are exactly the tensors, so any access outside
// them fails the launch.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "opgen_index_cross.h"
#include "opgen_index_cross_tiling.h"
#include "opgen_twin/launch_direct.h"

using namespace opgen_index;

namespace {

template <class T>
__aicore__ void RunCross(GM_ADDR x1, GM_ADDR x2, GM_ADDR y, GM_ADDR tiling)
{
    Cross<T>(x1, x2, y, *reinterpret_cast<const IndexTiling*>(tiling));
}

using KernelFn = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

struct TypeInfo {
    const char* name;
    uint32_t bytes;
    KernelFn run;
};

const TypeInfo kTypes[] = {
    {"float32", 4, RunCross<float>},
    {"float16", 2, RunCross<half>},
    {"int32", 4, RunCross<int32_t>},
    {"int8", 1, RunCross<int8_t>},
};

std::vector<uint8_t> ReadFile(const char* path)
{
    std::vector<uint8_t> data;
    FILE* f = std::fopen(path, "rb");
    if (f == nullptr) return data;
    uint8_t chunk[65536];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) data.insert(data.end(), chunk, chunk + n);
    std::fclose(f);
    return data;
}

Shape ReadShape(char** argv, int& at)
{
    Shape s{};
    s.rank = static_cast<uint32_t>(std::atoi(argv[at++]));
    for (uint32_t d = 0; d < s.rank; ++d) s.dims[d] = std::atoll(argv[at++]);
    return s;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 9) {
        std::printf("ERR usage\n");
        return 2;
    }
    int at = 1;
    const std::string tname = argv[at++];
    HostArgs a{};
    a.dim = std::atoll(argv[at++]);
    a.ubBytes = std::strtoull(argv[at++], nullptr, 10);
    a.coreNum = static_cast<uint32_t>(std::atoi(argv[at++]));
    a.x = ReadShape(argv, at);
    a.src = ReadShape(argv, at);
    const char* x1file = argv[at++];
    const char* x2file = argv[at++];
    const char* yfile = argv[at++];
    const TypeInfo* ti = nullptr;
    for (const TypeInfo& c : kTypes) ti = tname == c.name ? &c : ti;
    if (ti == nullptr) {
        std::printf("ERR unknown type %s\n", tname.c_str());
        return 2;
    }
    a.dtypeBytes = a.outBytes = ti->bytes;
    IndexTiling t{};
    Shape yShape{};
    const char* why = ShapeCross(a, yShape);
    if (why == nullptr) why = TileCross(a, t);
    if (why != nullptr) {
        std::printf("TILE %s\n", why);
        return 0;
    }
    uint64_t yElems = 1;
    for (uint32_t d = 0; d < yShape.rank; ++d) yElems *= static_cast<uint64_t>(yShape.dims[d]);
    std::vector<uint8_t> x1 = ReadFile(x1file), x2 = ReadFile(x2file);
    std::vector<uint8_t> y(yElems * ti->bytes, 0xA5);  // poisoned
    opgen_twin::DirectLaunch l;
    l.blockDim = t.usedCores;
    l.platform.ubSize = a.ubBytes;
    l.platform.aivCoreNum = a.coreNum;
    l.gm = {{x1.data(), x1.size(), "x1"}, {x2.data(), x2.size(), "x2"}, {y.data(), y.size(), "y"},
            {&t, sizeof(t), "tiling"}};
    const auto gm = [](void* p) { return reinterpret_cast<GM_ADDR>(p); };
    const std::string err = opgen_twin::LaunchDirect(l, ti->run, gm(x1.data()), gm(x2.data()), gm(y.data()), gm(&t));
    if (!err.empty()) {
        std::printf("ERR %s\n", err.c_str());
        return 0;
    }
    FILE* f = std::fopen(yfile, "wb");
    if (!y.empty()) std::fwrite(y.data(), 1, y.size(), f);
    std::fclose(f);
    std::printf("OK cores=%u\n", t.usedCores);
    return 0;
}
