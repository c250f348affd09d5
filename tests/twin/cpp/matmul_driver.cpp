// Driver for tests/twin/test_matmul.py: runs the MatmulLeakyCustom op (kernels/matmul_leaky) through
// opgen_twin::RunOp for every case of a case file, one process for all of them.
//
//   matmul_driver CASEFILE DIR
// Each line of CASEFILE: ID DTA DTBIAS DTC M N K TRANSA TRANSB HASBIAS MODE ALPHA ORDER BASEM BASEN AIV AIC BLOCKDIM
// (DT* one of fp16 bf16 fp32). Inputs are read from DIR/ID_a.bin, DIR/ID_b.bin, DIR/ID_bias.bin;
// the output is written to DIR/ID_c.bin. Prints per case "OK ID blockDim" or "ERR ID stage: error".
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "opgen_twin/runner.h"

#define MM_KERNEL(name) extern "C" void opgen_kernel_matmul_leaky_custom_##name(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
MM_KERNEL(fp16_fp32)
MM_KERNEL(fp16_fp16)
MM_KERNEL(bf16_bf16)
MM_KERNEL(bf16_fp32)
MM_KERNEL(fp32_fp32)

namespace {

ge::DataType Dt(const std::string& s)
{
    return s == "fp16" ? ge::DT_FLOAT16 : s == "bf16" ? ge::DT_BF16 : ge::DT_FLOAT;
}

std::vector<uint8_t> ReadFile(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: matmul_driver CASEFILE DIR\n");
        return 2;
    }
    using ge::DT_BF16;
    using ge::DT_FLOAT;
    using ge::DT_FLOAT16;
    using opgen_twin::MakeKernel;
    const std::vector<opgen_twin::KernelVariant> variants = {
        {{DT_FLOAT16, DT_FLOAT16, DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_matmul_leaky_custom_fp16_fp32)},
        {{DT_FLOAT16, DT_FLOAT16, DT_FLOAT16, DT_FLOAT16}, MakeKernel(opgen_kernel_matmul_leaky_custom_fp16_fp16)},
        {{DT_BF16, DT_BF16, DT_FLOAT, DT_BF16}, MakeKernel(opgen_kernel_matmul_leaky_custom_bf16_bf16)},
        {{DT_BF16, DT_BF16, DT_FLOAT16, DT_FLOAT}, MakeKernel(opgen_kernel_matmul_leaky_custom_bf16_fp32)},
        {{DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_matmul_leaky_custom_fp32_fp32)},
    };
    const std::string dir = argv[2];
    std::ifstream cases(argv[1]);
    std::string line;
    while (std::getline(cases, line)) {
        if (line.empty()) continue;
        std::istringstream in(line);
        std::string id, dta, dtbias, dtc;
        int64_t m, n, k, order, baseM, baseN, blockDim;
        int transA, transB, hasBias, mode;
        float alpha;
        uint32_t aiv, aic;
        in >> id >> dta >> dtbias >> dtc >> m >> n >> k >> transA >> transB >> hasBias >> mode >> alpha >> order >>
            baseM >> baseN >> aiv >> aic >> blockDim;
        const std::vector<uint8_t> a = ReadFile(dir + "/" + id + "_a.bin");
        const std::vector<uint8_t> b = ReadFile(dir + "/" + id + "_b.bin");
        const std::vector<uint8_t> bias = ReadFile(dir + "/" + id + "_bias.bin");
        std::vector<int64_t> aShape = transA ? std::vector<int64_t>{k, m} : std::vector<int64_t>{m, k};
        std::vector<int64_t> bShape = transB ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n};
        std::vector<opgen_twin::HostTensor> inputs = {
            opgen_twin::HostTensor::FromBytes(Dt(dta), aShape, a.data(), a.size()),
            opgen_twin::HostTensor::FromBytes(Dt(dta), bShape, b.data(), b.size()),
            opgen_twin::HostTensor::FromBytes(Dt(dtbias), {n}, bias.data(), bias.size()),
        };
        std::vector<opgen_twin::AttrValue> attrs = {static_cast<bool>(transA), static_cast<bool>(transB),
                                                    static_cast<bool>(hasBias), static_cast<int64_t>(mode), alpha,
                                                    order, baseM, baseN, blockDim};
        opgen_twin::RunOptions opts;
        opts.platform.aivCoreNum = aiv;
        opts.platform.aicCoreNum = aic;
        const opgen_twin::RunResult r = opgen_twin::RunOp("MatmulLeakyCustom", variants, inputs, attrs, opts);
        if (!r.ok) {
            std::string err = r.error;
            for (char& ch : err) {
                if (ch == '\n') ch = ' ';
            }
            std::printf("ERR %s %s: %s\n", id.c_str(), r.stage.c_str(), err.c_str());
            continue;
        }
        const opgen_twin::HostTensor& c = r.outputs[0];
        if (c.dtype != Dt(dtc)) {
            std::printf("ERR %s dtype: output dtype %d\n", id.c_str(), static_cast<int>(c.dtype));
            continue;
        }
        std::ofstream out(dir + "/" + id + "_c.bin", std::ios::binary);
        out.write(reinterpret_cast<const char*>(c.Bytes()), static_cast<std::streamsize>(c.ByteSize()));
        std::printf("OK %s %u\n", id.c_str(), r.blockDim);
    }
    return 0;
}
