// The ACL runtime calls asc-devkit's kernel-launch examples make, for bench/asc_devkit_matmul.py:
// a stand-in for CANN's acl/acl.h on the CPU twin (not part of the twin: no NPU, no device).
//
// Device memory is host memory. aclrtMalloc returns a buffer of the size rounded up to 32 bytes
// plus 32 (aclrtMalloc's rule, as the twin's runner allocates), filled with 0xFF bytes (the NPU's
// memory holds garbage; NaN for float types, so an output the kernel never writes shows), and
// records it as a GM buffer of every later launch. aclrtMemcpy is memcpy (any direction).
// Streams, contexts and devices are tokens; every call returns ACL_SUCCESS.
//
// The bench rewrites `kernel<<<numBlocks, l2ctrl, stream>>>(args...)` into
// `opgen_twin_acl::Launch("kernel", kernel, numBlocks, args...)`, which launches the kernel on
// the twin (opgen_twin/launch_direct.h) with every aclrtMalloc'd buffer as GM and the argument
// before the last as the system workspace (GetSysWorkSpacePtr(); the examples pass
// ..., workspace, tiling). A launch error is printed as `[twin] <kernel>: <error>` on stderr and
// the program exits with status 3 (the examples do not check aclrtSynchronizeStream's result).
// The examples use std::cout without including <iostream> (on CANN some header of theirs brings
// it; the twin's tiling headers do not): this header includes it.
#ifndef OPGEN_BENCH_ACL_SHIM_H
#define OPGEN_BENCH_ACL_SHIM_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <tuple>

#include "opgen_twin/fp16.h"
#include "opgen_twin/launch_direct.h"

using aclError = int;
using aclrtStream = void*;
using aclrtContext = void*;
using aclFloat16 = uint16_t;  // acl_base.h: the bits of an IEEE half
constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_NONE = 0;
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY };
enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_DEVICE_TO_DEVICE
};

namespace opgen_twin_acl {

struct Buffer {
    std::unique_ptr<uint8_t[]> bytes;
    size_t size;
};
// aclrtMalloc's buffers by address: the launch's GM.
inline std::map<void*, Buffer>& Device()
{
    static std::map<void*, Buffer> buffers;
    return buffers;
}

template <class... P, class... A>
void Launch(const char* name, void (*fn)(P...), uint32_t numBlocks, A... args)
{
    static_assert(sizeof...(A) >= 2, "the examples pass ..., workspace, tiling");
    opgen_twin::DirectLaunch l;
    l.blockDim = numBlocks;
    int i = 0;
    for (auto& [p, b] : Device()) {
        l.gm.push_back({p, b.size, std::string("aclrtMalloc buffer ") + std::to_string(i++)});
    }
    l.sysWorkspace = (void*)std::get<sizeof...(A) - 2>(std::make_tuple(args...));
    const std::string err = opgen_twin::LaunchDirect(l, fn, args...);
    if (!err.empty()) {
        std::fprintf(stderr, "[twin] %s: %s\n", name, err.c_str());
        std::exit(3);
    }
}

}  // namespace opgen_twin_acl

inline float aclFloat16ToFloat(aclFloat16 v) { return opgen_twin::fp::HalfBitsToFloat(v); }
inline aclFloat16 aclFloatToFloat16(float v) { return opgen_twin::fp::FloatToHalfBits(v); }

inline aclError aclInit(const char*) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtCreateContext(aclrtContext* c, int32_t)
{
    *c = reinterpret_cast<aclrtContext>(1);
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtCreateStream(aclrtStream* s)
{
    *s = reinterpret_cast<aclrtStream>(1);
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }

inline aclError aclrtMalloc(void** p, size_t size, aclrtMemMallocPolicy)
{
    const size_t padded = (size + 31) / 32 * 32 + 32;
    opgen_twin_acl::Buffer b{std::unique_ptr<uint8_t[]>(new uint8_t[padded]), padded};
    std::memset(b.bytes.get(), 0xFF, padded);
    *p = b.bytes.get();
    opgen_twin_acl::Device()[*p] = std::move(b);
    return ACL_SUCCESS;
}
inline aclError aclrtFree(void* p)
{
    opgen_twin_acl::Device().erase(p);
    return ACL_SUCCESS;
}
inline aclError aclrtMallocHost(void** p, size_t size)
{
    *p = std::malloc(size > 0 ? size : 1);
    return ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* p)
{
    std::free(p);
    return ACL_SUCCESS;
}
inline aclError aclrtMemcpy(void* dst, size_t, const void* src, size_t count, aclrtMemcpyKind)
{
    std::memcpy(dst, src, count);
    return ACL_SUCCESS;
}

#endif  // OPGEN_BENCH_ACL_SHIM_H
