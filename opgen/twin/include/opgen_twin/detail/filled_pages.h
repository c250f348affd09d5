// opgen CPU twin: large GM buffers that start out filled with 0xFF, without writing them.
//
// The runner poisons every output and the workspace with 0xFF so unwritten bytes show as NaN.
// The workspace is large (the library-API system workspace alone is 16 MiB) and most kernels
// never touch it, yet allocating and filling it cost more than the kernel itself. On Linux,
// a buffer is instead a private copy-on-write mapping of one process-wide in-memory file of
// 0xFF bytes: mapping it is one system call, reads see 0xFF, and only the pages the kernel
// writes get copied - each launch sees a fresh all-0xFF buffer, as before. Elsewhere (or if
// the file cannot be made) Map() returns nullptr and the caller falls back to a vector.
#ifndef OPGEN_TWIN_DETAIL_FILLED_PAGES_H
#define OPGEN_TWIN_DETAIL_FILLED_PAGES_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace opgen_twin {
namespace detail {

class FilledPages {
public:
    // Buffers smaller than this are cheaper as vectors.
    static constexpr size_t kMinBytes = size_t{1} << 20;

    // A fresh mapping of at least `bytes` bytes of 0xFF (rounded up to whole pages), or
    // nullptr; release it with Unmap(p, bytes).
    static uint8_t* Map(size_t bytes)
    {
#if defined(__linux__) && defined(MFD_CLOEXEC)
        FilledPages& f = Instance();
        const std::lock_guard<std::mutex> lock(f.mutex_);
        const size_t len = RoundUp(bytes);
        if (!f.Grow(len)) return nullptr;
        void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, f.fd_, 0);
        return p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
#else
        (void)bytes;
        return nullptr;
#endif
    }
    static void Unmap(uint8_t* p, size_t bytes)
    {
#if defined(__linux__) && defined(MFD_CLOEXEC)
        if (p != nullptr) munmap(p, RoundUp(bytes));
#else
        (void)p;
        (void)bytes;
#endif
    }

private:
#if defined(__linux__) && defined(MFD_CLOEXEC)
    static FilledPages& Instance()
    {
        static FilledPages f;  // the file lives as long as the process
        return f;
    }
    static size_t RoundUp(size_t bytes)
    {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        return (bytes + page - 1) / page * page;
    }
    // Makes the file at least `len` bytes long, the new part filled with 0xFF.
    bool Grow(size_t len)
    {
        if (len <= size_) return true;
        if (fd_ < 0) {
            fd_ = memfd_create("opgen_twin_gm_fill", MFD_CLOEXEC);
            if (fd_ < 0) return false;
        }
        if (ftruncate(fd_, static_cast<off_t>(len)) != 0) return false;
        void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
        if (p == MAP_FAILED) return false;
        std::memset(static_cast<uint8_t*>(p) + size_, 0xFF, len - size_);
        munmap(p, len);
        size_ = len;
        return true;
    }

    std::mutex mutex_;
    int fd_ = -1;
    size_t size_ = 0;
#else
    static size_t RoundUp(size_t bytes) { return bytes; }
#endif
};

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_FILLED_PAGES_H
