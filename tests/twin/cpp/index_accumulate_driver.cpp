// Runs one kind of opgen's accumulating index ops (templates/kernel/index_lib/op_kernel/
// opgen_index_accumulate.h, and opgen_index_reduce.h's IndexReduce) on the twin: Tile<Kind> with
// the twin's platform values, then the kernel on t.usedCores cores through LaunchDirect. Used by
// tests/twin/test_index_accumulate.py and test_index_reduce.py.
//
//   index_accumulate_driver KIND DTYPE IDX_DTYPE DIM CORES XSHAPE INDEXSHAPE SRCSHAPE DIR [UB [INTS]]
//
// KIND: index_add | scatter_add | cumsum | index_reduce. DTYPE: float32 float16 bfloat16 int32
// int16 int8 uint8 (and int64 for cumsum). INTS: HostArgs ints[], comma-separated (index_add: alpha
// and a float alpha's float32 bits, default 1,0; index_reduce: 0 amax / 1 amin, include_self).
// UB 0: the twin's. IDX_DTYPE: int32 | int64 (ignored by cumsum). Shapes: comma-separated
// sizes, "s" for a 0-d tensor, "-" for none. DIR holds x.bin (index.bin, src.bin) raw, little
// endian; the driver writes y.bin. UB: an optional UB size for the Tile function (bytes).
// Prints "TILE <units> <usedCores> <tileElems>" then "OK", or "REFUSED <text>", or "ERROR <text>".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "opgen_index_accumulate.h"
#include "opgen_index_accumulate_tiling.h"
#include "opgen_index_reduce.h"
#include "opgen_index_reduce_tiling.h"
#include "opgen_twin/launch_direct.h"

namespace {

using opgen_index::IndexTiling;

std::vector<uint8_t> ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

opgen_index::Shape ParseShape(const std::string& text)
{
    opgen_index::Shape s{};
    if (text == "-" || text == "s") return s;
    size_t at = 0;
    while (at <= text.size() && s.rank < opgen_index::MAX_RANK) {
        const size_t comma = text.find(',', at);
        s.dims[s.rank++] = std::atoll(text.substr(at, comma - at).c_str());
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return s;
}

void ParseInts(const std::string& text, int64_t* ints)
{
    size_t at = 0;
    for (uint32_t i = 0; i < opgen_index::MAX_INTS && at <= text.size(); ++i) {
        const size_t comma = text.find(',', at);
        ints[i] = std::atoll(text.substr(at, comma - at).c_str());
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
}

uint32_t DtypeBytes(const std::string& d)
{
    if (d == "float32" || d == "int32") return 4;
    if (d == "float16" || d == "bfloat16" || d == "int16") return 2;
    if (d == "int64") return 8;
    return 1;
}

struct Job {
    std::string kind;
    std::vector<uint8_t> x, index, src, y, tiling;
};

template <typename T, typename TIdx>
void IndexAddEntry(GM_ADDR x, GM_ADDR index, GM_ADDR src, GM_ADDR y, GM_ADDR tiling)
{
    opgen_index::IndexAdd<T, TIdx>(x, index, src, y, *reinterpret_cast<const IndexTiling*>(tiling));
}

template <typename T, typename TIdx>
void IndexReduceEntry(GM_ADDR x, GM_ADDR index, GM_ADDR src, GM_ADDR y, GM_ADDR tiling)
{
    opgen_index::IndexReduce<T, TIdx>(x, index, src, y, *reinterpret_cast<const IndexTiling*>(tiling));
}

template <typename T, typename TIdx>
void ScatterAddEntry(GM_ADDR x, GM_ADDR index, GM_ADDR src, GM_ADDR y, GM_ADDR tiling)
{
    opgen_index::ScatterAdd<T, TIdx>(x, index, src, y, *reinterpret_cast<const IndexTiling*>(tiling));
}

template <typename T, typename TOut>
void CumSumEntry(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
    opgen_index::CumSum<T, TOut>(x, y, *reinterpret_cast<const IndexTiling*>(tiling));
}

GM_ADDR G(std::vector<uint8_t>& v) { return v.empty() ? nullptr : reinterpret_cast<GM_ADDR>(v.data()); }

std::string Launch(Job& j, uint32_t cores, void (*fn4)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR),
                   void (*fn2)(GM_ADDR, GM_ADDR, GM_ADDR))
{
    opgen_twin::DirectLaunch l;
    l.blockDim = cores;
    l.gm = {{j.x.data(), j.x.size(), "x"}, {j.y.data(), j.y.size(), "y"}, {j.tiling.data(), j.tiling.size(), "tiling"}};
    if (!j.index.empty()) l.gm.push_back({j.index.data(), j.index.size(), "index"});
    if (!j.src.empty()) l.gm.push_back({j.src.data(), j.src.size(), "src"});
    if (fn4 != nullptr) return opgen_twin::LaunchDirect(l, fn4, G(j.x), G(j.index), G(j.src), G(j.y), G(j.tiling));
    return opgen_twin::LaunchDirect(l, fn2, G(j.x), G(j.y), G(j.tiling));
}

using Fn4 = void (*)(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

template <typename T>
Fn4 PickAcc(const std::string& kind, const std::string& idx)
{
    const bool i64 = idx == "int64";
    if (kind == "index_add") return i64 ? IndexAddEntry<T, int64_t> : IndexAddEntry<T, int32_t>;
    if (kind == "index_reduce") return i64 ? IndexReduceEntry<T, int64_t> : IndexReduceEntry<T, int32_t>;
    return i64 ? ScatterAddEntry<T, int64_t> : ScatterAddEntry<T, int32_t>;
}

Fn4 PickAccumulate(const std::string& kind, const std::string& dtype, const std::string& idx)
{
    if (dtype == "float32") return PickAcc<float>(kind, idx);
    if (dtype == "float16") return PickAcc<half>(kind, idx);
    if (dtype == "bfloat16") return PickAcc<bfloat16_t>(kind, idx);
    if (dtype == "int32") return PickAcc<int32_t>(kind, idx);
    if (dtype == "int16") return PickAcc<int16_t>(kind, idx);
    if (dtype == "int8") return PickAcc<int8_t>(kind, idx);
    if (dtype == "uint8") return PickAcc<uint8_t>(kind, idx);
    return nullptr;
}

using Fn2 = void (*)(GM_ADDR, GM_ADDR, GM_ADDR);

Fn2 PickCumSum(const std::string& dtype)
{
    if (dtype == "float32") return CumSumEntry<float, float>;
    if (dtype == "float16") return CumSumEntry<half, half>;
    if (dtype == "bfloat16") return CumSumEntry<bfloat16_t, bfloat16_t>;
    if (dtype == "int32") return CumSumEntry<int32_t, int64_t>;
    if (dtype == "int16") return CumSumEntry<int16_t, int64_t>;
    if (dtype == "int8") return CumSumEntry<int8_t, int64_t>;
    if (dtype == "uint8") return CumSumEntry<uint8_t, int64_t>;
    if (dtype == "int64") return CumSumEntry<int64_t, int64_t>;
    return nullptr;
}

const char* Tile(const std::string& kind, const opgen_index::HostArgs& a, IndexTiling& t)
{
    if (kind == "index_add") return opgen_index::TileIndexAdd(a, t);
    if (kind == "scatter_add") return opgen_index::TileScatterAdd(a, t);
    if (kind == "index_reduce") return opgen_index::TileIndexReduce(a, t);
    return opgen_index::TileCumSum(a, t);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 10) {
        std::puts("ERROR usage: KIND DTYPE IDX_DTYPE DIM CORES XSHAPE INDEXSHAPE SRCSHAPE DIR [UB]");
        return 2;
    }
    Job j;
    j.kind = argv[1];
    const std::string dtype = argv[2], idx = argv[3], dir = argv[9];
    opgen_index::HostArgs a{};
    a.dim = std::atoll(argv[4]);
    a.coreNum = static_cast<uint32_t>(std::atoi(argv[5]));
    a.x = ParseShape(argv[6]);
    a.index = ParseShape(argv[7]);
    a.src = ParseShape(argv[8]);
    a.dtypeBytes = DtypeBytes(dtype);
    a.indexBytes = j.kind == "cumsum" ? 0 : DtypeBytes(idx);
    const bool intCumSum = j.kind == "cumsum" && dtype != "float32" && dtype != "float16" && dtype != "bfloat16";
    a.outBytes = intCumSum ? 8 : a.dtypeBytes;
    a.ubBytes = argc > 10 ? std::strtoull(argv[10], nullptr, 10) : 0;
    if (a.ubBytes == 0) a.ubBytes = opgen_twin::DefaultPlatform().ubSize;
    a.ints[0] = 1;  // index_add's alpha when not given
    if (argc > 11) ParseInts(argv[11], a.ints);
    IndexTiling t{};
    if (const char* err = Tile(j.kind, a, t)) {
        std::printf("REFUSED %s\n", err);
        return 0;
    }
    std::printf("TILE %llu %u %u\n", static_cast<unsigned long long>(t.units), t.usedCores, t.tileElems);
    j.x = ReadFile(dir + "/x.bin");
    if (j.kind != "cumsum") {
        j.index = ReadFile(dir + "/index.bin");
        j.src = ReadFile(dir + "/src.bin");
    }
    const size_t elems = j.x.size() / a.dtypeBytes;
    j.y.assign(elems * a.outBytes, 0xAB);  // garbage: every element must be written
    j.tiling.resize(sizeof(IndexTiling));
    std::memcpy(j.tiling.data(), &t, sizeof(t));
    if (elems == 0) {
        std::puts("OK");
        return 0;
    }
    const Fn4 fn4 = j.kind == "cumsum" ? nullptr : PickAccumulate(j.kind, dtype, idx);
    const Fn2 fn2 = j.kind == "cumsum" ? PickCumSum(dtype) : nullptr;
    if (fn4 == nullptr && fn2 == nullptr) {
        std::printf("ERROR no instantiation for %s %s\n", j.kind.c_str(), dtype.c_str());
        return 2;
    }
    const std::string err = Launch(j, t.usedCores, fn4, fn2);
    if (!err.empty()) {
        std::printf("ERROR %s\n", err.c_str());
        return 1;
    }
    std::ofstream(dir + "/y.bin", std::ios::binary).write(reinterpret_cast<const char*>(j.y.data()), j.y.size());
    std::puts("OK");
    return 0;
}
