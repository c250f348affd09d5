// Runs opgen's index "loss" group (templates/*/index_lib: NllLoss) on the twin: TileNllLoss with
// the given cores, then the kernel on t.usedCores cores through LaunchDirect. Used by
// tests/twin/test_index_loss.py:
//   index_loss_driver IDXBYTES CORES XDIMS TDIMS WDIMS IGNORE REDUCTION DIR
// IDXBYTES 4 (int32 target) or 8 (int64); DIMS comma-separated, "s" for 0-d; REDUCTION a text
// (none|mean|sum, anything else is refused as the host refuses it). DIR holds x.bin, target.bin,
// weight.bin raw; the driver writes y.bin. Prints "OK cores <n> units <n>", "REFUSED <text>"
// (exit 3) or "ERROR <text>" (exit 4).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "opgen_index_loss.h"
#include "opgen_index_loss_tiling.h"
#include "opgen_twin/launch_direct.h"

namespace {

using opgen_index::IndexTiling;

std::vector<uint8_t> ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

opgen_index::Shape ParseShape(const std::string& text)
{
    opgen_index::Shape s{};
    if (text == "s") return s;
    for (size_t at = 0; at != std::string::npos;) {
        const size_t comma = text.find(',', at);
        s.dims[s.rank++] = std::atoll(text.substr(at, comma == std::string::npos ? comma : comma - at).c_str());
        at = comma == std::string::npos ? comma : comma + 1;
    }
    return s;
}

uint64_t Elements(const opgen_index::Shape& s)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s.rank; ++i) n *= static_cast<uint64_t>(s.dims[i]);
    return n;
}

GM_ADDR G(std::vector<uint8_t>& v) { return reinterpret_cast<GM_ADDR>(v.data()); }

template <class TIdx>
void Kernel(GM_ADDR x, GM_ADDR target, GM_ADDR weight, GM_ADDR y, GM_ADDR t)
{
    opgen_index::NllLoss<float, TIdx>(x, target, weight, y, *reinterpret_cast<const IndexTiling*>(t));
}

struct Buffers {
    std::vector<uint8_t> x, target, weight, y, tiling, ws;
};

std::string Launch(Buffers& b, const IndexTiling& t, uint32_t indexBytes)
{
    b.ws.assign(64, 0);
    opgen_twin::DirectLaunch l;
    l.blockDim = t.usedCores;
    l.gm = {{b.x.data(), b.x.size(), "x"},           {b.target.data(), b.target.size(), "target"},
            {b.weight.data(), b.weight.size(), "weight"}, {b.y.data(), b.y.size(), "y"},
            {b.ws.data(), b.ws.size(), "workspace"},    {b.tiling.data(), b.tiling.size(), "tiling"}};
    l.sysWorkspace = b.ws.data();
    if (indexBytes == 8) return opgen_twin::LaunchDirect(l, &Kernel<int64_t>, G(b.x), G(b.target), G(b.weight), G(b.y), G(b.tiling));
    return opgen_twin::LaunchDirect(l, &Kernel<int32_t>, G(b.x), G(b.target), G(b.weight), G(b.y), G(b.tiling));
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 9) {
        std::puts("usage: index_loss_driver IDXBYTES CORES XDIMS TDIMS WDIMS IGNORE REDUCTION DIR");
        return 2;
    }
    opgen_index::HostArgs a{};
    a.indexBytes = static_cast<uint32_t>(std::atoi(argv[1]));
    a.coreNum = static_cast<uint32_t>(std::atoi(argv[2]));
    a.x = ParseShape(argv[3]);
    a.index = ParseShape(argv[4]);
    a.src = ParseShape(argv[5]);
    a.ints[0] = std::atoll(argv[6]);
    a.ints[1] = opgen_index::ReductionCode(argv[7]);
    a.dtypeBytes = 4;
    a.outBytes = 4;
    a.ubBytes = opgen_twin::DefaultPlatform().ubSize;
    IndexTiling t{};
    const char* why = opgen_index::TileNllLoss(a, t);
    if (why != nullptr) {
        std::printf("REFUSED %s\n", why);
        return 3;
    }
    opgen_index::Shape yShape{};
    opgen_index::ShapeNllLoss(a, yShape);
    const std::string dir = argv[8];
    Buffers b;
    b.x = ReadFile(dir + "/x.bin");
    b.target = ReadFile(dir + "/target.bin");
    b.weight = ReadFile(dir + "/weight.bin");
    if (b.x.size() != Elements(a.x) * 4 || b.target.size() != Elements(a.index) * a.indexBytes) {
        std::puts("ERROR the files do not hold the shapes");
        return 4;
    }
    b.y.assign(Elements(yShape) * 4, 0xEE);
    b.tiling.assign(sizeof(IndexTiling), 0);
    std::memcpy(b.tiling.data(), &t, sizeof(t));
    const std::string err = Launch(b, t, a.indexBytes);
    if (!err.empty()) {
        std::printf("ERROR %s\n", err.c_str());
        return 4;
    }
    WriteFile(dir + "/y.bin", b.y);
    std::printf("OK cores %u units %llu\n", t.usedCores, static_cast<unsigned long long>(t.units));
    return 0;
}
