// Driver of tests/twin/test_index_gather.py: runs one kind of the index library's gather group
// (templates/kernel/index_lib/op_kernel/opgen_index_gather.h) on the twin over all its cores,
// tiled by its host function (op_host/opgen_index_gather_tiling.h).
//
//   index_gather_driver KIND T I DIM INT0 UB CORES XRANK xdims.. IRANK idims.. XFILE IFILE YFILE
//
// KIND: index_select | gather | roll | one_hot. T: the data type (one_hot: the output type),
// I: the index type (int32/int64; roll: ignored). x and the index are raw bytes in XFILE / IFILE
// ("-" for none); the output goes to YFILE. Prints "OK", "TILE <reason>" or "ERR <twin error>".
// The GM buffers are exactly the tensors, so any access outside them fails the launch.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "opgen_index_gather.h"
#include "opgen_index_gather_tiling.h"
#include "opgen_twin/launch_direct.h"

using namespace opgen_index;

namespace {

template <class T, class I>
__aicore__ void RunIndexSelect(GM_ADDR x, GM_ADDR i, GM_ADDR y, GM_ADDR tiling)
{
    IndexSelect<T, I>(x, i, y, *reinterpret_cast<const IndexTiling*>(tiling));
}
template <class T, class I>
__aicore__ void RunGather(GM_ADDR x, GM_ADDR i, GM_ADDR y, GM_ADDR tiling)
{
    Gather<T, I>(x, i, y, *reinterpret_cast<const IndexTiling*>(tiling));
}
template <class T, class I>
__aicore__ void RunRoll(GM_ADDR x, GM_ADDR, GM_ADDR y, GM_ADDR tiling)
{
    Roll<T>(x, y, *reinterpret_cast<const IndexTiling*>(tiling));
}
template <class T, class I>
__aicore__ void RunOneHot(GM_ADDR x, GM_ADDR, GM_ADDR y, GM_ADDR tiling)
{
    OneHot<I, T>(x, y, *reinterpret_cast<const IndexTiling*>(tiling));
}

using KernelFn = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

template <class T, class I>
KernelFn Pick(const std::string& kind)
{
    if (kind == "index_select") return RunIndexSelect<T, I>;
    if (kind == "gather") return RunGather<T, I>;
    if (kind == "roll") return RunRoll<T, I>;
    if (kind == "one_hot") return RunOneHot<T, I>;
    return nullptr;
}

template <class T>
KernelFn PickIdx(const std::string& kind, const std::string& idx)
{
    return idx == "int64" ? Pick<T, int64_t>(kind) : Pick<T, int32_t>(kind);
}

struct TypeInfo {
    const char* name;
    uint32_t bytes;
    KernelFn (*pick)(const std::string&, const std::string&);
};

const TypeInfo kTypes[] = {
    {"float32", 4, PickIdx<float>},  {"float16", 2, PickIdx<half>},   {"bfloat16", 2, PickIdx<bfloat16_t>},
    {"int8", 1, PickIdx<int8_t>},    {"uint8", 1, PickIdx<uint8_t>},  {"int16", 2, PickIdx<int16_t>},
    {"int32", 4, PickIdx<int32_t>},  {"int64", 8, PickIdx<int64_t>},
};

std::vector<uint8_t> ReadFile(const char* path)
{
    std::vector<uint8_t> data;
    if (std::strcmp(path, "-") == 0) return data;
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

uint64_t Numel(const Shape& s)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < s.rank; ++d) n *= static_cast<uint64_t>(s.dims[d]);
    return n;
}

// The output's element count, by kind.
uint64_t OutElems(const std::string& kind, const HostArgs& a, const IndexTiling& t)
{
    if (kind == "index_select") return t.outer * t.count * t.inner;
    if (kind == "gather") return Numel(a.index);
    if (kind == "roll") return Numel(a.x);
    return Numel(a.x) * t.count;
}

const char* Tile(const std::string& kind, const HostArgs& a, IndexTiling& t)
{
    if (kind == "index_select") return TileIndexSelect(a, t);
    if (kind == "gather") return TileGather(a, t);
    if (kind == "roll") return TileRoll(a, t);
    return TileOneHot(a, t);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 12) {
        std::printf("ERR usage\n");
        return 2;
    }
    int at = 1;
    const std::string kind = argv[at++], tname = argv[at++], iname = argv[at++];
    HostArgs a{};
    a.dim = std::atoll(argv[at++]);
    a.ints[0] = std::atoll(argv[at++]);
    a.ubBytes = std::strtoull(argv[at++], nullptr, 10);
    a.coreNum = static_cast<uint32_t>(std::atoi(argv[at++]));
    a.x = ReadShape(argv, at);
    a.index = ReadShape(argv, at);
    const char* xfile = argv[at++];
    const char* ifile = argv[at++];
    const char* yfile = argv[at++];
    if (at < argc) {  // roll's lists: shiftCount shifts... dimCount dims...
        a.shiftCount = static_cast<uint32_t>(std::atoi(argv[at++]));
        for (uint32_t i = 0; i < a.shiftCount && i < MAX_INTS; ++i) a.ints[i] = std::atoll(argv[at++]);
        a.dimCount = static_cast<uint32_t>(std::atoi(argv[at++]));
        for (uint32_t i = 0; i < a.dimCount && i < MAX_INTS; ++i) a.rollDims[i] = std::atoll(argv[at++]);
    } else if (kind == "roll") {  // roll(x, int0, dim)
        a.shiftCount = a.dimCount = 1;
        a.rollDims[0] = a.dim;
    }
    const TypeInfo* ti = nullptr;
    for (const TypeInfo& c : kTypes) ti = tname == c.name ? &c : ti;
    if (ti == nullptr) {
        std::printf("ERR unknown type %s\n", tname.c_str());
        return 2;
    }
    const uint32_t idxBytes = iname == "int64" ? 8 : 4;
    const bool oneHot = kind == "one_hot";
    a.dtypeBytes = oneHot ? idxBytes : ti->bytes;
    a.indexBytes = kind == "roll" || oneHot ? 0 : idxBytes;
    a.outBytes = oneHot ? ti->bytes : 0;
    IndexTiling t{};
    if (const char* why = Tile(kind, a, t)) {
        std::printf("TILE %s\n", why);
        return 0;
    }
    std::vector<uint8_t> x = ReadFile(xfile), idx = ReadFile(ifile);
    std::vector<uint8_t> y(OutElems(kind, a, t) * ti->bytes, 0xA5);  // poisoned
    opgen_twin::DirectLaunch l;
    l.blockDim = t.usedCores;
    l.platform.ubSize = a.ubBytes;
    l.platform.aivCoreNum = a.coreNum;
    l.gm = {{x.data(), x.size(), "x"}, {y.data(), y.size(), "y"}, {&t, sizeof(t), "tiling"}};
    if (!idx.empty()) l.gm.push_back({idx.data(), idx.size(), "index"});
    const auto gm = [](void* p) { return reinterpret_cast<GM_ADDR>(p); };
    const std::string err =
        opgen_twin::LaunchDirect(l, ti->pick(kind, iname), gm(x.data()), gm(idx.data()), gm(y.data()), gm(&t));
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
