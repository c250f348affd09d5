// opgen CPU twin: op_frame/elemwise_frame.h, the deprecated elementwise pipeline frame of
// asc-devkit (include/basic_api/op_frame/elemwise_frame.h), which older hand-written kernels
// derive from. The twin's own implementation of its documented behaviour:
// - ElemwiseOpBase holds a TPipe, an input and an output queue of depth 2, and a TBuf at LCM;
//   Init(loop, vecInLen, lcmLen, vecOutLen) sizes them and sets how many pieces each of the three
//   stages runs (copy in, compute, copy out);
// - ElemwiseFrame<Op>::Process() runs the pieces through Op's MyCopyIn(progress, inBuf),
//   MyCompute(progress, inBuf, outBuf) and MyCopyOut(progress, outBuf), each piece's buffers
//   passing through the queues. The NPU interleaves the stages of successive pieces (double
//   buffering); the twin runs each piece's three stages in turn, which computes the same result.
#ifndef OPGEN_TWIN_OP_FRAME_ELEMWISE_FRAME_H
#define OPGEN_TWIN_OP_FRAME_ELEMWISE_FRAME_H

#include "kernel_operator.h"

namespace AscendC {

class ElemwiseOpBase {
public:
    ElemwiseOpBase() {}

    void Init(int32_t loop, int32_t vecInLen, int32_t lcmLen, int32_t vecOutLen)
    {
        pieces_ = loop;
        pipe.InitBuffer(inQueue, 2, vecInLen);
        pipe.InitBuffer(outQueue, 2, vecOutLen);
        if (lcmLen > 0) {
            pipe.InitBuffer(tbuf, lcmLen);
        }
    }

protected:
    int32_t pieces_ = 0;
    TPipe pipe;
    TBuf<TPosition::LCM> tbuf;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 2> outQueue;
};

template <class Op>
class ElemwiseFrame : public Op {
public:
    ElemwiseFrame() {}

    void Process()
    {
        using T = typename Op::DType;
        for (int32_t progress = 0; progress < Op::pieces_; ++progress) {
            LocalTensor<T> in = Op::inQueue.template AllocTensor<T>();
            Op::MyCopyIn(progress, in);
            Op::inQueue.EnQue(in);

            in = Op::inQueue.template DeQue<T>();
            LocalTensor<T> out = Op::outQueue.template AllocTensor<T>();
            Op::MyCompute(progress, in, out);
            Op::outQueue.EnQue(out);
            Op::inQueue.FreeTensor(in);

            out = Op::outQueue.template DeQue<T>();
            Op::MyCopyOut(progress, out);
            Op::outQueue.FreeTensor(out);
        }
    }
};

}  // namespace AscendC

#endif  // OPGEN_TWIN_OP_FRAME_ELEMWISE_FRAME_H
