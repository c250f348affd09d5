// opgen CPU twin: runs an operator end to end on the CPU - InferShape, InferDataType,
// TilingFunc (all taken from the OP_ADD registry) and the kernel, launched once per block
// index (the blocks spread over threads). Hardware-rule violations come back as an error result.
//
//   #include "opgen_twin/runner.h"
//   extern "C" void opgen_v0_add_custom(GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR, GM_ADDR);
//   auto x = opgen_twin::HostTensor::FromDoubles(ge::DT_FLOAT16, {8, 64}, xs);
//   auto r = opgen_twin::RunOp("AddCustom", opgen_twin::MakeKernel(opgen_v0_add_custom), {x, y});
//   if (!r.ok) puts(r.error.c_str()); else use(r.outputs[0].ToDoubles());
//
// A DYNAMIC input is one HostTensor::List({...}); DYNAMIC outputs take their instance counts
// from RunOptions::outputInstanceNums and come back as lists; the kernel gets each as the GM
// address of a tensor-list descriptor (detail/list_layout.h). See README "Dynamic".
//
// This header includes the host-side emulation; kernels are compiled in their own
// translation units against kernel_operator.h and linked in.
#ifndef OPGEN_TWIN_RUNNER_H
#define OPGEN_TWIN_RUNNER_H

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "opgen_twin/detail/block_pool.h"
#include "opgen_twin/detail/filled_pages.h"
#include "opgen_twin/detail/gm_addr.h"
#include "opgen_twin/detail/host_signals.h"
#include "opgen_twin/detail/launch.h"
#include "opgen_twin/detail/list_layout.h"
#include "opgen_twin/detail/pipes.h"
#include "opgen_twin/detail/sync_all.h"
#include "opgen_twin/ge_types.h"
#include "opgen_twin/gert.h"
#include "opgen_twin/op_def.h"
#include "opgen_twin/platform.h"

namespace opgen_twin {

// Allocates like std::allocator, but resize() leaves the new elements unwritten (std::allocator
// zeroes them): the runner fills an output once, on the launch's threads (FillOutputs).
template <class T>
struct UninitAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = UninitAllocator<U>;
    };
    UninitAllocator() = default;
    template <class U>
    UninitAllocator(const UninitAllocator<U>&) noexcept
    {
    }
    template <class U>
    void construct(U* p) noexcept
    {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args)
    {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using ByteVector = std::vector<uint8_t, UninitAllocator<uint8_t>>;

// A host tensor handed to / returned by the runner. `data` holds the raw element bytes
// (row-major, dtype encoding), or, for a tensor made with Borrow(), `view` points at the
// caller's bytes and `data` is empty. `present=false` marks an omitted optional input.
// A DYNAMIC input or output is one HostTensor made with List(): `isList` is set and
// `children` holds its instances in order (the list's own dtype/shape/data are unused).
struct HostTensor {
    ge::DataType dtype = ge::DT_FLOAT;
    std::vector<int64_t> shape;
    ByteVector data;
    ge::Format format = ge::FORMAT_ND;
    bool present = true;
    bool isList = false;
    std::vector<HostTensor> children;
    const uint8_t* view = nullptr;  // Borrow(): the caller's bytes, `viewBytes` of them
    size_t viewBytes = 0;

    int64_t NumElements() const
    {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
    size_t NumBytes() const { return static_cast<size_t>(NumElements()) * static_cast<size_t>(ge::GetSizeByDataType(dtype)); }
    // The element bytes, wherever they are (`data` or the borrowed view).
    const uint8_t* Bytes() const { return view != nullptr ? view : data.data(); }
    size_t ByteSize() const { return view != nullptr ? viewBytes : data.size(); }

    static HostTensor Absent()
    {
        HostTensor t;
        t.present = false;
        return t;
    }
    // The instances of a DYNAMIC input (or, in RunResult::outputs, of a DYNAMIC output).
    static HostTensor List(std::vector<HostTensor> tensors)
    {
        HostTensor t;
        t.dtype = ge::DT_UNDEFINED;
        t.isList = true;
        t.children = std::move(tensors);
        return t;
    }
    // Encodes `values` in dtype (round to nearest even for float types, truncation for ints).
    static HostTensor FromDoubles(ge::DataType dt, std::vector<int64_t> shape, const std::vector<double>& values);
    static HostTensor FromBytes(ge::DataType dt, std::vector<int64_t> shape, const void* bytes, size_t n)
    {
        HostTensor t;
        t.dtype = dt;
        t.shape = std::move(shape);
        t.data.assign(static_cast<const uint8_t*>(bytes), static_cast<const uint8_t*>(bytes) + n);
        return t;
    }
    // A tensor on `n` bytes the caller keeps valid, and does not change, while the tensor is in
    // use: no copy is made. RunOp passes a borrowed input of an op with outputs to the kernel
    // as its GM buffer directly, as the NPU passes the caller's device memory (a kernel writing
    // that input writes the caller's bytes); the inputs of an op without outputs are copied.
    static HostTensor Borrow(ge::DataType dt, std::vector<int64_t> shape, const void* bytes, size_t n)
    {
        HostTensor t;
        t.dtype = dt;
        t.shape = std::move(shape);
        t.view = static_cast<const uint8_t*>(bytes);
        t.viewBytes = n;
        return t;
    }
    std::vector<double> ToDoubles() const;
};

// Attribute values by OpDef attr index; std::monostate = "use the OpDef default".
using AttrValue = std::variant<std::monostate, bool, int64_t, float, std::string, std::vector<bool>,
                               std::vector<int64_t>, std::vector<float>, std::vector<std::vector<int64_t>>>;

// A kernel entry point of any arity: all parameters are GM_ADDR
// (inputs..., outputs..., workspace, tiling).
struct KernelEntry {
    size_t arity = 0;
    std::function<void(const std::vector<uint8_t*>&)> fn;
};

namespace detail {
template <class... A, size_t... I>
inline void CallKernel(void (*fn)(A...), const std::vector<uint8_t*>& args, std::index_sequence<I...>)
{
    fn(args[I]...);
}
}  // namespace detail

template <class... A>
inline KernelEntry MakeKernel(void (*fn)(A...))
{
    static_assert((std::is_same<A, uint8_t*>::value && ...), "kernel parameters must all be GM_ADDR (uint8_t*)");
    KernelEntry e;
    e.arity = sizeof...(A);
    e.fn = [fn](const std::vector<uint8_t*>& args) { detail::CallKernel(fn, args, std::index_sequence_for<A...>{}); };
    return e;
}

// One compiled dtype variant of a kernel: `dtypes` lists the IR inputs then the IR outputs
// (entries of omitted optional inputs are ignored when matching).
struct KernelVariant {
    std::vector<ge::DataType> dtypes;
    KernelEntry kernel;
};

struct RunOptions {
    PlatformConfig platform;
    bool launch = true;        // false: stop after TilingFunc (tiling-only checks)
    bool poisonOutputs = true;  // fill outputs/workspace/UB with 0xFF (NaN) before the kernel runs
    // Instance count per IR output index, for DYNAMIC outputs (a graph node fixes it before
    // InferShape runs); a missing entry or 0 means 1. Other outputs always have 1.
    std::vector<size_t> outputInstanceNums;
    // The output shapes, one per output instance, when the caller allocates the outputs (aclnn's
    // way: an op called through its aclnn API needs no InferShape, and many hand-written ones
    // register none). Given, InferShape is not run; InferDataType still is.
    std::vector<std::vector<int64_t>> outputShapes;
    // The pipe check (detail/pipes.h): a UB access of one pipe not ordered after another pipe's
    // conflicting access fails the launch. OPGEN_TWIN_PIPE_CHECK=0 in the environment turns it off.
    bool checkPipes = true;
};

// Shapes and dtypes per output *instance* (GE's output index: IR outputs in order, a DYNAMIC
// one contributing as many entries as it has instances); outputInstances[ir] says where the
// instances of IR output `ir` are. Without DYNAMIC outputs instance index == IR index.
struct InferResult {
    bool ok = false;
    std::string error;
    std::vector<std::vector<int64_t>> outputShapes;
    std::vector<ge::DataType> outputDtypes;
    std::vector<gert::AnchorInstanceInfo> outputInstances;
};

struct RunResult {
    bool ok = false;
    std::string stage;  // where it stopped: validate | infer_shape | infer_data_type | tiling | launch | done
    std::string error;
    std::vector<HostTensor> outputs;  // per IR output; a DYNAMIC one is a HostTensor::List
    // For an op without outputs, which updates its inputs in place: per IR input, as the kernel
    // left it; filled when the launch stage is reached (DYNAMIC ones and omitted optional ones
    // as given). Empty for other ops (copying every input twice per run costs time).
    std::vector<HostTensor> inputs;
    uint32_t blockDim = 0;
    uint64_t tilingKey = 0;
    std::vector<size_t> workspaceSizes;
    std::vector<uint8_t> tilingData;  // the bytes the TilingFunc wrote (GetDataSize())
    bool launched = false;
};

InferResult InferOp(const std::string& opType, const std::vector<HostTensor>& inputs,
                    const std::vector<AttrValue>& attrs = {}, const std::vector<size_t>& outputInstanceNums = {});
RunResult RunOp(const std::string& opType, const KernelEntry& kernel, const std::vector<HostTensor>& inputs,
                const std::vector<AttrValue>& attrs = {}, const RunOptions& options = {});
RunResult RunOp(const std::string& opType, const std::vector<KernelVariant>& variants,
                const std::vector<HostTensor>& inputs, const std::vector<AttrValue>& attrs = {},
                const RunOptions& options = {});

// ------------------------------------------------------------------------------------
// implementation
// ------------------------------------------------------------------------------------
namespace detail {

inline double DecodeElement(ge::DataType dt, const uint8_t* p)
{
    switch (dt) {
        case ge::DT_FLOAT: return Load<float>(p, 0);
        case ge::DT_FLOAT16: return fp::HalfBitsToFloat(Load<uint16_t>(p, 0));
        case ge::DT_BF16: return fp::Bf16BitsToFloat(Load<uint16_t>(p, 0));
        case ge::DT_DOUBLE: return Load<double>(p, 0);
        case ge::DT_INT8: return Load<int8_t>(p, 0);
        case ge::DT_UINT8: return Load<uint8_t>(p, 0);
        case ge::DT_BOOL: return Load<uint8_t>(p, 0) != 0 ? 1.0 : 0.0;
        case ge::DT_INT16: return Load<int16_t>(p, 0);
        case ge::DT_UINT16: return Load<uint16_t>(p, 0);
        case ge::DT_INT32: return Load<int32_t>(p, 0);
        case ge::DT_UINT32: return Load<uint32_t>(p, 0);
        case ge::DT_INT64: return static_cast<double>(Load<int64_t>(p, 0));
        case ge::DT_UINT64: return static_cast<double>(Load<uint64_t>(p, 0));
        default: ThrowTwin(Format("HostTensor: dtype %s has no numeric conversion", DataTypeName(dt)));
    }
}

inline void EncodeElement(ge::DataType dt, double v, uint8_t* p)
{
    switch (dt) {
        case ge::DT_FLOAT: Store<float>(p, 0, static_cast<float>(v)); break;
        case ge::DT_FLOAT16: Store<uint16_t>(p, 0, fp::FloatToHalfBits(v)); break;
        case ge::DT_BF16: Store<uint16_t>(p, 0, fp::FloatToBf16Bits(v)); break;
        case ge::DT_DOUBLE: Store<double>(p, 0, v); break;
        case ge::DT_INT8: Store<int8_t>(p, 0, static_cast<int8_t>(v)); break;
        case ge::DT_UINT8: Store<uint8_t>(p, 0, static_cast<uint8_t>(v)); break;
        case ge::DT_BOOL: Store<uint8_t>(p, 0, v != 0.0 ? 1 : 0); break;
        case ge::DT_INT16: Store<int16_t>(p, 0, static_cast<int16_t>(v)); break;
        case ge::DT_UINT16: Store<uint16_t>(p, 0, static_cast<uint16_t>(v)); break;
        case ge::DT_INT32: Store<int32_t>(p, 0, static_cast<int32_t>(v)); break;
        case ge::DT_UINT32: Store<uint32_t>(p, 0, static_cast<uint32_t>(v)); break;
        case ge::DT_INT64: Store<int64_t>(p, 0, static_cast<int64_t>(v)); break;
        case ge::DT_UINT64: Store<uint64_t>(p, 0, static_cast<uint64_t>(v)); break;
        default: ThrowTwin(Format("HostTensor: dtype %s has no numeric conversion", DataTypeName(dt)));
    }
}

inline std::string ShapeStr(const std::vector<int64_t>& s)
{
    std::string o = "[";
    for (size_t i = 0; i < s.size(); ++i) o += Format("%s%lld", i ? ", " : "", static_cast<long long>(s[i]));
    return o + "]";
}

// Buffers of one call that must outlive the kernel launches.
struct PreparedCall {
    ops::OpDef def{""};
    CallData call;
    int column = -1;  // matched dtype combination
};

inline bool IsDynamic(const ops::OpParamDef& p) { return p.TwinParamType() == ops::DYNAMIC; }

// "x", or "parts[2]" for instance 2 of a DYNAMIC input/output.
inline std::string InstanceName(const ops::OpParamDef& p, size_t rel)
{
    return IsDynamic(p) ? Format("%s[%zu]", p.TwinName().c_str(), rel) : p.TwinName();
}

// IR output of output instance `inst` (and the instance's index inside it).
inline size_t IrOutputOf(const CallData& c, size_t inst, size_t* rel = nullptr)
{
    for (size_t i = 0; i < c.irOutputs.size(); ++i) {
        const size_t start = c.irOutputs[i].GetInstanceStart();
        if (inst >= start && inst < start + c.irOutputs[i].GetInstanceNum()) {
            if (rel != nullptr) *rel = inst - start;
            return i;
        }
    }
    return 0;
}

inline std::string OutputName(const PreparedCall& pc, size_t inst)
{
    size_t rel = 0;
    const size_t ir = IrOutputOf(pc.call, inst, &rel);
    return InstanceName(pc.def.TwinOutputs()[ir], rel);
}

// " for inputs x [4, 37], gamma [4, 1]": the shapes of a call's inputs, for the messages of a
// host function that failed (op_host logs nothing the twin could show).
inline std::string InputShapesNote(const PreparedCall& pc)
{
    const CallData& c = pc.call;
    const auto& defIns = pc.def.TwinInputs();
    std::string o;
    for (size_t ir = 0; ir < c.irInputs.size() && ir < defIns.size(); ++ir) {
        for (size_t rel = 0; rel < c.irInputs[ir].GetInstanceNum(); ++rel) {
            const gert::StorageShape* shape = c.InShape(c.irInputs[ir].GetInstanceStart() + rel);
            if (shape == nullptr) continue;
            const gert::Shape& s = shape->GetOriginShape();
            std::vector<int64_t> dims;
            for (size_t d = 0; d < s.GetDimNum(); ++d) dims.push_back(s.GetDim(d));
            o += Format("%s%s %s", o.empty() ? " for inputs " : ", ", InstanceName(defIns[ir], rel).c_str(),
                        ShapeStr(dims).c_str());
        }
    }
    return o;
}

// The OpDef as the platform's SoC registers it: the tensors of its OpAICoreConfig (AddConfig
// with a config) replace the OpDef's, name by name, as metadef merges them
// (OpDef::GetMergeInputs/OpParamDef::MergeParam): a SoC may list fewer dtype combinations.
inline void MergeSocConfig(ops::OpDef& def, const std::string& soc)
{
    const auto merge = [](ops::OpParamDef& into, const ops::OpParamDef& from) {
        into.ParamType(from.TwinParamType());
        if (!from.TwinDataTypes().empty()) {
            if (from.TwinDataTypeList()) {
                into.DataTypeList(from.TwinDataTypes());
            } else {
                into.DataType(from.TwinDataTypes());
            }
        }
        if (!from.TwinFormats().empty()) {
            if (from.TwinFormatList()) {
                into.FormatList(from.TwinFormats());
            } else {
                into.Format(from.TwinFormats());
            }
        }
    };
    for (const auto& c : def.TwinAICore().TwinConfigs()) {
        if (c.first != soc) continue;
        const ops::OpAICoreConfig cfg = c.second;  // a copy: def changes below
        for (const auto& p : cfg.TwinInputs()) merge(def.Input(p.TwinName().c_str()), p);
        for (const auto& p : cfg.TwinOutputs()) merge(def.Output(p.TwinName().c_str()), p);
    }
}

// The OpDef of `opType` as the platform's SoC registers it. Returns "" or an error.
inline std::string LoadOpDef(const std::string& opType, const std::string& soc, ops::OpDef& def)
{
    if (!FindOpDef(opType, &def)) {
        std::string known;
        for (const auto& t : RegisteredOpTypes()) known += (known.empty() ? "" : ", ") + t;
        return Format("op type '%s' is not registered with OP_ADD (registered: %s)", opType.c_str(),
                      known.c_str());
    }
    MergeSocConfig(def, soc);
    return "";
}

// One input instance: checks it against its OpDef input `p` and appends its shape/desc/tensor.
// Returns "" or an error.
inline std::string AddInputInstance(CallData& c, const ops::OpParamDef& p, const std::string& name,
                                    const HostTensor& t, const std::string& soc)
{
    const std::string& opType = c.opType;
    if (t.isList || !t.present) {
        return Format("input '%s' of %s: a list entry must be a present, plain tensor",
                      name.c_str(), opType.c_str());
    }
    if (t.ByteSize() != t.NumBytes()) {
        return Format("input '%s': %zu data bytes for shape %s of %s (expected %zu)", name.c_str(),
                      t.ByteSize(), ShapeStr(t.shape).c_str(), DataTypeName(t.dtype), t.NumBytes());
    }
    if (t.shape.size() > gert::Shape::kMaxDimNum) {
        return Format("input '%s' has more than 25 dims", name.c_str());
    }
    const auto& dts = p.TwinDataTypes();
    bool allowed = dts.empty();
    for (auto d : dts) allowed = allowed || d == t.dtype;
    if (!allowed) {
        return Format("input '%s' of %s has dtype %s, which its OpDef DataType list for %s "
                      "does not contain",
                      name.c_str(), opType.c_str(), DataTypeName(t.dtype), soc.c_str());
    }
    gert::StorageShape ss;
    for (int64_t d : t.shape) {
        ss.MutableOriginShape().AppendDim(d);
        ss.MutableStorageShape().AppendDim(d);
    }
    gert::CompileTimeTensorDesc desc;
    desc.SetDataType(t.dtype);
    desc.SetOriginFormat(t.format);
    desc.SetStorageFormat(t.format);
    gert::Tensor tensor;
    tensor.TwinSet(ss, t.dtype, t.format, t.Bytes(), t.ByteSize());
    c.inShapes.push_back(ss);
    c.inDescs.push_back(desc);
    c.inTensors.push_back(tensor);
    return "";
}

// The instances of IR input `i` (its OpDef input `p`): a DYNAMIC input's list entries, a plain
// input itself, none for an omitted optional input. Returns "" or an error.
inline std::string AddInput(CallData& c, const ops::OpParamDef& p, size_t i,
                            const std::vector<HostTensor>& inputs, const std::string& soc)
{
    const std::string& opType = c.opType;
    const bool given = i < inputs.size() && inputs[i].present;
    if (IsDynamic(p)) {
        if (!given || !inputs[i].isList || inputs[i].children.empty()) {
            const bool emptyList = given && inputs[i].isList;
            return Format("input '%s' (index %zu) of %s is DYNAMIC: pass its tensors as a "
                          "non-empty HostTensor::List({...})%s",
                          p.TwinName().c_str(), i, opType.c_str(),
                          emptyList ? " (the twin runs no zero-instance dynamic inputs)" : "");
        }
        std::string err;
        for (size_t j = 0; j < inputs[i].children.size() && err.empty(); ++j) {
            err = AddInputInstance(c, p, InstanceName(p, j), inputs[i].children[j], soc);
        }
        return err;
    }
    if (!given) {
        if (p.TwinParamType() == ops::REQUIRED) {
            return Format("required input '%s' (index %zu) of %s is missing",
                          p.TwinName().c_str(), i, opType.c_str());
        }
        return "";
    }
    if (inputs[i].isList) {
        return Format("input '%s' (index %zu) of %s is not DYNAMIC: HostTensor::List is only for "
                      "DYNAMIC inputs",
                      p.TwinName().c_str(), i, opType.c_str());
    }
    return AddInputInstance(c, p, p.TwinName(), inputs[i], soc);
}

// Checks the inputs against the OpDef and appends their instances, recording where each IR
// input's are (irInputs). Returns "" or an error.
inline std::string PrepareInputs(const std::vector<HostTensor>& inputs, const std::string& soc,
                                 PreparedCall& pc)
{
    CallData& c = pc.call;
    const auto& defIns = pc.def.TwinInputs();
    for (size_t i = 0; i < defIns.size(); ++i) {
        const size_t start = c.inShapes.size();
        const std::string err = AddInput(c, defIns[i], i, inputs, soc);
        if (!err.empty()) return err;
        c.irInputs.emplace_back(static_cast<uint32_t>(start),
                                static_cast<uint32_t>(c.inShapes.size() - start));
    }
    return "";
}

// "x=<dtype>, parts[0]=<dtype>, ...": the dtype of every input instance.
inline std::string InputDtypes(const PreparedCall& pc)
{
    const CallData& c = pc.call;
    const auto& defIns = pc.def.TwinInputs();
    std::string got;
    for (size_t i = 0; i < defIns.size(); ++i) {
        for (size_t r = 0; r < c.irInputs[i].GetInstanceNum(); ++r) {
            const ge::DataType dt = c.inDescs[static_cast<size_t>(c.Instance(i, r))].GetDataType();
            got += Format("%s%s=%s", got.empty() ? "" : ", ", InstanceName(defIns[i], r).c_str(),
                          DataTypeName(dt));
        }
    }
    return got;
}

// Finds the dtype combination (column of the vertically aligned DataType lists) the inputs
// match, into pc.column; every instance of a dynamic input must match it. Returns "" or an
// error (an OpDef without DataType lists has no columns, and no error).
inline std::string MatchDtypeColumn(PreparedCall& pc)
{
    const CallData& c = pc.call;
    const auto& defIns = pc.def.TwinInputs();
    const auto& defOuts = pc.def.TwinOutputs();
    size_t columns = 0;
    for (const auto& p : defIns) columns = std::max(columns, p.TwinDataTypes().size());
    for (const auto& p : defOuts) columns = std::max(columns, p.TwinDataTypes().size());
    for (size_t j = 0; j < columns && pc.column < 0; ++j) {
        bool match = true;
        for (size_t i = 0; i < defIns.size() && match; ++i) {
            const auto& dts = defIns[i].TwinDataTypes();
            if (defIns[i].TwinDataTypeList() || dts.size() != columns) continue;
            for (size_t r = 0; r < c.irInputs[i].GetInstanceNum() && match; ++r) {
                match = dts[j] == c.inDescs[static_cast<size_t>(c.Instance(i, r))].GetDataType();
            }
        }
        if (match) pc.column = static_cast<int>(j);
    }
    if (columns > 0 && pc.column < 0) {
        return Format("no dtype combination of %s's OpDef matches the inputs (%s)",
                      c.opType.c_str(), InputDtypes(pc).c_str());
    }
    return "";
}

// The output instances (a DYNAMIC output's count from `outputInstanceNums`, 1 for others) with
// the matched column's format; their shapes/dtypes are produced by InferShape/InferDataType.
// Returns "" or an error.
inline std::string PrepareOutputs(const std::vector<size_t>& outputInstanceNums, PreparedCall& pc)
{
    CallData& c = pc.call;
    const auto& defOuts = pc.def.TwinOutputs();
    if (outputInstanceNums.size() > defOuts.size()) {
        return Format("%s has %zu outputs, %zu output instance counts given", c.opType.c_str(),
                      defOuts.size(), outputInstanceNums.size());
    }
    for (size_t i = 0; i < defOuts.size(); ++i) {
        const size_t want = i < outputInstanceNums.size() ? outputInstanceNums[i] : 0;
        const size_t n = want == 0 ? 1 : want;
        if (n != 1 && !IsDynamic(defOuts[i])) {
            return Format("output '%s' (index %zu) of %s is not DYNAMIC: it has one instance, %zu "
                          "requested",
                          defOuts[i].TwinName().c_str(), i, c.opType.c_str(), n);
        }
        c.irOutputs.emplace_back(static_cast<uint32_t>(c.outShapes.size()),
                                 static_cast<uint32_t>(n));
        const auto& fmts = defOuts[i].TwinFormats();
        const bool inColumn = pc.column >= 0 && static_cast<size_t>(pc.column) < fmts.size();
        const ge::Format f = inColumn ? fmts[pc.column] : ge::FORMAT_ND;
        for (size_t k = 0; k < n; ++k) {
            gert::StorageShape ss;
            ss.MutableOriginShape().TwinMarkUnset();  // InferShape must set it
            c.outShapes.push_back(ss);
            gert::CompileTimeTensorDesc desc;
            desc.SetDataType(ge::DT_UNDEFINED);
            desc.SetOriginFormat(f);
            desc.SetStorageFormat(f);
            c.outDescs.push_back(desc);
        }
    }
    return "";
}

// Appends attribute `a` with value `v` (of type V), or `fallback()` when `v` is null, through
// `add`. Returns "" or an error.
template <typename V, typename Fallback, typename Add>
inline std::string AddAttrAs(const CallData& c, const ops::OpAttrDef& a, const AttrValue* v, Fallback fallback,
                             Add add)
{
    if (v && !std::holds_alternative<V>(*v)) {
        return Format("attr '%s' of %s is a %s attr; the value given has another type", a.TwinName().c_str(),
                      c.opType.c_str(), AttrKindName(a.TwinKind()));
    }
    add(v ? std::get<V>(*v) : fallback());
    return "";
}

// Appends attribute `a` with value `v`, or its default when `v` is null. Returns "" or an error.
inline std::string AddAttr(CallData& c, const ops::OpAttrDef& a, const AttrValue* v)
{
    const std::string& n = a.TwinName();
    gert::RuntimeAttrs& at = c.attrs;
    using I64s = std::vector<int64_t>;
    switch (a.TwinKind()) {
        case AttrKind::kBool:
            return AddAttrAs<bool>(c, a, v, [&] { return a.TwinBool(); }, [&](bool x) { at.TwinAddBool(n, x); });
        case AttrKind::kInt:
            return AddAttrAs<int64_t>(c, a, v, [&] { return a.TwinInt(); }, [&](int64_t x) { at.TwinAddInt(n, x); });
        case AttrKind::kFloat:
            return AddAttrAs<float>(c, a, v, [&] { return a.TwinFloat(); }, [&](float x) { at.TwinAddFloat(n, x); });
        case AttrKind::kString:
            return AddAttrAs<std::string>(c, a, v, [&] { return a.TwinString(); },
                                          [&](const std::string& x) { at.TwinAddString(n, x); });
        case AttrKind::kListBool:
            return AddAttrAs<std::vector<bool>>(c, a, v, [&] { return a.TwinListBool(); },
                                                [&](const std::vector<bool>& x) {
                                                    at.TwinAddList<bool>(n, AttrKind::kListBool, x);
                                                });
        case AttrKind::kListInt:
            return AddAttrAs<I64s>(c, a, v, [&] { return a.TwinListInt(); },
                                   [&](const I64s& x) { at.TwinAddList<int64_t>(n, AttrKind::kListInt, x); });
        case AttrKind::kListFloat:
            return AddAttrAs<std::vector<float>>(c, a, v, [&] { return a.TwinListFloat(); },
                                                 [&](const std::vector<float>& x) {
                                                     at.TwinAddList<float>(n, AttrKind::kListFloat, x);
                                                 });
        case AttrKind::kListListInt:
            return AddAttrAs<std::vector<I64s>>(c, a, v, [&] { return a.TwinListListInt(); },
                                                [&](const std::vector<I64s>& x) { at.TwinAddListListInt(n, x); });
        default:
            return Format("attr '%s' of %s has no type (call Int()/Float()/... on it)", n.c_str(), c.opType.c_str());
    }
}

// The attributes, in OpDef order, defaults filled in. Returns "" or an error.
inline std::string PrepareAttrs(const std::vector<AttrValue>& attrs, PreparedCall& pc)
{
    const std::string& opType = pc.call.opType;
    const auto& defAttrs = pc.def.TwinAttrs();
    if (attrs.size() > defAttrs.size()) {
        return Format("%s has %zu attrs, %zu values given", opType.c_str(), defAttrs.size(),
                      attrs.size());
    }
    for (size_t k = 0; k < defAttrs.size(); ++k) {
        const ops::OpAttrDef& a = defAttrs[k];
        const bool given = k < attrs.size() && !std::holds_alternative<std::monostate>(attrs[k]);
        if (!given && !a.TwinHasDefault()) {
            return Format("attr '%s' (index %zu) of %s has no value and no default",
                          a.TwinName().c_str(), k, opType.c_str());
        }
        const std::string err = AddAttr(pc.call, a, given ? &attrs[k] : nullptr);
        if (!err.empty()) return err;
    }
    return "";
}

// Validates inputs/attrs against the OpDef (as the platform's SoC registers it) and fills
// CallData. Returns "" or an error.
inline std::string Prepare(const std::string& opType, const std::vector<HostTensor>& inputs,
                           const std::vector<AttrValue>& attrs, const PlatformConfig& platform,
                           const std::vector<size_t>& outputInstanceNums, PreparedCall& pc)
{
    std::string err = LoadOpDef(opType, platform.socVersion, pc.def);
    if (!err.empty()) return err;
    const size_t numInputs = pc.def.TwinInputs().size();
    if (inputs.size() > numInputs) {
        return Format("%s takes %zu inputs, %zu given", opType.c_str(), numInputs, inputs.size());
    }
    CallData& c = pc.call;
    c.opType = opType;
    c.nodeName = opType + "_twin";
    c.platform = fe::PlatFormInfos(platform);
    err = PrepareInputs(inputs, platform.socVersion, pc);
    if (err.empty()) err = MatchDtypeColumn(pc);
    if (err.empty()) err = PrepareOutputs(outputInstanceNums, pc);
    if (err.empty()) err = PrepareAttrs(attrs, pc);
    return err;
}

// Sets the output shapes the caller gives (RunOptions::outputShapes) in place of InferShape's.
inline std::string SetGivenShapes(PreparedCall& pc, const std::vector<std::vector<int64_t>>& shapes)
{
    CallData& c = pc.call;
    if (shapes.size() != c.outShapes.size()) {
        return Format("%s has %zu output instances, %zu output shapes given", c.opType.c_str(), c.outShapes.size(),
                      shapes.size());
    }
    for (size_t i = 0; i < shapes.size(); ++i) {
        gert::Shape s;
        for (const int64_t d : shapes[i]) {
            if (d < 0) return Format("output %zu ('%s') given a negative dim", i, OutputName(pc, i).c_str());
            s.AppendDim(d);
        }
        c.outShapes[i].MutableOriginShape() = s;
        c.outShapes[i].MutableStorageShape() = s;
    }
    return "";
}

// Runs InferShape, or takes the given shapes. Returns "" or an error.
inline std::string RunInferShape(PreparedCall& pc, const std::vector<std::vector<int64_t>>* givenShapes)
{
    CallData& c = pc.call;
    const std::string& op = c.opType;
    auto inferShape = pc.def.TwinInferShape();
    if (givenShapes != nullptr) {
        return SetGivenShapes(pc, *givenShapes);
    }
    if (inferShape == nullptr) {
        return Format("%s has no InferShape function (SetInferShape was not called)", op.c_str());
    }
    gert::InferShapeContext sctx(&c);
    ge::graphStatus status = ge::GRAPH_FAILED;
    const std::string crash = CatchSigFpe([&] { status = inferShape(&sctx); });
    if (!crash.empty()) {
        return Format("InferShape of %s: %s%s", op.c_str(), crash.c_str(), InputShapesNote(pc).c_str());
    }
    if (status != ge::GRAPH_SUCCESS) {
        return Format("InferShape of %s returned GRAPH_FAILED%s", op.c_str(), InputShapesNote(pc).c_str());
    }
    return "";
}

// Every output shape set, with no negative dim; the storage shapes set to them. Returns "" or an
// error.
inline std::string CheckInferredShapes(PreparedCall& pc)
{
    CallData& c = pc.call;
    const std::string& op = c.opType;
    for (size_t i = 0; i < c.outShapes.size(); ++i) {
        const gert::Shape& s = c.outShapes[i].GetOriginShape();
        if (s.TwinIsUnset()) {
            return Format("InferShape of %s left output %zu ('%s') unset", op.c_str(), i, OutputName(pc, i).c_str());
        }
        for (size_t d = 0; d < s.GetDimNum(); ++d) {
            if (s.GetDim(d) < 0) {
                return Format("InferShape of %s left output %zu ('%s') unset or with a negative dim", op.c_str(), i,
                              OutputName(pc, i).c_str());
            }
        }
        c.outShapes[i].MutableStorageShape() = s;
    }
    return "";
}

// Runs InferDataType, or without one takes the OpDef column's dtypes. Returns "" or an error.
inline std::string RunInferDataType(PreparedCall& pc)
{
    CallData& c = pc.call;
    auto inferDt = pc.def.TwinInferDataType();
    if (inferDt != nullptr) {
        gert::InferDataTypeContext dctx(&c);
        if (inferDt(&dctx) != ge::GRAPH_SUCCESS) {
            return Format("InferDataType of %s returned GRAPH_FAILED", c.opType.c_str());
        }
        return "";
    }
    const auto& defOuts = pc.def.TwinOutputs();
    for (size_t k = 0; k < c.outDescs.size(); ++k) {
        const auto& dts = defOuts[IrOutputOf(c, k)].TwinDataTypes();
        if (pc.column >= 0 && static_cast<size_t>(pc.column) < dts.size()) c.outDescs[k].SetDataType(dts[pc.column]);
    }
    return "";
}

// Every output dtype set, and the one the OpDef combination matching the inputs declares.
// Returns "" or an error.
inline std::string CheckInferredDataTypes(const PreparedCall& pc)
{
    const CallData& c = pc.call;
    const std::string& op = c.opType;
    const auto& defOuts = pc.def.TwinOutputs();
    for (size_t k = 0; k < c.outDescs.size(); ++k) {
        const ops::OpParamDef& def = defOuts[IrOutputOf(c, k)];
        const ge::DataType dt = c.outDescs[k].GetDataType();
        if (dt == ge::DT_UNDEFINED) {
            return Format("InferDataType of %s did not set output %zu ('%s')", op.c_str(), k, OutputName(pc, k).c_str());
        }
        const auto& dts = def.TwinDataTypes();
        if (pc.column >= 0 && static_cast<size_t>(pc.column) < dts.size() && !def.TwinDataTypeList() &&
            dts[pc.column] != dt) {
            return Format("InferDataType of %s gives output '%s' dtype %s, but the OpDef combination matching the "
                          "inputs declares %s (no kernel would exist for it)",
                          op.c_str(), OutputName(pc, k).c_str(), DataTypeName(dt), DataTypeName(dts[pc.column]));
        }
    }
    return "";
}

// Runs InferShape (or takes the given shapes) and InferDataType. Returns "" or an error; `stage`
// tells which.
inline std::string RunInfer(PreparedCall& pc, std::string& stage,
                            const std::vector<std::vector<int64_t>>* givenShapes = nullptr)
{
    stage = "infer_shape";
    std::string err = RunInferShape(pc, givenShapes);
    if (err.empty()) err = CheckInferredShapes(pc);
    if (!err.empty()) return err;
    stage = "infer_data_type";
    err = RunInferDataType(pc);
    return err.empty() ? CheckInferredDataTypes(pc) : err;
}

// GM buffers of one launch; a deque keeps their addresses stable while it grows.
struct GmBuffers {
    struct Loan {
        ByteVector* owner;
        size_t bytes;
        size_t index;
    };
    std::deque<ByteVector> bufs;
    std::vector<Loan> loans;
    std::vector<std::pair<uint8_t*, size_t>> mapped;  // FilledPages mappings
    GmBuffers() = default;
    GmBuffers(const GmBuffers&) = delete;
    GmBuffers& operator=(const GmBuffers&) = delete;
    ~GmBuffers()
    {
        for (const auto& m : mapped) FilledPages::Unmap(m.first, m.second);
    }
    // What the NPU's allocator hands out for `bytes` bytes: the size rounded up to 32 bytes, plus
    // 32 (aclrtMalloc's rule, which torch_npu's caching allocator and DIPU's Ascend strategy
    // apply). Kernels write a whole 32-byte block holding a 0-d result, or read one past a tail;
    // in a buffer the launch allocates (an output, the workspace) that stays inside it.
    static size_t DevicePadded(size_t bytes) { return (bytes + 31) / 32 * 32 + 32; }
    static std::string PaddedName(const std::string& name, size_t bytes)
    {
        return Format("%s (%zu bytes, %zu as the NPU allocates it)", name.c_str(), bytes, DevicePadded(bytes));
    }

    // A buffer of max(bytes, 32) bytes (so no pointer is null), registered as a GM region of
    // `bytes` bytes, holding a copy of `src` when given, else (and in the padding) `fill`; without
    // `src` (a buffer of the launch's own) of DevicePadded(bytes) bytes.
    // A large 0xFF buffer is a copy-on-write mapping (filled_pages.h).
    uint8_t* Add(size_t bytes, uint8_t fill, const std::string& name, const void* src = nullptr)
    {
        if (src == nullptr) {
            return AddPadded(bytes, fill, name);
        }
        const uint8_t* s = static_cast<const uint8_t*>(src);
        bufs.emplace_back(s, s + bytes);  // no fill before the copy
        if (bytes < 32) bufs.back().resize(32, fill);
        uint8_t* p = bufs.back().data();
        g_launch.gm.push_back({p, bytes, name});
        return p;
    }
    uint8_t* AddPadded(size_t bytes, uint8_t fill, const std::string& name)
    {
        const size_t padded = DevicePadded(bytes);
        uint8_t* m = fill == 0xFF && padded >= FilledPages::kMinBytes ? FilledPages::Map(padded) : nullptr;
        if (m != nullptr) {
            mapped.emplace_back(m, padded);
        } else {
            bufs.emplace_back(padded, fill);
            m = bufs.back().data();
        }
        g_launch.gm.push_back({m, padded, PaddedName(name, bytes)});
        return m;
    }
    // A GM region of `bytes` bytes on memory the caller owns (a borrowed input): no copy.
    uint8_t* Borrow(const uint8_t* p, size_t bytes, std::string name)
    {
        g_launch.gm.push_back({p, bytes, std::move(name), true});
        return const_cast<uint8_t*>(p);
    }
    // Like Add without `src`, but the buffer is `data` itself (already filled by the caller): it
    // moves in here, padded to DevicePadded bytes with `fill`, and Return() moves it back, so an
    // output needs no second buffer and no copy.
    uint8_t* Lend(ByteVector& data, uint8_t fill, const std::string& name)
    {
        const size_t bytes = data.size();
        loans.push_back({&data, bytes, bufs.size()});
        bufs.push_back(std::move(data));
        bufs.back().resize(DevicePadded(bytes), fill);
        uint8_t* p = bufs.back().data();
        g_launch.gm.push_back({p, DevicePadded(bytes), PaddedName(name, bytes)});
        return p;
    }
    void Return()
    {
        for (const Loan& l : loans) {
            *l.owner = std::move(bufs[l.index]);
            l.owner->resize(l.bytes);
        }
        loans.clear();
    }
    // The tensor-list descriptor of a DYNAMIC input/output (list_layout.h).
    uint8_t* AddList(const std::vector<std::vector<int64_t>>& shapes, const std::vector<const void*>& addrs,
                     const std::string& name)
    {
        const std::vector<uint64_t> words = EncodeTensorList(shapes, addrs);
        return Add(words.size() * sizeof(uint64_t), 0, name + " (tensor list descriptor)", words.data());
    }
};

// Gives a borrowed tensor (and a list's borrowed instances) its own copy of the bytes.
inline void OwnBytes(HostTensor& t)
{
    if (t.view != nullptr) {
        t.data.assign(t.view, t.view + t.viewBytes);
        t.view = nullptr;
        t.viewBytes = 0;
    }
    for (HostTensor& child : t.children) OwnBytes(child);
}

// Output instance `inst` inside RunResult::outputs (per IR output, DYNAMIC ones as lists).
inline HostTensor& OutputSlot(std::vector<HostTensor>& outputs, const CallData& c, size_t inst)
{
    size_t rel = 0;
    HostTensor& t = outputs[IrOutputOf(c, inst, &rel)];
    return t.isList ? t.children[rel] : t;
}

// Threads the kernel's blocks run on: OPGEN_TWIN_THREADS, else the machine's cores.
inline uint32_t LaunchThreads()
{
    if (const char* env = std::getenv("OPGEN_TWIN_THREADS")) {
        const long n = std::strtol(env, nullptr, 10);
        if (n >= 1) {
            return static_cast<uint32_t>(n);
        }
    }
    static const unsigned cores = std::thread::hardware_concurrency();  // glibc reads /sys each time
    return cores == 0 ? 1u : cores;
}

// Fills every output's bytes with `fill`, a large total on up to LaunchThreads() threads: one
// thread's memset of a 4 MB output took a tenth of a row-broadcast add's call.
inline void FillOutputs(std::vector<HostTensor>& outputs, uint8_t fill)
{
    constexpr size_t kChunk = size_t{256} << 10;
    std::vector<std::pair<uint8_t*, size_t>> chunks;
    const auto add = [&](ByteVector& data) {
        for (size_t at = 0; at < data.size(); at += kChunk) {
            chunks.emplace_back(data.data() + at, std::min(kChunk, data.size() - at));
        }
    };
    for (HostTensor& t : outputs) {
        add(t.data);
        for (HostTensor& child : t.children) add(child.data);
    }
    std::atomic<size_t> next{0};
    const auto fillChunks = [&] {
        for (size_t i = next++; i < chunks.size(); i = next++) {
            std::memset(chunks[i].first, fill, chunks[i].second);
        }
    };
    const size_t threads = std::min<size_t>(LaunchThreads(), chunks.size() / 4);  // 1 MB each at least
    BlockPool::Run(threads > 1 ? static_cast<uint32_t>(threads - 1) : 0, fillChunks);
}

// Runs the TilingFunc on a tiling buffer of the platform's capacity and, when it succeeds,
// copies what it set (block dim, tiling key, workspaces, tiling data) into r. Returns "" or an
// error.
inline std::string RunTiling(PreparedCall& pc, const PlatformConfig& platform, RunResult& r)
{
    CallData& c = pc.call;
    const std::string& opType = c.opType;
    auto tilingFn = pc.def.TwinAICore().TwinTiling();
    if (tilingFn == nullptr) {
        return Format("%s has no TilingFunc (AICore().SetTiling was not called)", opType.c_str());
    }
    // Unset fields read as garbage, as on the NPU.
    c.tilingBuf.assign(platform.tilingCapacity + 32, 0xA5);
    c.tilingData.TwinInit(c.tilingBuf.data(), platform.tilingCapacity);
    gert::TilingContext tctx(&c);
    HostTilingNote().clear();
    ge::graphStatus ts = ge::GRAPH_FAILED;
    const std::string crash = CatchSigFpe([&] { ts = tilingFn(&tctx); });
    if (!crash.empty()) {
        return Format("TilingFunc of %s: %s%s", opType.c_str(), crash.c_str(), InputShapesNote(pc).c_str());
    }
    if (ts != ge::GRAPH_SUCCESS) {
        std::string err = Format("TilingFunc of %s returned GRAPH_FAILED%s", opType.c_str(),
                                 InputShapesNote(pc).c_str());
        if (!HostTilingNote().empty()) {
            err += " (in it, matmul_tiling's " + HostTilingNote() + ")";
        }
        if (c.tilingRequested != 0) {
            err += Format(" after GetTilingData<T>() returned nullptr: sizeof(T)=%zu bytes exceeds "
                          "the tiling buffer capacity of %zu bytes",
                          c.tilingRequested, c.tilingData.GetCapacity());
        }
        return err;
    }
    if (c.tilingRequested != 0) {
        return Format("TilingFunc of %s: GetTilingData<T>() returned nullptr (sizeof(T)=%zu bytes "
                      "> tiling buffer capacity %zu bytes) but the TilingFunc reported success",
                      opType.c_str(), c.tilingRequested, c.tilingData.GetCapacity());
    }
    if (c.tilingData.GetDataSize() > c.tilingData.GetCapacity()) {
        return Format("TilingFunc of %s set a tiling data size of %zu bytes, more than the "
                      "%zu-byte tiling buffer",
                      opType.c_str(), c.tilingData.GetDataSize(), c.tilingData.GetCapacity());
    }
    r.blockDim = c.blockDim;
    r.tilingKey = c.tilingKey;
    r.workspaceSizes = c.workspaces;
    const long dataSize = static_cast<long>(c.tilingData.GetDataSize());
    r.tilingData.assign(c.tilingBuf.begin(), c.tilingBuf.begin() + dataSize);
    return "";
}

// The outputs of the inferred shapes/dtypes, every byte `fill`: one per IR output, a DYNAMIC
// one as a list of its instances. Returns whether all of them are empty.
inline bool AllocateOutputs(const PreparedCall& pc, uint8_t fill, std::vector<HostTensor>& outputs)
{
    const CallData& c = pc.call;
    const auto& defOuts = pc.def.TwinOutputs();
    for (size_t i = 0; i < defOuts.size(); ++i) {
        outputs.push_back(IsDynamic(defOuts[i]) ? HostTensor::List({}) : HostTensor());
    }
    bool allEmpty = true;
    for (size_t k = 0; k < c.outShapes.size(); ++k) {
        HostTensor t;
        t.dtype = c.outDescs[k].GetDataType();
        const gert::Shape& s = c.outShapes[k].GetOriginShape();
        for (size_t d = 0; d < s.GetDimNum(); ++d) t.shape.push_back(s.GetDim(d));
        t.format = c.outDescs[k].GetOriginFormat();
        t.data.resize(t.NumBytes());  // filled below
        allEmpty = allEmpty && t.NumElements() == 0;
        HostTensor& slot = outputs[IrOutputOf(c, k)];
        if (slot.isList) {
            slot.children.push_back(std::move(t));
        } else {
            slot = std::move(t);
        }
    }
    FillOutputs(outputs, fill);
    return allEmpty;
}

// The TilingFunc's SetBlockDim against the platform's cores and the outputs. Returns "" or an
// error.
inline std::string CheckBlockDim(const CallData& c, const PlatformConfig& platform, bool allEmpty)
{
    const std::string& opType = c.opType;
    if (!c.blockDimSet) {
        return Format("TilingFunc of %s never called SetBlockDim", opType.c_str());
    }
    if (c.blockDim > platform.aivCoreNum) {
        return Format("TilingFunc of %s: SetBlockDim(%u) exceeds the %u AI Vector cores of %s (use "
                      "PlatformAscendC::GetCoreNumAiv())",
                      opType.c_str(), c.blockDim, platform.aivCoreNum, platform.socVersion.c_str());
    }
    if (c.blockDim == 0 && !allEmpty) {
        return Format("TilingFunc of %s: SetBlockDim(0) although the outputs are not empty (the "
                      "kernel would never run)",
                      opType.c_str());
    }
    return "";
}

// Whether variant `v` was compiled for the dtype of each IR input/output's first instance.
inline bool VariantMatches(const PreparedCall& pc, const KernelVariant& v)
{
    const CallData& c = pc.call;
    const size_t numIns = pc.def.TwinInputs().size();
    const size_t numOuts = pc.def.TwinOutputs().size();
    bool match = v.dtypes.size() == numIns + numOuts;
    for (size_t i = 0; i < numIns && match; ++i) {
        const long inst = c.Instance(i, 0);
        if (inst >= 0) match = v.dtypes[i] == c.inDescs[static_cast<size_t>(inst)].GetDataType();
    }
    for (size_t i = 0; i < numOuts && match; ++i) {
        match = v.dtypes[numIns + i] == c.outDescs[c.irOutputs[i].GetInstanceStart()].GetDataType();
    }
    return match;
}

// The kernel to launch, into `k`: `kernel`, else the first of `variants` that matches the
// call's dtypes. Returns "" or an error (no variant matches, or the kernel's arity is wrong).
inline std::string SelectKernel(const PreparedCall& pc, const KernelEntry* kernel,
                                const std::vector<KernelVariant>* variants, const KernelEntry*& k)
{
    const std::string& opType = pc.call.opType;
    const auto& defIns = pc.def.TwinInputs();
    const auto& defOuts = pc.def.TwinOutputs();
    k = kernel;
    if (k == nullptr) {
        std::string avail;
        for (const auto& v : *variants) {
            if (k == nullptr && VariantMatches(pc, v)) k = &v.kernel;
            std::string combo;
            for (auto d : v.dtypes) {
                combo += (combo.empty() ? "" : "/") + std::string(DataTypeName(d));
            }
            avail += (avail.empty() ? "" : "; ") + combo;
        }
        if (k == nullptr) {
            return Format("no compiled kernel variant of %s matches this call's dtypes "
                          "(variants: %s)",
                          opType.c_str(), avail.c_str());
        }
    }
    const size_t want = defIns.size() + defOuts.size() + 2;
    if (k->arity != want) {
        return Format("the kernel takes %zu GM_ADDR parameters but %s needs %zu (%zu inputs, %zu "
                      "outputs, workspace, tiling)",
                      k->arity, opType.c_str(), want, defIns.size(), defOuts.size());
    }
    return "";
}

// Appends the kernel's input parameters to `args`, one per IR input: nullptr for an omitted
// optional input, the address of its tensor-list descriptor for a DYNAMIC one. A borrowed
// input of an op with outputs is its own GM buffer; other inputs are copied (an op without
// outputs updates the copies, which r.inputs receives). Returns the GM buffers of the plain
// (non-DYNAMIC) inputs, per IR input.
inline std::vector<uint8_t*> AddInputArgs(const PreparedCall& pc,
                                          const std::vector<HostTensor>& inputs, GmBuffers& gm,
                                          std::vector<uint8_t*>& args)
{
    const CallData& c = pc.call;
    const auto& defIns = pc.def.TwinInputs();
    const bool hasOutputs = !pc.def.TwinOutputs().empty();
    std::vector<uint8_t*> inPtrs(defIns.size(), nullptr);
    for (size_t i = 0; i < defIns.size(); ++i) {
        const size_t n = c.irInputs[i].GetInstanceNum();
        if (n == 0) {
            args.push_back(nullptr);
            continue;
        }
        const HostTensor* ts = IsDynamic(defIns[i]) ? inputs[i].children.data() : &inputs[i];
        std::vector<std::vector<int64_t>> shapes;
        std::vector<const void*> addrs;
        for (size_t j = 0; j < n; ++j) {
            const HostTensor& t = ts[j];
            std::string name = "input '" + InstanceName(defIns[i], j) + "'";
            addrs.push_back(t.view != nullptr && t.viewBytes > 0 && hasOutputs
                                ? gm.Borrow(t.view, t.viewBytes, std::move(name))
                                : gm.Add(t.ByteSize(), 0xFF, name, t.Bytes()));
            shapes.push_back(t.shape);
        }
        if (IsDynamic(defIns[i])) {
            args.push_back(gm.AddList(shapes, addrs, "input '" + defIns[i].TwinName() + "'"));
        } else {
            args.push_back(static_cast<uint8_t*>(const_cast<void*>(addrs[0])));
            inPtrs[i] = args.back();
        }
    }
    return inPtrs;
}

// Appends the kernel's output parameters to `args`, one per IR output (a DYNAMIC one the
// address of its tensor-list descriptor): each output instance's data, already filled with
// `fill` as the GM buffer must be, is lent as its GM buffer.
inline void AddOutputArgs(const PreparedCall& pc, uint8_t fill, std::vector<HostTensor>& outputs,
                          GmBuffers& gm, std::vector<uint8_t*>& args)
{
    const CallData& c = pc.call;
    const auto& defOuts = pc.def.TwinOutputs();
    std::vector<uint8_t*> outPtrs(c.outShapes.size(), nullptr);  // per output instance
    for (size_t i = 0; i < defOuts.size(); ++i) {
        std::vector<std::vector<int64_t>> shapes;
        std::vector<const void*> addrs;
        for (size_t j = 0; j < c.irOutputs[i].GetInstanceNum(); ++j) {
            const size_t inst = c.irOutputs[i].GetInstanceStart() + j;
            HostTensor& t = OutputSlot(outputs, c, inst);
            outPtrs[inst] = gm.Lend(t.data, fill, "output '" + InstanceName(defOuts[i], j) + "'");
            addrs.push_back(outPtrs[inst]);
            shapes.push_back(t.shape);
        }
        if (IsDynamic(defOuts[i])) {
            args.push_back(gm.AddList(shapes, addrs, "output '" + defOuts[i].TwinName() + "'"));
        } else {
            args.push_back(outPtrs[c.irOutputs[i].GetInstanceStart()]);
        }
    }
}

// What the AIC and the AIVs of a mixed kernel's block b waited for from each other, once all have
// run: on the NPU a wait nobody answers hangs the kernel. "" when every wait was answered.
inline std::string MixBlockError(const MixBlock& m, uint32_t b, uint32_t blocks, int64_t ratio)
{
    if (m.request != nullptr && !m.aicServed) {
        return Format("kernel block %u of %u (AIV %lld): %s waits for the block's cube core (AIC), which ended "
                      "without reaching REGIST_MATMUL_OBJ, so nothing serves the call (on the NPU the kernel "
                      "hangs): the AIC must reach REGIST_MATMUL_OBJ too (not behind `if ASCEND_IS_AIV` or an "
                      "early return)",
                      b, blocks, static_cast<long long>(m.requestAiv), m.request);
    }
    if (m.aicServed && m.aivClients < ratio) {
        return Format("kernel block %u of %u (AIC): REGIST_MATMUL_OBJ serves until each of the block's %lld vector "
                      "cores has quit (its client's destructor sends SERVICE_QUIT), but %u of them reached "
                      "REGIST_MATMUL_OBJ, so the AIC waits forever (on the NPU the kernel hangs): register on "
                      "every AIV, before any early return",
                      b, blocks, static_cast<long long>(ratio), m.aivClients);
    }
    return "";
}

// Runs the kernel's blocks on `args`, then checks the cache-line rule. Returns "" or an error.
// Blocks are independent, as AI cores are: they run on up to LaunchThreads() threads, each
// with its own launch state (a copy of this thread's), taking the next block as they finish
// one (a thread the OS holds back delays only its own block); a failure is reported for the
// lowest failing block, as if they ran one after the other: the blocks before it all run,
// those after it are not started once it failed.
// A kernel that calls SyncAll cannot run so: the first SyncAll stops the launch and sets
// `syncAllRatio` (> 0: the AIVs per block); the caller then runs it again from fresh buffers with
// that `syncAllRatio` given, and every AIV runs as a coroutine on this thread (sync_all.h).
// Each core's printf/DumpTensor text of a launch (kernel_debug.h): [block][sub-block], the AIC's.
struct DebugTexts {
    std::vector<std::string> sub0, sub1, aic;  // a mixed kernel's AIC too (after its AIVs)
    std::atomic<int64_t> ratio{1};
    explicit DebugTexts(uint32_t blocks) : sub0(blocks), sub1(blocks), aic(blocks) {}
};

// Prints the launch's debug text as the NPU's runtime does after a kernel: core by core in GetBlockIdx()
// order, each core's part after its DumpHead line.
inline void PrintDebugTexts(const CallData& c, const DebugTexts& d)
{
    const int64_t ratio = d.ratio.load();
    std::string out;
    for (uint32_t b = 0; b < c.blockDim; ++b) {
        for (int64_t sub = 0; sub < 2; ++sub) {
            const std::string& text = sub == 0 ? d.sub0[b] : d.sub1[b];
            if (text.empty()) continue;
            out += Format("opType=%s, DumpHead: AIV-%lld, CoreType=AIV, block dim=%u, total_block_num=%lld\n",
                          c.opType.c_str(), static_cast<long long>(b * ratio + sub), c.blockDim,
                          static_cast<long long>(c.blockDim * ratio));
            out += text;
        }
        if (!d.aic[b].empty()) {
            out += Format("opType=%s, DumpHead: AIC-%u, CoreType=AIC, block dim=%u, total_block_num=%u\n",
                          c.opType.c_str(), b, c.blockDim, c.blockDim);
            out += d.aic[b];
        }
    }
    if (out.empty()) return;
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
}

inline std::string RunBlocksOnCores(const CallData& c, const KernelEntry& k, const std::vector<uint8_t*>& args,
                                    int64_t& syncAllRatio, DebugTexts& debug);

// Runs the launch's blocks (RunBlocksOnCores) and prints their debug text, unless the launch runs again
// (SyncAll): the NPU runs it once.
inline std::string RunBlocks(const CallData& c, const KernelEntry& k, const std::vector<uint8_t*>& args,
                             int64_t& syncAllRatio)
{
    DebugTexts debug(c.blockDim);
    const int64_t before = syncAllRatio;
    std::string err = RunBlocksOnCores(c, k, args, syncAllRatio, debug);
    if (syncAllRatio == before) PrintDebugTexts(c, debug);
    return err;
}

// One launch's blocks, as RunBlocksOnCores runs them: what its cores share.
class BlockLaunch {
public:
    BlockLaunch(const CallData& c, const KernelEntry& k, const std::vector<uint8_t*>& args, DebugTexts& debug)
        : c_(c),
          k_(k),
          args_(args),
          debug_(debug),
          blockErrors_(c.blockDim),
          firstFailed_(c.blockDim),
          gmWrites_(c.blockDim),
          gmWritesSub1_(c.blockDim),
          shared_(g_launch),
          mixBlocks_(c.blockDim)
    {}

    std::string Run(int64_t& syncAllRatio)
    {
        const bool coop = syncAllRatio > 0;
        mixed_ = coop && syncAllRatio > 1;
        std::string err;
        if (coop) {
            err = RunCoop(syncAllRatio);
        } else {
            bool restarted = false;
            err = RunThreaded(syncAllRatio, restarted);
            if (restarted) return err;
        }
        return err.empty() ? GmWriteConflicts() : err;
    }

private:
    // Sets this thread's launch state for AIV `sub` of block b (or its AIC).
    void Enter(LaunchState& mine, uint32_t b, int64_t sub, bool aic)
    {
        mine.blockIdx = b;
        mine.subBlockIdx = sub;
        block_idx = b;
        block_num = mine.blockNum;
        if (sub == 0) mine.taskRatio = 1;
        mine.coreType = aic ? kCoreAic : kCoreAiv;
        mine.splitCores = false;
        mine.aicBeside = false;
        mine.mix = &mixBlocks_[b];
        mine.kfcClients.clear();
        mine.aicRegistFunction = nullptr;
        mine.blockIdxRead = false;
        mine.gmWrites = aic ? nullptr : sub == 0 ? &gmWrites_[b] : &gmWritesSub1_[b];
        mine.debugOut = aic ? &debug_.aic[b] : sub == 0 ? &debug_.sub0[b] : &debug_.sub1[b];
        mine.currentPipe = nullptr;
        mine.kernelType = -1;
        mine.atomicOp = 0;
        mine.atomicType = nullptr;
        mine.sysWorkspace = shared_.sysWorkspace;
        mine.syncPhase = 0;
        mine.softSyncCalls = 0;
        ResetLaunchFlags();
    }

    std::string BlockError(const LaunchState& mine, uint32_t b, int64_t sub, bool aic, const char* what) const
    {
        if (aic) return Format("kernel block %u of %u (AIC): %s", b, c_.blockDim, what);
        if (mine.taskRatio > 1) {
            return Format("kernel block %u of %u (AIV %lld, GetBlockIdx() %lld): %s", b, c_.blockDim,
                          static_cast<long long>(sub), static_cast<long long>(b * mine.taskRatio + sub), what);
        }
        return Format("kernel block %u of %u: %s", b, c_.blockDim, what);
    }

    // Runs the kernel as this core; throws what the kernel threw (a crash as a HardwareError).
    void RunKernel(LaunchState& mine, uint32_t b, bool aic)
    {
        const bool arenaInUse = ThreadUbArena().inUse;
        const std::string crash = CatchSigFpe([&] { k_.fn(args_); });
        if (!crash.empty()) {
            ThreadUbArena().inUse = arenaInUse;  // the block's TPipe was abandoned, not destroyed
            ThrowHardware(crash + " in the kernel's scalar code");  // reported as any block error
        }
        if (mine.taskRatio > 1) mixed_ = true, debug_.ratio = mine.taskRatio;
        if (!aic && mine.aicBeside) mixBlocks_[b].needsAic = true;
    }

    // Runs AIV `sub` of block b (or its AIC) on this thread's launch state; false when it failed
    // (blockErrors_).
    bool RunOne(LaunchState& mine, uint32_t b, int64_t sub, bool aic)
    {
        Enter(mine, b, sub, aic);
        try {
            RunKernel(mine, b, aic);
            return true;
        } catch (const CoopAbort&) {
            throw;
        } catch (const SyncAllRestart& r) {
            restart_ = r.taskRatio;
            blockErrors_[b] = "SyncAll: restart";  // replaced by the cooperative run's outcome
        } catch (const std::exception& e) {
            blockErrors_[b] = BlockError(mine, b, sub, aic, e.what());
        } catch (...) {
            blockErrors_[b] = Format("kernel block %u of %u: unknown exception", b, c_.blockDim);
        }
        return false;
    }

    // The AIC of block b, once its AIVs have run, then what the group waited for.
    bool RunAic(LaunchState& mine, uint32_t b, int64_t ratio)
    {
        if (!RunOne(mine, b, 0, true)) return false;
        blockErrors_[b] = MixBlockError(mixBlocks_[b], b, c_.blockDim, ratio);
        return blockErrors_[b].empty();
    }

    std::string FirstError() const
    {
        for (const std::string& e : blockErrors_) {
            if (!e.empty()) return e;
        }
        return "";
    }

    // Cooperatively: unit u is AIV u % ratio of block u / ratio; false when it failed.
    bool RunCoopUnit(uint32_t u, int64_t ratio)
    {
        LaunchState& mine = g_launch;  // this core's (the scheduler swaps it in)
        const int64_t sub = u % ratio;
        if (sub > 0) mine.taskRatio = ratio;
        const bool ok = RunOne(mine, u / static_cast<uint32_t>(ratio), sub, false);
        if (ok && mine.taskRatio != ratio) {
            blockErrors_[u / ratio] = Format("kernel block %u of %u: SyncAll: the kernel type differs "
                                             "between blocks (AIVs per block %lld, then %lld)",
                                             static_cast<uint32_t>(u / ratio), c_.blockDim,
                                             static_cast<long long>(ratio), static_cast<long long>(mine.taskRatio));
            return false;
        }
        return ok;
    }

    // Every AIV as a coroutine on this thread (sync_all.h), then the AICs.
    std::string RunCoop(int64_t ratio)
    {
        const uint32_t units = c_.blockDim * static_cast<uint32_t>(ratio);
        std::string err = CoopScheduler::Run(
            units, [&](uint32_t u) { return RunCoopUnit(u, ratio); },
            [&](uint32_t u) {
                return ratio > 1 ? Format("kernel block %u (AIV %lld, GetBlockIdx() %u)", u / static_cast<uint32_t>(ratio),
                                          static_cast<long long>(u % ratio), u)
                                 : Format("kernel block %u", u);
            });
        const std::string first = FirstError();
        if (!first.empty()) return first;
        if (!err.empty()) return err;
        const LaunchState outer = g_launch;  // the AICs, after the cooperative run of the AIVs
        g_launch = shared_;
        for (uint32_t b = 0; b < c_.blockDim; ++b) {
            if (mixBlocks_[b].needsAic && !RunAic(g_launch, b, ratio)) break;
        }
        g_launch = outer;
        return FirstError();
    }

    // One thread's share: the next block until none is left or one before it failed.
    void RunBlocksOnThisThread()
    {
        LaunchState& mine = g_launch;  // this thread's
        mine = shared_;
        for (uint32_t b = nextBlock_++; b < c_.blockDim && b < firstFailed_.load(); b = nextBlock_++) {
            // A KERNEL_TYPE_MIX_AIC_1_2 kernel (known once its body set the type) runs again as the
            // block's second AIV (sub-block 1).
            // Then the block's AIC, where the kernel type has one (a SoC with split cores).
            bool ok = true;
            for (int64_t sub = 0; ok && (sub < mine.taskRatio || sub == 0); ++sub) {
                ok = RunOne(mine, b, sub, false);
            }
            if (ok && mixBlocks_[b].needsAic) ok = RunAic(mine, b, mine.taskRatio);
            if (ok) continue;
            uint32_t failed = firstFailed_.load();
            while (b < failed && !firstFailed_.compare_exchange_weak(failed, b)) {
            }
        }
        mine = LaunchState();
    }

    // SyncAll restarts the launch from the same inputs: a borrowed input (the caller's memory)
    // written before it cannot be restored. "" when none was.
    std::string BorrowedWriteError() const
    {
        for (const auto* blocks : {&gmWrites_, &gmWritesSub1_}) {
            for (const BlockGmWrites& w : *blocks) {
                for (const auto* ranges : {&w.dmaRanges, &w.scalarLines}) {
                    for (const BlockGmWrites::Range& r : *ranges) {
                        if (!shared_.gm[r.region].borrowed) continue;
                        return Format("SyncAll: the kernel wrote %s before its first SyncAll; the twin "
                                      "runs a kernel that calls SyncAll a second time, with its cores as "
                                      "coroutines, and cannot restore that input (not emulated)",
                                      shared_.gm[r.region].name.c_str());
                    }
                }
            }
        }
        return "";
    }

    // The blocks on up to LaunchThreads() threads; `restarted` when a SyncAll stopped them.
    std::string RunThreaded(int64_t& syncAllRatio, bool& restarted)
    {
        const uint32_t workers = std::min<uint32_t>(c_.blockDim, LaunchThreads());
        BlockPool::Run(workers > 1 ? workers - 1 : 0, [this]() { RunBlocksOnThisThread(); });
        if (restart_.load() > 0) {  // SyncAll: the caller runs the launch again cooperatively
            restarted = true;
            const std::string err = BorrowedWriteError();
            if (err.empty()) syncAllRatio = restart_.load();
            return err;
        }
        return FirstError();
    }

    // The cache-line and DMA write rules over every AIV's GM writes.
    std::string GmWriteConflicts()
    {
        // g_launch was reset by the blocks run on this thread: the regions are shared_'s.
        if (mixed_) {  // the AIVs in GetBlockIdx() order: block * 2 + sub-block
            std::vector<BlockGmWrites> aiv;
            aiv.reserve(2 * gmWrites_.size());
            for (size_t b = 0; b < gmWrites_.size(); ++b) {
                aiv.push_back(std::move(gmWrites_[b]));
                aiv.push_back(std::move(gmWritesSub1_[b]));
            }
            const std::string err = CacheLineConflict(aiv, shared_.gm);
            return err.empty() ? DmaWriteConflict(aiv, shared_.gm) : err;
        }
        const std::string err = CacheLineConflict(gmWrites_, shared_.gm);
        return err.empty() ? DmaWriteConflict(gmWrites_, shared_.gm) : err;
    }

    const CallData& c_;
    const KernelEntry& k_;
    const std::vector<uint8_t*>& args_;
    DebugTexts& debug_;
    std::vector<std::string> blockErrors_;
    std::atomic<uint32_t> nextBlock_{0};
    std::atomic<uint32_t> firstFailed_;
    std::atomic<int64_t> restart_{0};
    std::vector<BlockGmWrites> gmWrites_;      // for the cache-line rule
    std::vector<BlockGmWrites> gmWritesSub1_;  // a mixed kernel's second AIV per block
    std::atomic<bool> mixed_{false};
    const LaunchState shared_;
    std::vector<MixBlock> mixBlocks_;  // a mixed kernel's AIC and AIVs per block
};

inline std::string RunBlocksOnCores(const CallData& c, const KernelEntry& k, const std::vector<uint8_t*>& args,
                                    int64_t& syncAllRatio, DebugTexts& debug)
{
    BlockLaunch launch(c, k, args, debug);
    return launch.Run(syncAllRatio);
}

// Launches kernel `k` on GM buffers for the call (r.outputs' data lent as the outputs' own).
// Returns "" or an error; then the outputs hold their fill again, as before the launch, else
// what the kernel wrote, and r.inputs (an op without outputs) what it left in its inputs.
inline std::string LaunchOnce(PreparedCall& pc, const KernelEntry& k, const std::vector<HostTensor>& inputs,
                              const RunOptions& opt, RunResult& r, int64_t& syncAllRatio)
{
    CallData& c = pc.call;
    const uint8_t fill = opt.poisonOutputs ? 0xFF : 0x00;
    LaunchState& L = g_launch;
    L.gm.clear();
    GmBuffers gm;
    std::vector<uint8_t*> args;
    const std::vector<uint8_t*> inPtrs = AddInputArgs(pc, inputs, gm, args);
    AddOutputArgs(pc, fill, r.outputs, gm, args);
    size_t wsTotal = 0;
    for (size_t w : c.workspaces) wsTotal += w;
    args.push_back(gm.Add(wsTotal, fill, "workspace"));
    L.sysWorkspace = args.back();
    L.workspaceBytes = wsTotal;
    L.aicCoreNum = opt.platform.aicCoreNum;
    L.gm.push_back({c.tilingBuf.data(), c.tilingData.GetDataSize(), "tiling"});
    args.push_back(c.tilingBuf.data());

    L.blockNum = c.blockDim;
    L.tilingKey = c.tilingKey;
    L.ubSize = opt.platform.ubSize;
    L.socVersion = opt.platform.socVersion;
    L.sysWorkspaceBytes = opt.platform.libApiWorkspace;
    L.pipeCheck = opt.checkPipes ? PipeCheckModeFromEnv() : kPipeCheckOff;
    r.launched = true;
    const int64_t ratioBefore = syncAllRatio;
    const std::string err = RunBlocks(c, k, args, syncAllRatio);
    L = LaunchState();  // later code (e.g. unit tests) must not see this call's buffers
    gm.Return();  // the outputs' data hold what the kernel wrote
    if (!err.empty() || syncAllRatio != ratioBefore) {
        for (size_t inst = 0; inst < c.outShapes.size(); ++inst) {  // as before the launch
            ByteVector& d = OutputSlot(r.outputs, c, inst).data;
            std::fill(d.begin(), d.end(), fill);
        }
        return err;
    }
    for (size_t i = 0; i < inPtrs.size() && i < r.inputs.size(); ++i) {
        HostTensor& t = r.inputs[i];
        if (inPtrs[i] != nullptr && !t.data.empty()) {
            std::memcpy(t.data.data(), inPtrs[i], t.data.size());
        }
    }
    return "";
}

// Launches kernel `k` (LaunchOnce); a kernel that calls SyncAll runs a second time, from fresh
// buffers, with its cores as coroutines (RunBlocks).
inline std::string LaunchKernel(PreparedCall& pc, const KernelEntry& k,
                                const std::vector<HostTensor>& inputs, const RunOptions& opt,
                                RunResult& r)
{
    int64_t syncAllRatio = 0;
    const std::string err = LaunchOnce(pc, k, inputs, opt, r, syncAllRatio);
    if (!err.empty() || syncAllRatio == 0) return err;
    return LaunchOnce(pc, k, inputs, opt, r, syncAllRatio);
}

// A run that got to its end.
inline void MarkDone(RunResult& r)
{
    r.ok = true;
    r.stage = "done";
}

inline RunResult RunImplUnsafe(const std::string& opType, const KernelEntry* kernel,
                         const std::vector<KernelVariant>* variants, const std::vector<HostTensor>& inputs,
                         const std::vector<AttrValue>& attrs, const RunOptions& opt)
{
    RunResult r;
    PreparedCall pc;
    r.stage = "validate";
    std::string err = Prepare(opType, inputs, attrs, opt.platform, opt.outputInstanceNums, pc);
    if (err.empty()) err = RunInfer(pc, r.stage, opt.outputShapes.empty() ? nullptr : &opt.outputShapes);
    if (!err.empty()) {
        r.error = err;
        return r;
    }
    r.stage = "tiling";
    r.error = RunTiling(pc, opt.platform, r);
    if (!r.error.empty()) return r;
    // Outputs are allocated even when not launching, so shapes/dtypes are reported.
    const bool allEmpty = AllocateOutputs(pc, opt.poisonOutputs ? 0xFF : 0x00, r.outputs);
    r.error = CheckBlockDim(pc.call, opt.platform, allEmpty);
    if (!r.error.empty()) return r;
    if (!opt.launch) {
        MarkDone(r);
        return r;
    }
    r.stage = "launch";
    const KernelEntry* k = nullptr;
    r.error = SelectKernel(pc, kernel, variants, k);
    if (!r.error.empty()) return r;
    if (pc.def.TwinOutputs().empty()) {
        r.inputs = inputs;
        for (HostTensor& t : r.inputs) OwnBytes(t);  // they outlive the caller's memory
    }
    if (pc.call.blockDim == 0) {  // empty outputs: nothing to launch
        MarkDone(r);
        return r;
    }
    r.error = LaunchKernel(pc, *k, inputs, opt, r);
    if (r.error.empty()) MarkDone(r);
    return r;
}

// Exceptions thrown by the op's host functions (e.g. a TwinError from a mistyped
// GetAttrPointer) become error results of the stage that was running.
inline RunResult RunImpl(const std::string& opType, const KernelEntry* kernel,
                         const std::vector<KernelVariant>* variants, const std::vector<HostTensor>& inputs,
                         const std::vector<AttrValue>& attrs, const RunOptions& opt)
{
    try {
        return RunImplUnsafe(opType, kernel, variants, inputs, attrs, opt);
    } catch (const std::exception& e) {
        g_launch = LaunchState();
        RunResult r;
        r.stage = "host";
        r.error = e.what();
        return r;
    }
}

}  // namespace detail

inline HostTensor HostTensor::FromDoubles(ge::DataType dt, std::vector<int64_t> shape, const std::vector<double>& values)
{
    HostTensor t;
    t.dtype = dt;
    t.shape = std::move(shape);
    const size_t n = static_cast<size_t>(t.NumElements());
    if (values.size() != n) {
        detail::ThrowTwin(detail::Format("HostTensor::FromDoubles: %zu values for %zu elements", values.size(), n));
    }
    const size_t es = static_cast<size_t>(ge::GetSizeByDataType(dt));
    t.data.assign(n * es, 0);
    for (size_t i = 0; i < n; ++i) detail::EncodeElement(dt, values[i], t.data.data() + i * es);
    return t;
}

inline std::vector<double> HostTensor::ToDoubles() const
{
    const size_t es = static_cast<size_t>(ge::GetSizeByDataType(dtype));
    const size_t n = es == 0 ? 0 : ByteSize() / es;
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = detail::DecodeElement(dtype, Bytes() + i * es);
    return out;
}

inline InferResult InferOp(const std::string& opType, const std::vector<HostTensor>& inputs,
                           const std::vector<AttrValue>& attrs, const std::vector<size_t>& outputInstanceNums)
{
    InferResult r;
    detail::PreparedCall pc;
    std::string stage;
    std::string err;
    try {
        err = detail::Prepare(opType, inputs, attrs, PlatformConfig(), outputInstanceNums, pc);
        if (err.empty()) err = detail::RunInfer(pc, stage);
    } catch (const std::exception& e) {
        err = e.what();
    }
    if (!err.empty()) {
        r.error = err;
        return r;
    }
    for (size_t i = 0; i < pc.call.outShapes.size(); ++i) {
        const gert::Shape& s = pc.call.outShapes[i].GetOriginShape();
        std::vector<int64_t> dims;
        for (size_t d = 0; d < s.GetDimNum(); ++d) dims.push_back(s.GetDim(d));
        r.outputShapes.push_back(dims);
        r.outputDtypes.push_back(pc.call.outDescs[i].GetDataType());
    }
    r.outputInstances = pc.call.irOutputs;
    r.ok = true;
    return r;
}

inline RunResult RunOp(const std::string& opType, const KernelEntry& kernel, const std::vector<HostTensor>& inputs,
                       const std::vector<AttrValue>& attrs, const RunOptions& options)
{
    return detail::RunImpl(opType, &kernel, nullptr, inputs, attrs, options);
}

inline RunResult RunOp(const std::string& opType, const std::vector<KernelVariant>& variants,
                       const std::vector<HostTensor>& inputs, const std::vector<AttrValue>& attrs,
                       const RunOptions& options)
{
    return detail::RunImpl(opType, nullptr, &variants, inputs, attrs, options);
}

}  // namespace opgen_twin

#endif  // OPGEN_TWIN_RUNNER_H
