// A mixed cube/vector kernel in the style of asc-devkit's matmul_leakyrelu sample: the Matmul
// high-level API computes C = A * B (+ bias) block by block on the cube unit; mode 0 takes each
// baseM x baseN block into UB (GetTensorC), applies LeakyReLU on the vector unit and copies it out;
// mode 1 writes the whole product with IterateAll. Cores split M and N by singleCoreM/N, with
// SetTail at the edges. Modes 2 to 4 register the Matmul object where the NPU would hang (tests).
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "matmul_leaky_custom_tiling.h"

using namespace matmul;

template <typename AT, typename CT, typename BiasT>
class MatmulLeakyKernel {
public:
    using AType = MatmulType<AscendC::TPosition::GM, CubeFormat::ND, AT, true>;
    using BType = MatmulType<AscendC::TPosition::GM, CubeFormat::ND, AT, true>;
    using BiasType = MatmulType<AscendC::TPosition::GM, CubeFormat::ND, BiasT>;
    // Blocks into UB, rows padded to 32 bytes so that tails copy out with DataCopyPad.
    Matmul<AType, BType, MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND_ALIGN, CT>, BiasType> mmUb;
    Matmul<AType, BType, MatmulType<AscendC::TPosition::GM, CubeFormat::ND, CT>, BiasType> mmGm;

    __aicore__ inline bool Init(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, const MatmulLeakyCustomTilingData& t)
    {
        td = t;
        const TCubeTiling& tiling = td.cubeTiling;
        const int32_t idx = static_cast<int32_t>(AscendC::GetBlockIdx());
        if (idx >= tiling.usedCoreNum) {
            return false;
        }
        const int32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
        const int32_t mCore = idx % mBlocks;
        const int32_t nCore = idx / mBlocks;
        rowOff = mCore * tiling.singleCoreM;
        colOff = nCore * tiling.singleCoreN;
        const int32_t offA = td.transA ? rowOff : rowOff * tiling.Ka;
        const int32_t offB = td.transB ? colOff * tiling.Kb : colOff;
        aGm.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(a), static_cast<uint64_t>(tiling.M) * tiling.Ka);
        bGm.SetGlobalBuffer(reinterpret_cast<__gm__ AT*>(b), static_cast<uint64_t>(tiling.Kb) * tiling.N);
        biasGm.SetGlobalBuffer(reinterpret_cast<__gm__ BiasT*>(bias), tiling.N);
        cGm.SetGlobalBuffer(reinterpret_cast<__gm__ CT*>(c), static_cast<uint64_t>(tiling.M) * tiling.N);
        aGm = aGm[offA];
        bGm = bGm[offB];
        biasGm = biasGm[colOff];
        tailM = tiling.M - rowOff < tiling.singleCoreM ? tiling.M - rowOff : tiling.singleCoreM;
        tailN = tiling.N - colOff < tiling.singleCoreN ? tiling.N - colOff : tiling.singleCoreN;
        return true;
    }

    template <class MM>
    __aicore__ inline void Bind(MM& mm)
    {
        mm.SetTensorA(aGm, td.transA != 0);
        mm.SetTensorB(bGm, td.transB != 0);
        if (td.hasBias) {
            mm.SetBias(biasGm);
        } else {
            mm.DisableBias();
        }
        if (tailM < td.cubeTiling.singleCoreM || tailN < td.cubeTiling.singleCoreN) {
            mm.SetTail(tailM, tailN);
        }
    }

    __aicore__ inline void ProcessAll()
    {
        Bind(mmGm);
        mmGm.IterateAll(cGm[static_cast<uint64_t>(rowOff) * td.cubeTiling.N + colOff]);
        mmGm.End();
    }

    __aicore__ inline void ProcessEpilogue(AscendC::TPipe* pipe)
    {
        const TCubeTiling& tiling = td.cubeTiling;
        constexpr uint32_t c0 = 32 / sizeof(CT);
        const uint32_t tileElems = tiling.baseM * ((tiling.baseN + c0 - 1) / c0 * c0);
        pipe->InitBuffer(mmOutQueue, 1, tileElems * sizeof(CT));
        pipe->InitBuffer(outQueue, 1, tileElems * sizeof(CT));
        if constexpr (std::is_same<CT, bfloat16_t>::value) {
            pipe->InitBuffer(tmpBuf, tileElems * 2 * sizeof(float));
        }
        Bind(mmUb);
        const uint32_t mIter = (tailM + tiling.baseM - 1) / tiling.baseM;
        const uint32_t nIter = (tailN + tiling.baseN - 1) / tiling.baseN;
        uint32_t round = 0;
        while (mmUb.template Iterate<true>()) {
            // The block's place: iterateOrder 0 walks M first, 1 N first (stepM = stepN = 1).
            const uint32_t bm = tiling.iterateOrder == 0 ? round % mIter : round / nIter;
            const uint32_t bn = tiling.iterateOrder == 0 ? round / mIter : round % nIter;
            const uint32_t rows = (bm + 1) * tiling.baseM <= static_cast<uint32_t>(tailM) ? tiling.baseM : tailM - bm * tiling.baseM;
            const uint32_t cols = (bn + 1) * tiling.baseN <= static_cast<uint32_t>(tailN) ? tiling.baseN : tailN - bn * tiling.baseN;
            const uint32_t colsAligned = (cols + c0 - 1) / c0 * c0;
            AscendC::LocalTensor<CT> mmOut = mmOutQueue.AllocTensor<CT>();
            mmUb.template GetTensorC<true>(mmOut, false, true);
            mmOutQueue.EnQue(mmOut);
            mmOut = mmOutQueue.DeQue<CT>();
            AscendC::LocalTensor<CT> out = outQueue.AllocTensor<CT>();
            const int32_t count = static_cast<int32_t>(rows * colsAligned);
            if constexpr (std::is_same<CT, bfloat16_t>::value) {
                AscendC::LocalTensor<float> f = tmpBuf.Get<float>();
                AscendC::LocalTensor<float> g = f[tileElems];
                AscendC::Cast(f, mmOut, AscendC::RoundMode::CAST_NONE, count);
                AscendC::LeakyRelu(g, f, td.alpha, count);
                AscendC::Cast(out, g, AscendC::RoundMode::CAST_RINT, count);
            } else {
                AscendC::LeakyRelu(out, mmOut, static_cast<CT>(td.alpha), count);
            }
            outQueue.EnQue(out);
            out = outQueue.DeQue<CT>();
            mmOutQueue.FreeTensor(mmOut);
            const uint64_t cOff = static_cast<uint64_t>(rowOff + bm * tiling.baseM) * tiling.N + colOff + bn * tiling.baseN;
            AscendC::DataCopyExtParams p{static_cast<uint16_t>(rows), static_cast<uint32_t>(cols * sizeof(CT)), 0,
                                         static_cast<uint32_t>((tiling.N - cols) * sizeof(CT)), 0};
            AscendC::DataCopyPad(cGm[cOff], out, p);
            outQueue.FreeTensor(out);
            ++round;
        }
        mmUb.End();
    }

    MatmulLeakyCustomTilingData td;

private:
    AscendC::GlobalTensor<AT> aGm;
    AscendC::GlobalTensor<AT> bGm;
    AscendC::GlobalTensor<BiasT> biasGm;
    AscendC::GlobalTensor<CT> cGm;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> mmOutQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf;
    int32_t rowOff = 0, colOff = 0, tailM = 0, tailN = 0;
};

// Misuse, for the tests: REGIST_MATMUL_OBJ in a helper. On the AIC it returns from here; on an AIV
// its client ends here, and the cube core with it.
template <class Kernel>
__aicore__ inline void RegistInHelper(AscendC::TPipe& pipe, Kernel& op, const MatmulLeakyCustomTilingData& t)
{
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mmUb, &t.cubeTiling);
}

// Misuse, for the tests: mode 2, the registration in a helper; mode 3, on the AIVs only (nothing
// serves them); mode 4, an AIV that returns before it (its AIC waits for its quit).
template <class Kernel>
__aicore__ inline void RunMisregistered(AscendC::TPipe& pipe, Kernel& op, const MatmulLeakyCustomTilingData& t,
                                        GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c)
{
    if (t.mode == 2) {
        RegistInHelper(pipe, op, t);
        if (op.Init(a, b, bias, c, t)) {
            op.ProcessEpilogue(&pipe);
        }
        return;
    }
    if ASCEND_IS_AIC {
        if (t.mode == 3) {
            return;
        }
    } else if (t.mode == 4 && AscendC::GetBlockIdx() == 1) {
        return;
    }
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mmUb, &t.cubeTiling);
    if (op.Init(a, b, bias, c, t)) {
        op.ProcessEpilogue(&pipe);
    }
}

extern "C" __global__ __aicore__ void matmul_leaky_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                                          GM_ADDR workspace, GM_ADDR tiling)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    REGISTER_TILING_DEFAULT(MatmulLeakyCustomTilingData);
    GET_TILING_DATA(tilingData, tiling);
    AscendC::TPipe pipe;
    MatmulLeakyKernel<DTYPE_A, DTYPE_C, DTYPE_BIAS> op;
    if (tilingData.mode == 0) {
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mmUb, &tilingData.cubeTiling);
        if (op.Init(a, b, bias, c, tilingData)) {
            op.ProcessEpilogue(&pipe);
        }
    } else if (tilingData.mode == 1) {
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), op.mmGm, &tilingData.cubeTiling);
        if (op.Init(a, b, bias, c, tilingData)) {
            op.ProcessAll();
        }
    } else {
        RunMisregistered(pipe, op, tilingData, a, b, bias, c);
    }
}
