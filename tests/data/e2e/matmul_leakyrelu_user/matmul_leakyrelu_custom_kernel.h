// MatmulLeakyreluCustom kernel, hand-written in the style of the Ascend C matmul samples: the
// Matmul API computes a @ b + bias on the cube unit block by block (Iterate); each block comes
// into UB (GetTensorC, its rows 32-byte aligned: ND_ALIGN), gets the leaky ReLU on the vector
// unit and goes out to c. Each vector core takes one singleCoreM x singleCoreN block of c
// (SetTail at the edges).
#ifndef MATMUL_LEAKYRELU_CUSTOM_KERNEL_H
#define MATMUL_LEAKYRELU_CUSTOM_KERNEL_H

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "matmul_leakyrelu_custom_tiling.h"

#define MATMUL_LEAKYRELU_CUSTOM_KERNEL_TYPE KERNEL_TYPE_MIX_AIC_1_2

class KernelMatmulLeakyreluCustom {
public:
    using AType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
    using BType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half>;
    using CType = matmul::MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND_ALIGN, float>;
    using BiasType = matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float>;

    __aicore__ inline KernelMatmulLeakyreluCustom() {}

    __aicore__ inline void Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR workspace,
                                const MatmulLeakyreluCustomTilingData& tiling)
    {
        (void)workspace;
        tiling_ = tiling;
        const AscendC::tiling::TCubeTiling& t = tiling_.cubeTiling;
        const uint32_t mCores = Ceil(t.M, t.singleCoreM);
        const uint32_t idx = AscendC::GetBlockIdx();
        active_ = idx < static_cast<uint32_t>(t.usedCoreNum) && idx < mCores * Ceil(t.N, t.singleCoreN);
        if (!active_) {
            return;
        }
        const uint32_t m0 = (idx % mCores) * t.singleCoreM;
        const uint32_t n0 = (idx / mCores) * t.singleCoreN;
        rows_ = Min(t.singleCoreM, t.M - m0);
        cols_ = Min(t.singleCoreN, t.N - n0);
        aGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(a) + m0 * t.Ka);
        bGm_.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(b) + n0);
        biasGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(bias) + n0);
        cGm_.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(c) + m0 * t.N + n0);
        pipe_.InitBuffer(cQueue_, 1, t.baseM * t.baseN * sizeof(float));
        pipe_.InitBuffer(tmp_, t.baseM * t.baseN * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        // Registered here, whose scope covers every Matmul call, and on every core: the cube core
        // serves the vector cores and returns from Process(); each vector core's client lives until
        // Process() ends (registered in Init(), it would tell the cube core to stop when Init() returns).
        REGIST_MATMUL_OBJ(&pipe_, GetSysWorkSpacePtr(), mm_, &tiling_.cubeTiling);
        if (!active_) {
            return;
        }
        const AscendC::tiling::TCubeTiling& t = tiling_.cubeTiling;
        mm_.SetTensorA(aGm_);
        mm_.SetTensorB(bGm_);
        mm_.SetBias(biasGm_);
        mm_.SetTail(rows_, cols_);
        const uint32_t mBlocks = Ceil(rows_, t.baseM);
        const uint32_t nBlocks = Ceil(cols_, t.baseN);
        for (uint32_t i = 0; mm_.template Iterate<true>(); ++i) {
            // the block's place: ORDER_M (0) goes down M first, ORDER_N across N first
            const uint32_t mi = t.iterateOrder == 0 ? i % mBlocks : i / nBlocks;
            const uint32_t ni = t.iterateOrder == 0 ? i / mBlocks : i % nBlocks;
            const uint32_t rows = Min(t.baseM, rows_ - mi * t.baseM);
            const uint32_t cols = Min(t.baseN, cols_ - ni * t.baseN);
            AscendC::LocalTensor<float> block = cQueue_.AllocTensor<float>();
            mm_.template GetTensorC<true>(block, false, true);
            cQueue_.EnQue(block);
            block = cQueue_.DeQue<float>();
            // the block's rows, AlignUp(cols, 8) floats apart: one pass over them all
            const uint32_t count = rows * AlignUp(cols, FLOATS_PER_BLOCK);
            AscendC::LocalTensor<float> scaled = tmp_.Get<float>();
            AscendC::Muls(scaled, block, tiling_.alpha, count);  // leaky_relu(x) = max(x, alpha * x)
            AscendC::Max(block, block, scaled, count);
            // the vector unit's result out by MTE3, and MTE3 done before the vector unit writes again
            const int32_t vToMte3 = static_cast<int32_t>(pipe_.FetchEventID(AscendC::HardEvent::V_MTE3));
            AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(vToMte3);
            AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(vToMte3);
            // rows of `cols` floats to c's rows, N apart
            const uint32_t gmGap = (t.N - cols) * sizeof(float);
            AscendC::DataCopyExtParams out{static_cast<uint16_t>(rows),
                                           static_cast<uint32_t>(cols * sizeof(float)), 0, gmGap, 0};
            AscendC::DataCopyPad(cGm_[mi * t.baseM * t.N + ni * t.baseN], block, out);
            const int32_t mte3ToV = static_cast<int32_t>(pipe_.FetchEventID(AscendC::HardEvent::MTE3_V));
            AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(mte3ToV);
            AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(mte3ToV);
            cQueue_.FreeTensor(block);
        }
        mm_.End();
    }

private:
    static constexpr uint32_t FLOATS_PER_BLOCK = 8;  // 32 bytes

    __aicore__ static inline uint32_t Ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
    __aicore__ static inline uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }
    __aicore__ static inline uint32_t AlignUp(uint32_t a, uint32_t b) { return Ceil(a, b) * b; }

    AscendC::TPipe pipe_;
    matmul::Matmul<AType, BType, CType, BiasType> mm_;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> cQueue_;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmp_;
    AscendC::GlobalTensor<half> aGm_;
    AscendC::GlobalTensor<half> bGm_;
    AscendC::GlobalTensor<float> biasGm_;
    AscendC::GlobalTensor<float> cGm_;
    MatmulLeakyreluCustomTilingData tiling_;
    uint32_t rows_ = 0;
    uint32_t cols_ = 0;
    bool active_ = false;
};

#endif  // MATMUL_LEAKYRELU_CUSTOM_KERNEL_H
