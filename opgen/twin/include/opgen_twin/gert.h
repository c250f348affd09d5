// opgen CPU twin: host-side runtime types of namespace gert (metadef exe_graph/runtime):
// Shape, StorageShape, Tensor, CompileTimeTensorDesc, ContinuousVector, RuntimeAttrs,
// TilingData and the three contexts TilingFunc/InferShape/InferDataType receive.
//
// On the NPU host these objects are created by the graph engine. Here they are thin views
// over an opgen_twin::detail::CallData that the runner (or a test) fills.
#ifndef OPGEN_TWIN_GERT_H
#define OPGEN_TWIN_GERT_H

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "opgen_twin/errors.h"
#include "opgen_twin/ge_types.h"
#include "opgen_twin/platform.h"

namespace gert {

struct Shape {
public:
    static constexpr size_t kMaxDimNum = 25;
    static constexpr int64_t kInvalidDimValue = std::numeric_limits<int64_t>::min();

    Shape() : dim_num_(0), dims_{0} {}
    Shape(const std::initializer_list<int64_t>& args) : Shape()
    {
        if (args.size() > kMaxDimNum) {
            return;
        }
        for (const int64_t a : args) {
            dims_[dim_num_++] = a;
        }
    }
    bool operator==(const Shape& o) const
    {
        if (dim_num_ != o.dim_num_) return false;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (dims_[i] != o.dims_[i]) return false;
        }
        return true;
    }
    bool operator!=(const Shape& o) const { return !(*this == o); }
    // Number of elements; 1 for a scalar (no dims), kInvalidDimValue on overflow.
    int64_t GetShapeSize() const
    {
        int64_t n = 1;
        for (size_t i = 0; i < dim_num_; ++i) {
            if (__builtin_mul_overflow(n, dims_[i], &n)) return kInvalidDimValue;
        }
        return n;
    }
    bool IsScalar() const { return dim_num_ == 0; }
    void SetScalar() { SetDimNum(0); }
    size_t GetDimNum() const { return dim_num_; }
    void SetDimNum(const size_t dim_num)
    {
        if (dim_num == 0 && TwinIsUnset()) dims_[0] = 0;
        dim_num_ = dim_num;
    }
    int64_t GetDim(const size_t idx) const { return idx >= kMaxDimNum ? kInvalidDimValue : dims_[idx]; }
    const int64_t& operator[](const size_t idx) const { return dims_[idx]; }
    int64_t& operator[](const size_t idx) { return dims_[idx]; }
    void SetDim(size_t idx, const int64_t dim_value)
    {
        if (idx < kMaxDimNum) dims_[idx] = dim_value;
    }
    Shape& AppendDim(const int64_t value)
    {
        if (dim_num_ < kMaxDimNum) dims_[dim_num_++] = value;
        return *this;
    }

    // ---- twin only ----
    // An output shape before InferShape: no dims, as GE hands it over (InferShape may AppendDim
    // to it), with a mark in the unused first dim that any write of the shape clears, so that an
    // InferShape that never sets the output is told apart from one that makes it 0-d.
    void TwinMarkUnset()
    {
        dim_num_ = 0;
        dims_[0] = kInvalidDimValue;
    }
    bool TwinIsUnset() const { return dim_num_ == 0 && dims_[0] == kInvalidDimValue; }

private:
    size_t dim_num_;
    int64_t dims_[kMaxDimNum];
};

struct StorageShape {
public:
    StorageShape() = default;
    StorageShape(const std::initializer_list<int64_t>& origin, const std::initializer_list<int64_t>& storage)
        : origin_shape_(origin), storage_shape_(storage)
    {}
    const Shape& GetOriginShape() const { return origin_shape_; }
    const Shape& GetShape() const { return storage_shape_; }
    const Shape& GetStorageShape() const { return storage_shape_; }
    Shape& MutableShape() { return storage_shape_; }
    Shape& MutableOriginShape() { return origin_shape_; }
    Shape& MutableStorageShape() { return storage_shape_; }
    bool operator==(const StorageShape& o) const
    {
        return origin_shape_ == o.origin_shape_ && storage_shape_ == o.storage_shape_;
    }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_shape_;
    Shape storage_shape_;
};

class StorageFormat {
public:
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}
    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }

private:
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
};

// Where the instances of one IR input/output sit among the node's inputs/outputs: a
// REQUIRED one has 1 instance, an omitted OPTIONAL one 0, a DYNAMIC one as many as the node
// has (GetInstanceStart is then the index of the first; with 0 instances it is where the
// next present one starts). Same accessors as metadef's compute_node_info.h (the real class
// additionally carries 40 reserved bytes).
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo() = default;
    AnchorInstanceInfo(const uint32_t instance_start, const uint32_t instantiation_num)
        : instance_start_(instance_start), instantiation_num_(instantiation_num)
    {}
    size_t GetInstanceNum() const { return instantiation_num_; }
    size_t GetInstanceStart() const { return instance_start_; }
    void SetInstanceStart(const uint32_t instance_start) { instance_start_ = instance_start; }
    void SetInstantiationNum(const uint32_t instantiation_num) { instantiation_num_ = instantiation_num; }

private:
    uint32_t instance_start_ = 0;
    uint32_t instantiation_num_ = 0;
};

class CompileTimeTensorDesc {
public:
    CompileTimeTensorDesc() = default;
    ge::DataType GetDataType() const { return data_type_; }
    void SetDataType(const ge::DataType dt) { data_type_ = dt; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }

private:
    ge::DataType data_type_ = ge::DT_UNDEFINED;
    StorageFormat format_;
};

// Host view of a tensor (shape, dtype, and - for ValueDepend inputs - host data).
class Tensor {
public:
    Tensor() = default;
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    template <class T>
    const T* GetData() const { return static_cast<const T*>(addr_); }
    template <class T>
    T* GetData() { return static_cast<T*>(const_cast<void*>(addr_)); }
    const void* GetAddr() const { return addr_; }
    size_t GetSize() const { return size_; }
    ge::DataType GetDataType() const { return data_type_; }
    void SetDataType(const ge::DataType dt) { data_type_ = dt; }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
    Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
    const StorageShape& GetShape() const { return shape_; }
    StorageShape& GetShape() { return shape_; }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    const StorageFormat& GetFormat() const { return format_; }
    StorageFormat& MutableFormat() { return format_; }

    void TwinSet(const StorageShape& s, ge::DataType dt, ge::Format f, const void* addr, size_t size)
    {
        shape_ = s;
        data_type_ = dt;
        format_ = StorageFormat(f, f);
        addr_ = addr;
        size_ = size;
    }

private:
    StorageShape shape_;
    StorageFormat format_;
    ge::DataType data_type_ = ge::DT_UNDEFINED;
    const void* addr_ = nullptr;
    size_t size_ = 0;
};

// A header followed (in the same allocation) by `capacity` elements.
class ContinuousVector {
public:
    template <typename T>
    static std::unique_ptr<uint8_t[]> Create(size_t capacity, size_t& total_size)
    {
        total_size = sizeof(ContinuousVector) + capacity * sizeof(T);
        std::unique_ptr<uint8_t[]> holder(new uint8_t[total_size]());
        reinterpret_cast<ContinuousVector*>(holder.get())->Init(capacity);
        return holder;
    }
    template <typename T>
    static std::unique_ptr<uint8_t[]> Create(const size_t capacity)
    {
        size_t total = 0;
        return Create<T>(capacity, total);
    }
    void Init(const size_t capacity)
    {
        capacity_ = capacity;
        size_ = 0;
    }
    size_t GetSize() const { return size_; }
    ge::graphStatus SetSize(const size_t size)
    {
        if (size > capacity_) return ge::GRAPH_FAILED;
        size_ = size;
        return ge::GRAPH_SUCCESS;
    }
    size_t GetCapacity() const { return capacity_; }
    const void* GetData() const { return reinterpret_cast<const uint8_t*>(this) + sizeof(ContinuousVector); }
    void* MutableData() { return reinterpret_cast<uint8_t*>(this) + sizeof(ContinuousVector); }

private:
    size_t capacity_;
    size_t size_;
};

template <typename T>
class TypedContinuousVector : private ContinuousVector {
public:
    using ContinuousVector::GetCapacity;
    using ContinuousVector::GetSize;
    using ContinuousVector::SetSize;
    T* MutableData() { return static_cast<T*>(ContinuousVector::MutableData()); }
    const T* GetData() const { return static_cast<const T*>(ContinuousVector::GetData()); }
};

// A list of ContinuousVectors (list-of-lists attributes).
class ContinuousVectorVector {
public:
    size_t GetSize() const { return size_; }
    const ContinuousVector* Get(const size_t index) const
    {
        if (index >= size_) return nullptr;
        const size_t* offsets = reinterpret_cast<const size_t*>(reinterpret_cast<const uint8_t*>(this) + sizeof(*this));
        return reinterpret_cast<const ContinuousVector*>(reinterpret_cast<const uint8_t*>(this) + offsets[index]);
    }
    // Twin-only builder: one allocation holding the header, the offsets and the inner vectors.
    template <typename T>
    static std::unique_ptr<uint8_t[]> TwinCreate(const std::vector<std::vector<T>>& v, size_t& total)
    {
        total = sizeof(ContinuousVectorVector) + v.size() * sizeof(size_t);
        std::vector<size_t> offs;
        for (const auto& inner : v) {
            total = (total + 7) / 8 * 8;
            offs.push_back(total);
            total += sizeof(ContinuousVector) + inner.size() * sizeof(T);
        }
        std::unique_ptr<uint8_t[]> holder(new uint8_t[total]());
        auto* self = reinterpret_cast<ContinuousVectorVector*>(holder.get());
        self->capacity_ = v.size();
        self->size_ = v.size();
        size_t* offsets = reinterpret_cast<size_t*>(holder.get() + sizeof(ContinuousVectorVector));
        for (size_t i = 0; i < v.size(); ++i) {
            offsets[i] = offs[i];
            auto* cv = reinterpret_cast<ContinuousVector*>(holder.get() + offs[i]);
            cv->Init(v[i].size());
            cv->SetSize(v[i].size());
            if (!v[i].empty()) std::memcpy(cv->MutableData(), v[i].data(), v[i].size() * sizeof(T));
        }
        return holder;
    }

private:
    size_t capacity_ = 0;
    size_t size_ = 0;
};

}  // namespace gert

namespace opgen_twin {

// Kind of a stored attribute value (also the OpAttrDef value type).
enum class AttrKind { kNone, kBool, kInt, kFloat, kString, kListBool, kListInt, kListFloat, kListListInt };

inline const char* AttrKindName(AttrKind k)
{
    switch (k) {
        case AttrKind::kBool: return "bool";
        case AttrKind::kInt: return "int";
        case AttrKind::kFloat: return "float";
        case AttrKind::kString: return "string";
        case AttrKind::kListBool: return "list_bool";
        case AttrKind::kListInt: return "list_int";
        case AttrKind::kListFloat: return "list_float";
        case AttrKind::kListListInt: return "list_list_int";
        default: return "none";
    }
}

namespace detail {
// One runtime attribute, laid out as the real RuntimeAttrs exposes it: bool, int64_t,
// float, NUL-terminated chars, TypedContinuousVector<bool/int64_t/float>,
// ContinuousVectorVector.
struct StoredAttr {
    AttrKind kind = AttrKind::kNone;
    std::string name;
    std::unique_ptr<uint8_t[]> bytes;
};
}  // namespace detail
}  // namespace opgen_twin

namespace gert {

class RuntimeAttrs {
public:
    // Mirrors the real accessor; the twin additionally checks that T matches how the
    // attribute is stored (the real one reinterprets blindly) and throws TwinError if not.
    template <typename T>
    const T* GetAttrPointer(size_t index) const
    {
        if (index >= attrs_.size()) return nullptr;
        const auto& a = attrs_[index];
        CheckType<T>(index, a);
        return reinterpret_cast<const T*>(a.bytes.get());
    }
    const int64_t* GetInt(const size_t index) const { return GetAttrPointer<int64_t>(index); }
    const float* GetFloat(const size_t index) const { return GetAttrPointer<float>(index); }
    const bool* GetBool(const size_t index) const { return GetAttrPointer<bool>(index); }
    const char* GetStr(const size_t index) const { return GetAttrPointer<char>(index); }
    const TypedContinuousVector<int64_t>* GetListInt(const size_t index) const
    {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
    }
    const TypedContinuousVector<float>* GetListFloat(const size_t index) const
    {
        return GetAttrPointer<TypedContinuousVector<float>>(index);
    }
    const ContinuousVectorVector* GetListListInt(const size_t index) const
    {
        return GetAttrPointer<ContinuousVectorVector>(index);
    }
    size_t GetAttrNum() const { return attrs_.size(); }

    // ---- twin builders ----
    void TwinClear() { attrs_.clear(); }
    void TwinAddBool(const std::string& n, bool v) { AddScalar(n, opgen_twin::AttrKind::kBool, v); }
    void TwinAddInt(const std::string& n, int64_t v) { AddScalar(n, opgen_twin::AttrKind::kInt, v); }
    void TwinAddFloat(const std::string& n, float v) { AddScalar(n, opgen_twin::AttrKind::kFloat, v); }
    void TwinAddString(const std::string& n, const std::string& v)
    {
        opgen_twin::detail::StoredAttr a;
        a.kind = opgen_twin::AttrKind::kString;
        a.name = n;
        a.bytes.reset(new uint8_t[v.size() + 1]());
        std::memcpy(a.bytes.get(), v.c_str(), v.size() + 1);
        attrs_.push_back(std::move(a));
    }
    template <class T>
    void TwinAddList(const std::string& n, opgen_twin::AttrKind kind, const std::vector<T>& v)
    {
        opgen_twin::detail::StoredAttr a;
        a.kind = kind;
        a.name = n;
        a.bytes = ContinuousVector::Create<T>(v.size());
        auto* cv = reinterpret_cast<ContinuousVector*>(a.bytes.get());
        cv->SetSize(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
            static_cast<T*>(cv->MutableData())[i] = v[i];
        }
        attrs_.push_back(std::move(a));
    }
    void TwinAddListListInt(const std::string& n, const std::vector<std::vector<int64_t>>& v)
    {
        opgen_twin::detail::StoredAttr a;
        a.kind = opgen_twin::AttrKind::kListListInt;
        a.name = n;
        size_t total = 0;
        a.bytes = ContinuousVectorVector::TwinCreate<int64_t>(v, total);
        attrs_.push_back(std::move(a));
    }

private:
    template <class T>
    void AddScalar(const std::string& n, opgen_twin::AttrKind k, T v)
    {
        opgen_twin::detail::StoredAttr a;
        a.kind = k;
        a.name = n;
        a.bytes.reset(new uint8_t[sizeof(T) < 8 ? 8 : sizeof(T)]());
        std::memcpy(a.bytes.get(), &v, sizeof(T));
        attrs_.push_back(std::move(a));
    }
    // An Int attr is stored as int64_t. Read through a narrower integer pointer, the NPU host (little
    // endian) sees its low bytes: the value itself when it fits the type, which hand-written
    // TilingFuncs rely on (GetAttrPointer<uint32_t>); a value that does not fit is refused.
    template <typename T>
    static bool IntAttrReadsAs(const opgen_twin::detail::StoredAttr& a)
    {
        if constexpr (std::is_same<T, int64_t>::value) {
            return true;
        } else if constexpr (std::is_integral<T>::value && !std::is_same<T, bool>::value) {
            int64_t v = 0;
            std::memcpy(&v, a.bytes.get(), sizeof(v));
            return std::numeric_limits<T>::is_signed
                       ? v >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                             v <= static_cast<int64_t>(std::numeric_limits<T>::max())
                       : v >= 0 && static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
        } else {
            return false;
        }
    }
    template <typename T>
    static void CheckType(size_t index, const opgen_twin::detail::StoredAttr& a)
    {
        using opgen_twin::AttrKind;
        bool ok = false;
        const char* want = "bool";
        switch (a.kind) {
            case AttrKind::kBool: ok = std::is_same<T, bool>::value; want = "bool"; break;
            case AttrKind::kInt: ok = IntAttrReadsAs<T>(a); want = "int64_t"; break;
            case AttrKind::kFloat: ok = std::is_same<T, float>::value; want = "float"; break;
            case AttrKind::kString: ok = std::is_same<T, char>::value; want = "char"; break;
            case AttrKind::kListBool:
                ok = std::is_same<T, ContinuousVector>::value || std::is_same<T, TypedContinuousVector<bool>>::value;
                want = "gert::TypedContinuousVector<bool>";
                break;
            case AttrKind::kListInt:
                ok = std::is_same<T, ContinuousVector>::value || std::is_same<T, TypedContinuousVector<int64_t>>::value;
                want = "gert::TypedContinuousVector<int64_t>";
                break;
            case AttrKind::kListFloat:
                ok = std::is_same<T, ContinuousVector>::value || std::is_same<T, TypedContinuousVector<float>>::value;
                want = "gert::TypedContinuousVector<float>";
                break;
            case AttrKind::kListListInt:
                ok = std::is_same<T, ContinuousVectorVector>::value;
                want = "gert::ContinuousVectorVector";
                break;
            default: break;
        }
        if (!ok) {
            opgen_twin::detail::ThrowTwin(opgen_twin::detail::Format(
                "RuntimeAttrs::GetAttrPointer(%zu): attr '%s' is a %s attr, read it as GetAttrPointer<%s> (on the "
                "NPU host a mismatched type silently reinterprets the bytes)",
                index, a.name.c_str(), opgen_twin::AttrKindName(a.kind), want));
        }
    }

    std::vector<opgen_twin::detail::StoredAttr> attrs_;
};

class TilingData {
public:
    size_t GetCapacity() const { return capacity_; }
    size_t GetDataSize() const { return data_size_; }
    void SetDataSize(const size_t size) { data_size_ = size; }
    void* GetData() { return data_; }
    const void* GetData() const { return data_; }
    template <typename T, typename std::enable_if<std::is_standard_layout<T>::value, int>::type = 0>
    ge::graphStatus Append(const T& data)
    {
        return Append(&data, 1);
    }
    template <typename T, typename std::enable_if<std::is_standard_layout<T>::value, int>::type = 0>
    ge::graphStatus Append(const T* data, size_t append_num)
    {
        const size_t bytes = sizeof(T) * append_num;
        if (data_size_ + bytes > capacity_) return ge::GRAPH_FAILED;
        std::memcpy(static_cast<uint8_t*>(data_) + data_size_, data, bytes);
        data_size_ += bytes;
        return ge::GRAPH_SUCCESS;
    }
    void TwinInit(void* data, size_t capacity)
    {
        data_ = data;
        capacity_ = capacity;
        data_size_ = 0;
    }

private:
    size_t capacity_ = 0;
    size_t data_size_ = 0;
    void* data_ = nullptr;
};

class TilingContext;
class InferShapeContext;
class InferDataTypeContext;
class InferShapeRangeContext;
class TilingParseContext;

// Function pointer types used by OpDef registration.
struct OpImplRegisterV2 {
    using TilingKernelFunc = uint32_t (*)(TilingContext*);
    using InferShapeKernelFunc = uint32_t (*)(InferShapeContext*);
    using InferShapeRangeKernelFunc = uint32_t (*)(InferShapeRangeContext*);
    using InferDataTypeKernelFunc = uint32_t (*)(InferDataTypeContext*);
    using TilingParseKernelFunc = uint32_t (*)(TilingParseContext*);
};

}  // namespace gert

namespace opgen_twin {
namespace detail {

// Everything one call of an operator's host functions sees. Input and output indices follow
// GE's convention: they count instances - an omitted optional input has none, a dynamic
// input/output as many as the node has - and irInputs/irOutputs map an IR index to its
// first instance and instance count (what GetIrInputInstanceInfo/GetIrOutputInstanceInfo
// return).
struct CallData {
    std::string opType;
    std::string nodeName;
    std::vector<gert::AnchorInstanceInfo> irInputs;
    std::vector<gert::AnchorInstanceInfo> irOutputs;
    std::vector<gert::StorageShape> inShapes;  // per input instance
    std::vector<gert::CompileTimeTensorDesc> inDescs;
    std::vector<gert::Tensor> inTensors;
    std::vector<gert::StorageShape> outShapes;  // per output instance
    std::vector<gert::CompileTimeTensorDesc> outDescs;
    gert::RuntimeAttrs attrs;
    // Tiling results.
    uint32_t blockDim = 0;
    bool blockDimSet = false;
    uint64_t tilingKey = 0;
    uint32_t scheduleMode = 0;
    bool needAtomic = false;
    std::vector<size_t> workspaces;
    std::vector<uint8_t> tilingBuf;
    gert::TilingData tilingData;
    size_t tilingRequested = 0;  // sizeof(T) of a GetTilingData<T>() that returned nullptr
    fe::PlatFormInfos platform;
    int32_t deterministic = 0;

    const gert::StorageShape* InShape(size_t i) const { return i < inShapes.size() ? &inShapes[i] : nullptr; }
    // Input instance of (IR input, relative index), or -1.
    long Instance(size_t ir, size_t rel) const
    {
        if (ir >= irInputs.size() || rel >= irInputs[ir].GetInstanceNum()) return -1;
        return static_cast<long>(irInputs[ir].GetInstanceStart() + rel);
    }
    // Output instance of (IR output, relative index), or -1.
    long OutInstance(size_t ir, size_t rel) const
    {
        if (ir >= irOutputs.size() || rel >= irOutputs[ir].GetInstanceNum()) return -1;
        return static_cast<long>(irOutputs[ir].GetInstanceStart() + rel);
    }
};

}  // namespace detail
}  // namespace opgen_twin

namespace gert {

// Shared accessors of the three contexts (ExtendedKernelContext on the real host).
class ExtendedKernelContext {
public:
    explicit ExtendedKernelContext(opgen_twin::detail::CallData* d) : d_(d) {}
    const CompileTimeTensorDesc* GetInputDesc(const size_t index) const
    {
        return index < d_->inDescs.size() ? &d_->inDescs[index] : nullptr;
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(const size_t ir_index) const
    {
        return GetDynamicInputDesc(ir_index, 0);
    }
    const CompileTimeTensorDesc* GetRequiredInputDesc(const size_t ir_index) const
    {
        return GetDynamicInputDesc(ir_index, 0);
    }
    const CompileTimeTensorDesc* GetDynamicInputDesc(const size_t ir_index, const size_t relative_index) const
    {
        const long i = d_->Instance(ir_index, relative_index);
        return i < 0 ? nullptr : &d_->inDescs[static_cast<size_t>(i)];
    }
    const CompileTimeTensorDesc* GetOutputDesc(const size_t index) const
    {
        return index < d_->outDescs.size() ? &d_->outDescs[index] : nullptr;
    }
    // Instantiation of IR input/output `ir_index` (nullptr past the IR's inputs/outputs).
    // Outputs have no Get*Dynamic*Output* accessors in metadef: a dynamic output's instances
    // are GetOutputShape/GetOutputDesc/SetOutputDataType(GetInstanceStart() + i).
    const AnchorInstanceInfo* GetIrInputInstanceInfo(const size_t ir_index) const
    {
        return ir_index < d_->irInputs.size() ? &d_->irInputs[ir_index] : nullptr;
    }
    const AnchorInstanceInfo* GetIrOutputInstanceInfo(const size_t ir_index) const
    {
        return ir_index < d_->irOutputs.size() ? &d_->irOutputs[ir_index] : nullptr;
    }
    size_t GetComputeNodeInputNum() const { return d_->inShapes.size(); }
    size_t GetComputeNodeOutputNum() const { return d_->outShapes.size(); }
    const RuntimeAttrs* GetAttrs() const { return &d_->attrs; }
    const ge::char_t* GetNodeType() const { return d_->opType.c_str(); }
    const ge::char_t* GetNodeName() const { return d_->nodeName.c_str(); }

protected:
    opgen_twin::detail::CallData* d_;
};

class TilingContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    const void* GetCompileInfo() const { return nullptr; }
    template <typename T>
    const T* GetCompileInfo() const { return nullptr; }
    const StorageShape* GetInputShape(const size_t index) const { return d_->InShape(index); }
    const Tensor* GetInputTensor(const size_t index) const
    {
        return index < d_->inTensors.size() ? &d_->inTensors[index] : nullptr;
    }
    const Tensor* GetOptionalInputTensor(const size_t ir_index) const { return GetDynamicInputTensor(ir_index, 0); }
    const Tensor* GetRequiredInputTensor(const size_t ir_index) const { return GetDynamicInputTensor(ir_index, 0); }
    const Tensor* GetDynamicInputTensor(const size_t ir_index, const size_t relative_index) const
    {
        const long i = d_->Instance(ir_index, relative_index);
        return i < 0 ? nullptr : &d_->inTensors[static_cast<size_t>(i)];
    }
    const StorageShape* GetOptionalInputShape(const size_t ir_index) const { return GetDynamicInputShape(ir_index, 0); }
    const StorageShape* GetRequiredInputShape(const size_t ir_index) const { return GetDynamicInputShape(ir_index, 0); }
    const StorageShape* GetDynamicInputShape(const size_t ir_index, const size_t relative_index) const
    {
        const long i = d_->Instance(ir_index, relative_index);
        return i < 0 ? nullptr : &d_->inShapes[static_cast<size_t>(i)];
    }
    const StorageShape* GetOutputShape(const size_t index) const
    {
        return index < d_->outShapes.size() ? &d_->outShapes[index] : nullptr;
    }
    ge::graphStatus SetTilingKey(const uint64_t tiling_key)
    {
        d_->tilingKey = tiling_key;
        return ge::GRAPH_SUCCESS;
    }
    uint64_t GetTilingKey() const { return d_->tilingKey; }
    ge::graphStatus SetScheduleMode(const uint32_t schedule_mode)
    {
        d_->scheduleMode = schedule_mode;
        return ge::GRAPH_SUCCESS;
    }
    uint32_t GetScheduleMode() const { return d_->scheduleMode; }
    ge::graphStatus SetBlockDim(const uint32_t block_dim)
    {
        d_->blockDim = block_dim;
        d_->blockDimSet = true;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus SetSimdNumBlocks(const uint32_t num_blocks) { return SetBlockDim(num_blocks); }
    uint32_t GetBlockDim() const { return d_->blockDim; }
    uint32_t GetSimdNumBlocks() const { return d_->blockDim; }
    ge::graphStatus SetNeedAtomic(const bool atomic)
    {
        d_->needAtomic = atomic;
        return ge::GRAPH_SUCCESS;
    }
    bool NeedAtomic() const { return d_->needAtomic; }
    // Returns the tiling buffer as T, sets the data size to sizeof(T); nullptr (and the
    // data size untouched) when the buffer's capacity is smaller than sizeof(T).
    template <typename T>
    auto GetTilingData() -> T*
    {
        TilingData* td = GetRawTilingData();
        if (td->GetCapacity() < sizeof(T)) {
            d_->tilingRequested = sizeof(T);
            return nullptr;
        }
        td->SetDataSize(sizeof(T));
        return static_cast<T*>(td->GetData());
    }
    TilingData* GetRawTilingData() { return &d_->tilingData; }
    size_t* GetWorkspaceSizes(const size_t workspace_count)
    {
        d_->workspaces.assign(workspace_count, 0);
        return d_->workspaces.data();
    }
    size_t GetWorkspaceNum() const { return d_->workspaces.size(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return &d_->platform; }
    int32_t GetDeterministic() const { return d_->deterministic; }
    int32_t GetDeterministicLevel() const { return d_->deterministic; }
};

class InferShapeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    const Shape* GetInputShape(const size_t index) const
    {
        const StorageShape* s = d_->InShape(index);
        return s == nullptr ? nullptr : &s->GetOriginShape();
    }
    const Tensor* GetInputTensor(const size_t index) const
    {
        return index < d_->inTensors.size() ? &d_->inTensors[index] : nullptr;
    }
    const Tensor* GetOptionalInputTensor(const size_t ir_index) const { return GetDynamicInputTensor(ir_index, 0); }
    const Tensor* GetRequiredInputTensor(const size_t ir_index) const { return GetDynamicInputTensor(ir_index, 0); }
    const Tensor* GetDynamicInputTensor(const size_t ir_index, const size_t relative_index) const
    {
        const long i = d_->Instance(ir_index, relative_index);
        return i < 0 ? nullptr : &d_->inTensors[static_cast<size_t>(i)];
    }
    const Shape* GetOptionalInputShape(const size_t ir_index) const { return GetDynamicInputShape(ir_index, 0); }
    const Shape* GetRequiredInputShape(const size_t ir_index) const { return GetDynamicInputShape(ir_index, 0); }
    const Shape* GetDynamicInputShape(const size_t ir_index, const size_t relative_index) const
    {
        const long i = d_->Instance(ir_index, relative_index);
        return i < 0 ? nullptr : &d_->inShapes[static_cast<size_t>(i)].GetOriginShape();
    }
    Shape* GetOutputShape(const size_t index)
    {
        return index < d_->outShapes.size() ? &d_->outShapes[index].MutableOriginShape() : nullptr;
    }
};

class InferDataTypeContext : public ExtendedKernelContext {
public:
    using ExtendedKernelContext::ExtendedKernelContext;

    ge::DataType GetInputDataType(const size_t index) const
    {
        return index < d_->inDescs.size() ? d_->inDescs[index].GetDataType() : ge::DT_UNDEFINED;
    }
    ge::DataType GetOptionalInputDataType(const size_t ir_index) const { return GetDynamicInputDataType(ir_index, 0); }
    ge::DataType GetRequiredInputDataType(const size_t ir_index) const { return GetDynamicInputDataType(ir_index, 0); }
    ge::DataType GetDynamicInputDataType(const size_t ir_index, const size_t relative_index) const
    {
        const long i = d_->Instance(ir_index, relative_index);
        return i < 0 ? ge::DT_UNDEFINED : d_->inDescs[static_cast<size_t>(i)].GetDataType();
    }
    ge::DataType GetOutputDataType(const size_t index) const
    {
        return index < d_->outDescs.size() ? d_->outDescs[index].GetDataType() : ge::DT_UNDEFINED;
    }
    ge::graphStatus SetOutputDataType(const size_t index, const ge::DataType datatype)
    {
        if (index >= d_->outDescs.size()) return ge::GRAPH_FAILED;
        d_->outDescs[index].SetDataType(datatype);
        return ge::GRAPH_SUCCESS;
    }
};

// exe_graph/runtime/range.h: a [min, max] pair of pointers (not owned).
template <typename T>
class Range {
public:
    Range() = default;
    Range(T* min, T* max) : min_(min), max_(max) {}
    explicit Range(T* same_ele) : min_(same_ele), max_(same_ele) {}
    bool operator==(const Range<T>& rht) const { return min_ == rht.min_ && max_ == rht.max_; }
    // Assigning a range copies the bounds' values (what `*out = *in` means in an InferShapeRange).
    Range& operator=(const Range<T>& rht)
    {
        if (this == &rht) return *this;
        if (min_ != nullptr && rht.min_ != nullptr) *min_ = *rht.min_;
        else min_ = rht.min_;
        if (max_ != nullptr && rht.max_ != nullptr) *max_ = *rht.max_;
        else max_ = rht.max_;
        return *this;
    }
    Range(const Range<T>&) = default;
    void SetMin(T* min) { min_ = min; }
    void SetMax(T* max) { max_ = max; }
    const T* GetMin() const { return min_; }
    const T* GetMax() const { return max_; }
    T* GetMin() { return min_; }
    T* GetMax() { return max_; }

private:
    T* min_ = nullptr;
    T* max_ = nullptr;
};

// The InferShapeRange context. The runner runs no shape-range inference (the twin's shapes are
// static); an op's SetInferShapeRange function compiles, and called with a context it sees each
// input's range as [shape, shape].
class InferShapeRangeContext : public ExtendedKernelContext {
public:
    explicit InferShapeRangeContext(opgen_twin::detail::CallData* d) : ExtendedKernelContext(d)
    {
        inShapes_.reserve(d_->inShapes.size());
        for (const auto& s : d_->inShapes) inShapes_.push_back(s.GetOriginShape());
        for (auto& s : inShapes_) inRanges_.emplace_back(&s);
        outMin_.resize(d_->outShapes.size());
        outMax_.resize(d_->outShapes.size());
        for (size_t i = 0; i < outMin_.size(); ++i) outRanges_.emplace_back(&outMin_[i], &outMax_[i]);
    }
    const Range<Shape>* GetInputShapeRange(const size_t index) const
    {
        return index < inRanges_.size() ? &inRanges_[index] : nullptr;
    }
    const Range<Shape>* GetOptionalInputShapeRange(const size_t ir_index) const
    {
        const long i = d_->Instance(ir_index, 0);
        return i < 0 ? nullptr : &inRanges_[static_cast<size_t>(i)];
    }
    const Range<Shape>* GetRequiredInputShapeRange(const size_t ir_index) const
    {
        return GetOptionalInputShapeRange(ir_index);
    }
    Range<Shape>* GetOutputShapeRange(const size_t index)
    {
        return index < outRanges_.size() ? &outRanges_[index] : nullptr;
    }

private:
    std::vector<Shape> inShapes_;
    std::vector<Range<Shape>> inRanges_;
    std::vector<Shape> outMin_, outMax_;
    std::vector<Range<Shape>> outRanges_;
};

}  // namespace gert

#endif  // OPGEN_TWIN_GERT_H
