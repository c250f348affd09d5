// A hand-written msopgen project's kernel (opgen's test data for `opgen adopt`): each core
// adds its share of x and y in tileNum tiles of two buffers, the tiling read with
// GET_TILING_DATA from the host's macro-style TilingData.
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum)
    {
        share_ = totalLength / AscendC::GetBlockNum();
        tiles_ = tileNum * BUFFER_NUM;
        tileLength_ = share_ / tiles_;
        const uint32_t start = share_ * AscendC::GetBlockIdx();
        xGm_.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_X*>(x) + start, share_);
        yGm_.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Y*>(y) + start, share_);
        zGm_.SetGlobalBuffer(reinterpret_cast<__gm__ DTYPE_Z*>(z) + start, share_);
        pipe_.InitBuffer(xQueue_, BUFFER_NUM, tileLength_ * sizeof(DTYPE_X));
        pipe_.InitBuffer(yQueue_, BUFFER_NUM, tileLength_ * sizeof(DTYPE_Y));
        pipe_.InitBuffer(zQueue_, BUFFER_NUM, tileLength_ * sizeof(DTYPE_Z));
    }

    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tiles_; ++i) {
            AscendC::LocalTensor<DTYPE_X> x = xQueue_.AllocTensor<DTYPE_X>();
            AscendC::LocalTensor<DTYPE_Y> y = yQueue_.AllocTensor<DTYPE_Y>();
            AscendC::DataCopy(x, xGm_[i * tileLength_], tileLength_);
            AscendC::DataCopy(y, yGm_[i * tileLength_], tileLength_);
            xQueue_.EnQue(x);
            yQueue_.EnQue(y);
            x = xQueue_.DeQue<DTYPE_X>();
            y = yQueue_.DeQue<DTYPE_Y>();
            AscendC::LocalTensor<DTYPE_Z> z = zQueue_.AllocTensor<DTYPE_Z>();
            AscendC::Add(z, x, y, tileLength_);
            zQueue_.EnQue<DTYPE_Z>(z);
            xQueue_.FreeTensor(x);
            yQueue_.FreeTensor(y);
            z = zQueue_.DeQue<DTYPE_Z>();
            AscendC::DataCopy(zGm_[i * tileLength_], z, tileLength_);
            zQueue_.FreeTensor(z);
        }
    }

private:
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> xQueue_;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> yQueue_;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> zQueue_;
    AscendC::GlobalTensor<DTYPE_X> xGm_;
    AscendC::GlobalTensor<DTYPE_Y> yGm_;
    AscendC::GlobalTensor<DTYPE_Z> zGm_;
    uint32_t share_ = 0;
    uint32_t tiles_ = 0;
    uint32_t tileLength_ = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdd op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.tileNum);
    op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
// the launcher of the kernel-launch mode, for the NPU compiler only (CANN's CPU debug build,
// and so opgen's twin, leave it out)
void add_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint8_t* z, uint8_t* workspace,
                   uint8_t* tiling)
{
    add_custom<<<blockDim, nullptr, stream>>>(x, y, z, workspace, tiling);
}
#endif
