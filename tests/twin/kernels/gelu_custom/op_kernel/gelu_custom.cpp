// GELU, tanh approximation: y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// half/bfloat16 inputs are computed in float (Cast up with CAST_NONE, down with CAST_RINT).
#include "kernel_operator.h"
#include "gelu_custom_tiling.h"

constexpr int32_t BUFFER_NUM = 2;
constexpr float GELU_COEF = 0.044715f;
constexpr float SQRT_2_OVER_PI = 0.7978845608028654f;

template <typename T>
struct IsFloat32 {
    static constexpr bool value = false;
};
template <>
struct IsFloat32<float> {
    static constexpr bool value = true;
};

// float inputs are used in place; half/bfloat16 are widened into `scratch`.
template <typename T>
__aicore__ inline AscendC::LocalTensor<float> ToFloat(const AscendC::LocalTensor<T>& src,
                                                      const AscendC::LocalTensor<float>& scratch, uint32_t len)
{
    if constexpr (IsFloat32<T>::value) {
        return src;
    } else {
        AscendC::Cast(scratch, src, AscendC::RoundMode::CAST_NONE, len);
        return scratch;
    }
}

// dst = src * scale, rounded to T (src may be clobbered).
template <typename T>
__aicore__ inline void ScaleToOutput(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<float>& src,
                                     float scale, uint32_t len)
{
    if constexpr (IsFloat32<T>::value) {
        AscendC::Muls(dst, src, scale, len);
    } else {
        AscendC::Muls(src, src, scale, len);
        AscendC::Cast(dst, src, AscendC::RoundMode::CAST_RINT, len);
    }
}

class KernelGelu {
public:
    __aicore__ inline KernelGelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const GeluCustomTilingData& tiling, AscendC::TPipe* pipe)
    {
        const uint32_t idx = static_cast<uint32_t>(AscendC::GetBlockIdx());
        uint32_t offset;
        if (idx < tiling.formerNum) {
            blockLength = tiling.formerLength;
            offset = idx * tiling.formerLength;
        } else {
            blockLength = tiling.tailLength;
            offset = tiling.formerNum * tiling.formerLength + (idx - tiling.formerNum) * tiling.tailLength;
        }
        if (offset >= tiling.totalLength) {
            blockLength = 0;
        } else if (offset + blockLength > tiling.totalLength) {
            blockLength = tiling.totalLength - offset;
        }
        tileLength = tiling.tileLength;
        tileNum = blockLength / tileLength;
        lastTileLength = blockLength % tileLength;

        xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y*)y + offset, blockLength);
        pipe->InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(DTYPE_X));
        pipe->InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(DTYPE_Y));
        pipe->InitBuffer(xFloatBuf, tileLength * sizeof(float));
        pipe->InitBuffer(innerBuf, tileLength * sizeof(float));
        pipe->InitBuffer(tanhBuf, tileLength * sizeof(float));
        pipe->InitBuffer(tmpBuf, tiling.tmpBufSize);
    }
    __aicore__ inline void Process()
    {
        const uint32_t loopCount = tileNum + (lastTileLength > 0 ? 1 : 0);
        for (uint32_t i = 0; i < loopCount; i++) {
            const uint32_t len = (i < tileNum) ? tileLength : lastTileLength;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t len)
    {
        AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
        if (len == tileLength) {
            AscendC::DataCopy(xLocal, xGm[progress * tileLength], len);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(DTYPE_X)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<DTYPE_X> padParams{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padParams);
        }
        inQueueX.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t len)
    {
        AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.DeQue<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_Y> yLocal = outQueueY.AllocTensor<DTYPE_Y>();
        AscendC::LocalTensor<float> xf = ToFloat(xLocal, xFloatBuf.Get<float>(), len);
        AscendC::LocalTensor<float> inner = innerBuf.Get<float>();
        AscendC::LocalTensor<float> th = tanhBuf.Get<float>();
        AscendC::LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
        AscendC::Mul(inner, xf, xf, len);                  // x^2
        AscendC::Mul(inner, inner, xf, len);               // x^3
        AscendC::Muls(inner, inner, GELU_COEF, len);       // 0.044715 x^3
        AscendC::Add(inner, inner, xf, len);               // x + 0.044715 x^3
        AscendC::Muls(inner, inner, SQRT_2_OVER_PI, len);
        AscendC::Tanh(th, inner, tmp, len);
        AscendC::Adds(th, th, 1.0f, len);
        AscendC::Mul(th, th, xf, len);
        ScaleToOutput(yLocal, th, 0.5f, len);
        outQueueY.EnQue<DTYPE_Y>(yLocal);
        inQueueX.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        AscendC::LocalTensor<DTYPE_Y> yLocal = outQueueY.DeQue<DTYPE_Y>();
        if (len == tileLength) {
            AscendC::DataCopy(yGm[progress * tileLength], yLocal, len);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(DTYPE_Y)), 0, 0, 0};
            AscendC::DataCopyPad(yGm[progress * tileLength], yLocal, copyParams);
        }
        outQueueY.FreeTensor(yLocal);
    }

    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xFloatBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> innerBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tanhBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf;
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_Y> yGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void gelu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(GeluCustomTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AscendC::TPipe pipe;
    KernelGelu op;
    op.Init(x, y, tilingData, &pipe);
    op.Process();
}
