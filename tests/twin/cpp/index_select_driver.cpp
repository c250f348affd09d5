// Runs one kind of opgen's index "select" group (templates/*/index_lib: ArgMax, ArgMin, MaxDim,
// MinDim, TopK, Sort) on the twin: Tile<Kind> with the twin's platform values, then the kernel on its cores
// through LaunchDirect. Used by tests/twin/test_index_select.py:
//   index_select_driver KIND DTYPE OUTBYTES CORES DIMS DIM INT0 INT1 IN OUT [UB]
// KIND argmax|argmin|max|min|topk|sort|softmax_topk|softmax_sort (the last two with the softmax
// row prologue, RowPrologue::kSoftmax), DTYPE float|half|bfloat16|int8|uint8|int16|int32, DIMS
// comma-separated, IN the raw x, OUT a prefix: OUT.values (max/min/topk/sort) and OUT.indices are
// written raw. INT0/INT1: HostArgs ints (topk: k, largest; sort: descending). A negative INT1 for
// max/min/topk: no values output (nullptr); a negative INT0 for max/min: no indices. Prints
// "REFUSED <text>" (exit 3) or "ERROR <text>" (exit 4). Built with
// -DINDEX_SELECT_SORT_ONLY (a SoC without the argmax APIs) it has no argmax/argmin.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "opgen_index_select.h"
#include "opgen_index_select_tiling.h"
#include "opgen_twin/launch_direct.h"

namespace {

using opgen_index::IndexTiling;

template <class T, class TOut>
struct Kernels {
#if !defined(INDEX_SELECT_SORT_ONLY)
    static void ArgMax(GM_ADDR x, GM_ADDR y, GM_ADDR t)
    {
        opgen_index::ArgMax<T, TOut>(x, y, *reinterpret_cast<const IndexTiling*>(t));
    }
    static void ArgMin(GM_ADDR x, GM_ADDR y, GM_ADDR t)
    {
        opgen_index::ArgMin<T, TOut>(x, y, *reinterpret_cast<const IndexTiling*>(t));
    }
    static void MaxDim(GM_ADDR x, GM_ADDR v, GM_ADDR i, GM_ADDR t)
    {
        opgen_index::MaxDim<T, TOut>(x, v, i, *reinterpret_cast<const IndexTiling*>(t));
    }
    static void MinDim(GM_ADDR x, GM_ADDR v, GM_ADDR i, GM_ADDR t)
    {
        opgen_index::MinDim<T, TOut>(x, v, i, *reinterpret_cast<const IndexTiling*>(t));
    }
#endif
    static void TopK(GM_ADDR x, GM_ADDR v, GM_ADDR i, GM_ADDR t)
    {
        opgen_index::TopK<T, TOut>(x, v, i, *reinterpret_cast<const IndexTiling*>(t));
    }
    static void Sort(GM_ADDR x, GM_ADDR v, GM_ADDR i, GM_ADDR t)
    {
        opgen_index::Sort<T, TOut>(x, v, i, *reinterpret_cast<const IndexTiling*>(t));
    }
    static void SoftmaxTopK(GM_ADDR x, GM_ADDR v, GM_ADDR i, GM_ADDR t)
    {
        constexpr auto kSoftmax = opgen_index::RowPrologue::kSoftmax;
        opgen_index::TopK<T, TOut, kSoftmax>(x, v, i, *reinterpret_cast<const IndexTiling*>(t));
    }
    static void SoftmaxSort(GM_ADDR x, GM_ADDR v, GM_ADDR i, GM_ADDR t)
    {
        constexpr auto kSoftmax = opgen_index::RowPrologue::kSoftmax;
        opgen_index::Sort<T, TOut, kSoftmax>(x, v, i, *reinterpret_cast<const IndexTiling*>(t));
    }
};

std::vector<uint8_t> ReadFile(const char* path)
{
    std::vector<uint8_t> bytes;
    FILE* f = std::fopen(path, "rb");
    if (f == nullptr) return bytes;
    uint8_t buf[65536];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) bytes.insert(bytes.end(), buf, buf + n);
    std::fclose(f);
    return bytes;
}

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
}

GM_ADDR G(std::vector<uint8_t>& v) { return v.empty() ? nullptr : reinterpret_cast<GM_ADDR>(v.data()); }

struct Run {
    std::string kind;
    opgen_index::HostArgs args{};
    std::vector<uint8_t> x, values, indices, tiling;
    uint64_t outElems = 0;
    bool withValues = true;
    bool withIndices = true;
};

opgen_twin::DirectLaunch Buffers(Run& r, const IndexTiling& t, std::vector<uint8_t>& ws)
{
    opgen_twin::DirectLaunch l;
    l.blockDim = t.usedCores;
    l.gm = {{r.x.data(), r.x.size(), "x"}, {ws.data(), ws.size(), "workspace"}, {r.tiling.data(), r.tiling.size(), "tiling"}};
    if (!r.values.empty()) l.gm.push_back({r.values.data(), r.values.size(), "values"});
    if (!r.indices.empty()) l.gm.push_back({r.indices.data(), r.indices.size(), "indices"});
    l.sysWorkspace = ws.data();
    return l;
}

template <class T, class TOut>
std::string Launch(Run& r, const IndexTiling& t)
{
    std::vector<uint8_t> ws(64);
    const opgen_twin::DirectLaunch l = Buffers(r, t, ws);
#if !defined(INDEX_SELECT_SORT_ONLY)
    if (r.kind == "argmax") return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::ArgMax, G(r.x), G(r.indices), G(r.tiling));
    if (r.kind == "argmin") return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::ArgMin, G(r.x), G(r.indices), G(r.tiling));
    if (r.kind == "max") {
        return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::MaxDim, G(r.x), G(r.values), G(r.indices), G(r.tiling));
    }
    if (r.kind == "min") {
        return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::MinDim, G(r.x), G(r.values), G(r.indices), G(r.tiling));
    }
#endif
    if constexpr (!std::is_same<T, int32_t>::value) {  // TopK/Sort take no int32 x
        if (r.kind == "topk") {
            return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::TopK, G(r.x), G(r.values), G(r.indices), G(r.tiling));
        }
        if (r.kind == "sort") {
            return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::Sort, G(r.x), G(r.values), G(r.indices), G(r.tiling));
        }
    }
#if !defined(INDEX_SELECT_SORT_ONLY)
    if constexpr (std::is_same<T, float>::value || std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value) {
        if (r.kind == "softmax_topk") {
            return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::SoftmaxTopK, G(r.x), G(r.values), G(r.indices),
                                            G(r.tiling));
        }
        if (r.kind == "softmax_sort") {
            return opgen_twin::LaunchDirect(l, &Kernels<T, TOut>::SoftmaxSort, G(r.x), G(r.values), G(r.indices),
                                            G(r.tiling));
        }
    }
#endif
    return "this build has no " + r.kind + " of this dtype";
}

const char* Tile(Run& r, IndexTiling& t)
{
    if (r.kind == "argmax") return opgen_index::TileArgMax(r.args, t);
    if (r.kind == "argmin") return opgen_index::TileArgMin(r.args, t);
    if (r.kind == "max") return opgen_index::TileMaxDim(r.args, t);
    if (r.kind == "min") return opgen_index::TileMinDim(r.args, t);
    if (r.kind == "topk" || r.kind == "softmax_topk") return opgen_index::TileTopK(r.args, t);
    if (r.kind == "sort" || r.kind == "softmax_sort") return opgen_index::TileSort(r.args, t);
    return "unknown kind";
}

template <class T>
std::string LaunchOut(Run& r, const IndexTiling& t)
{
    return r.args.outBytes == 8 ? Launch<T, int64_t>(r, t) : Launch<T, int32_t>(r, t);
}

}  // namespace

namespace {

// The command line into r; returns x's element count.
uint64_t Parse(char** argv, int argc, Run& r, std::string& dtype)
{
    r.kind = argv[1];
    dtype = argv[2];
    r.args.dtypeBytes = dtype == "float" || dtype == "int32" ? 4 : dtype == "half" || dtype == "bfloat16" || dtype == "int16" ? 2 : 1;
    r.args.outBytes = static_cast<uint32_t>(std::atoi(argv[3]));
    r.args.coreNum = static_cast<uint32_t>(std::atoi(argv[4]));
    const std::string dims = argv[5];
    uint64_t total = 1;
    for (size_t at = 0; !dims.empty() && at != std::string::npos;) {
        const size_t comma = dims.find(',', at);
        const int64_t d = std::atoll(dims.substr(at, comma == std::string::npos ? comma : comma - at).c_str());
        r.args.x.dims[r.args.x.rank++] = d;
        total *= static_cast<uint64_t>(d);
        at = comma == std::string::npos ? comma : comma + 1;
    }
    r.args.dim = std::atoll(argv[6]);
    r.args.ints[0] = std::atoll(argv[7]);
    r.args.ints[1] = std::atoll(argv[8]);
    r.args.ubBytes = argc > 11 ? std::strtoull(argv[11], nullptr, 10) : opgen_twin::DefaultPlatform().ubSize;
    const bool hasValuesFlag = r.kind == "topk" || r.kind == "softmax_topk" || r.kind == "max" || r.kind == "min";
    if (hasValuesFlag && r.args.ints[1] < 0) {
        r.withValues = false;
        r.args.ints[1] = 1;
    }
    if ((r.kind == "max" || r.kind == "min") && r.args.ints[0] < 0) r.withIndices = false;
    return total;
}

// Runs the kernel on the outputs sized for t; "" or the error.
std::string Execute(Run& r, const IndexTiling& t, const std::string& dtype)
{
    const bool arg = r.kind == "argmax" || r.kind == "argmin";
    const bool one = arg || r.kind == "max" || r.kind == "min";  // one result per row
    const uint64_t outElems = t.outer * t.inner * (one ? 1 : t.count);
    if (!arg && r.withValues) r.values.assign(outElems * r.args.dtypeBytes, 0xEE);
    if (r.withIndices) r.indices.assign(outElems * r.args.outBytes, 0xEE);
    r.tiling.assign(sizeof(IndexTiling), 0);
    std::memcpy(r.tiling.data(), &t, sizeof(t));
    if (t.usedCores == 0) return "";
    if (dtype == "float") return LaunchOut<float>(r, t);
    if (dtype == "half") return LaunchOut<half>(r, t);
    if (dtype == "bfloat16") return LaunchOut<bfloat16_t>(r, t);
#if !defined(INDEX_SELECT_SORT_ONLY)
    if (dtype == "int8") return LaunchOut<int8_t>(r, t);
    if (dtype == "uint8") return LaunchOut<uint8_t>(r, t);
    if (dtype == "int16") return LaunchOut<int16_t>(r, t);
    if (dtype == "int32") return LaunchOut<int32_t>(r, t);
#endif
    return "unknown dtype " + dtype;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 11) {
        std::puts("usage: index_select_driver KIND DTYPE OUTBYTES CORES DIMS DIM INT0 INT1 IN OUT [UB]");
        return 2;
    }
    Run r;
    std::string dtype;
    const uint64_t total = Parse(argv, argc, r, dtype);
    IndexTiling t{};
    const char* why = Tile(r, t);
    if (why != nullptr) {
        std::printf("REFUSED %s\n", why);
        return 3;
    }
    r.x = ReadFile(argv[9]);
    if (r.x.size() != total * r.args.dtypeBytes) {
        std::printf("ERROR x has %zu bytes, not %llu\n", r.x.size(), static_cast<unsigned long long>(total * r.args.dtypeBytes));
        return 4;
    }
    const std::string err = Execute(r, t, dtype);
    if (!err.empty()) {
        std::printf("ERROR %s\n", err.c_str());
        return 4;
    }
    const std::string out = argv[10];
    if (!r.values.empty()) WriteFile(out + ".values", r.values);
    if (!r.indices.empty()) WriteFile(out + ".indices", r.indices);
    std::printf("OK cores %u tile %u\n", t.usedCores, t.tileElems);
    return 0;
}
