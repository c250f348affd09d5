// opgen CPU twin: error types shared by the kernel-side emulation, the host-side
// emulation and the runner.
//
// HardwareError  - the kernel (or host code) broke a rule the NPU would not report
//                  (or would turn into silent corruption / a hang). what() names the
//                  rule and the API call.
// TwinError      - base class; also thrown directly for misuse of the twin itself or
//                  for API calls the twin cannot emulate at run time.
#ifndef OPGEN_TWIN_ERRORS_H
#define OPGEN_TWIN_ERRORS_H

#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace opgen_twin {

class TwinError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class HardwareError : public TwinError {
public:
    using TwinError::TwinError;
};

namespace detail {

// printf-style formatting into a std::string (keeps <iostream>/<sstream> out of the
// kernel-side headers, which matters for compile time).
__attribute__((format(printf, 1, 2))) inline std::string Format(const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    std::string out;
    if (n > 0) {
        out.resize(static_cast<size_t>(n) + 1);
        std::vsnprintf(&out[0], out.size(), fmt, ap2);
        out.resize(static_cast<size_t>(n));
    }
    va_end(ap2);
    return out;
}

// Why the last host tiling API call on this thread failed (matmul_tiling's GetTiling returning
// -1), for the runner to add to a TilingFunc's GRAPH_FAILED: CANN writes it to its log, the twin
// has none.
inline std::string& HostTilingNote()
{
    thread_local std::string note;
    return note;
}

[[noreturn]] inline void ThrowHardware(const std::string& msg) { throw HardwareError(msg); }
[[noreturn]] inline void ThrowTwin(const std::string& msg) { throw TwinError(msg); }

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_ERRORS_H
