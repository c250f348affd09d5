// opgen's index-op library: 2-D pooling, torch.nn.functional.avg_pool2d and max_pool2d (dilation 1)
// over NCHW or CHW input, T float, half or bfloat16_t, computed in float. The tiling comes from
// TileAvgPool2d / TileMaxPool2d (op_host/opgen_index_pool_tiling.h):
//   outer = planes (N * C), axis = H, inner = W, count = OH (output rows per plane);
//   units = planes * OH, one unit an output row of one plane, unitsPerCore of them per core;
//   tileElems = OW rounded up to 64 (a whole 256-byte block of floats, what Compare takes);
//   ints = kH, kW, sH, sW, pH, pW, OW, count_include_pad (ceil_mode is in OH and OW already).
// Per output row: the window's input rows that lie inside the input come in with one DataCopyPad,
// each row widened to float between pad slots (-inf for max, 0 for avg); then for each of those
// rows and each kernel column kw, a Gather picks input column ow * sW + kw - pW for every output
// column ow (a column in the padding picks a pad slot) and is combined into the running row in
// torch's order (row-major in the window): avg adds (from +0, as torch's sum) and divides by the
// divisor torch uses; max keeps the running value unless the new one is greater or NaN, as
// torch's CPU kernel (`val > maxval || isnan(val)`), so NaN propagates and among equal values
// (+0 and -0) the first in row-major order stays.
#ifndef OPGEN_INDEX_POOL_H
#define OPGEN_INDEX_POOL_H

#include "kernel_operator.h"
#include "opgen_index_tiling.h"
#include "opgen_kernel.h"
#include "opgen_soc.h"

namespace opgen_index {
namespace pool_detail {

constexpr uint32_t PAD_SLOTS = 8;       // floats before and after each widened row (one 32-byte block)
constexpr uint32_t COMPARE_BLOCK = 64;  // floats per 256 bytes, the unit of Compare's count

__aicore__ inline uint32_t AlignUp(uint32_t v, uint32_t to) { return (v + to - 1) / to * to; }

// Where a pooling kernel of element type T keeps a row in UB (op_host/opgen_index_pool_tiling.h's
// PoolUbBytes adds up the buffers the kernel allocates from these).
struct PoolLayout {
    uint32_t rowElems;   // input elements per row in UB (W rounded up to 32 bytes of T)
    uint32_t rowStride;  // floats per widened row: pad slots, W rounded up to 8, pad slots
    uint32_t outElems;   // OW rounded up to COMPARE_BLOCK
};

__aicore__ inline PoolLayout MakePoolLayout(uint32_t dtypeBytes, uint64_t w, uint64_t ow)
{
    PoolLayout l;
    l.rowElems = AlignUp(static_cast<uint32_t>(w), 32 / dtypeBytes);
    l.rowStride = AlignUp(static_cast<uint32_t>(w), PAD_SLOTS) + 2 * PAD_SLOTS;
    l.outElems = AlignUp(static_cast<uint32_t>(ow), COMPARE_BLOCK);
    return l;
}

}  // namespace pool_detail

template <typename T, bool IS_MAX>
class Pool2dKernel {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
    {
        t_ = &t;
        h_ = static_cast<int64_t>(t.axis);
        w_ = static_cast<int64_t>(t.inner);
        kh_ = t.ints[0];
        kw_ = t.ints[1];
        sh_ = t.ints[2];
        sw_ = t.ints[3];
        ph_ = t.ints[4];
        pw_ = t.ints[5];
        ow_ = static_cast<uint32_t>(t.ints[6]);
        includePad_ = t.ints[7] != 0;
        l_ = pool_detail::MakePoolLayout(sizeof(T), t.inner, static_cast<uint64_t>(t.ints[6]));
        xGm_.SetGlobalBuffer((__gm__ T*)x, t.outer * t.axis * t.inner);
        yGm_.SetGlobalBuffer((__gm__ T*)y, t.outer * t.count * ow_);
        InitBuffers();
        FillConstants();
    }

    __aicore__ inline void Process()
    {
        const uint64_t first = static_cast<uint64_t>(AscendC::GetBlockIdx()) * t_->unitsPerCore;
        uint64_t last = first + t_->unitsPerCore;
        if (last > t_->units) {
            last = t_->units;
        }
        for (uint64_t unit = first; unit < last; ++unit) {
            Row(unit);
        }
    }

private:
    __aicore__ inline void InitBuffers()
    {
        const uint32_t out = l_.outElems;
        pipe_.InitBuffer(inQue_, 1, static_cast<uint32_t>(kh_) * l_.rowElems * sizeof(T));
        pipe_.InitBuffer(outQue_, 1, pool_detail::AlignUp(out * sizeof(T), 32));
        pipe_.InitBuffer(rowsBuf_, static_cast<uint32_t>(kh_) * l_.rowStride * 4);
        pipe_.InitBuffer(offsetBuf_, static_cast<uint32_t>(kw_) * out * 4);
        pipe_.InitBuffer(floatBuf_, 5 * out * 4);
        pipe_.InitBuffer(maskBuf_, 2 * pool_detail::AlignUp(out / 8, 32));
        rows_ = rowsBuf_.Get<float>();
        offsets_ = offsetBuf_.Get<uint32_t>();
        const AscendC::LocalTensor<float> f = floatBuf_.Get<float>();
        colDiv_ = f;
        gathered_ = f[out];
        acc_ = f[2 * out];
        next_ = f[3 * out];
        work_ = f[4 * out];
        const AscendC::LocalTensor<uint8_t> m = maskBuf_.Get<uint8_t>();
        greater_ = m;
        nan_ = m[pool_detail::AlignUp(out / 8, 32)];
    }

    // Gather's offsets (bytes into a widened row: column c at PAD_SLOTS + c, a column left of the
    // input at the left pad slot, one right of it at the right one; output lanes past OW too),
    // the avg's column divisors, and the pad slots of every widened row.
    __aicore__ inline void FillConstants()
    {
        const int64_t right = static_cast<int64_t>(l_.rowStride - pool_detail::PAD_SLOTS);
        for (int64_t k = 0; k < kw_; ++k) {
            for (uint32_t o = 0; o < l_.outElems; ++o) {
                const int64_t col = static_cast<int64_t>(o) * sw_ + k - pw_;
                const bool inside = o < ow_ && col >= 0 && col < w_;
                const int64_t slot = inside ? col + pool_detail::PAD_SLOTS : (col < 0 ? 0 : right);
                offsets_.SetValue(static_cast<uint32_t>(k) * l_.outElems + o, static_cast<uint32_t>(slot * 4));
            }
        }
        for (uint32_t o = 0; o < l_.outElems; ++o) {
            colDiv_.SetValue(o, o < ow_ ? static_cast<float>(Span(o, sw_, pw_, kw_, w_)) : 1.0f);
        }
        const float pad = IS_MAX ? -__builtin_huge_valf() : 0.0f;
        for (int64_t r = 0; r < kh_; ++r) {
            const uint32_t base = static_cast<uint32_t>(r) * l_.rowStride;
            AscendC::Duplicate(rows_[base], pad, pool_detail::PAD_SLOTS);
            AscendC::Duplicate(rows_[base + l_.rowStride - pool_detail::PAD_SLOTS], pad, pool_detail::PAD_SLOTS);
        }
        AscendC::PipeBarrier<PIPE_ALL>();  // the scalar writes are in UB before the vector unit reads
    }

    // The divisor's factor along one axis for output position o: the window [o*s - p, +k) cut at
    // size + p (count_include_pad) or to the input.
    __aicore__ inline int64_t Span(int64_t o, int64_t s, int64_t p, int64_t k, int64_t size) const
    {
        int64_t start = o * s - p;
        int64_t end = start + k < size + p ? start + k : size + p;
        if (includePad_) {
            return end - start;
        }
        start = start < 0 ? 0 : start;
        end = end < size ? end : size;
        return end - start;
    }

    __aicore__ inline void Row(uint64_t unit)
    {
        const uint64_t plane = unit / t_->count;
        const int64_t oh = static_cast<int64_t>(unit % t_->count);
        const int64_t start = oh * sh_ - ph_;
        const int64_t top = start < 0 ? 0 : start;
        const int64_t bottom = start + kh_ < h_ ? start + kh_ : h_;
        const uint32_t count = static_cast<uint32_t>(bottom - top);  // >= 1: torch's output size rule
        LoadRows(plane * t_->axis * t_->inner + static_cast<uint64_t>(top) * t_->inner, count);
        AscendC::Duplicate(acc_, IS_MAX ? -__builtin_huge_valf() : 0.0f, l_.outElems);
        for (uint32_t r = 0; r < count; ++r) {
            for (int64_t k = 0; k < kw_; ++k) {
                AscendC::Gather(gathered_, rows_[r * l_.rowStride], offsets_[static_cast<uint32_t>(k) * l_.outElems],
                                0, l_.outElems);
                Combine();
            }
        }
        if constexpr (!IS_MAX) {
            AscendC::Muls(work_, colDiv_, static_cast<float>(Span(oh, sh_, ph_, kh_, h_)), l_.outElems);
            AscendC::Div(acc_, acc_, work_, l_.outElems);  // rounded once, as torch's sum / divisor
        }
        Store(unit);
    }

    // acc = acc + gathered (avg); acc = gathered where gathered > acc or gathered is NaN (max).
    __aicore__ inline void Combine()
    {
        const uint32_t n = l_.outElems;
        if constexpr (IS_MAX) {
            AscendC::Compare(greater_, gathered_, acc_, AscendC::CMPMODE::GT, n);
            AscendC::Compare(nan_, gathered_, gathered_, AscendC::CMPMODE::NE, n);
            const AscendC::LocalTensor<uint16_t> bits = greater_.template ReinterpretCast<uint16_t>();
            AscendC::Or(bits, bits, nan_.template ReinterpretCast<uint16_t>(), static_cast<int32_t>(n / 16));
            AscendC::Select(next_, greater_, gathered_, acc_, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
            const AscendC::LocalTensor<float> old = acc_;
            acc_ = next_;
            next_ = old;
        } else {
            AscendC::Add(acc_, acc_, gathered_, n);
        }
    }

    // Rows [top, top + count) of a plane from `offset` into UB, each widened to float between its
    // pad slots.
    __aicore__ inline void LoadRows(uint64_t offset, uint32_t count)
    {
        AscendC::LocalTensor<T> in = inQue_.template AllocTensor<T>();
        const AscendC::DataCopyExtParams copy(static_cast<uint16_t>(count), static_cast<uint32_t>(w_ * sizeof(T)), 0,
                                              0, 0);
        AscendC::DataCopyPad(in, xGm_[offset], copy, AscendC::DataCopyPadExtParams<T>(false, 0, 0, T(0)));
        inQue_.EnQue(in);
        in = inQue_.template DeQue<T>();
        const uint32_t w = static_cast<uint32_t>(w_);
        for (uint32_t r = 0; r < count; ++r) {
            const AscendC::LocalTensor<float> row = rows_[r * l_.rowStride + pool_detail::PAD_SLOTS];
            if constexpr (opgen_kernel::IsSame<T, float>::value) {
                AscendC::Muls(row, in[r * l_.rowElems], 1.0f, w);  // x * 1 keeps -0 and NaN
            } else {
                AscendC::Cast(row, in[r * l_.rowElems], AscendC::RoundMode::CAST_NONE, w);  // exact
            }
        }
        inQue_.FreeTensor(in);
    }

    __aicore__ inline void Store(uint64_t unit)
    {
        AscendC::LocalTensor<T> out = outQue_.template AllocTensor<T>();
        if constexpr (opgen_kernel::IsSame<T, float>::value) {
            AscendC::Muls(out, acc_, 1.0f, l_.outElems);
        } else {
            opgen_kernel::Narrow(out, acc_, l_.outElems);
        }
        outQue_.EnQue(out);
        out = outQue_.template DeQue<T>();
        const AscendC::DataCopyExtParams copy(1, ow_ * static_cast<uint32_t>(sizeof(T)), 0, 0, 0);
        AscendC::DataCopyPad(yGm_[unit * ow_], out, copy);
        outQue_.FreeTensor(out);
    }

    const IndexTiling* t_ = nullptr;
    pool_detail::PoolLayout l_;
    int64_t h_ = 0, w_ = 0, kh_ = 0, kw_ = 0, sh_ = 0, sw_ = 0, ph_ = 0, pw_ = 0;
    uint32_t ow_ = 0;
    bool includePad_ = false;
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQue_;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQue_;
    opgen_kernel::CalcBuf rowsBuf_, offsetBuf_, floatBuf_, maskBuf_;
    AscendC::LocalTensor<float> rows_, colDiv_, gathered_, acc_, next_, work_;
    AscendC::LocalTensor<uint32_t> offsets_;
    AscendC::LocalTensor<uint8_t> greater_, nan_;
    AscendC::GlobalTensor<T> xGm_, yGm_;
};

template <typename T>
struct PoolSocCheck {
#if defined(__NPU_ARCH__)
    static_assert(OPGEN_SOC_HAS_DATACOPYPAD(__NPU_ARCH__) && OPGEN_SOC_HAS_COMPARE_SELECT(__NPU_ARCH__),
                  "opgen_index pooling needs DataCopyPad, Gather, Compare and Select: ascend910 and ascend310p "
                  "lack DataCopyPad (ascend910 also Gather and Compare/Select); no pooling kernel there");
#endif
    static constexpr bool ok = true;
};

// y = avg_pool2d(x) as IndexTiling describes (see the top of this file); T float, half, bfloat16_t.
template <typename T>
__aicore__ inline void AvgPool2d(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    static_assert(PoolSocCheck<T>::ok, "");
    if (AscendC::GetBlockIdx() >= t.usedCores) {
        return;
    }
    Pool2dKernel<T, false> kernel;
    kernel.Init(x, y, t);
    kernel.Process();
}

// y = max_pool2d(x) (dilation 1, no indices) as IndexTiling describes; T float, half, bfloat16_t.
template <typename T>
__aicore__ inline void MaxPool2d(GM_ADDR x, GM_ADDR y, const IndexTiling& t)
{
    static_assert(PoolSocCheck<T>::ok, "");
    if (AscendC::GetBlockIdx() >= t.usedCores) {
        return;
    }
    Pool2dKernel<T, true> kernel;
    kernel.Init(x, y, t);
    kernel.Process();
}

}  // namespace opgen_index

#endif  // OPGEN_INDEX_POOL_H
