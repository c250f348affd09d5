// opgen CPU twin: the kernel-side assert of CANN's kernel_operator.h (asc-devkit
// include/utils/debug/asc_assert.h, reached through kernel_operator_dump_tensor_intf.h):
// `assert(expr)` and `assert(expr, fmt, args...)`, compiled out under NDEBUG (and ASCENDC_DUMP=0).
// On the NPU a failed one traps the kernel; on the twin it is a HardwareError that stops the
// block (as ASSERT), not std::abort. A kernel that includes <cassert> / <assert.h> after
// kernel_operator.h gets the C library's assert back, as with CANN's headers.
#ifndef OPGEN_TWIN_DETAIL_KERNEL_ASSERT_H
#define OPGEN_TWIN_DETAIL_KERNEL_ASSERT_H

#include <cassert>

#include "opgen_twin/detail/launch.h"

#define OPGEN_TWIN_ASSERT_FIRST_(a, ...) a
#define OPGEN_TWIN_ASSERT_FIRST(...) OPGEN_TWIN_ASSERT_FIRST_(__VA_ARGS__, 0)

#undef assert
#undef ascendc_assert
#if !(defined(ASCENDC_DUMP) && ASCENDC_DUMP == 0) && !defined(NDEBUG)
#define assert(...)                                                                                    \
    (static_cast<bool>(OPGEN_TWIN_ASSERT_FIRST(__VA_ARGS__))                                           \
         ? static_cast<void>(0)                                                                        \
         : ::opgen_twin::detail::ThrowHardware(::opgen_twin::detail::Format(                           \
               "assert(%s) failed at %s:%d", #__VA_ARGS__, __FILE__, __LINE__)))
#define ascendc_assert(...) assert(__VA_ARGS__)
#else
#define assert(...) static_cast<void>(0)
#define ascendc_assert(...) static_cast<void>(0)
#endif

#endif  // OPGEN_TWIN_DETAIL_KERNEL_ASSERT_H
