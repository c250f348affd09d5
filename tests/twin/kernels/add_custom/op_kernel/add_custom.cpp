#include "kernel_operator.h"
#include "add_custom_tiling.h"

constexpr int32_t BUFFER_NUM = 2;

class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const AddCustomTilingData& tiling,
                                AscendC::TPipe* pipe)
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
            blockLength = tiling.totalLength - offset;  // the last core ends at the tensor end
        }
        tileLength = tiling.tileLength;
        tileNum = blockLength / tileLength;
        lastTileLength = blockLength % tileLength;

        xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y*)y + offset, blockLength);
        zGm.SetGlobalBuffer((__gm__ DTYPE_Z*)z + offset, blockLength);
        pipe->InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(DTYPE_X));
        pipe->InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(DTYPE_Y));
        pipe->InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(DTYPE_Z));
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
        AscendC::LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();
        if (len == tileLength) {
            AscendC::DataCopy(xLocal, xGm[progress * tileLength], len);
            AscendC::DataCopy(yLocal, yGm[progress * tileLength], len);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(DTYPE_X)), 0, 0, 0};
            AscendC::DataCopyPadExtParams<DTYPE_X> padX{false, 0, 0, 0};
            AscendC::DataCopyPadExtParams<DTYPE_Y> padY{false, 0, 0, 0};
            AscendC::DataCopyPad(xLocal, xGm[progress * tileLength], copyParams, padX);
            AscendC::DataCopyPad(yLocal, yGm[progress * tileLength], copyParams, padY);
        }
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t len)
    {
        AscendC::LocalTensor<DTYPE_X> xLocal = inQueueX.DeQue<DTYPE_X>();
        AscendC::LocalTensor<DTYPE_Y> yLocal = inQueueY.DeQue<DTYPE_Y>();
        AscendC::LocalTensor<DTYPE_Z> zLocal = outQueueZ.AllocTensor<DTYPE_Z>();
        AscendC::Add(zLocal, xLocal, yLocal, len);
        outQueueZ.EnQue<DTYPE_Z>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t len)
    {
        AscendC::LocalTensor<DTYPE_Z> zLocal = outQueueZ.DeQue<DTYPE_Z>();
        if (len == tileLength) {
            AscendC::DataCopy(zGm[progress * tileLength], zLocal, len);
        } else {
            AscendC::DataCopyExtParams copyParams{1, static_cast<uint32_t>(len * sizeof(DTYPE_Z)), 0, 0, 0};
            AscendC::DataCopyPad(zGm[progress * tileLength], zLocal, copyParams);
        }
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<DTYPE_X> xGm;
    AscendC::GlobalTensor<DTYPE_Y> yGm;
    AscendC::GlobalTensor<DTYPE_Z> zGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    uint32_t tileNum = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(AddCustomTilingData);
    GET_TILING_DATA(tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AscendC::TPipe pipe;
    KernelAdd op;
    op.Init(x, y, z, tilingData, &pipe);
    op.Process();
}
