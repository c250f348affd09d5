// opgen CPU twin: g_coreType and ASCEND_IS_AIC/AIV/NOT_AIC/NOT_AIV (asc-devkit
// impl/utils/sys_macros.h), the core the code runs on: AIC or AIV where the SoC splits the AI Core
// (SPLIT_CORE_CUBE / SPLIT_CORE_VEC), MIX elsewhere, where ASCEND_IS_AIC and ASCEND_IS_AIV are both
// false. The NPU build makes them constant per compiled core, `constexpr(g_coreType == AIV)`, so
// `if ASCEND_IS_AIV {` is an `if constexpr` and no other use compiles. The twin runs one build on
// both cores: `if constexpr (true) if (<the running core>) {`, whose `else` binds to the inner if,
// keeps every other use an error, as on the NPU. A system header, for GCC's -Wdangling-else there.
#ifndef OPGEN_TWIN_DETAIL_CORE_TYPE_H
#define OPGEN_TWIN_DETAIL_CORE_TYPE_H

#pragma GCC system_header

#define g_coreType (::opgen_twin::detail::CoreType<::opgen_twin::detail::kNpuArch>())
#define ASCEND_IS_AIV constexpr (true) if (g_coreType == ::AscendC::AIV)
#define ASCEND_IS_AIC constexpr (true) if (g_coreType == ::AscendC::AIC)
#define ASCEND_IS_NOT_AIV constexpr (true) if (g_coreType != ::AscendC::AIV)
#define ASCEND_IS_NOT_AIC constexpr (true) if (g_coreType != ::AscendC::AIC)

#endif  // OPGEN_TWIN_DETAIL_CORE_TYPE_H
