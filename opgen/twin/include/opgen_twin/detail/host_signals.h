// opgen CPU twin: an integer division by zero in the project's host code (a TilingFunc that
// divides by a shape-derived count that is 0 for some shape) raises SIGFPE, which would end the
// whole Python process the twin runs in, every remaining test with it. The runner calls
// InferShape and the TilingFunc through CatchSigFpe, which turns the signal into an error
// naming the function, as a host crash under CANN fails the one call.
//
// The signal arrives on the thread that divided; the handler jumps back to the CatchSigFpe of
// that thread (siglongjmp: the frames in between are abandoned without their destructors, a
// small leak on a path that ends the call anyway). A SIGFPE outside CatchSigFpe goes to the
// handler that was there before (Python's faulthandler, or the default).
#ifndef OPGEN_TWIN_DETAIL_HOST_SIGNALS_H
#define OPGEN_TWIN_DETAIL_HOST_SIGNALS_H

#include <csetjmp>
#include <csignal>
#include <string>

namespace opgen_twin {
namespace detail {

struct SigFpeCatch {
    sigjmp_buf jump;
    struct sigaction previous;
};

inline thread_local SigFpeCatch* g_sigFpeCatch = nullptr;

inline void OnSigFpe(int sig, siginfo_t* info, void* context)
{
    SigFpeCatch* c = g_sigFpeCatch;
    if (c != nullptr) {
        g_sigFpeCatch = nullptr;
        siglongjmp(c->jump, info != nullptr && info->si_code > 0 ? info->si_code : -1);
    }
    // not ours: what the process had before (only the outermost catch's previous handler is
    // known here, so fall back to the default action)
    signal(sig, SIG_DFL);
    raise(sig);
    (void)context;
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
    SigFpeCatch c;
    struct sigaction mine = {};
    mine.sa_sigaction = OnSigFpe;
    mine.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&mine.sa_mask);
    sigaction(SIGFPE, &mine, &c.previous);
    SigFpeCatch* outer = g_sigFpeCatch;
    const int code = sigsetjmp(c.jump, 1);
    if (code != 0) {
        g_sigFpeCatch = outer;
        sigaction(SIGFPE, &c.previous, nullptr);
        return SigFpeText(code);
    }
    g_sigFpeCatch = &c;
    fn();
    g_sigFpeCatch = outer;
    sigaction(SIGFPE, &c.previous, nullptr);
    return "";
}

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_HOST_SIGNALS_H
