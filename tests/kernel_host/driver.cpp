// Runs generated ops on the CPU twin: InferShape, InferDataType, TilingFunc and the kernel
// (opgen_twin::RunOp), linked with the rendered op_host/*.cpp files and kernel variants.
// tests/kernel_host/twin.py writes "variants.inc" (the kernel variant table) next to this file's
// copy and drives the binary:
//
//   driver run OP KERNEL_SET OUTDIR [--cores N] [--ub BYTES]
//          [--attr-default | --attr-f V | --attr-i V | --attr-b 0|1 | --attr-s S] ...
//          [--in DTYPE SHAPE FILE | --absent] ...
//
// DTYPE is a ge name (DT_FLOAT16), SHAPE is comma separated ("" = scalar, "0" = empty).
// Prints one JSON object; output i is written to OUTDIR/out<i>.bin.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "opgen_twin/runner.h"

#include "variants.inc"  // declares the kernels and defines Variants(op, set)

namespace {

ge::DataType ParseDtype(const std::string& s)
{
    for (int i = 0; i < ge::DT_MAX; ++i) {
        if (s == opgen_twin::DataTypeName(static_cast<ge::DataType>(i))) {
            return static_cast<ge::DataType>(i);
        }
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
        if (comma == std::string::npos) {
            comma = s.size();
        }
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
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) {
        out.insert(out.end(), buf, buf + n);
    }
    std::fclose(f);
    return out;
}

std::string Quote(const std::string& s)
{
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof(b), "\\u%04x", c);
            o += b;
        } else {
            o += c;
        }
    }
    return o + "\"";
}

std::string ShapeJson(const std::vector<int64_t>& s)
{
    std::string o = "[";
    for (size_t i = 0; i < s.size(); ++i) {
        o += (i ? ", " : "") + std::to_string(s[i]);
    }
    return o + "]";
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc < 5 || std::string(argv[1]) != "run") {
        std::fprintf(stderr, "usage: driver run OP KERNEL_SET OUTDIR ...\n");
        return 2;
    }
    const std::string op = argv[2];
    const std::string set = argv[3];
    const std::string outDir = argv[4];
    std::vector<opgen_twin::HostTensor> inputs;
    std::vector<opgen_twin::AttrValue> attrs;
    opgen_twin::RunOptions opts;
    for (int i = 5; i < argc; ++i) {
        const std::string k = argv[i];
        if (k == "--in" && i + 3 < argc) {
            std::vector<uint8_t> data = ReadFile(argv[i + 3]);
            inputs.push_back(opgen_twin::HostTensor::FromBytes(ParseDtype(argv[i + 1]), ParseShape(argv[i + 2]),
                                                               data.data(), data.size()));
            i += 3;
        } else if (k == "--absent") {
            inputs.push_back(opgen_twin::HostTensor::Absent());
        } else if (k == "--attr-default") {
            attrs.emplace_back(std::monostate());
        } else if (k == "--attr-f" && i + 1 < argc) {
            attrs.emplace_back(static_cast<float>(std::strtod(argv[++i], nullptr)));
        } else if (k == "--attr-i" && i + 1 < argc) {
            attrs.emplace_back(static_cast<int64_t>(std::strtoll(argv[++i], nullptr, 10)));
        } else if (k == "--attr-b" && i + 1 < argc) {
            attrs.emplace_back(std::string(argv[++i]) == "1");
        } else if (k == "--attr-s" && i + 1 < argc) {
            attrs.emplace_back(std::string(argv[++i]));
        } else if (k == "--cores" && i + 1 < argc) {
            opts.platform.aivCoreNum = static_cast<uint32_t>(std::atoi(argv[++i]));
        } else if (k == "--ub" && i + 1 < argc) {
            opts.platform.ubSize = std::strtoull(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "bad argument %s\n", k.c_str());
            return 2;
        }
    }
    const opgen_twin::RunResult r = opgen_twin::RunOp(op, Variants(op, set), inputs, attrs, opts);
    std::string o = std::string("{\"ok\": ") + (r.ok ? "true" : "false") + ", \"stage\": " + Quote(r.stage) +
                    ", \"error\": " + Quote(r.error) + ", \"block_dim\": " + std::to_string(r.blockDim) +
                    ", \"outputs\": [";
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        const std::string file = outDir + "/out" + std::to_string(i) + ".bin";
        FILE* f = std::fopen(file.c_str(), "wb");
        if (f != nullptr) {
            if (!r.outputs[i].data.empty()) {
                std::fwrite(r.outputs[i].data.data(), 1, r.outputs[i].data.size(), f);
            }
            std::fclose(f);
        }
        o += std::string(i ? ", " : "") + "{\"dtype\": " + Quote(opgen_twin::DataTypeName(r.outputs[i].dtype)) +
             ", \"shape\": " + ShapeJson(r.outputs[i].shape) + ", \"file\": " + Quote(file) + "}";
    }
    // every plain input as the kernel left it (an op without outputs updates them in place)
    o += "], \"updated_inputs\": [";
    for (size_t i = 0; i < r.inputs.size(); ++i) {
        const std::string file = outDir + "/upd" + std::to_string(i) + ".bin";
        FILE* f = std::fopen(file.c_str(), "wb");
        if (f != nullptr) {
            if (!r.inputs[i].data.empty()) {
                std::fwrite(r.inputs[i].data.data(), 1, r.inputs[i].data.size(), f);
            }
            std::fclose(f);
        }
        const bool plain = r.inputs[i].present && !r.inputs[i].isList;
        o += std::string(i ? ", " : "") + (plain ? "{\"dtype\": " + Quote(opgen_twin::DataTypeName(r.inputs[i].dtype)) +
                                                     ", \"shape\": " + ShapeJson(r.inputs[i].shape) +
                                                     ", \"file\": " + Quote(file) + "}"
                                               : std::string("null"));
    }
    std::printf("%s]}\n", o.c_str());
    return 0;
}
