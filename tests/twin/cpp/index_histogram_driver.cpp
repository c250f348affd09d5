// Runs opgen's Histc (templates/kernel/index_lib/op_kernel/opgen_index_histogram.h) on the twin:
// TileHistc with the twin's platform values, then the kernel on t.usedCores cores through
// LaunchDirect, with a workspace of the system's bytes and t.workspaceBytes. Used by
// tests/twin/test_index_histogram.py.
//
//   index_histogram_driver DTYPE BINS MIN MAX CORES NUMEL DIR
//
// DTYPE: float32 float16 int32 (y has x's dtype). DIR holds x.bin raw, little endian; the driver
// writes y.bin. Prints "TILE <units> <usedCores> <tileElems>" then "OK", or "REFUSED <text>", or
// "ERROR <text>".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "opgen_index_histogram.h"
#include "opgen_index_histogram_tiling.h"
#include "opgen_twin/launch_direct.h"

namespace {

using opgen_index::IndexTiling;

std::vector<uint8_t> ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

template <typename T>
void HistcEntry(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    opgen_index::Histc<T, T>(x, y, workspace, *reinterpret_cast<const IndexTiling*>(tiling));
}

using Fn = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

Fn Pick(const std::string& dtype)
{
    if (dtype == "float32") return HistcEntry<float>;
    if (dtype == "float16") return HistcEntry<half>;
    if (dtype == "int32") return HistcEntry<int32_t>;
    return nullptr;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 8) {
        std::puts("ERROR usage: DTYPE BINS MIN MAX CORES NUMEL DIR");
        return 2;
    }
    const std::string dtype = argv[1], dir = argv[7];
    opgen_index::HostArgs a{};
    a.ints[0] = std::atoll(argv[2]);
    a.floats[0] = std::strtof(argv[3], nullptr);
    a.floats[1] = std::strtof(argv[4], nullptr);
    a.coreNum = static_cast<uint32_t>(std::atoi(argv[5]));
    a.x.rank = 1;
    a.x.dims[0] = std::atoll(argv[6]);
    a.dtypeBytes = dtype == "float16" ? 2 : 4;
    a.outBytes = a.dtypeBytes;
    const opgen_twin::PlatformConfig platform = opgen_twin::DefaultPlatform();
    a.ubBytes = platform.ubSize;
    IndexTiling t{};
    if (const char* err = opgen_index::TileHistc(a, t)) {
        std::printf("REFUSED %s\n", err);
        return 0;
    }
    std::printf("TILE %llu %u %u\n", static_cast<unsigned long long>(t.units), t.usedCores, t.tileElems);
    std::vector<uint8_t> x = ReadFile(dir + "/x.bin");
    std::vector<uint8_t> y(static_cast<size_t>(t.count) * a.outBytes, 0xAB);  // garbage: every bin is written
    std::vector<uint8_t> ws(platform.libApiWorkspace + t.workspaceBytes, 0xCD);
    std::vector<uint8_t> tiling(sizeof(IndexTiling));
    std::memcpy(tiling.data(), &t, sizeof(t));
    if (x.empty()) x.resize(32, 0);  // a 0-element x still needs a buffer to point at
    opgen_twin::DirectLaunch l;
    l.blockDim = t.usedCores;
    l.gm = {{x.data(), x.size(), "x"}, {y.data(), y.size(), "y"}, {ws.data(), ws.size(), "workspace"},
            {tiling.data(), tiling.size(), "tiling"}};
    l.sysWorkspace = ws.data();
    const Fn fn = Pick(dtype);
    if (fn == nullptr) {
        std::printf("ERROR no instantiation for %s\n", dtype.c_str());
        return 2;
    }
    const std::string err = opgen_twin::LaunchDirect(l, fn, x.data(), y.data(), ws.data(), tiling.data());
    if (!err.empty()) {
        std::printf("ERROR %s\n", err.c_str());
        return 1;
    }
    std::ofstream(dir + "/y.bin", std::ios::binary).write(reinterpret_cast<const char*>(y.data()), y.size());
    std::puts("OK");
    return 0;
}
