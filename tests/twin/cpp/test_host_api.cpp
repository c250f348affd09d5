// Unit checks of the host-side twin: OpDef registry, gert contexts, RuntimeAttrs,
// TilingData, PlatformAscendC, InferOp/RunOp validation, the launch (threads, borrowed inputs).
// Run as `test_host_api SECTION` (SECTION = registry prints the registry JSON instead of
// checking).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opgen_twin/runner.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

#include "check.h"

namespace {

bool Contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

// What the probe op's host functions observed, for the checks below.
struct Observed {
    bool tilingRan = false;
    float alpha = 0;
    int64_t count = 0;
    bool flag = false;
    std::string mode;
    std::vector<int64_t> dims;
    std::vector<float> scales;
    size_t padsRows = 0;
    int64_t pads10 = 0;
    bool biasShapeNull = false;
    bool biasDescNull = false;
    int64_t in1Dim0 = -1;  // instance 1 = bias when present, else nothing
    bool in1Null = false;
    uint32_t aiv = 0, aic = 0, coreNum = 0;
    uint64_t ub = 0, l1 = 0;
    uint32_t libWs = 0;
    const char* nodeType = "";
    ge::DataType outDesc = ge::DT_UNDEFINED;
    int64_t outDim0 = -1;
    bool attrTypeError = false;
    uint32_t count32 = 0;
};
Observed g_obs;

struct ProbeTilingData {
    uint32_t a;
    float b;
};
struct HugeTilingData {
    uint8_t payload[4096];
};

}  // namespace

// ---------------- host code of a probe op, in the generated style ----------------
namespace optiling {
static ge::graphStatus ProbeTiling(gert::TilingContext* context)
{
    Observed& o = g_obs;
    o.tilingRan = true;
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    o.alpha = *attrs->GetAttrPointer<float>(0);
    o.count = *attrs->GetInt(1);
    o.flag = *attrs->GetBool(2);
    o.mode = attrs->GetStr(3);
    const gert::TypedContinuousVector<int64_t>* dims = attrs->GetListInt(4);
    o.dims.assign(dims->GetData(), dims->GetData() + dims->GetSize());
    const gert::TypedContinuousVector<float>* sc = attrs->GetListFloat(5);
    o.scales.assign(sc->GetData(), sc->GetData() + sc->GetSize());
    const gert::ContinuousVectorVector* pads = attrs->GetListListInt(7);
    o.padsRows = pads->GetSize();
    o.pads10 = static_cast<const int64_t*>(pads->Get(1)->GetData())[0];
    // An Int attr (int64_t) read through a narrower integer: its low bytes, the value when it fits.
    o.count32 = *attrs->GetAttrPointer<uint32_t>(1);
    try {
        (void)attrs->GetAttrPointer<float>(1);
    } catch (const opgen_twin::TwinError&) {
        o.attrTypeError = true;
    }
    o.biasShapeNull = context->GetOptionalInputShape(1) == nullptr;
    o.biasDescNull = context->GetOptionalInputDesc(1) == nullptr;
    o.in1Null = context->GetInputShape(1) == nullptr;
    if (!o.in1Null) o.in1Dim0 = context->GetInputShape(1)->GetStorageShape().GetDim(0);
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    o.aiv = plat.GetCoreNumAiv();
    o.aic = plat.GetCoreNumAic();
    o.coreNum = plat.GetCoreNum();
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, o.ub);
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::L1, o.l1);
    o.libWs = plat.GetLibApiWorkSpaceSize();
    o.nodeType = context->GetNodeType();
    o.outDesc = context->GetOutputDesc(0)->GetDataType();
    o.outDim0 = context->GetOutputShape(0)->GetStorageShape().GetDim(0);

    ProbeTilingData* t = context->GetTilingData<ProbeTilingData>();
    if (t == nullptr) return ge::GRAPH_FAILED;
    t->a = 42;
    t->b = o.alpha;
    context->SetBlockDim(3);
    context->SetTilingKey(7);
    size_t* ws = context->GetWorkspaceSizes(2);
    ws[0] = 100;
    ws[1] = 28;
    return ge::GRAPH_SUCCESS;
}
static ge::graphStatus HugeTiling(gert::TilingContext* context)
{
    HugeTilingData* t = context->GetTilingData<HugeTilingData>();
    if (t == nullptr) return ge::GRAPH_FAILED;
    t->payload[0] = 1;
    context->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus ProbeInferShape(gert::InferShapeContext* context)
{
    const gert::Shape* x = context->GetInputShape(0);
    gert::Shape* y = context->GetOutputShape(0);
    *y = *x;
    y->AppendDim(*context->GetAttrs()->GetInt(1));  // y = x.shape + [count]
    return GRAPH_SUCCESS;
}
static graphStatus ProbeInferDataType(gert::InferDataTypeContext* context)
{
    const bool flag = *context->GetAttrs()->GetBool(2);
    context->SetOutputDataType(0, flag ? context->GetInputDataType(0) : ge::DT_INT32);
    return GRAPH_SUCCESS;
}
// Copies x to y, except for 1-D x where it forgets to set y (to test the runner's check).
static graphStatus MaybeShapeInfer(gert::InferShapeContext* context)
{
    if (context->GetInputShape(0)->GetDimNum() != 1) *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AttrProbe : public OpDef {
public:
    explicit AttrProbe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_NCHW});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_NCHW});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.5f);
        this->Attr("count").AttrType(REQUIRED).Int();
        this->Attr("flag").AttrType(OPTIONAL).Bool(true);
        this->Attr("mode").AttrType(OPTIONAL).String("fast");
        this->Attr("dims").AttrType(OPTIONAL).ListInt({1, 2, 3});
        this->Attr("scales").AttrType(OPTIONAL).ListFloat({0.5f, 0.25f});
        this->Attr("masks").AttrType(OPTIONAL).ListBool({true, false});
        this->Attr("pads").AttrType(OPTIONAL).ListListInt({{1, 2}, {3}});
        this->SetInferShape(ge::ProbeInferShape).SetInferDataType(ge::ProbeInferDataType);
        OpAICoreConfig cfg;
        cfg.DynamicShapeSupportFlag(true).NeedCheckSupportFlag(false).ExtendCfgInfo("opFile.value", "attr_probe");
        this->AICore().SetTiling(optiling::ProbeTiling).AddConfig("ascend910b", cfg).AddConfig("ascend910_93");
    }
};
OP_ADD(AttrProbe);

class HugeTilingOp : public OpDef {
public:
    explicit HugeTilingOp(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::MaybeShapeInfer);
        this->AICore().SetTiling(optiling::HugeTiling).AddConfig("ascend910b");
    }
};
OP_ADD(HugeTilingOp);

// A SoC without bfloat16 registers fewer dtype combinations in its own OpAICoreConfig.
class SocConfigProbe : public OpDef {
public:
    explicit SocConfigProbe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16}).Format({ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::MaybeShapeInfer);
        this->AICore().SetTiling(optiling::HugeTiling).AddConfig("ascend910b");
        OpAICoreConfig cfg;
        cfg.DynamicShapeSupportFlag(true);
        cfg.Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        cfg.Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->AICore().AddConfig("ascend310p", cfg);
    }
};
OP_ADD(SocConfigProbe);
}  // namespace ops


// ---------------- a probe op with an optional, a dynamic input and a dynamic output ----------------
namespace {
// What one context saw of the node's instantiation.
struct DynView {
    std::vector<std::pair<size_t, size_t>> in, out;  // (start, num) per IR input / output
    bool inPastEndNull = false, outPastEndNull = false;
    size_t inNum = 0, outNum = 0;
};
struct DynObserved {
    DynView shape, dtype, tiling;  // InferShape, InferDataType, TilingFunc
    std::vector<std::vector<int64_t>> partShapes;     // GetDynamicInputShape(2, j) in tiling
    std::vector<std::vector<int64_t>> partShapesIs;   // GetDynamicInputShape(2, j) in InferShape
    bool partPastEndNull = false;                     // GetDynamicInputShape(2, num)
    std::vector<ge::DataType> partDescDtypes;         // GetDynamicInputDesc(2, j)
    std::vector<ge::DataType> partDtypes;             // GetDynamicInputDataType(2, j)
    ge::DataType partDtypePastEnd = ge::DT_FLOAT;     // GetDynamicInputDataType(2, num)
    float part1First = 0;                             // GetDynamicInputTensor(2, 1)->GetData<float>()[0]
    bool biasNullTiling = false, biasNullShape = false, biasDescNull = false;
    std::vector<int64_t> instance1Shape;              // GetInputShape(1): parts[0] or bias
    std::vector<std::vector<int64_t>> restShapesTiling;  // GetOutputShape(start + r) in tiling
    std::vector<ge::DataType> restDescDtypes;            // GetOutputDesc(start + r) in tiling
};
DynObserved g_dyn;

std::vector<int64_t> Dims(const gert::Shape& s)
{
    std::vector<int64_t> d;
    for (size_t i = 0; i < s.GetDimNum(); ++i) d.push_back(s.GetDim(i));
    return d;
}

// Reads the instantiation through the shared base, as generated host code does.
DynView ViewOf(const gert::ExtendedKernelContext* context)
{
    DynView v;
    for (size_t i = 0; i < 3; ++i) {
        const gert::AnchorInstanceInfo* a = context->GetIrInputInstanceInfo(i);
        v.in.emplace_back(a->GetInstanceStart(), a->GetInstanceNum());
    }
    for (size_t i = 0; i < 2; ++i) {
        const gert::AnchorInstanceInfo* a = context->GetIrOutputInstanceInfo(i);
        v.out.emplace_back(a->GetInstanceStart(), a->GetInstanceNum());
    }
    v.inPastEndNull = context->GetIrInputInstanceInfo(3) == nullptr;
    v.outPastEndNull = context->GetIrOutputInstanceInfo(2) == nullptr;
    v.inNum = context->GetComputeNodeInputNum();
    v.outNum = context->GetComputeNodeOutputNum();
    return v;
}
}  // namespace

namespace optiling {
static ge::graphStatus DynProbeTiling(gert::TilingContext* context)
{
    DynObserved& o = g_dyn;
    o.tiling = ViewOf(context);
    const size_t n = context->GetIrInputInstanceInfo(2)->GetInstanceNum();
    for (size_t j = 0; j < n; ++j) {
        o.partShapes.push_back(Dims(context->GetDynamicInputShape(2, j)->GetStorageShape()));
        o.partDescDtypes.push_back(context->GetDynamicInputDesc(2, j)->GetDataType());
    }
    o.partPastEndNull = context->GetDynamicInputShape(2, n) == nullptr && context->GetDynamicInputDesc(2, n) == nullptr &&
                        context->GetDynamicInputTensor(2, n) == nullptr;
    o.part1First = n > 1 ? context->GetDynamicInputTensor(2, 1)->GetData<float>()[0] : -1.0f;
    o.biasNullTiling = context->GetOptionalInputShape(1) == nullptr;
    o.biasDescNull = context->GetOptionalInputDesc(1) == nullptr;
    o.instance1Shape = Dims(context->GetInputShape(1)->GetStorageShape());
    const gert::AnchorInstanceInfo* rest = context->GetIrOutputInstanceInfo(1);
    for (size_t r = 0; r < rest->GetInstanceNum(); ++r) {
        o.restShapesTiling.push_back(Dims(context->GetOutputShape(rest->GetInstanceStart() + r)->GetStorageShape()));
        o.restDescDtypes.push_back(context->GetOutputDesc(rest->GetInstanceStart() + r)->GetDataType());
    }
    ProbeTilingData* t = context->GetTilingData<ProbeTilingData>();
    if (t == nullptr) return ge::GRAPH_FAILED;
    t->a = static_cast<uint32_t>(n);
    context->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
// y = x; rest[r] = shape of parts[r % n] with r appended (skipping instance `skip`).
static graphStatus DynProbeInferShape(gert::InferShapeContext* context)
{
    DynObserved& o = g_dyn;
    o.shape = ViewOf(context);
    o.biasNullShape = context->GetOptionalInputShape(1) == nullptr;
    const gert::AnchorInstanceInfo* parts = context->GetIrInputInstanceInfo(2);
    for (size_t j = 0; j < parts->GetInstanceNum(); ++j) o.partShapesIs.push_back(Dims(*context->GetDynamicInputShape(2, j)));
    *context->GetOutputShape(0) = *context->GetRequiredInputShape(0);
    const int64_t skip = *context->GetAttrs()->GetInt(0);
    const gert::AnchorInstanceInfo* rest = context->GetIrOutputInstanceInfo(1);
    for (size_t r = 0; r < rest->GetInstanceNum(); ++r) {
        if (static_cast<int64_t>(r) == skip) continue;
        gert::Shape* out = context->GetOutputShape(rest->GetInstanceStart() + r);
        *out = *context->GetDynamicInputShape(2, r % parts->GetInstanceNum());
        out->AppendDim(static_cast<int64_t>(r));
    }
    return GRAPH_SUCCESS;
}
static graphStatus DynProbeInferDataType(gert::InferDataTypeContext* context)
{
    DynObserved& o = g_dyn;
    o.dtype = ViewOf(context);
    const gert::AnchorInstanceInfo* parts = context->GetIrInputInstanceInfo(2);
    for (size_t j = 0; j < parts->GetInstanceNum(); ++j) o.partDtypes.push_back(context->GetDynamicInputDataType(2, j));
    o.partDtypePastEnd = context->GetDynamicInputDataType(2, parts->GetInstanceNum());
    context->SetOutputDataType(0, context->GetRequiredInputDataType(0));
    const gert::AnchorInstanceInfo* rest = context->GetIrOutputInstanceInfo(1);
    for (size_t r = 0; r < rest->GetInstanceNum(); ++r) {
        context->SetOutputDataType(rest->GetInstanceStart() + r,
                                   context->GetDynamicInputDataType(2, r % parts->GetInstanceNum()));
    }
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class DynProbe : public OpDef {
public:
    explicit DynProbe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("bias").ParamType(OPTIONAL).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("parts").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("rest").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT16}).Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("skip").AttrType(OPTIONAL).Int(-1);
        this->SetInferShape(ge::DynProbeInferShape).SetInferDataType(ge::DynProbeInferDataType);
        this->AICore().SetTiling(optiling::DynProbeTiling).AddConfig("ascend910b");
    }
};
OP_ADD(DynProbe);
}  // namespace ops

// ---------------- probe ops for the launch: blocks on threads, borrowed inputs ----------------
namespace ge {
static graphStatus SameShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
static graphStatus NoOutputs(gert::InferShapeContext*) { return GRAPH_SUCCESS; }
}  // namespace ge

namespace optiling {
// As many blocks as the attr says.
static ge::graphStatus BlockProbeTiling(gert::TilingContext* context)
{
    context->SetBlockDim(static_cast<uint32_t>(*context->GetAttrs()->GetInt(0)));
    return ge::GRAPH_SUCCESS;
}
static ge::graphStatus TwoBlocks(gert::TilingContext* context)
{
    context->SetBlockDim(2);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class BlockProbe : public OpDef {
public:
    explicit BlockProbe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("blocks").AttrType(REQUIRED).Int();
        this->SetInferShape(ge::SameShape);
        this->AICore().SetTiling(optiling::BlockProbeTiling).AddConfig("ascend910b");
    }
};
OP_ADD(BlockProbe);

// No outputs: the kernel updates x in place.
class InPlaceProbe : public OpDef {
public:
    explicit InPlaceProbe(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::NoOutputs);
        this->AICore().SetTiling(optiling::TwoBlocks).AddConfig("ascend910b");
    }
};
OP_ADD(InPlaceProbe);
}  // namespace ops

namespace {
// What the probe kernels saw.
struct LaunchObserved {
    std::atomic<int> runs[64];
    std::vector<int64_t> failing;  // the blocks that throw
    const uint8_t* x = nullptr;    // block 0's GM address of x
    size_t xBytes = 0;
    std::string overrun;           // block 0 reading one float past x's end
};
LaunchObserved g_launch_obs;

// The threads of this process, from /proc/self/task.
int ThreadsOfThisProcess()
{
    DIR* dir = opendir("/proc/self/task");
    if (dir == nullptr) return -1;
    int n = 0;
    while (const dirent* e = readdir(dir)) n += e->d_name[0] != '.';
    closedir(dir);
    return n;
}

void ResetLaunchObserved(std::vector<int64_t> failing)
{
    for (auto& r : g_launch_obs.runs) r = 0;
    g_launch_obs.failing = std::move(failing);
    g_launch_obs.x = nullptr;
    g_launch_obs.overrun.clear();
}

opgen_twin::KernelEntry BlockProbeKernel()
{
    opgen_twin::KernelEntry e;
    e.arity = 4;  // x, y, workspace, tiling
    e.fn = [](const std::vector<uint8_t*>& args) {
        const int64_t b = opgen_twin::detail::g_launch.blockIdx;
        ++g_launch_obs.runs[b];
        if (b == 0) {
            g_launch_obs.x = args[0];
            try {
                opgen_twin::detail::CheckGmRange("probe", args[0], g_launch_obs.xBytes + 4);
            } catch (const opgen_twin::HardwareError& err) {
                g_launch_obs.overrun = err.what();
            }
        }
        for (int64_t f : g_launch_obs.failing) {
            if (f == b) opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format("probe failure %lld", (long long)b));
        }
    };
    return e;
}
}  // namespace

namespace {

opgen_twin::HostTensor T(ge::DataType dt, std::vector<int64_t> shape)
{
    const size_t n = [&] {
        size_t k = 1;
        for (auto d : shape) k *= static_cast<size_t>(d);
        return k;
    }();
    return opgen_twin::HostTensor::FromDoubles(dt, shape, std::vector<double>(n, 1.0));
}

void SectionShapes()
{
    gert::Shape s{2, 3, 4};
    CHECK(s.GetDimNum() == 3 && s.GetShapeSize() == 24 && s.GetDim(1) == 3, "Shape basics");
    gert::Shape scalar;
    CHECK(scalar.IsScalar() && scalar.GetShapeSize() == 1, "scalar has 1 element");
    gert::Shape e{4, 0};
    CHECK(e.GetShapeSize() == 0, "empty");
    s.AppendDim(5);
    CHECK(s.GetDimNum() == 4 && s[3] == 5 && s.GetShapeSize() == 120, "AppendDim");
    s.SetDimNum(2);
    CHECK(s == (gert::Shape{2, 3}) && s != (gert::Shape{2, 4}), "SetDimNum / ==");
    CHECK(s.GetDim(30) == gert::Shape::kInvalidDimValue, "GetDim beyond max");
    gert::Shape big{int64_t(1) << 40, int64_t(1) << 40};
    CHECK(big.GetShapeSize() == gert::Shape::kInvalidDimValue, "overflow");
    // An output before InferShape has no dims (InferShape may append to it) and is unset until written.
    gert::Shape out;
    out.TwinMarkUnset();
    CHECK(out.TwinIsUnset() && out.GetDimNum() == 0, "output starts unset, with no dims");
    out.AppendDim(7);
    CHECK(!out.TwinIsUnset() && out == (gert::Shape{7}), "AppendDim onto an unset output");
    out.TwinMarkUnset();
    out.SetScalar();
    CHECK(!out.TwinIsUnset() && out.IsScalar(), "SetScalar sets a 0-d output");
    out.TwinMarkUnset();
    out = gert::Shape{};
    CHECK(!out.TwinIsUnset() && out.IsScalar(), "a copied 0-d shape sets it");
    gert::StorageShape ss({2, 3}, {2, 3, 16});
    CHECK(ss.GetOriginShape().GetDimNum() == 2 && ss.GetStorageShape().GetDimNum() == 3, "StorageShape");
    ge::Shape gs({4, 5});
    CHECK(gs.GetShapeSize() == 20 && gs.GetDimNum() == 2, "ge::Shape");
    CHECK(ge::DT_FLOAT == 0 && ge::DT_FLOAT16 == 1 && ge::DT_INT8 == 2 && ge::DT_INT32 == 3 && ge::DT_UINT8 == 4 &&
              ge::DT_INT16 == 6 && ge::DT_UINT16 == 7 && ge::DT_UINT32 == 8 && ge::DT_INT64 == 9 &&
              ge::DT_UINT64 == 10 && ge::DT_DOUBLE == 11 && ge::DT_BOOL == 12 && ge::DT_BF16 == 27,
          "DataType values");
    CHECK(ge::FORMAT_NCHW == 0 && ge::FORMAT_NHWC == 1 && ge::FORMAT_ND == 2 && ge::FORMAT_NC1HWC0 == 3 &&
              ge::FORMAT_FRACTAL_Z == 4 && ge::FORMAT_HWCN == 16 && ge::FORMAT_NDHWC == 27 &&
              ge::FORMAT_FRACTAL_NZ == 29 && ge::FORMAT_NCDHW == 30 && ge::FORMAT_NDC1HWC0 == 32 &&
              ge::FORMAT_FRACTAL_Z_3D == 33,
          "Format values");
    CHECK(ge::GRAPH_SUCCESS == 0 && ge::GRAPH_FAILED == 0xFFFFFFFFu, "graphStatus");
    CHECK(ge::GetSizeByDataType(ge::DT_BF16) == 2 && ge::GetSizeByDataType(ge::DT_INT64) == 8, "type sizes");
    gert::TilingData td;
    uint8_t buf[16];
    td.TwinInit(buf, sizeof(buf));
    CHECK(td.Append(uint64_t(5)) == ge::GRAPH_SUCCESS && td.GetDataSize() == 8, "Append");
    CHECK(td.Append(uint64_t(6)) == ge::GRAPH_SUCCESS && td.Append(uint8_t(1)) == ge::GRAPH_FAILED, "Append capacity");
}

void SectionPlatform()
{
    fe::PlatFormInfos info;  // defaults
    platform_ascendc::PlatformAscendC p(&info);
    uint64_t ub = 0, l0c = 0;
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
    CHECK(p.GetCoreNumAiv() == 40 && p.GetCoreNumAic() == 20 && p.GetCoreNum() == 20, "core counts");
    CHECK(ub == 196608 - 256 && l0c == 131072, "UB %llu", static_cast<unsigned long long>(ub));
    CHECK(p.GetLibApiWorkSpaceSize() == 16u * 1024 * 1024, "lib workspace");
    CHECK(p.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910B, "soc");
    p.ReserveLocalMemory(platform_ascendc::ReservedSize::RESERVED_SIZE_8K);
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);
    CHECK(ub == 196608 - 256 - 8192, "reserve");
    fe::PlatFormInfos b2(opgen_twin::PlatformConfig::Preset("Ascend910B2"));
    CHECK(platform_ascendc::PlatformAscendC(&b2).GetCoreNumAiv() == 48, "B2 preset");
    CHECK(platform_ascendc::PlatformAscendCManager::GetInstance()->GetCoreNumAiv() == 40, "manager");
    CHECK(p.CalcTschBlockDim(10, 20, 40) == 5, "CalcTschBlockDim");
    // asc-devkit tests/api/utils/tiling/test_tiling.cpp's cases, under both names: a 1:2 mix
    // starting more groups than cube cores is an error (0)
    const uint32_t cases[][4] = {{1, 0, 1, 1},    {1, 1, 0, 1},     {2, 1, 1, 2},    {2, 2, 1, 2},
                                 {2, 1, 2, 1},    {3, 1, 2, 0},     {6, 1, 3, 2},    {38, 20, 40, 19},
                                 {39, 20, 40, 20}, {40, 20, 40, 20}, {41, 20, 40, 0}, {61, 20, 60, 21}};
    for (const auto& c : cases) {
        CHECK(p.CalcTschNumBlocks(c[0], c[1], c[2]) == c[3] && p.CalcTschBlockDim(c[0], c[1], c[2]) == c[3],
              "CalcTschNumBlocks(%u, %u, %u): %u, expected %u", c[0], c[1], c[2], p.CalcTschNumBlocks(c[0], c[1], c[2]),
              c[3]);
    }
}

void SectionSocConfig()
{
    const std::vector<ge::DataType> all = {ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16};
    const std::vector<ge::DataType> noBf16 = {ge::DT_FLOAT16, ge::DT_FLOAT};
    ops::OpDef d("");
    CHECK(opgen_twin::FindOpDef("SocConfigProbe", &d), "registered");
    opgen_twin::detail::MergeSocConfig(d, "ascend910b");
    CHECK(d.TwinInputs()[0].TwinDataTypes() == all && d.TwinOutputs()[0].TwinDataTypes() == all,
          "ascend910b (plain AddConfig): the OpDef's lists");
    opgen_twin::FindOpDef("SocConfigProbe", &d);
    opgen_twin::detail::MergeSocConfig(d, "ascend310p");
    CHECK(d.TwinInputs().size() == 1 && d.TwinOutputs().size() == 1, "merged by name, nothing added");
    CHECK(d.TwinInputs()[0].TwinDataTypes() == noBf16 && d.TwinOutputs()[0].TwinDataTypes() == noBf16 &&
              d.TwinInputs()[0].TwinFormats().size() == 2,
          "ascend310p: its OpAICoreConfig's lists");
    opgen_twin::RunOptions opt;
    opt.launch = false;
    opt.platform.socVersion = "ascend310p";
    auto r = opgen_twin::RunOp("SocConfigProbe", opgen_twin::KernelEntry{}, {T(ge::DT_BF16, {4})}, {}, opt);
    CHECK(!r.ok && r.error.find("DT_BF16") != std::string::npos && r.error.find("ascend310p") != std::string::npos,
          "bf16 refused on ascend310p: %s", r.error.c_str());
}

void SectionContexts()
{
    using opgen_twin::AttrValue;
    g_obs = Observed();
    opgen_twin::RunOptions opt;
    opt.launch = false;
    // bias omitted (optional), count given, list attr overridden, others default.
    std::vector<AttrValue> attrs = {std::monostate{}, int64_t(4), std::monostate{}, std::monostate{},
                                    std::vector<int64_t>{7, 8}};
    auto r = opgen_twin::RunOp("AttrProbe", opgen_twin::KernelEntry{}, {T(ge::DT_FLOAT16, {2, 3})}, attrs, opt);
    CHECK(r.ok, "probe run: %s", r.error.c_str());
    const Observed& o = g_obs;
    CHECK(o.tilingRan, "tiling ran");
    CHECK(o.alpha == 1.5f && o.count == 4 && o.flag && o.mode == "fast", "scalar attrs %g %lld %d %s", o.alpha,
          static_cast<long long>(o.count), o.flag, o.mode.c_str());
    CHECK(o.dims == (std::vector<int64_t>{7, 8}), "ListInt override");
    CHECK(o.scales == (std::vector<float>{0.5f, 0.25f}), "ListFloat default");
    CHECK(o.padsRows == 2 && o.pads10 == 3, "ListListInt");
    CHECK(o.attrTypeError, "GetAttrPointer<float> on an Int attr throws");
    CHECK(o.count32 == 4, "GetAttrPointer<uint32_t> on an Int attr reads its value");
    CHECK(o.biasShapeNull && o.biasDescNull && o.in1Null, "omitted optional input");
    CHECK(o.aiv == 40 && o.aic == 20 && o.coreNum == 20 && o.ub == 196352 && o.l1 == 524032 && o.libWs == 16777216,
          "platform via context");
    CHECK(std::string(o.nodeType) == "AttrProbe", "node type");
    CHECK(o.outDesc == ge::DT_FLOAT16 && o.outDim0 == 2, "output desc/shape visible to tiling");
    CHECK(r.blockDim == 3 && r.tilingKey == 7 && r.workspaceSizes.size() == 2 && r.workspaceSizes[0] == 100, "tiling outputs");
    CHECK(r.tilingData.size() == sizeof(ProbeTilingData), "tiling data size %zu", r.tilingData.size());
    CHECK(r.outputs.size() == 1 && r.outputs[0].shape == (std::vector<int64_t>{2, 3, 4}) &&
              r.outputs[0].dtype == ge::DT_FLOAT16,
          "outputs reported");

    // bias present: it becomes input instance 1.
    g_obs = Observed();
    r = opgen_twin::RunOp("AttrProbe", opgen_twin::KernelEntry{}, {T(ge::DT_FLOAT, {5}), T(ge::DT_FLOAT, {9})},
                          {std::monostate{}, int64_t(1)}, opt);
    CHECK(r.ok && !g_obs.biasShapeNull && !g_obs.in1Null && g_obs.in1Dim0 == 9, "present optional input: %s",
          r.error.c_str());

    // InferOp alone (what a PyTorch fake-tensor comparison needs)
    auto inf = opgen_twin::InferOp("AttrProbe", {T(ge::DT_FLOAT, {2, 2})}, {std::monostate{}, int64_t(3), false});
    // flag=false makes InferDataType return INT32, which no dtype column allows
    CHECK(!inf.ok && Contains(inf.error, "DT_INT32"), "InferDataType result checked against the OpDef: %s",
          inf.error.c_str());
    inf = opgen_twin::InferOp("AttrProbe", {T(ge::DT_FLOAT, {2, 2})}, {std::monostate{}, int64_t(3)});
    CHECK(inf.ok && inf.outputDtypes[0] == ge::DT_FLOAT && inf.outputShapes[0] == (std::vector<int64_t>{2, 2, 3}),
          "InferOp: %s", inf.error.c_str());

    // validation errors
    inf = opgen_twin::InferOp("AttrProbe", {T(ge::DT_FLOAT, {2})});
    CHECK(!inf.ok && Contains(inf.error, "attr 'count'") && Contains(inf.error, "no default"), "%s", inf.error.c_str());
    inf = opgen_twin::InferOp("AttrProbe", {T(ge::DT_INT32, {2})}, {std::monostate{}, int64_t(1)});
    CHECK(!inf.ok && Contains(inf.error, "DT_INT32"), "%s", inf.error.c_str());
    inf = opgen_twin::InferOp("AttrProbe", {T(ge::DT_FLOAT, {2}), T(ge::DT_FLOAT16, {2})}, {std::monostate{}, int64_t(1)});
    CHECK(!inf.ok && Contains(inf.error, "no dtype combination"), "%s", inf.error.c_str());
    inf = opgen_twin::InferOp("AttrProbe", {T(ge::DT_FLOAT, {2})}, {std::monostate{}, 1.0f});
    CHECK(!inf.ok && Contains(inf.error, "'count'") && Contains(inf.error, "int"), "%s", inf.error.c_str());
    inf = opgen_twin::InferOp("NoSuchOp", {});
    CHECK(!inf.ok && Contains(inf.error, "NoSuchOp") && Contains(inf.error, "AttrProbe"), "%s", inf.error.c_str());
    inf = opgen_twin::InferOp("HugeTilingOp", {T(ge::DT_FLOAT, {2})});
    CHECK(!inf.ok && Contains(inf.error, "left output 0"), "%s", inf.error.c_str());

    // GetTilingData<T>() returns nullptr when T does not fit the tiling buffer.
    r = opgen_twin::RunOp("HugeTilingOp", opgen_twin::KernelEntry{}, {T(ge::DT_FLOAT, {2, 2})}, {}, opt);
    CHECK(!r.ok && r.stage == "tiling" && Contains(r.error, "GetTilingData<T>() returned nullptr") &&
              Contains(r.error, "sizeof(T)=4096") && Contains(r.error, "capacity of 2048"),
          "tiling overflow: %s", r.error.c_str());
    std::printf("MSG tiling_overflow: %s\n", r.error.c_str());
    opt.platform.tilingCapacity = 8192;
    r = opgen_twin::RunOp("HugeTilingOp", opgen_twin::KernelEntry{}, {T(ge::DT_FLOAT, {2, 2})}, {}, opt);
    CHECK(r.ok && r.tilingData.size() == 4096, "bigger tiling buffer: %s", r.error.c_str());
    // Kernel arity is checked against inputs + outputs + workspace + tiling.
    opt.launch = true;
    opgen_twin::KernelEntry wrong;
    wrong.arity = 3;
    wrong.fn = [](const std::vector<uint8_t*>&) {};
    r = opgen_twin::RunOp("HugeTilingOp", wrong, {T(ge::DT_FLOAT, {2, 2})}, {}, opt);
    CHECK(!r.ok && Contains(r.error, "takes 3 GM_ADDR parameters") && Contains(r.error, "needs 4"), "%s", r.error.c_str());
    opt.launch = false;
    // An Int attr read through an integer type its value does not fit: refused, naming the attr.
    gert::RuntimeAttrs big;
    big.TwinAddInt("count", int64_t(1) << 40);
    try {
        (void)big.GetAttrPointer<uint32_t>(0);
        CHECK(false, "GetAttrPointer<uint32_t> of 2^40 throws");
    } catch (const opgen_twin::TwinError& e) {
        std::printf("MSG attr_int_narrow: %s\n", e.what());
    }
}

// A TilingFunc probe run directly against a CallData (no runner).
void SectionTilingData()
{
    opgen_twin::detail::CallData c;
    std::vector<uint8_t> buf(64);
    c.tilingData.TwinInit(buf.data(), 64);
    gert::TilingContext ctx(&c);
    CHECK(ctx.GetTilingData<HugeTilingData>() == nullptr && ctx.GetRawTilingData()->GetDataSize() == 0,
          "nullptr when capacity too small");
    ProbeTilingData* t = ctx.GetTilingData<ProbeTilingData>();
    CHECK(t != nullptr && ctx.GetRawTilingData()->GetDataSize() == sizeof(ProbeTilingData), "sets data size");
    size_t* ws = ctx.GetWorkspaceSizes(3);
    ws[2] = 9;
    CHECK(ctx.GetWorkspaceNum() == 3 && c.workspaces[2] == 9, "workspaces");
    ctx.SetBlockDim(12);
    CHECK(ctx.GetBlockDim() == 12, "block dim");
    gert::InferDataTypeContext dctx(&c);
    CHECK(dctx.SetOutputDataType(0, ge::DT_FLOAT) == ge::GRAPH_FAILED, "no such output");
    CHECK(ctx.GetInputShape(0) == nullptr && ctx.GetOptionalInputShape(0) == nullptr, "no inputs");
}


using Pairs = std::vector<std::pair<size_t, size_t>>;

opgen_twin::HostTensor Seq(std::vector<int64_t> shape, double first)
{
    size_t n = 1;
    for (auto d : shape) n *= static_cast<size_t>(d);
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = first + static_cast<double>(i);
    return opgen_twin::HostTensor::FromDoubles(ge::DT_FLOAT, shape, v);
}

void SectionDynamic()
{
    using opgen_twin::HostTensor;
    using opgen_twin::RunOp;
    gert::AnchorInstanceInfo a(3, 2);
    CHECK(a.GetInstanceStart() == 3 && a.GetInstanceNum() == 2, "AnchorInstanceInfo ctor");
    a.SetInstanceStart(5);
    a.SetInstantiationNum(0);
    CHECK(a.GetInstanceStart() == 5 && a.GetInstanceNum() == 0 && gert::AnchorInstanceInfo().GetInstanceNum() == 0,
          "AnchorInstanceInfo setters / default");

    opgen_twin::RunOptions opt;
    opt.launch = false;
    opt.outputInstanceNums = {0, 2};  // y: default (1), rest: 2 instances
    const HostTensor parts = HostTensor::List({Seq({2, 3}, 10), Seq({4}, 20), Seq({1, 5}, 30)});

    // bias omitted: x is instance 0, parts are instances 1..3.
    g_dyn = DynObserved();
    auto r = RunOp("DynProbe", opgen_twin::KernelEntry{}, {Seq({2, 3}, 0), HostTensor::Absent(), parts}, {}, opt);
    CHECK(r.ok, "DynProbe run: %s", r.error.c_str());
    const DynObserved& o = g_dyn;
    for (const DynView* v : {&o.shape, &o.dtype, &o.tiling}) {
        CHECK(v->in == (Pairs{{0, 1}, {1, 0}, {1, 3}}), "input instance infos");
        CHECK(v->out == (Pairs{{0, 1}, {1, 2}}), "output instance infos");
        CHECK(v->inPastEndNull && v->outPastEndNull, "nullptr past the IR inputs/outputs");
        CHECK(v->inNum == 4 && v->outNum == 3, "node input/output counts %zu %zu", v->inNum, v->outNum);
    }
    const std::vector<std::vector<int64_t>> partShapes = {{2, 3}, {4}, {1, 5}};
    CHECK(o.partShapes == partShapes && o.partShapesIs == partShapes, "GetDynamicInputShape (tiling, infer shape)");
    CHECK(o.partPastEndNull, "GetDynamicInputShape/Desc/Tensor past the last instance: nullptr");
    CHECK(o.partDescDtypes == (std::vector<ge::DataType>(3, ge::DT_FLOAT)), "GetDynamicInputDesc");
    CHECK(o.partDtypes == (std::vector<ge::DataType>(3, ge::DT_FLOAT)) && o.partDtypePastEnd == ge::DT_UNDEFINED,
          "GetDynamicInputDataType");
    CHECK(o.part1First == 20.0f, "GetDynamicInputTensor(2, 1) data %g", o.part1First);
    CHECK(o.biasNullTiling && o.biasNullShape && o.biasDescNull, "omitted optional input: GetOptionalInputShape nullptr");
    CHECK(o.instance1Shape == (std::vector<int64_t>{2, 3}), "GetInputShape(1) is parts[0] when bias is omitted");
    CHECK(o.restShapesTiling == (std::vector<std::vector<int64_t>>{{2, 3, 0}, {4, 1}}) &&
              o.restDescDtypes == (std::vector<ge::DataType>(2, ge::DT_FLOAT)),
          "tiling sees the inferred dynamic output instances");
    CHECK(r.outputs.size() == 2 && !r.outputs[0].isList && r.outputs[0].shape == (std::vector<int64_t>{2, 3}),
          "RunResult: y");
    CHECK(r.outputs.size() == 2 && r.outputs[1].isList && r.outputs[1].children.size() == 2 &&
              r.outputs[1].children[0].shape == (std::vector<int64_t>{2, 3, 0}) &&
              r.outputs[1].children[1].shape == (std::vector<int64_t>{4, 1}) &&
              r.outputs[1].children[1].dtype == ge::DT_FLOAT && r.outputs[1].children[1].data.size() == 16,
          "RunResult: rest is a list of 2");

    // bias present: it is instance 1 and parts move to 2..4.
    g_dyn = DynObserved();
    r = RunOp("DynProbe", opgen_twin::KernelEntry{}, {Seq({2, 3}, 0), Seq({7}, 0), parts}, {}, opt);
    CHECK(r.ok && g_dyn.tiling.in == (Pairs{{0, 1}, {1, 1}, {2, 3}}) && !g_dyn.biasNullTiling &&
              g_dyn.instance1Shape == (std::vector<int64_t>{7}) && g_dyn.tiling.inNum == 5,
          "present optional input shifts the dynamic instances: %s", r.error.c_str());

    // InferOp: shapes/dtypes per output instance, plus where each IR output's instances are.
    auto inf = opgen_twin::InferOp("DynProbe", {Seq({2, 3}, 0), HostTensor::Absent(), parts}, {}, {1, 3});
    CHECK(inf.ok && inf.outputShapes.size() == 4 && inf.outputDtypes.size() == 4 &&
              inf.outputShapes[3] == (std::vector<int64_t>{1, 5, 2}) && inf.outputInstances.size() == 2 &&
              inf.outputInstances[1].GetInstanceStart() == 1 && inf.outputInstances[1].GetInstanceNum() == 3,
          "InferOp with 3 rest instances: %s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {Seq({2, 3}, 0), HostTensor::Absent(), parts});
    CHECK(inf.ok && inf.outputShapes.size() == 2 && inf.outputInstances[1].GetInstanceNum() == 1,
          "a DYNAMIC output defaults to one instance: %s", inf.error.c_str());

    // Validation.
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), Seq({2}, 0)});
    CHECK(!inf.ok && Contains(inf.error, "'parts'") && Contains(inf.error, "DYNAMIC") &&
              Contains(inf.error, "HostTensor::List"),
          "plain tensor for a dynamic input: %s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), HostTensor::List({})});
    CHECK(!inf.ok && Contains(inf.error, "non-empty"), "empty list: %s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0)});
    CHECK(!inf.ok && Contains(inf.error, "'parts'"), "missing dynamic input: %s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {HostTensor::List({Seq({2}, 0)}), HostTensor::Absent(), parts});
    CHECK(!inf.ok && Contains(inf.error, "'x'") && Contains(inf.error, "not DYNAMIC"), "list for x: %s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), HostTensor::List({Seq({2}, 0), HostTensor::Absent()})});
    CHECK(!inf.ok && Contains(inf.error, "'parts[1]'"), "absent list entry: %s", inf.error.c_str());
    HostTensor shortData = Seq({3}, 0);
    shortData.data.resize(8);
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), HostTensor::List({Seq({2}, 0), shortData})});
    CHECK(!inf.ok && Contains(inf.error, "input 'parts[1]': 8 data bytes"), "list entry size: %s", inf.error.c_str());
    HostTensor half1 = T(ge::DT_FLOAT16, {2});
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), HostTensor::List({Seq({2}, 0), half1})});
    CHECK(!inf.ok && Contains(inf.error, "no dtype combination") && Contains(inf.error, "parts[1]=DT_FLOAT16"),
          "instances of one dynamic input share the dtype column: %s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), parts}, {}, {2});
    CHECK(!inf.ok && Contains(inf.error, "output 'y'") && Contains(inf.error, "not DYNAMIC"), "%s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), parts}, {}, {1, 1, 1});
    CHECK(!inf.ok && Contains(inf.error, "3 output instance counts"), "%s", inf.error.c_str());
    inf = opgen_twin::InferOp("DynProbe", {Seq({2}, 0), HostTensor::Absent(), parts}, {int64_t(1)}, {1, 3});
    CHECK(!inf.ok && Contains(inf.error, "left output 2 ('rest[1]')"), "unset dynamic output instance: %s",
          inf.error.c_str());
    // One GM_ADDR per IR input/output: 3 + 2 + workspace + tiling.
    opt.launch = true;
    opgen_twin::KernelEntry wrong;
    wrong.arity = 9;
    wrong.fn = [](const std::vector<uint8_t*>&) {};
    r = RunOp("DynProbe", wrong, {Seq({2}, 0), HostTensor::Absent(), parts}, {}, opt);
    CHECK(!r.ok && Contains(r.error, "takes 9 GM_ADDR parameters") && Contains(r.error, "needs 7"), "%s", r.error.c_str());
}

// Blocks spread over threads that take the next block as they finish one; errors reported for
// the lowest failing block; borrowed inputs reach the kernel without a copy, in bounds.
void SectionLaunch()
{
    using opgen_twin::HostTensor;
    using opgen_twin::RunOp;
    std::vector<float> xs(16);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>(i);
    g_launch_obs.xBytes = xs.size() * sizeof(float);
    const HostTensor copied = HostTensor::FromBytes(ge::DT_FLOAT, {16}, xs.data(), g_launch_obs.xBytes);
    const HostTensor borrowed = HostTensor::Borrow(ge::DT_FLOAT, {16}, xs.data(), g_launch_obs.xBytes);
    CHECK(borrowed.data.empty() && borrowed.Bytes() == reinterpret_cast<const uint8_t*>(xs.data()) &&
              borrowed.ByteSize() == 64 && borrowed.ToDoubles()[3] == 3.0,
          "a borrowed tensor is a view");
    for (const char* threads : {"1", "2", "3", "16"}) {
        setenv("OPGEN_TWIN_THREADS", threads, 1);
        ResetLaunchObserved({});
        auto r = RunOp("BlockProbe", BlockProbeKernel(), {borrowed}, {int64_t(12)});
        bool once = true;
        for (int b = 0; b < 12; ++b) once = once && g_launch_obs.runs[b] == 1;
        CHECK(r.ok && once, "%s threads: every block runs once: %s", threads, r.error.c_str());

        ResetLaunchObserved({9, 5});
        r = RunOp("BlockProbe", BlockProbeKernel(), {copied}, {int64_t(12)});
        bool before = true;
        for (int b = 0; b <= 5; ++b) before = before && g_launch_obs.runs[b] == 1;
        CHECK(!r.ok && r.error == "kernel block 5 of 12: probe failure 5" && before,
              "%s threads: the lowest failing block is reported, the blocks before it ran: %s", threads,
              r.error.c_str());
        CHECK(r.outputs.size() == 1 && r.outputs[0].data == opgen_twin::ByteVector(64, 0xFF),
              "%s threads: a failed launch leaves the outputs poisoned", threads);

        // A large output is filled on several threads, in 256 KB chunks and a short last one.
        ResetLaunchObserved({});
        const std::vector<float> big((size_t{1} << 20) + 5);
        g_launch_obs.xBytes = big.size() * sizeof(float);
        r = RunOp("BlockProbe", BlockProbeKernel(),
                  {HostTensor::Borrow(ge::DT_FLOAT, {static_cast<int64_t>(big.size())}, big.data(), g_launch_obs.xBytes)},
                  {int64_t(2)});
        const opgen_twin::ByteVector& y = r.outputs[0].data;
        CHECK(r.ok && y.size() == g_launch_obs.xBytes &&
                  std::all_of(y.begin(), y.end(), [](uint8_t v) { return v == 0xFF; }),
              "%s threads: the kernel wrote nothing, the large output is all 0xFF", threads);
        g_launch_obs.xBytes = xs.size() * sizeof(float);
    }
    // The helper threads outlive a launch and serve the next one (detail/block_pool.h): the
    // 16-thread launch of 12 blocks above left 11 of them; a 3-thread launch starts none.
    CHECK(ThreadsOfThisProcess() == 12, "the pool keeps 11 helpers: %d threads", ThreadsOfThisProcess());
    setenv("OPGEN_TWIN_THREADS", "3", 1);
    ResetLaunchObserved({});
    RunOp("BlockProbe", BlockProbeKernel(), {borrowed}, {int64_t(12)});
    CHECK(ThreadsOfThisProcess() == 12, "a launch reuses the pool: %d threads", ThreadsOfThisProcess());
    // A forked child has none of the parent's helpers: it starts a pool of its own.
    const pid_t child = fork();
    if (child == 0) {
        alarm(20);  // a launch waiting for the parent's helpers would hang: fail instead
        ResetLaunchObserved({});
        const auto inChild = RunOp("BlockProbe", BlockProbeKernel(), {borrowed}, {int64_t(12)});
        bool once = true;
        for (int b = 0; b < 12; ++b) once = once && g_launch_obs.runs[b] == 1;
        _exit(inChild.ok && once && ThreadsOfThisProcess() == 3 ? 0 : 1);
    }
    int status = -1;
    waitpid(child, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child runs every block once on its own pool "
          "(status %d)", status);
    unsetenv("OPGEN_TWIN_THREADS");

    ResetLaunchObserved({});
    auto r = RunOp("BlockProbe", BlockProbeKernel(), {borrowed}, {int64_t(1)});
    CHECK(r.ok && g_launch_obs.x == reinterpret_cast<const uint8_t*>(xs.data()),
          "a borrowed input of an op with outputs is its own GM buffer");
    CHECK(opgen_twin::detail::g_launch.gm.empty(), "the launch's GM regions are forgotten after it");
    CHECK(g_launch_obs.overrun.find("bytes [0, 68) of input 'x', which has only 64 bytes") != std::string::npos,
          "GM bounds of a borrowed input: %s", g_launch_obs.overrun.c_str());
    ResetLaunchObserved({});
    r = RunOp("BlockProbe", BlockProbeKernel(), {copied}, {int64_t(1)});
    CHECK(r.ok && g_launch_obs.x != copied.data.data() && g_launch_obs.overrun.find("which has only 64 bytes") != std::string::npos,
          "an owned input is copied into its GM buffer");

    // An op without outputs updates copies of its inputs, which come back in r.inputs.
    opgen_twin::KernelEntry bump;
    bump.arity = 3;  // x, workspace, tiling
    bump.fn = [](const std::vector<uint8_t*>& args) {
        const int64_t b = opgen_twin::detail::g_launch.blockIdx;
        reinterpret_cast<float*>(args[0])[b] += 100.0f;
    };
    r = RunOp("InPlaceProbe", bump, {borrowed});
    CHECK(r.ok && r.inputs.size() == 1 && r.inputs[0].view == nullptr && r.inputs[0].data.size() == 64,
          "in place: r.inputs own their bytes: %s", r.error.c_str());
    CHECK(r.inputs.size() == 1 && r.inputs[0].ToDoubles()[0] == 100.0 && r.inputs[0].ToDoubles()[1] == 101.0 &&
              r.inputs[0].ToDoubles()[2] == 2.0,
          "in place: the kernel's writes");
    CHECK(xs[0] == 0.0f && xs[1] == 1.0f, "in place: the caller's borrowed bytes stay as they were");
}

}  // namespace

int main(int argc, char** argv)
{
    const std::string sec = argc > 1 ? argv[1] : "all";
    if (sec == "registry") {
        std::printf("%s\n", opgen_twin::RegistryJson().c_str());
        return 0;
    }
    if (sec == "all" || sec == "shapes") SectionShapes();
    if (sec == "all" || sec == "platform") SectionPlatform();
    if (sec == "all" || sec == "contexts") SectionContexts();
    if (sec == "all" || sec == "tilingdata") SectionTilingData();
    if (sec == "all" || sec == "dynamic") SectionDynamic();
    if (sec == "all" || sec == "socconfig") SectionSocConfig();
    if (sec == "all" || sec == "launch") SectionLaunch();
    std::printf("SUMMARY pass=%d fail=%d\n", g_pass, g_fail);
    return g_fail == 0 && g_pass > 0 ? 0 : 1;
}
