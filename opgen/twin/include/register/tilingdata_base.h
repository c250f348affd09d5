// opgen CPU twin: the classic macro-style tiling (same include name as CANN's metadef
// inc/external/register/tilingdata_base.h): BEGIN_TILING_DATA_DEF / TILING_DATA_FIELD_DEF /
// TILING_DATA_FIELD_DEF_ARR / TILING_DATA_FIELD_DEF_STRUCT / END_TILING_DATA_DEF /
// REGISTER_TILING_DATA_CLASS.
//
// Two modes, one header, so the SAME op_host/<op>_tiling.h serves both sides:
//  - host (default): each BEGIN_TILING_DATA_DEF(Name) is a class derived from optiling::TilingDef
//    with set_<field>/get_<field>, SaveToBuffer(void*, size_t), GetDataSize(), GetFieldInfo(),
//    SetDataPtr(void*); the bytes are laid out as CANN lays them out (below);
//  - kernel (OPGEN_TWIN_KERNEL_TILING defined before the first include): each definition is the
//    plain struct CANN's build generates for the kernel (opgen_twin/kernel_tiling_macros.h), and
//    REGISTER_TILING_DATA_CLASS(Op, Name) tells GET_TILING_DATA the type once the variant TU has
//    defined OPGEN_TWIN_OP_TYPE as Op.
//
// Layout (metadef's TilingDef::CheckAlignAndGenPlaceHolder; the kernel struct CANN generates from
// the registered field list, placeholders included, has the same bytes): fields in declaration
// order; a scalar field and an ARR field start at a multiple of sizeof(element type), a STRUCT
// field at a multiple of 8 (it takes the nested class's GetDataSize() bytes); the gaps are
// zero-filled uint8_t placeholders (FieldInfo "<field>PH"); the total is rounded up to 8
// ("<Class>PH"). A fresh object's bytes are all zero, so a field the TilingFunc never set reads 0.
#ifndef OPGEN_TWIN_REGISTER_TILINGDATA_BASE_H
#define OPGEN_TWIN_REGISTER_TILINGDATA_BASE_H

#ifdef OPGEN_TWIN_KERNEL_TILING

#include "opgen_twin/kernel_tiling_macros.h"

#else  // host

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "opgen_twin/errors.h"

namespace optiling {

// One entry of a class's layout: classType_ "0" scalar, "1" array (placeholders too), "2" struct.
class FieldInfo {
public:
    FieldInfo(const char* dtype, const char* name) : dtype_(dtype), name_(name), classType_("0") {}
    FieldInfo(const char* dtype, const char* name, size_t arrSize)
        : dtype_(dtype), name_(name), arrSize_(arrSize), classType_("1")
    {
    }
    FieldInfo(const char* dtype, const char* name, const char* structType, size_t structSize)
        : dtype_(dtype), name_(name), structType_(structType), structSize_(structSize), classType_("2")
    {
    }

    const char* dtype_;
    const char* name_;
    size_t arrSize_ = 0;
    const char* structType_ = nullptr;
    size_t structSize_ = 0;
    const char* classType_;
};

class TilingDef {
public:
    TilingDef() = default;
    TilingDef(const TilingDef&) = delete;             // the generated classes copy their bytes
    TilingDef& operator=(const TilingDef&) = delete;  // (BEGIN_TILING_DATA_DEF)
    virtual ~TilingDef() = default;

    // Copies GetDataSize() bytes to pdata. An object whose bytes already live in an outside buffer
    // (SetDataPtr, or the constructor taking a pointer) has nothing to save, as in CANN.
    void SaveToBuffer(void* pdata, size_t capacity)
    {
        if (external_) return;
        if (pdata == nullptr) {
            opgen_twin::detail::ThrowTwin(opgen_twin::detail::Format(
                "TilingDef::SaveToBuffer(%s): the buffer is null (pass context->GetRawTilingData()->GetData())",
                class_name_));
        }
        if (capacity < data_size_) {
            opgen_twin::detail::ThrowTwin(opgen_twin::detail::Format(
                "TilingDef::SaveToBuffer(%s): the tiling data is %zu bytes but the buffer holds only %zu "
                "(CANN's memcpy_s fails and nothing is saved): pass GetRawTilingData()->GetCapacity()",
                class_name_, data_size_, capacity));
        }
        if (data_size_ != 0) std::memcpy(pdata, data_ptr_, data_size_);
    }
    std::vector<FieldInfo> GetFieldInfo() const { return field_info_; }
    const char* GetTilingClassName() const { return class_name_; }
    size_t GetDataSize() const { return data_size_; }
    // Makes the object read and write dataPtr (GetDataSize() bytes) instead of its own bytes;
    // nested STRUCT fields follow.
    void SetDataPtr(void* dataPtr)
    {
        external_ = true;
        own_.clear();
        own_.shrink_to_fit();
        Attach(static_cast<uint8_t*>(dataPtr));
    }
    void CheckAlignAndGenPlaceHolder(const char* name, size_t typeSize)
    {
        const size_t rem = data_size_ % typeSize;
        if (rem == 0) return;
        field_info_.emplace_back("uint8_t", name, typeSize - rem);
        data_size_ += typeSize - rem;
    }

protected:
    // Field registration, called from the members' initializers in declaration order.
    size_t FieldHandler(const char* dtype, const char* name, size_t typeSize, const char* namePh)
    {
        CheckAlignAndGenPlaceHolder(namePh, typeSize);
        field_info_.emplace_back(dtype, name);
        const size_t at = data_size_;
        data_size_ += typeSize;
        return at;
    }
    size_t FieldHandler(const char* dtype, const char* name, size_t typeSize, size_t arrSize, const char* namePh)
    {
        CheckAlignAndGenPlaceHolder(namePh, typeSize);
        field_info_.emplace_back(dtype, name, arrSize);
        const size_t at = data_size_;
        data_size_ += typeSize * arrSize;
        return at;
    }
    size_t FieldHandler(const char* name, const char* structType, TilingDef* sub, const char* namePh)
    {
        CheckAlignAndGenPlaceHolder(namePh, 8);
        field_info_.emplace_back("struct", name, structType, sub->GetDataSize());
        const size_t at = data_size_;
        data_size_ += sub->GetDataSize();
        subs_.emplace_back(sub, at);
        return at;
    }
    // The constructor's end: pad to 8 ("<Class>PH"), then own zeroed bytes or attach to ptr.
    void TwinFinish(const char* className, const char* classPh, void* ptr)
    {
        class_name_ = className;
        CheckAlignAndGenPlaceHolder(classPh, 8);
        if (ptr != nullptr) {
            SetDataPtr(ptr);
        } else {
            own_.assign(data_size_, 0);
            Attach(own_.data());
        }
    }
    // The constructor taking a pointer: a nested STRUCT field (nullptr; its parent attaches it)
    // or a view of bytes elsewhere.
    void TwinFinishView(const char* className, const char* classPh, void* ptr)
    {
        class_name_ = className;
        CheckAlignAndGenPlaceHolder(classPh, 8);
        if (ptr != nullptr) SetDataPtr(ptr);
    }
    void TwinCopyFrom(const TilingDef& o)
    {
        if (data_ptr_ != nullptr && o.data_ptr_ != nullptr && data_ptr_ != o.data_ptr_) {
            std::memcpy(data_ptr_, o.data_ptr_, data_size_);
        }
    }
    uint8_t* TwinAt(size_t offset, const char* field, const char* api) const
    {
        if (data_ptr_ == nullptr) {
            opgen_twin::detail::ThrowTwin(opgen_twin::detail::Format(
                "%s_%s: this %s has no bytes: it was constructed from a null pointer and is not a "
                "TILING_DATA_FIELD_DEF_STRUCT of another tiling class",
                api, field, class_name_));
        }
        return data_ptr_ + offset;
    }
    template <class T>
    void TwinSet(size_t offset, const char* field, T value)
    {
        std::memcpy(TwinAt(offset, field, "set"), &value, sizeof(T));
    }
    template <class T>
    T TwinGet(size_t offset, const char* field) const
    {
        T v;
        std::memcpy(&v, TwinAt(offset, field, "get"), sizeof(T));
        return v;
    }
    void TwinSetArr(size_t offset, const char* field, const void* src, size_t bytes)
    {
        if (src == nullptr) {
            opgen_twin::detail::ThrowTwin(
                opgen_twin::detail::Format("set_%s(%s): the array pointer is null", field, class_name_));
        }
        uint8_t* dst = TwinAt(offset, field, "set");
        if (dst != src) std::memmove(dst, src, bytes);
    }

    std::vector<FieldInfo> field_info_;
    uint8_t* data_ptr_ = nullptr;
    size_t data_size_ = 0;
    const char* class_name_ = "TilingDef";

private:
    void Attach(uint8_t* p)
    {
        data_ptr_ = p;
        for (auto& s : subs_) s.first->Attach(p == nullptr ? nullptr : p + s.second);
    }

    std::vector<uint8_t> own_;
    std::vector<std::pair<TilingDef*, size_t>> subs_;
    bool external_ = false;
};

using TilingDataConstructor = std::shared_ptr<TilingDef> (*)();

// REGISTER_TILING_DATA_CLASS's registry, by op type.
class CTilingDataClassFactory {
public:
    static CTilingDataClassFactory& GetInstance()
    {
        static CTilingDataClassFactory instance;
        return instance;
    }
    void RegisterTilingData(const char* op_type, const TilingDataConstructor constructor)
    {
        instance_.emplace(op_type, constructor);
    }
    std::shared_ptr<TilingDef> CreateTilingDataInstance(const char* op_type)
    {
        const auto it = instance_.find(op_type);
        return it == instance_.end() || it->second == nullptr ? nullptr : it->second();
    }

private:
    CTilingDataClassFactory() = default;
    std::map<std::string, TilingDataConstructor> instance_;
};

namespace twin_detail {
template <class T>
struct FieldType {
    static_assert(std::is_arithmetic<T>::value,
                  "opgen twin: TILING_DATA_FIELD_DEF/TILING_DATA_FIELD_DEF_ARR take an integer or floating-point "
                  "type (CANN: int8_t..uint64_t, float); nest another tiling class with TILING_DATA_FIELD_DEF_STRUCT");
    using type = T;
};
}  // namespace twin_detail

}  // namespace optiling

#define BEGIN_TILING_DATA_DEF(class_name)                                                          \
    class class_name : public ::optiling::TilingDef {                                              \
    public:                                                                                        \
        class_name() { TwinFinish(#class_name, #class_name "PH", nullptr); }                       \
        explicit class_name(void* ptr) { TwinFinishView(#class_name, #class_name "PH", ptr); }     \
        class_name(const class_name& o) : class_name() { TwinCopyFrom(o); }                        \
        class_name& operator=(const class_name& o)                                                 \
        {                                                                                          \
            TwinCopyFrom(o);                                                                       \
            return *this;                                                                          \
        }

#define TILING_DATA_FIELD_DEF(data_type, field_name)                                               \
public:                                                                                            \
    void set_##field_name(data_type field_name)                                                    \
    {                                                                                              \
        TwinSet<::optiling::twin_detail::FieldType<data_type>::type>(field_name##_offset_,         \
                                                                     #field_name, field_name);     \
    }                                                                                              \
    data_type get_##field_name() const { return TwinGet<data_type>(field_name##_offset_, #field_name); } \
                                                                                                   \
private:                                                                                           \
    size_t field_name##_offset_ = FieldHandler(#data_type, #field_name, sizeof(data_type), #field_name "PH");

#define TILING_DATA_FIELD_DEF_ARR(arr_type, arr_size, field_name)                                  \
public:                                                                                            \
    void set_##field_name(const ::optiling::twin_detail::FieldType<arr_type>::type* field_name)    \
    {                                                                                              \
        TwinSetArr(field_name##_offset_, #field_name, field_name, (arr_size) * sizeof(arr_type));  \
    }                                                                                              \
    arr_type* get_##field_name()                                                                   \
    {                                                                                              \
        return reinterpret_cast<arr_type*>(TwinAt(field_name##_offset_, #field_name, "get"));      \
    }                                                                                              \
                                                                                                   \
private:                                                                                           \
    size_t field_name##_offset_ =                                                                  \
        FieldHandler(#arr_type, #field_name, sizeof(arr_type), (arr_size), #field_name "PH");

#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                                      \
public:                                                                                            \
    struct_type field_name{nullptr};                                                               \
                                                                                                   \
private:                                                                                           \
    size_t field_name##_offset_ = FieldHandler(#field_name, #struct_type, &field_name, #field_name "PH");

#define END_TILING_DATA_DEF \
    }                       \
    ;

#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                                            \
    namespace {                                                                                    \
    struct opgen_twin_tiling_reg_##op_type##class_name {                                           \
        opgen_twin_tiling_reg_##op_type##class_name()                                              \
        {                                                                                          \
            ::optiling::CTilingDataClassFactory::GetInstance().RegisterTilingData(                 \
                #op_type, []() -> std::shared_ptr<::optiling::TilingDef> {                         \
                    return std::make_shared<class_name>();                                         \
                });                                                                                \
        }                                                                                          \
    };                                                                                             \
    [[maybe_unused]] opgen_twin_tiling_reg_##op_type##class_name                                   \
        g_opgen_twin_tiling_reg_##op_type##class_name;                                             \
    }

#endif  // host / kernel

#endif  // OPGEN_TWIN_REGISTER_TILINGDATA_BASE_H
