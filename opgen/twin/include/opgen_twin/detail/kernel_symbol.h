// opgen CPU twin: LocalTensor's expression operators (asc-devkit include/basic_api/kernel_tensor.h
// and impl/basic_api/kernel_operator_symbol_override_impl.h): `dst = src0 + src1;` (also -, *, /,
// |, &) is the level-2 instruction over dst.GetSize() elements: `a + b` builds a
// SymbolOverrideAdd<T> holding the operands, and LocalTensor::operator= of it runs Add(dst, a, b,
// dst.GetSize()). Types as the instruction's: Add/Sub/Mul int16_t, half, int32_t, float; Div half,
// float; Or/And int16_t, uint16_t (and int32_t/uint32_t, which CANN runs as twice as many
// 16-bit elements: the same bits). Both operands must hold dst.GetSize() elements (HardwareError
// naming the operator otherwise). The comparison operators (<, >, ==, ..., giving a uint8_t
// bit mask) are not emulated.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_SYMBOL_H
#define OPGEN_TWIN_DETAIL_KERNEL_SYMBOL_H

#include <cstdint>

#include "opgen_twin/detail/kernel_vec.h"

#define OPGEN_TWIN_SYMBOL_OVERRIDE(CLASS, SYM, NAME, COND, LIST, BODY)                                          \
    namespace AscendC {                                                                                        \
    template <class T>                                                                                         \
    class CLASS {                                                                                              \
    public:                                                                                                    \
        CLASS(const LocalTensor<T>& src0, const LocalTensor<T>& src1) : src0_(src0), src1_(src1) {}            \
        void Process(const LocalTensor<T>& dst) const                                                          \
        {                                                                                                      \
            OPGEN_TWIN_SUPPORTED_TYPES(COND, NAME " (LocalTensor operator" #SYM ")", LIST);                    \
            opgen_twin::detail::Binary("LocalTensor operator" #SYM " (" NAME " over dst.GetSize() elements)", dst, \
                                       src0_, src1_, static_cast<int32_t>(dst.GetSize()),                      \
                                       [](T a, T b) { return BODY; });                                         \
        }                                                                                                      \
                                                                                                               \
    private:                                                                                                   \
        LocalTensor<T> src0_;                                                                                  \
        LocalTensor<T> src1_;                                                                                  \
    };                                                                                                         \
    template <class T>                                                                                         \
    inline CLASS<T> LocalTensor<T>::operator SYM(const LocalTensor<T>& src1) const                             \
    {                                                                                                          \
        return CLASS<T>(*this, src1);                                                                          \
    }                                                                                                          \
    template <class T>                                                                                         \
    inline void LocalTensor<T>::operator=(const CLASS<T>& symbolOverride)                                      \
    {                                                                                                          \
        symbolOverride.Process(*this);                                                                         \
    }                                                                                                          \
    }

OPGEN_TWIN_SYMBOL_OVERRIDE(SymbolOverrideAdd, +, "Add", opgen_twin::detail::IsArithT<T>::value,
                           "int16_t, half, int32_t, float", opgen_twin::detail::OpAdd<T>(a, b))
OPGEN_TWIN_SYMBOL_OVERRIDE(SymbolOverrideSub, -, "Sub", opgen_twin::detail::IsArithT<T>::value,
                           "int16_t, half, int32_t, float", opgen_twin::detail::OpSub<T>(a, b))
OPGEN_TWIN_SYMBOL_OVERRIDE(SymbolOverrideMul, *, "Mul", opgen_twin::detail::IsArithT<T>::value,
                           "int16_t, half, int32_t, float", opgen_twin::detail::OpMul<T>(a, b))
OPGEN_TWIN_SYMBOL_OVERRIDE(SymbolOverrideDiv, /, "Div", opgen_twin::detail::IsFloatT<T>::value, "half, float",
                           opgen_twin::detail::OpDiv<T>(a, b))
OPGEN_TWIN_SYMBOL_OVERRIDE(SymbolOverrideOr, |, "Or",
                           (opgen_twin::detail::IsAnyOf<T, int16_t, uint16_t, int32_t, uint32_t>::value),
                           "int16_t, uint16_t, int32_t, uint32_t", static_cast<T>(a | b))
OPGEN_TWIN_SYMBOL_OVERRIDE(SymbolOverrideAnd, &, "And",
                           (opgen_twin::detail::IsAnyOf<T, int16_t, uint16_t, int32_t, uint32_t>::value),
                           "int16_t, uint16_t, int32_t, uint32_t", static_cast<T>(a & b))

#undef OPGEN_TWIN_SYMBOL_OVERRIDE

#endif  // OPGEN_TWIN_DETAIL_KERNEL_SYMBOL_H
