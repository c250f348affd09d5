// opgen CPU twin: an integer division by zero in a project's code (a TilingFunc or a kernel that
// divides by a shape-derived count that is 0 for some shape) raises SIGFPE, which would end the
// whole Python process the twin runs in, every remaining test with it. The runner calls
// InferShape, the TilingFunc and each kernel block through CatchSigFpe, which turns the signal
// into an error naming the function or block, as such a crash under CANN fails the one call.
//
// The handler is installed once for the process. The signal arrives on the thread that divided;
// the handler jumps back to the innermost CatchSigFpe of the core running there (its launch
// state's sigFpeJump; siglongjmp: the frames in between are abandoned without their destructors,
// a small leak on a path that ends the call anyway).
// Outside CatchSigFpe it puts back the handler that was there before (Python's faulthandler, or
// the default) and returns: the faulting instruction runs again and raises SIGFPE to that one.
#ifndef OPGEN_TWIN_DETAIL_HOST_SIGNALS_H
#define OPGEN_TWIN_DETAIL_HOST_SIGNALS_H

#include <csetjmp>
#include <csignal>
#include <mutex>
#include <string>

#include "opgen_twin/detail/launch.h"

namespace opgen_twin {
namespace detail {

inline struct sigaction g_previousSigFpe = {};

inline void OnSigFpe(int, siginfo_t* info, void*)
{
    auto* jump = static_cast<sigjmp_buf*>(g_launch.sigFpeJump);
    if (jump != nullptr) {
        g_launch.sigFpeJump = nullptr;
        siglongjmp(*jump, info != nullptr && info->si_code > 0 ? info->si_code : -1);
    }
    sigaction(SIGFPE, &g_previousSigFpe, nullptr);
}

inline void InstallSigFpeHandler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction mine = {};
        mine.sa_sigaction = OnSigFpe;
        mine.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&mine.sa_mask);
        sigaction(SIGFPE, &mine, &g_previousSigFpe);
    });
}

inline std::string SigFpeText(int code)
{
    switch (code) {
        case FPE_INTDIV:
            return "integer division by zero (SIGFPE)";
        case FPE_INTOVF:
            return "integer overflow (SIGFPE; INT_MIN / -1, say)";
        default:
            return "arithmetic exception (SIGFPE)";
    }
}

// Runs fn(); returns "" or, when it raised SIGFPE, what happened.
template <class Fn>
std::string CatchSigFpe(Fn&& fn)
{
    InstallSigFpeHandler();
    struct Restore {  // the enclosing catch again, however fn() ends
        void* outer;
        ~Restore() { g_launch.sigFpeJump = outer; }
    };
    sigjmp_buf jump;
    void* const outer = g_launch.sigFpeJump;
    if (const int code = sigsetjmp(jump, 1); code != 0) {
        g_launch.sigFpeJump = outer;
        return SigFpeText(code);
    }
    g_launch.sigFpeJump = &jump;
    Restore restore{outer};
    fn();
    return "";
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_HOST_SIGNALS_H
