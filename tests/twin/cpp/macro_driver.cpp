// Driver for tests/twin/test_macro_tiling.py: runs MacroAddCustom (kernels/macro_add, macro-style
// tiling) through opgen_twin::RunOp for every case of a case file, one process for all of them.
//
//   macro_driver CASEFILE DIR
// Each line: ID DTYPE(fp16|fp32) N ALPHA TILECAP CORES KERNEL(main|mismatch). Inputs DIR/ID_x.bin,
// DIR/ID_y.bin; output DIR/ID_z.bin. Prints "OK ID blockDim tilingKey <tiling bytes hex>" or
// "ERR ID stage: error".
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "opgen_twin/runner.h"

extern "C" void opgen_kernel_macro_add_custom_fp16(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_macro_add_custom_fp32(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_macro_add_custom_mismatch_fp32(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

namespace {
std::vector<uint8_t> ReadFile(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: macro_driver CASEFILE DIR\n");
        return 2;
    }
    using ge::DT_FLOAT;
    using ge::DT_FLOAT16;
    using opgen_twin::MakeKernel;
    const std::vector<opgen_twin::KernelVariant> mainVariants = {
        {{DT_FLOAT16, DT_FLOAT16, DT_FLOAT16}, MakeKernel(opgen_kernel_macro_add_custom_fp16)},
        {{DT_FLOAT, DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_macro_add_custom_fp32)}};
    const std::vector<opgen_twin::KernelVariant> mismatchVariants = {
        {{DT_FLOAT, DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_macro_add_custom_mismatch_fp32)}};
    const std::string dir = argv[2];
    std::ifstream cases(argv[1]);
    std::string line;
    while (std::getline(cases, line)) {
        if (line.empty()) continue;
        std::istringstream in(line);
        std::string id, dt, kernel;
        int64_t n, tileCap;
        float alpha;
        uint32_t cores;
        in >> id >> dt >> n >> alpha >> tileCap >> cores >> kernel;
        const ge::DataType dtype = dt == "fp16" ? DT_FLOAT16 : DT_FLOAT;
        const std::vector<uint8_t> x = ReadFile(dir + "/" + id + "_x.bin");
        const std::vector<uint8_t> y = ReadFile(dir + "/" + id + "_y.bin");
        opgen_twin::RunOptions opt;
        opt.platform.aivCoreNum = cores;
        const auto r = opgen_twin::RunOp(
            "MacroAddCustom", kernel == "mismatch" ? mismatchVariants : mainVariants,
            {opgen_twin::HostTensor::FromBytes(dtype, {n}, x.data(), x.size()),
             opgen_twin::HostTensor::FromBytes(dtype, {n}, y.data(), y.size())},
            {alpha, tileCap}, opt);
        if (!r.ok) {
            std::printf("ERR %s %s: %s\n", id.c_str(), r.stage.c_str(), r.error.c_str());
            continue;
        }
        std::ofstream out(dir + "/" + id + "_z.bin", std::ios::binary);
        out.write(reinterpret_cast<const char*>(r.outputs[0].Bytes()), static_cast<std::streamsize>(r.outputs[0].ByteSize()));
        std::printf("OK %s %u %llu ", id.c_str(), r.blockDim, static_cast<unsigned long long>(r.tilingKey));
        for (uint8_t b : r.tilingData) std::printf("%02x", b);
        std::printf("\n");
    }
    return 0;
}
