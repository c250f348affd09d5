// The check macro the twin's C++ test programs share: count passes and failures, print each
// failure with its file, line, condition and a printf-style explanation.
#ifndef OPGEN_TWIN_TEST_CHECK_H
#define OPGEN_TWIN_TEST_CHECK_H

#include <cstddef>
#include <cstdio>
#include <exception>
#include <string>

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

// A program's sections: argv[1] names one ("all", or none, runs every one but those marked
// byNameOnly); an exception a section does not catch is a failure. Prints the SUMMARY line;
// returns the exit code (2: no such section).
struct CheckSection {
    const char* name;
    void (*fn)();
    bool byNameOnly = false;
};
template <std::size_t N>
inline int RunSections(int argc, char** argv, const CheckSection (&sections)[N])
{
    const std::string sec = argc > 1 ? argv[1] : "all";
    bool found = false;
    for (const CheckSection& s : sections) {
        if (sec == "all" ? s.byNameOnly : sec != s.name) continue;
        found = true;
        try {
            s.fn();
        } catch (const std::exception& e) {
            ++g_fail;
            std::printf("FAIL section %s: uncaught exception: %s\n", s.name, e.what());
        }
    }
    if (!found) {
        std::printf("FAIL unknown section %s\n", sec.c_str());
        return 2;
    }
    std::printf("SUMMARY pass=%d fail=%d\n", g_pass, g_fail);
    return g_fail == 0 ? 0 : 1;
}

#endif  // OPGEN_TWIN_TEST_CHECK_H
