// Command-line driver around opgen_twin::RunOp / InferOp / RegistryJson, linked with the
// host files of the test ops and their kernel variants. Used by tests/twin/test_runner.py.
//
//   runner_driver registry
//   runner_driver infer OP [--attr-str S] --in DTYPE SHAPE FILE ...
//   runner_driver run OP OUTDIR [--cores N] [--ub BYTES] [--tiling-cap BYTES] [--attr-str S]
//                 [--no-launch] [--out-instances N,N,...] --in DTYPE SHAPE FILE ...
// SHAPE is comma separated ("" = scalar). `--list N` makes the next N `--in` one
// HostTensor::List (a DYNAMIC input); `--absent` an omitted optional input. A DYNAMIC output
// is printed as {"list": [{dtype, shape, file}, ...]}. Prints one JSON object on stdout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "opgen_twin/runner.h"

// Built with -DOPGEN_DRIVER_VARIANTS='"file.inc"' the driver takes its kernel variants from that
// file instead (it defines `std::vector<opgen_twin::KernelVariant> DriverVariants(const
// std::string& op)`); tests/twin/test_rendered_dynamic.py does so for a rendered op.
#ifdef OPGEN_DRIVER_VARIANTS
#include OPGEN_DRIVER_VARIANTS
#else
extern "C" void opgen_kernel_add_custom_fp16(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_add_custom_fp32(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_gelu_custom_fp32(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_gelu_custom_fp16(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_gelu_custom_bf16(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_list_sum_custom_fp32(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
extern "C" void opgen_kernel_sync_roll_custom_fp32(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
#endif

using opgen_twin::detail::JsonEscape;

namespace {

std::vector<opgen_twin::KernelVariant> Variants(const std::string& op)
{
#ifdef OPGEN_DRIVER_VARIANTS
    return DriverVariants(op);
#else
    using ge::DT_BF16;
    using ge::DT_FLOAT;
    using ge::DT_FLOAT16;
    using opgen_twin::MakeKernel;
    if (op == "AddCustom" || op == "AddCustomBroken") {
        return {{{DT_FLOAT16, DT_FLOAT16, DT_FLOAT16}, MakeKernel(opgen_kernel_add_custom_fp16)},
                {{DT_FLOAT, DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_add_custom_fp32)}};
    }
    if (op == "GeluCustom") {
        return {{{DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_gelu_custom_fp32)},
                {{DT_FLOAT16, DT_FLOAT16}, MakeKernel(opgen_kernel_gelu_custom_fp16)},
                {{DT_BF16, DT_BF16}, MakeKernel(opgen_kernel_gelu_custom_bf16)}};
    }
    if (op == "ListSumCustom") {
        return {{{DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_list_sum_custom_fp32)}};
    }
    if (op == "SyncRollCustom") {
        return {{{DT_FLOAT, DT_FLOAT}, MakeKernel(opgen_kernel_sync_roll_custom_fp32)}};
    }
    return {};
#endif
}

ge::DataType ParseDtype(const std::string& s)
{
    for (int i = 0; i < ge::DT_MAX; ++i) {
        if (s == opgen_twin::DataTypeName(static_cast<ge::DataType>(i))) return static_cast<ge::DataType>(i);
    }
    std::fprintf(stderr, "unknown dtype %s\n", s.c_str());
    std::exit(2);
}

std::vector<int64_t> ParseShape(const std::string& s)
{
    std::vector<int64_t> dims;
    size_t pos = 0;
    while (pos < s.size()) {
        size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        dims.push_back(std::strtoll(s.substr(pos, comma - pos).c_str(), nullptr, 10));
        pos = comma + 1;
    }
    return dims;
}

std::vector<uint8_t> ReadFile(const std::string& path)
{
    std::vector<uint8_t> out;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) {
        std::fprintf(stderr, "cannot read %s\n", path.c_str());
        std::exit(2);
    }
    uint8_t buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out.insert(out.end(), buf, buf + n);
    std::fclose(f);
    return out;
}

std::string ShapeJson(const std::vector<int64_t>& s)
{
    std::string o = "[";
    for (size_t i = 0; i < s.size(); ++i) o += (i ? ", " : "") + std::to_string(s[i]);
    return o + "]";
}

std::string Hex(const std::vector<uint8_t>& bytes)
{
    std::string o;
    char b[3];
    for (uint8_t v : bytes) {
        std::snprintf(b, sizeof(b), "%02x", v);
        o += b;
    }
    return o;
}

struct Args {
    std::string op;
    std::string outDir;
    std::vector<opgen_twin::HostTensor> inputs;
    std::vector<opgen_twin::AttrValue> attrs;
    opgen_twin::RunOptions opts;
};

Args Parse(int argc, char** argv, int first)
{
    Args a;
    size_t listLeft = 0;  // --in arguments still to go into the list at a.inputs.back()
    for (int i = first; i < argc; ++i) {
        const std::string k = argv[i];
        if (k == "--in" && i + 3 < argc) {
            const ge::DataType dt = ParseDtype(argv[i + 1]);
            std::vector<int64_t> shape = ParseShape(argv[i + 2]);
            std::vector<uint8_t> data = ReadFile(argv[i + 3]);
            auto t = opgen_twin::HostTensor::FromBytes(dt, shape, data.data(), data.size());
            if (listLeft > 0) {
                a.inputs.back().children.push_back(t);
                --listLeft;
            } else {
                a.inputs.push_back(t);
            }
            i += 3;
        } else if (k == "--list" && i + 1 < argc) {
            a.inputs.push_back(opgen_twin::HostTensor::List({}));
            listLeft = static_cast<size_t>(std::atoi(argv[++i]));
        } else if (k == "--out-instances" && i + 1 < argc) {
            for (int64_t n : ParseShape(argv[++i])) a.opts.outputInstanceNums.push_back(static_cast<size_t>(n));
        } else if (k == "--absent") {
            a.inputs.push_back(opgen_twin::HostTensor::Absent());
        } else if (k == "--attr-str" && i + 1 < argc) {
            a.attrs.push_back(std::string(argv[++i]));
        } else if (k == "--cores" && i + 1 < argc) {
            a.opts.platform.aivCoreNum = static_cast<uint32_t>(std::atoi(argv[++i]));
        } else if (k == "--ub" && i + 1 < argc) {
            a.opts.platform.ubSize = std::strtoull(argv[++i], nullptr, 10);
        } else if (k == "--tiling-cap" && i + 1 < argc) {
            a.opts.platform.tilingCapacity = std::strtoull(argv[++i], nullptr, 10);
        } else if (k == "--no-launch") {
            a.opts.launch = false;
        } else {
            std::fprintf(stderr, "bad argument %s\n", k.c_str());
            std::exit(2);
        }
    }
    return a;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 2) return 2;
    const std::string cmd = argv[1];
    if (cmd == "registry") {
        std::printf("%s\n", opgen_twin::RegistryJson().c_str());
        return 0;
    }
    if (cmd == "infer" && argc >= 3) {
        Args a = Parse(argc, argv, 3);
        opgen_twin::InferResult r = opgen_twin::InferOp(argv[2], a.inputs, a.attrs, a.opts.outputInstanceNums);
        std::string o = std::string("{\"ok\": ") + (r.ok ? "true" : "false") + ", \"error\": " + JsonEscape(r.error);
        o += ", \"outputs\": [";
        for (size_t i = 0; i < r.outputShapes.size(); ++i) {
            o += std::string(i ? ", " : "") + "{\"dtype\": " + JsonEscape(opgen_twin::DataTypeName(r.outputDtypes[i])) +
                 ", \"shape\": " + ShapeJson(r.outputShapes[i]) + "}";
        }
        o += "], \"instances\": [";
        for (size_t i = 0; i < r.outputInstances.size(); ++i) {
            o += std::string(i ? ", " : "") + "[" + std::to_string(r.outputInstances[i].GetInstanceStart()) + ", " +
                 std::to_string(r.outputInstances[i].GetInstanceNum()) + "]";
        }
        std::printf("%s]}\n", o.c_str());
        return 0;
    }
    if (cmd == "run" && argc >= 4) {
        Args a = Parse(argc, argv, 4);
        a.op = argv[2];
        a.outDir = argv[3];
        opgen_twin::RunResult r = opgen_twin::RunOp(a.op, Variants(a.op), a.inputs, a.attrs, a.opts);
        std::string o = std::string("{\"ok\": ") + (r.ok ? "true" : "false") + ", \"stage\": " + JsonEscape(r.stage) +
                        ", \"error\": " + JsonEscape(r.error) + ", \"block_dim\": " + std::to_string(r.blockDim) +
                        ", \"tiling_key\": " + std::to_string(r.tilingKey) +
                        ", \"launched\": " + (r.launched ? "true" : "false") +
                        ", \"tiling_hex\": \"" + Hex(r.tilingData) + "\", \"workspace\": [";
        for (size_t i = 0; i < r.workspaceSizes.size(); ++i) o += (i ? ", " : "") + std::to_string(r.workspaceSizes[i]);
        o += "], \"outputs\": [";
        // One output tensor written to OUTDIR/<stem>.bin, as a JSON object.
        const auto dump = [&](const opgen_twin::HostTensor& t, const std::string& stem) {
            const std::string file = a.outDir + "/" + stem + ".bin";
            FILE* f = std::fopen(file.c_str(), "wb");
            if (f != nullptr) {
                if (!t.data.empty()) std::fwrite(t.data.data(), 1, t.data.size(), f);
                std::fclose(f);
            }
            return "{\"dtype\": " + JsonEscape(opgen_twin::DataTypeName(t.dtype)) + ", \"shape\": " + ShapeJson(t.shape) +
                   ", \"file\": " + JsonEscape(file) + "}";
        };
        for (size_t i = 0; i < r.outputs.size(); ++i) {
            const opgen_twin::HostTensor& t = r.outputs[i];
            o += i ? ", " : "";
            if (!t.isList) {
                o += dump(t, "out" + std::to_string(i));
                continue;
            }
            o += "{\"list\": [";
            for (size_t j = 0; j < t.children.size(); ++j) {
                o += (j ? ", " : "") + dump(t.children[j], "out" + std::to_string(i) + "_" + std::to_string(j));
            }
            o += "]}";
        }
        std::printf("%s]}\n", o.c_str());
        return 0;
    }
    std::fprintf(stderr, "usage: runner_driver registry | infer OP ... | run OP OUTDIR ...\n");
    return 2;
}
