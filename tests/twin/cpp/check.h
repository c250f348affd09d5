// The check macro the twin's C++ test programs share: count passes and failures, print each
// failure with its file, line, condition and a printf-style explanation.
#ifndef OPGEN_TWIN_TEST_CHECK_H
#define OPGEN_TWIN_TEST_CHECK_H

#include <cstdio>

namespace {
int g_pass = 0;
int g_fail = 0;
}  // namespace

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (cond) {                                                      \
            ++g_pass;                                                    \
        } else {                                                         \
            ++g_fail;                                                    \
            std::printf("FAIL %s:%d: %s | ", __FILE__, __LINE__, #cond); \
            std::printf(__VA_ARGS__);                                    \
            std::printf("\n");                                           \
        }                                                                \
    } while (0)

#endif  // OPGEN_TWIN_TEST_CHECK_H
