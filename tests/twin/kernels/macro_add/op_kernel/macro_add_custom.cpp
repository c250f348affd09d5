// MacroAddCustom's kernel, as in an msopgen project with macro tiling: it includes only
// kernel_operator.h; GET_TILING_DATA gives the struct CANN's build generates from
// op_host/macro_add_custom_tiling.h (MacroAddTilingData).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t QUEUE_DEPTH = 2;

class KernelMacroAdd {
public:
    __aicore__ inline KernelMacroAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const MacroAddTilingData& t,
                                const MacroAddTileInfo& tile)
    {
        ASSERT(tile.bufferNum >= 1 && tile.bufferNum <= QUEUE_DEPTH);
        const uint32_t idx = static_cast<uint32_t>(GetBlockIdx());
        uint32_t offset;
        if (idx < t.formerNum) {
            blockLength = t.coreLength[0];
            offset = idx * t.coreLength[0];
            tileNum = t.tileNum;
        } else {
            blockLength = t.coreLength[1];
            offset = t.formerNum * t.coreLength[0] + (idx - t.formerNum) * t.coreLength[1];
            tileNum = 0;
        }
        if (offset >= t.totalLength) {
            blockLength = 0;
        } else if (offset + blockLength > t.totalLength) {
            blockLength = t.totalLength - offset;
        }
        tileLength = tile.tileLength;
        if (tileNum == 0) tileNum = (blockLength + tileLength - 1) / tileLength;
        alpha = t.alpha;
        reserved = t.reserved;
        xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ DTYPE_Y*)y + offset, blockLength);
        zGm.SetGlobalBuffer((__gm__ DTYPE_Z*)z + offset, blockLength);
        pipe.InitBuffer(inQueueX, tile.bufferNum, tileLength * sizeof(DTYPE_X));
        pipe.InitBuffer(inQueueY, tile.bufferNum, tileLength * sizeof(DTYPE_Y));
        pipe.InitBuffer(outQueueZ, tile.bufferNum, tileLength * sizeof(DTYPE_Z));
    }
    __aicore__ inline void Process(bool scaled)
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            const uint32_t start = i * tileLength;
            if (start >= blockLength) break;
            const uint32_t len = blockLength - start < tileLength ? blockLength - start : tileLength;
            CopyIn(start, len);
            Compute(len, scaled);
            CopyOut(start, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t start, uint32_t len)
    {
        LocalTensor<DTYPE_X> xLocal = inQueueX.AllocTensor<DTYPE_X>();
        LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(DTYPE_X)), 0, 0, 0};
        DataCopyPad(xLocal, xGm[start], params, DataCopyPadExtParams<DTYPE_X>{false, 0, 0, 0});
        DataCopyPad(yLocal, yGm[start], params, DataCopyPadExtParams<DTYPE_Y>{false, 0, 0, 0});
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t len, bool scaled)
    {
        LocalTensor<DTYPE_X> xLocal = inQueueX.DeQue<DTYPE_X>();
        LocalTensor<DTYPE_Y> yLocal = inQueueY.DeQue<DTYPE_Y>();
        LocalTensor<DTYPE_Z> zLocal = outQueueZ.AllocTensor<DTYPE_Z>();
        if (scaled) {
            Muls(yLocal, yLocal, static_cast<DTYPE_Y>(alpha), len);
        }
        Add(zLocal, xLocal, yLocal, len);
        if (reserved != 0) {
            Adds(zLocal, zLocal, static_cast<DTYPE_Z>(reserved), len);
        }
        outQueueZ.EnQue<DTYPE_Z>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t start, uint32_t len)
    {
        LocalTensor<DTYPE_Z> zLocal = outQueueZ.DeQue<DTYPE_Z>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(DTYPE_Z)), 0, 0, 0};
        DataCopyPad(zGm[start], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, QUEUE_DEPTH> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, QUEUE_DEPTH> outQueueZ;
    GlobalTensor<DTYPE_X> xGm;
    GlobalTensor<DTYPE_Y> yGm;
    GlobalTensor<DTYPE_Z> zGm;
    uint32_t blockLength = 0;
    uint32_t tileNum = 0;
    uint32_t tileLength = 0;
    float alpha = 1.0f;
    uint8_t reserved = 0;
};

extern "C" __global__ __aicore__ void macro_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                       GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    GET_TILING_DATA_MEMBER(MacroAddTilingData, tile, tileInfo, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelMacroAdd op;
    op.Init(x, y, z, tilingData, tileInfo);
    if (TILING_KEY_IS(1)) {
        op.Process(false);
    } else if (TILING_KEY_IS(2)) {
        op.Process(true);
    }
}
