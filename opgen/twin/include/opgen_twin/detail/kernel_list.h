// opgen CPU twin: AscendC::ListTensorDesc / AscendC::TensorDesc<T>, the kernel-side decoder
// of the tensor-list descriptor a DYNAMIC input or output arrives as (layout: list_layout.h).
//
// Beyond the real API's behaviour the twin reports, as HardwareError:
// - a descriptor that is not one (ptr_offset not a multiple of 8, entry index fields out of
//   sequence, entries overrunning ptr_offset, reads outside the GM buffers of the launch);
// - GetDataPtr/GetDesc with index >= the number of tensors, GetDesc without SetShapeAddr;
// - GetSize (GetDesc(i)) on a list whose tensors (0..i) differ in rank, or whose first tensor
//   has rank 0: the NPU's decoder steps through the entries with the first entry's rank, so
//   it would read wrong words (GetDataPtr is unaffected);
// - a length/shapeSize argument (each checked when given) that does not match the list.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_LIST_H
#define OPGEN_TWIN_DETAIL_KERNEL_LIST_H

#include <cstdint>
#include <vector>

#include "opgen_twin/detail/gm_addr.h"
#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/launch.h"

namespace AscendC {

class ListTensorDesc;

template <class T>
class TensorDesc {
public:
    TensorDesc() = default;
    void SetShapeAddr(uint64_t* shapePtr)
    {
        if (shapePtr == nullptr) {
            opgen_twin::detail::ThrowHardware("TensorDesc::SetShapeAddr: shapePtr is nullptr");
        }
        shape_ = shapePtr;
    }
    uint64_t GetDim() { return dim_; }
    uint64_t GetIndex() { return index_; }
    uint64_t GetShape(uint32_t offset)
    {
        if (shape_ == nullptr || offset >= dim_) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "TensorDesc::GetShape(%u): the descriptor has %u dims%s", offset, dim_,
                shape_ == nullptr ? " and no shape buffer (SetShapeAddr, then ListTensorDesc::GetDesc)" : ""));
        }
        return shape_[offset];
    }
    __gm__ T* GetDataPtr() { return ptr_; }
    // A GlobalTensor over the tensor, sized to its element count.
    GlobalTensor<T> GetDataObj()
    {
        uint64_t n = 1;
        for (uint32_t i = 0; i < dim_; ++i) n *= shape_[i];
        GlobalTensor<T> g;
        g.SetGlobalBuffer(ptr_, n);
        return g;
    }

private:
    friend class ListTensorDesc;
    uint32_t dim_ = 0;
    uint32_t index_ = 0;
    uint64_t* shape_ = nullptr;
    __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
public:
    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff)
    {
        Init(data, length, shapeSize);
    }
    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff)
    {
        using opgen_twin::detail::Format;
        using opgen_twin::detail::Load;
        using opgen_twin::detail::ThrowHardware;
        const char* api = "ListTensorDesc::Init";
        if (data == nullptr) {
            ThrowHardware("ListTensorDesc::Init: data is nullptr (an omitted optional input is passed as nullptr; "
                          "only DYNAMIC inputs/outputs arrive as tensor lists)");
        }
        const uint8_t* base = static_cast<const uint8_t*>(data);
        opgen_twin::detail::CheckGmRange(api, base, 8);
        const uint64_t ptrOffset = Load<uint64_t>(base, 0);
        if (ptrOffset < 8 || ptrOffset % 8 != 0 || ptrOffset > (uint64_t(1) << 32)) {
            ThrowHardware(Format("%s: word 0 (ptr_offset) is %llu, not a multiple of 8 bytes >= 8: this GM address "
                                 "does not hold a tensor-list descriptor",
                                 api, static_cast<unsigned long long>(ptrOffset)));
        }
        opgen_twin::detail::CheckGmRange(api, base, ptrOffset);
        std::vector<uint64_t> entries;
        uint64_t w = 1;
        while (w * 8 < ptrOffset) {
            const uint64_t word = Load<uint64_t>(base, w);
            const uint32_t dim = static_cast<uint32_t>(word & 0xffffffffu);
            const uint32_t idx = static_cast<uint32_t>(word >> 32);
            if (idx != entries.size() || dim > 64) {
                ThrowHardware(Format("%s: entry %zu at word %llu has index field %u and dim %u (expected index %zu): "
                                     "this GM address does not hold a tensor-list descriptor",
                                     api, entries.size(), static_cast<unsigned long long>(w), idx, dim, entries.size()));
            }
            entries.push_back(w);
            w += 1 + dim;
        }
        if (w * 8 != ptrOffset) {
            ThrowHardware(Format("%s: the shape entries end at byte %llu, past ptr_offset %llu", api,
                                 static_cast<unsigned long long>(w * 8), static_cast<unsigned long long>(ptrOffset)));
        }
        const uint32_t count = static_cast<uint32_t>(entries.size());
        opgen_twin::detail::CheckGmRange(api, base + ptrOffset, uint64_t(count) * 8);
        if (shapeSize != 0xffffffffu && shapeSize != count) {
            ThrowHardware(Format("%s: shapeSize %u given, but the list holds %u tensors", api, shapeSize, count));
        }
        if (length != 0xffffffffu && length != ptrOffset + uint64_t(count) * 8) {
            ThrowHardware(Format("%s: length %u given, but the descriptor is %llu bytes (ptr_offset %llu + %u "
                                 "pointers)",
                                 api, length, static_cast<unsigned long long>(ptrOffset + uint64_t(count) * 8),
                                 static_cast<unsigned long long>(ptrOffset), count));
        }
        base_ = base;
        ptrOffset_ = ptrOffset;
        entries_ = std::move(entries);
    }

    template <class T>
    void GetDesc(TensorDesc<T>& desc, uint32_t index)
    {
        const char* api = "ListTensorDesc::GetDesc";
        CheckIndex(api, index);
        CheckUniform(api, index);
        if (desc.shape_ == nullptr) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s(%u): call desc.SetShapeAddr(buffer) first - GetDesc writes the shape there", api, index));
        }
        const uint64_t w = entries_[index];
        const uint32_t dim = static_cast<uint32_t>(opgen_twin::detail::Load<uint64_t>(base_, w) & 0xffffffffu);
        for (uint32_t d = 0; d < dim; ++d) desc.shape_[d] = opgen_twin::detail::Load<uint64_t>(base_, w + 1 + d);
        desc.dim_ = dim;
        desc.index_ = index;
        desc.ptr_ = GetDataPtr<T>(index);
    }

    template <class T>
    __gm__ T* GetDataPtr(uint32_t index)
    {
        CheckIndex("ListTensorDesc::GetDataPtr", index);
        const uint64_t addr = opgen_twin::detail::Load<uint64_t>(base_, ptrOffset_ / 8 + index);
        return reinterpret_cast<__gm__ T*>(static_cast<uintptr_t>(addr));
    }

    uint32_t GetSize()
    {
        CheckIndex("ListTensorDesc::GetSize", 0, false);
        CheckUniform("ListTensorDesc::GetSize", entries_.size() - 1);
        return static_cast<uint32_t>(entries_.size());
    }

private:
    void CheckIndex(const char* api, uint32_t index, bool useIndex = true) const
    {
        if (base_ == nullptr) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: the ListTensorDesc was default-constructed and never Init()-ed", api));
        }
        if (useIndex && index >= entries_.size()) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s(%u): index out of range, the list holds %zu tensors", api, index, entries_.size()));
        }
    }
    // The NPU's decoder steps through the entries with the first entry's rank (rank 0 meaning
    // another, pointer-only layout): entries 0..last are read right only if they share it.
    void CheckUniform(const char* api, size_t last) const
    {
        if (entries_.empty()) return;
        const auto dimAt = [this](size_t i) {
            return static_cast<uint32_t>(opgen_twin::detail::Load<uint64_t>(base_, entries_[i]) & 0xffffffffu);
        };
        const uint32_t d0 = dimAt(0);
        if (d0 == 0) {
            opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                "%s: tensor 0 of the list has rank 0: the NPU's ListTensorDesc reads a rank-0 first entry as a "
                "pointer-only list and would misread this one; use only GetDataPtr",
                api));
        }
        for (size_t i = 1; i <= last && i < entries_.size(); ++i) {
            if (dimAt(i) != d0) {
                opgen_twin::detail::ThrowHardware(opgen_twin::detail::Format(
                    "%s: tensor %zu of the list has %u dims, tensor 0 has %u: the NPU's ListTensorDesc steps through "
                    "the shape entries with the first tensor's rank, so it would read wrong words; give the list's "
                    "tensors one rank, or use only GetDataPtr",
                    api, i, dimAt(i), d0));
            }
        }
    }

    const uint8_t* base_ = nullptr;
    uint64_t ptrOffset_ = 0;
    std::vector<uint64_t> entries_;  // word index of each tensor's (index, dim) word
};

}  // namespace AscendC

#endif  // OPGEN_TWIN_DETAIL_KERNEL_LIST_H
