// What the twin's kernel-API test programs share beside check.h: expecting a HardwareError (or
// none) from a call, and scratch LocalTensors from a pipe of TBufs.
#ifndef OPGEN_TWIN_TEST_KERNEL_CHECK_H
#define OPGEN_TWIN_TEST_KERNEL_CHECK_H

#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include "check.h"
#include "kernel_operator.h"

namespace {

// `f` throws a HardwareError whose message holds every needle; the message is printed as
// "MSG name: ..." for the Python side to read.
inline void ExpectHw(const char* name, const std::function<void()>& f, std::vector<const char*> needles)
{
    try {
        f();
        ++g_fail;
        std::printf("FAIL %s: no HardwareError thrown\n", name);
    } catch (const opgen_twin::HardwareError& e) {
        std::printf("MSG %s: %s\n", name, e.what());
        for (const char* n : needles) {
            CHECK(std::strstr(e.what(), n) != nullptr, "%s: message lacks '%s': %s", name, n, e.what());
        }
    } catch (const std::exception& e) {
        ++g_fail;
        std::printf("FAIL %s: wrong exception type: %s\n", name, e.what());
    }
}

inline void ExpectOk(const char* name, const std::function<void()>& f)
{
    try {
        f();
        ++g_pass;
    } catch (const std::exception& e) {
        ++g_fail;
        std::printf("FAIL %s: unexpected exception: %s\n", name, e.what());
    }
}

// A pipe with one TBuf per call site: the easiest way to get scratch LocalTensors.
template <int kBuffers = 16>
struct BasicScratch {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> b[kBuffers];
    int used = 0;
    template <class T>
    AscendC::LocalTensor<T> Get(uint32_t n)
    {
        if (used == kBuffers) throw std::runtime_error("test bug: Scratch has too few buffers");
        pipe.InitBuffer(b[used], n * sizeof(T));
        return b[used++].template Get<T>();
    }
};

}  // namespace

#endif  // OPGEN_TWIN_TEST_KERNEL_CHECK_H
