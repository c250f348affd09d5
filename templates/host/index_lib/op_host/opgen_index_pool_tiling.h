// opgen's index-op library, host side of 2-D pooling: TileAvgPool2d / TileMaxPool2d check the
// arguments as torch.nn.functional.avg_pool2d / max_pool2d (dilation 1) do and fill the tiling
// op_kernel/opgen_index_pool.h reads. HostArgs: x NCHW or CHW, dtypeBytes 4 (float) or 2 (half,
// bfloat16), ints = kH, kW, sH, sW, pH, pW, ceil_mode, count_include_pad (max: ignored). The
// output's shape is x's with H, W replaced by PooledSize's OH, OW.
#ifndef OPGEN_INDEX_POOL_TILING_H
#define OPGEN_INDEX_POOL_TILING_H

#include <cstdint>

#include "../op_kernel/opgen_index_tiling.h"

namespace opgen_index {

// torch's pooling_output_shape with dilation 1: floor (or ceil) of (size + 2 pad - k) / stride,
// plus 1; with ceil_mode the last window must start inside the input or its left padding.
inline int64_t PooledSize(int64_t size, int64_t k, int64_t stride, int64_t pad, bool ceilMode)
{
    const int64_t span = size + 2 * pad - k + (ceilMode ? stride - 1 : 0);
    const int64_t floorDiv = span >= 0 ? span / stride : -((-span + stride - 1) / stride);
    int64_t out = floorDiv + 1;
    if (ceilMode && (out - 1) * stride >= size + pad) {
        --out;
    }
    return out;
}

namespace pool_host {

// Select's tensor modes keep 8 KB of UB for themselves (asc-devkit Select.md, 约束说明: Atlas A2/A3
// and 310P); max pooling selects, so its buffers leave them free on every SoC, as opgen's tiling.
constexpr uint64_t SELECT_RESERVED_UB = 8192;

inline uint64_t AlignUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// The UB bytes opgen_index_pool.h's kernel allocates for rows of w elements, ow outputs and a
// kh x kw window (its PoolLayout and InitBuffers).
inline uint64_t PoolUbBytes(uint64_t bytes, uint64_t w, uint64_t ow, uint64_t kh, uint64_t kw)
{
    const uint64_t rowElems = AlignUp(w, 32 / bytes);
    const uint64_t rowStride = AlignUp(w, 8) + 16;
    const uint64_t out = AlignUp(ow, 64);
    return kh * rowElems * bytes + kh * rowStride * 4 + kw * out * 4 + 5 * out * 4 + 2 * AlignUp(out / 8, 32) +
           AlignUp(out * bytes, 32);
}

// x's shape and dtype, as torch (only the batch may be empty), or nullptr.
inline const char* CheckPoolInput(const HostArgs& a)
{
    if (a.x.rank != 3 && a.x.rank != 4) return "pooling: x must be CHW or NCHW (rank 3 or 4)";
    if (a.dtypeBytes != 4 && a.dtypeBytes != 2) return "pooling: x must be float32, float16 or bfloat16";
    const uint32_t c = a.x.rank - 3;
    if (a.x.dims[c] <= 0 || a.x.dims[c + 1] <= 0 || a.x.dims[c + 2] <= 0 || (c == 1 && a.x.dims[0] < 0)) {
        return "pooling: C, H and W must be non-zero (only the batch may be empty)";
    }
    return nullptr;
}

// The window's ints as torch checks them (dilation 1), or nullptr.
inline const char* CheckPoolWindow(const int64_t* v)
{
    if (v[0] <= 0 || v[1] <= 0) return "pooling: kernel_size must be greater than zero";
    if (v[2] <= 0 || v[3] <= 0) return "pooling: stride must be greater than zero";
    if (v[4] < 0 || v[5] < 0) return "pooling: padding must be non-negative";
    if (v[4] > v[0] / 2 || v[5] > v[1] / 2) return "pooling: pad should be at most half of effective kernel size";
    const int64_t maxStride = int64_t(1) << 31;
    if (v[0] > 4096 || v[1] > 4096 || v[2] > maxStride || v[3] > maxStride) {
        return "pooling: kernel_size above 4096 or stride above 2^31 is not supported";
    }
    return nullptr;
}

inline const char* TilePool2d(const HostArgs& a, IndexTiling& t, bool isMax)
{
    if (const char* why = CheckPoolInput(a)) return why;
    if (const char* why = CheckPoolWindow(a.ints)) return why;
    const uint32_t c = a.x.rank - 3;
    const int64_t h = a.x.dims[c + 1];
    const int64_t w = a.x.dims[c + 2];
    const bool ceilMode = a.ints[6] != 0;
    const int64_t oh = PooledSize(h, a.ints[0], a.ints[2], a.ints[4], ceilMode);
    const int64_t ow = PooledSize(w, a.ints[1], a.ints[3], a.ints[5], ceilMode);
    if (oh < 1 || ow < 1) return "pooling: the output size is too small (the input is smaller than the kernel)";
    const uint64_t ub = PoolUbBytes(a.dtypeBytes, static_cast<uint64_t>(w), static_cast<uint64_t>(ow),
                                    static_cast<uint64_t>(a.ints[0]), static_cast<uint64_t>(a.ints[1])) +
                      (isMax ? SELECT_RESERVED_UB : 0);
    if (ub > a.ubBytes) {
        return "pooling: a window's input rows and an output row do not fit in UB (W, OW or the kernel too large)";
    }
    t = IndexTiling{};
    t.outer = static_cast<uint64_t>(a.x.dims[c]) * (c == 1 ? static_cast<uint64_t>(a.x.dims[0]) : 1u);
    t.axis = static_cast<uint64_t>(h);
    t.inner = static_cast<uint64_t>(w);
    t.count = static_cast<uint64_t>(oh);
    t.units = t.outer * t.count;
    const uint64_t cores = a.coreNum == 0 ? 1 : a.coreNum;
    t.unitsPerCore = (t.units + cores - 1) / cores;
    t.usedCores = t.units == 0 ? 1u : static_cast<uint32_t>((t.units + t.unitsPerCore - 1) / t.unitsPerCore);
    t.tileElems = static_cast<uint32_t>(AlignUp(static_cast<uint64_t>(ow), 64));
    for (uint32_t i = 0; i < 6; ++i) t.ints[i] = a.ints[i];
    t.ints[6] = ow;
    t.ints[7] = a.ints[7] != 0 ? 1 : 0;
    return nullptr;
}

}  // namespace pool_host

// avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad); divisor_override none.
inline const char* TileAvgPool2d(const HostArgs& a, IndexTiling& t) { return pool_host::TilePool2d(a, t, false); }

// max_pool2d(x, kernel_size, stride, padding, dilation=1, ceil_mode), values only; ints[7] ignored.
inline const char* TileMaxPool2d(const HostArgs& a, IndexTiling& t) { return pool_host::TilePool2d(a, t, true); }

}  // namespace opgen_index

#endif  // OPGEN_INDEX_POOL_TILING_H
