// Heaviside step in the style of hand-written Ascend C kernels: y = 0 where x < 0, values where
// x == 0, 1 where x > 0, from CompareScalar + Select; the on-board debug calls (printf, DumpTensor of
// the first output tile, DumpAccChkPoint of its second 256 bytes) run in every block.
#include "kernel_operator.h"
#include "heaviside_custom_tiling.h"

constexpr int32_t BUFFER_NUM = 2;

class KernelHeaviside {
public:
    __aicore__ inline KernelHeaviside() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR values, GM_ADDR y, const HeavisideCustomTilingData& tiling,
                                AscendC::TPipe* pipe)
    {
        const uint32_t offset = static_cast<uint32_t>(AscendC::GetBlockIdx()) * tiling.blockLength;
        blockLength = offset >= tiling.totalLength ? 0 : tiling.totalLength - offset;
        blockLength = blockLength < tiling.blockLength ? blockLength : tiling.blockLength;
        tileLength = tiling.tileLength;
        xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x + offset, blockLength);
        vGm.SetGlobalBuffer((__gm__ DTYPE_X*)values + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ DTYPE_X*)y + offset, blockLength);
        pipe->InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(DTYPE_X));
        pipe->InitBuffer(inQueueV, BUFFER_NUM, tileLength * sizeof(DTYPE_X));
        pipe->InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(DTYPE_X));
        pipe->InitBuffer(oneBuf, tileLength * sizeof(DTYPE_X));
        pipe->InitBuffer(maskBuf, tileLength / 8);
        AscendC::printf("heaviside block %d: %u elements from %u\n", static_cast<int32_t>(AscendC::GetBlockIdx()),
                        blockLength, offset);
    }
    __aicore__ inline void Process()
    {
        AscendC::Duplicate(oneBuf.Get<DTYPE_X>(), static_cast<DTYPE_X>(1.0f), tileLength);
        for (uint32_t done = 0, i = 0; done < blockLength; done += tileLength, ++i) {
            const uint32_t len = blockLength - done < tileLength ? blockLength - done : tileLength;
            CopyIn(done, len);
            Compute(len, i);
            CopyOut(done, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t at, uint32_t len)
    {
        AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_X> vLocal = inQueueV.AllocTensor<DTYPE_X>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(DTYPE_X)), 0, 0, 0};
        AscendC::DataCopyPadExtParams<DTYPE_X> pad{false, 0, 0, 0};
        AscendC::DataCopyPad(xLocal, xGm[at], params, pad);
        AscendC::DataCopyPad(vLocal, vGm[at], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueV.EnQue(vLocal);
    }
    __aicore__ inline void Compute(uint32_t len, uint32_t tile)
    {
        AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.DeQue<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_X> vLocal = inQueueV.DeQue<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_X> yLocal = outQueueY.AllocTensor<DTYPE_X>();
        AscendC::LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
        // CompareScalar compares whole 256-byte blocks: round the count up (the tile holds them).
        constexpr uint32_t perRepeat = 256 / sizeof(DTYPE_X);
        const uint32_t cmpLen = (len + perRepeat - 1) / perRepeat * perRepeat;
        const DTYPE_X zero = static_cast<DTYPE_X>(0.0f);
        AscendC::CompareScalar(mask, xLocal, zero, AscendC::CMPMODE::GT, cmpLen);
        AscendC::Select(yLocal, mask, oneBuf.Get<DTYPE_X>(), zero, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, len);
        AscendC::CompareScalar(mask, xLocal, zero, AscendC::CMPMODE::EQ, cmpLen);
        AscendC::Select(yLocal, mask, vLocal, yLocal, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, len);
        if (tile == 0) {
            AscendC::DumpTensor(yLocal, 7, len < 8 ? len : 8);
            if (len > perRepeat) {
                AscendC::DumpAccChkPoint(xLocal, 8, perRepeat, 4);
            }
        }
        outQueueY.EnQue<DTYPE_X>(yLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueV.FreeTensor(vLocal);
    }
    __aicore__ inline void CopyOut(uint32_t at, uint32_t len)
    {
        AscendC::LocalTensor<DTYPE_X> yLocal = outQueueY.DeQue<DTYPE_X>();
        AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(DTYPE_X)), 0, 0, 0};
        AscendC::DataCopyPad(yGm[at], yLocal, params);
        outQueueY.FreeTensor(yLocal);
    }

    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueV;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueY;
    AscendC::TBuf<AscendC::TPosition::VECCALC> oneBuf;
    AscendC::TBuf<AscendC::TPosition::VECCALC> maskBuf;
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_X> vGm;
    AscendC::GlobalTensor<DTYPE_X> yGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void heaviside_custom(GM_ADDR x, GM_ADDR values, GM_ADDR y, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(HeavisideCustomTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AscendC::TPipe pipe;
    KernelHeaviside op;
    op.Init(x, values, y, tilingData, &pipe);
    op.Process();
}
