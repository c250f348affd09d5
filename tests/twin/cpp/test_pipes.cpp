// The pipe check (opgen_twin/detail/pipes.h): the single- and double-buffer static-tensor Add
// kernels of asc-devkit's 静态Tensor编程.md (同步管理, 流水优化) as the guide writes them pass, and
// with any one of their events left out they fail naming the two calls and the missing event;
// TQue kernels are ordered by EnQue/DeQue/AllocTensor/FreeTensor, TBuf kernels are not; a
// GetValue of a vector result needs V_S when the compiler's auto sync is off.
// Sections: static, tque, scalar; "MSG name: ..." lines carry the messages for test_pipes.py.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "kernel_check.h"
#include "kernel_operator.h"

namespace {

using opgen_twin::detail::kPipeCheckOn;
using opgen_twin::detail::kPipeCheckScalarToo;
using opgen_twin::detail::SetPipeCheck;

constexpr uint32_t MAX_DATA_COPY_LEN = 256;  // half elements per tile (512 bytes)
constexpr uint32_t kTiles = 4;
constexpr uint32_t kTotal = MAX_DATA_COPY_LEN * kTiles;

// The guide's events, each of which a case may leave out (every SetFlag and WaitFlag of it).
struct Events {
    std::string drop;
    bool Has(const char* e) const { return drop != e; }
};

struct Gm {
    std::vector<half> x, y, z;
    Gm() : x(kTotal), y(kTotal), z(kTotal, half(0.0f))
    {
        for (uint32_t i = 0; i < kTotal; ++i) {
            x[i] = half(static_cast<float>(i % 97));
            y[i] = half(static_cast<float>(i % 13) * 0.5f);
        }
    }
    bool Right() const
    {
        for (uint32_t i = 0; i < kTotal; ++i) {
            if (static_cast<float>(z[i]) != static_cast<float>(x[i]) + static_cast<float>(y[i])) return false;
        }
        return true;
    }
};

// 静态Tensor编程.md, 同步管理: one buffer per tensor.
void StaticAddSingle(Gm& gm, const Events& ev)
{
    AscendC::InitSocState();
    AscendC::GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer(gm.x.data(), kTotal);
    yGm.SetGlobalBuffer(gm.y.data(), kTotal);
    zGm.SetGlobalBuffer(gm.z.data(), kTotal);
    const uint32_t xAddr = 0, yAddr = MAX_DATA_COPY_LEN * 2, zAddr = MAX_DATA_COPY_LEN * 4;
    AscendC::LocalTensor<half> xLocal(AscendC::TPosition::VECCALC, xAddr, MAX_DATA_COPY_LEN);
    AscendC::LocalTensor<half> yLocal(AscendC::TPosition::VECCALC, yAddr, MAX_DATA_COPY_LEN);
    AscendC::LocalTensor<half> zLocal(AscendC::TPosition::VECCALC, zAddr, MAX_DATA_COPY_LEN);
    const uint32_t totalBlocks = kTiles, dataCopyLen = MAX_DATA_COPY_LEN, totalElementsPerCore = kTotal;
    for (uint32_t loopIdx = 0; loopIdx < totalBlocks; loopIdx++) {
        uint32_t startElement = loopIdx * dataCopyLen;
        uint32_t remainElements = totalElementsPerCore - startElement;
        uint32_t curLen = remainElements > dataCopyLen ? dataCopyLen : remainElements;
        if (loopIdx != 0 && ev.Has("V_MTE2")) AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
        AscendC::DataCopy(xLocal, xGm[startElement], curLen);
        AscendC::DataCopy(yLocal, yGm[startElement], curLen);
        if (ev.Has("MTE2_V")) AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        if (ev.Has("MTE2_V")) AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        if (loopIdx != 0 && ev.Has("MTE3_V")) AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0);
        AscendC::Add(zLocal, xLocal, yLocal, curLen);
        if (loopIdx != (totalBlocks - 1) && ev.Has("V_MTE2")) AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
        if (ev.Has("V_MTE3")) AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        if (ev.Has("V_MTE3")) AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::DataCopy(zGm[startElement], zLocal, curLen);
        if (loopIdx != (totalBlocks - 1) && ev.Has("MTE3_V")) AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0);
    }
    AscendC::PipeBarrier<PIPE_ALL>();
}

// 静态Tensor编程.md, 流水优化: ping-pong buffers, the backward events set ahead of the loop.
void StaticAddDouble(Gm& gm, const Events& ev)
{
    AscendC::InitSocState();
    AscendC::GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer(gm.x.data(), kTotal);
    yGm.SetGlobalBuffer(gm.y.data(), kTotal);
    zGm.SetGlobalBuffer(gm.z.data(), kTotal);
    const uint32_t tile = MAX_DATA_COPY_LEN * 2;
    AscendC::LocalTensor<half> xPing(AscendC::TPosition::VECCALC, 0 * tile, MAX_DATA_COPY_LEN);
    AscendC::LocalTensor<half> yPing(AscendC::TPosition::VECCALC, 1 * tile, MAX_DATA_COPY_LEN);
    AscendC::LocalTensor<half> zPing(AscendC::TPosition::VECCALC, 2 * tile, MAX_DATA_COPY_LEN);
    AscendC::LocalTensor<half> xPong(AscendC::TPosition::VECCALC, 3 * tile, MAX_DATA_COPY_LEN);
    AscendC::LocalTensor<half> yPong(AscendC::TPosition::VECCALC, 4 * tile, MAX_DATA_COPY_LEN);
    AscendC::LocalTensor<half> zPong(AscendC::TPosition::VECCALC, 5 * tile, MAX_DATA_COPY_LEN);
    const uint32_t totalBlocks = kTiles, dataCopyLen = MAX_DATA_COPY_LEN, totalElementsPerCore = kTotal;
    const bool vMte2 = ev.Has("V_MTE2"), mte3V = ev.Has("MTE3_V"), mte2V = ev.Has("MTE2_V"), vMte3 = ev.Has("V_MTE3");
    if (vMte2) AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
    if (vMte2) AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID1);
    if (mte3V) AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0);
    if (mte3V) AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID1);
    for (uint32_t loopIdx = 0; loopIdx < totalBlocks; loopIdx++) {
        uint32_t startElement = loopIdx * dataCopyLen;
        uint32_t remainElements = totalElementsPerCore - startElement;
        uint32_t curLen = remainElements > dataCopyLen ? dataCopyLen : remainElements;
        int32_t eventID = ((loopIdx & 1) == 0 ? EVENT_ID0 : EVENT_ID1);
        AscendC::LocalTensor<half>& xLocal = ((loopIdx & 1) == 0 ? xPing : xPong);
        AscendC::LocalTensor<half>& yLocal = ((loopIdx & 1) == 0 ? yPing : yPong);
        AscendC::LocalTensor<half>& zLocal = ((loopIdx & 1) == 0 ? zPing : zPong);
        if (vMte2) AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(eventID);
        AscendC::DataCopy(xLocal, xGm[startElement], curLen);
        AscendC::DataCopy(yLocal, yGm[startElement], curLen);
        if (mte2V) AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(eventID);
        if (mte2V) AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(eventID);
        if (mte3V) AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(eventID);
        AscendC::Add(zLocal, xLocal, yLocal, curLen);
        if (vMte2) AscendC::SetFlag<AscendC::HardEvent::V_MTE2>(eventID);
        if (vMte3) AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(eventID);
        if (vMte3) AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(eventID);
        AscendC::DataCopy(zGm[startElement], zLocal, curLen);
        if (mte3V) AscendC::SetFlag<AscendC::HardEvent::MTE3_V>(eventID);
    }
    if (vMte2) AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID0);
    if (vMte2) AscendC::WaitFlag<AscendC::HardEvent::V_MTE2>(EVENT_ID1);
    if (mte3V) AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID0);
    if (mte3V) AscendC::WaitFlag<AscendC::HardEvent::MTE3_V>(EVENT_ID1);
    AscendC::PipeBarrier<PIPE_ALL>();
}

// What the message must name when `drop` is left out: the two calls (first, then second) and the event.
struct Expect {
    const char* drop;
    const char* first;
    const char* second;
};
const Expect kExpect[] = {
    {"MTE2_V", "DataCopy(GM->UB) (MTE2)", "Add (V)"},
    {"V_MTE3", "Add (V)", "DataCopy(UB->GM) (MTE3)"},
    {"V_MTE2", "Add (V)", "DataCopy(GM->UB) (MTE2)"},
    {"MTE3_V", "DataCopy(UB->GM) (MTE3)", "Add (V)"},
};

void RunStaticCases(const char* name, void (*kernel)(Gm&, const Events&))
{
    SetPipeCheck(kPipeCheckOn);
    Gm ok;
    ExpectOk(name, [&] { kernel(ok, Events{}); });
    CHECK(ok.Right(), "%s: z != x + y", name);
    for (const Expect& e : kExpect) {
        const std::string case_name = std::string(name) + "_without_" + e.drop;
        const std::string event = std::string("HardEvent::") + e.drop + ">";
        const std::string between = std::string("between ") + e.first + " and " + e.second;
        SetPipeCheck(kPipeCheckOn);
        Gm gm;
        ExpectHw(case_name.c_str(), [&] { kernel(gm, Events{e.drop}); },
                 {"pipe hazard", event.c_str(), between.c_str(), "the static tensors' UB"});
    }
    // The check off: the same kernel runs in program order and computes the right sum.
    SetPipeCheck(opgen_twin::detail::kPipeCheckOff);
    Gm off;
    ExpectOk((std::string(name) + "_check_off").c_str(), [&] { kernel(off, Events{"MTE2_V"}); });
}

void SectionStatic()
{
    RunStaticCases("single", StaticAddSingle);
    RunStaticCases("double", StaticAddDouble);
}

// The TQue Add of the samples (add_tpipe_tque): the queues order every pipe; with TBufs instead,
// the copy in and the Add are not ordered, and PipeBarrier<PIPE_ALL> orders them.
void QueAdd(Gm& gm, bool tbuf, bool barrier)
{
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inX, inY;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> bx, by;
    pipe.InitBuffer(inX, 2, MAX_DATA_COPY_LEN * 2);
    pipe.InitBuffer(inY, 2, MAX_DATA_COPY_LEN * 2);
    pipe.InitBuffer(outZ, 2, MAX_DATA_COPY_LEN * 2);
    pipe.InitBuffer(bx, MAX_DATA_COPY_LEN * 2);
    pipe.InitBuffer(by, MAX_DATA_COPY_LEN * 2);
    AscendC::GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer(gm.x.data(), kTotal);
    yGm.SetGlobalBuffer(gm.y.data(), kTotal);
    zGm.SetGlobalBuffer(gm.z.data(), kTotal);
    for (uint32_t i = 0; i < kTiles; ++i) {
        AscendC::LocalTensor<half> x = tbuf ? bx.Get<half>() : inX.AllocTensor<half>();
        AscendC::LocalTensor<half> y = tbuf ? by.Get<half>() : inY.AllocTensor<half>();
        AscendC::DataCopy(x, xGm[i * MAX_DATA_COPY_LEN], MAX_DATA_COPY_LEN);
        AscendC::DataCopy(y, yGm[i * MAX_DATA_COPY_LEN], MAX_DATA_COPY_LEN);
        if (!tbuf) {
            inX.EnQue(x);
            inY.EnQue(y);
            x = inX.DeQue<half>();
            y = inY.DeQue<half>();
        }
        if (barrier) AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::LocalTensor<half> z = outZ.AllocTensor<half>();
        AscendC::Add(z, x, y, MAX_DATA_COPY_LEN);
        outZ.EnQue(z);
        if (!tbuf) {
            inX.FreeTensor(x);
            inY.FreeTensor(y);
        }
        z = outZ.DeQue<half>();
        AscendC::DataCopy(zGm[i * MAX_DATA_COPY_LEN], z, MAX_DATA_COPY_LEN);
        outZ.FreeTensor(z);
        if (barrier) AscendC::PipeBarrier<PIPE_ALL>();
    }
}

// 关键特性说明.md, 反例2: x is EnQue'd but not DeQue'd, so nothing waits for its MTE2_V. (y's
// DeQue waits for everything MTE2 did before y's EnQue, so x is copied in after y here: with x
// first, y's event would order x's copy too, as on the NPU.)
void QueAddWithoutDeQue()
{
    std::vector<float> xs(64, 1.0f), ys(64, 2.0f), zs(64, 0.0f);
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer(xs.data(), 64);
    yGm.SetGlobalBuffer(ys.data(), 64);
    zGm.SetGlobalBuffer(zs.data(), 64);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inX, inY;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outZ;
    pipe.InitBuffer(inX, 1, 64 * sizeof(float));
    pipe.InitBuffer(inY, 1, 64 * sizeof(float));
    pipe.InitBuffer(outZ, 1, 64 * sizeof(float));
    AscendC::LocalTensor<float> xLocal = inX.AllocTensor<float>();
    AscendC::LocalTensor<float> yLocal = inY.AllocTensor<float>();
    AscendC::DataCopy(yLocal, yGm, 64);
    inY.EnQue(yLocal);
    AscendC::DataCopy(xLocal, xGm, 64);
    inX.EnQue(xLocal);
    yLocal = inY.DeQue<float>();
    AscendC::LocalTensor<float> zLocal = outZ.AllocTensor<float>();
    AscendC::Add(zLocal, xLocal, yLocal, 64);
}

void SectionTque()
{
    SetPipeCheck(kPipeCheckOn);
    ExpectHw("tque_without_DeQue", QueAddWithoutDeQue,
             {"HardEvent::MTE2_V> between DataCopy(GM->UB) (MTE2) and Add (V)", "TQue<VECIN, depth 1>"});
    SetPipeCheck(kPipeCheckOn);
    Gm ok;
    ExpectOk("tque", [&] { QueAdd(ok, false, false); });
    CHECK(ok.Right(), "tque: z != x + y");
    SetPipeCheck(kPipeCheckOn);
    Gm bad;
    ExpectHw("tbuf_without_events", [&] { QueAdd(bad, true, false); },
             {"HardEvent::MTE2_V> between DataCopy(GM->UB) (MTE2) and Add (V)", "TBuf<VECCALC>"});
    SetPipeCheck(kPipeCheckOn);
    Gm barrier;
    ExpectOk("tbuf_pipe_barrier_all", [&] { QueAdd(barrier, true, true); });
    CHECK(barrier.Right(), "tbuf with barriers: z != x + y");
}

// A scalar read of a vector result (FetchEventID.md's example): V_S, unless the compiler's auto
// sync (--cce-auto-sync=on, the default) inserts it.
void ScalarRead(bool withEvent, float& out)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(float));
    AscendC::LocalTensor<float> t = buf.Get<float>();
    AscendC::Duplicate(t, 2.0f, 64);
    AscendC::Adds(t, t, 1.0f, 64);
    if (withEvent) {
        AscendC::TEventID id = AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::V_S);
        AscendC::SetFlag<AscendC::HardEvent::V_S>(id);
        AscendC::WaitFlag<AscendC::HardEvent::V_S>(id);
    }
    out = t.GetValue(0);
}

void SectionScalar()
{
    float v = 0;
    SetPipeCheck(kPipeCheckScalarToo);
    ExpectOk("scalar_with_V_S", [&] { ScalarRead(true, v); });
    CHECK(v == 3.0f, "GetValue %g", v);
    SetPipeCheck(kPipeCheckScalarToo);
    ExpectHw("scalar_without_V_S", [&] { ScalarRead(false, v); },
             {"read after write", "HardEvent::V_S> between Adds (V) and LocalTensor::GetValue (S)"});
    SetPipeCheck(kPipeCheckOn);  // the compiler's auto sync inserts V_S
    ExpectOk("scalar_auto_sync", [&] { ScalarRead(false, v); });
}

// A core's copy out read back by its copy in (a workspace round trip): MTE3_MTE2 between them.
void GmRoundTrip(bool withEvent)
{
    std::vector<float> ws(64, 0.0f);
    AscendC::GlobalTensor<float> wsGm;
    wsGm.SetGlobalBuffer(ws.data(), 64);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> out;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> in;
    pipe.InitBuffer(out, 1, 64 * sizeof(float));
    pipe.InitBuffer(in, 1, 64 * sizeof(float));
    AscendC::LocalTensor<float> o = out.AllocTensor<float>();
    AscendC::Duplicate(o, 1.5f, 64);
    out.EnQue(o);
    o = out.DeQue<float>();
    AscendC::DataCopy(wsGm, o, 64);
    out.FreeTensor(o);
    if (withEvent) {
        AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    }
    AscendC::LocalTensor<float> i = in.AllocTensor<float>();
    AscendC::DataCopy(i, wsGm, 64);
    in.EnQue(i);
    i = in.DeQue<float>();
    in.FreeTensor(i);
}

void SectionGm()
{
    SetPipeCheck(kPipeCheckOn);
    ExpectOk("gm_with_MTE3_MTE2", [] { GmRoundTrip(true); });
    SetPipeCheck(kPipeCheckOn);
    ExpectHw("gm_without_MTE3_MTE2", [] { GmRoundTrip(false); },
             {"pipe hazard (read after write, GM)",
              "HardEvent::MTE3_MTE2> between DataCopy(UB->GM) (MTE3) and DataCopy(GM->UB) (MTE2)"});
}

}  // namespace

int main(int argc, char** argv)
{
    static const CheckSection sections[] = {
        {"static", SectionStatic}, {"tque", SectionTque}, {"scalar", SectionScalar}, {"gm", SectionGm}};
    return RunSections(argc, argv, sections);
}
