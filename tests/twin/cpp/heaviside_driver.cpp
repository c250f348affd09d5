// Driver for tests/twin/test_heaviside.py: runs HeavisideCustom (kernels/heaviside: CompareScalar,
// Select, printf, DumpTensor, DumpAccChkPoint) through opgen_twin::RunOp.
//
//   heaviside_driver DTYPE(fp16|fp32) N CORES
// x[i] = ((i * 7) % 9 - 4) / 4 (zeros, negatives, positives), values[i] = (i % 5) / 8 + 1/16. Prints
// "IN x ...", "IN values ...", then "BEGIN launch", what the launch printed (the blocks' debug output),
// "END launch", and "OUT y ... / BLOCKDIM n" or "ERR stage: error".
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "opgen_twin/runner.h"

extern "C" void opgen_kernel_heaviside_custom_fp16(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_heaviside_custom_fp32(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);

namespace {
void PrintValues(const char* tag, const char* name, const std::vector<double>& v)
{
    std::printf("%s %s", tag, name);
    for (double d : v) std::printf(" %.17g", d);
    std::printf("\n");
}
}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: heaviside_driver DTYPE N CORES\n");
        return 2;
    }
    using ge::DT_FLOAT;
    using ge::DT_FLOAT16;
    using opgen_twin::MakeKernel;
    const std::vector<opgen_twin::KernelVariant> variants = {
        {{DT_FLOAT16, DT_FLOAT16, DT_FLOAT16}, MakeKernel(opgen_kernel_heaviside_custom_fp16)},
        {{DT_FLOAT, DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_heaviside_custom_fp32)}};
    const ge::DataType dtype = std::string(argv[1]) == "fp16" ? DT_FLOAT16 : DT_FLOAT;
    const int64_t n = std::atoll(argv[2]);
    std::vector<double> x(static_cast<size_t>(n)), v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        x[static_cast<size_t>(i)] = static_cast<double>((i * 7) % 9 - 4) / 4.0;
        v[static_cast<size_t>(i)] = static_cast<double>(i % 5) / 8.0 + 1.0 / 16.0;
    }
    PrintValues("IN", "x", x);
    PrintValues("IN", "values", v);
    opgen_twin::RunOptions opt;
    opt.platform.aivCoreNum = static_cast<uint32_t>(std::atoi(argv[3]));
    std::printf("BEGIN launch\n");
    std::fflush(stdout);
    const auto r = opgen_twin::RunOp("HeavisideCustom", variants,
                                     {opgen_twin::HostTensor::FromDoubles(dtype, {n}, x),
                                      opgen_twin::HostTensor::FromDoubles(dtype, {n}, v)},
                                     {}, opt);
    std::printf("END launch\n");
    if (!r.ok) {
        std::printf("ERR %s: %s\n", r.stage.c_str(), r.error.c_str());
        return 0;
    }
    PrintValues("OUT", "y", r.outputs[0].ToDoubles());
    std::printf("BLOCKDIM %u\n", r.blockDim);
    return 0;
}
