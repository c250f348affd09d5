// opgen CPU twin: the worker threads that run a launch's blocks, kept from one launch to the next.
//
// Starting a thread per worker for every launch cost tens of microseconds, and each new thread's
// UB arena (kernel_pipe.h) was allocated and page-faulted again; for a kernel of a millisecond
// that was a good part of the call. The workers wait for the next launch instead. They are never
// joined: the pool lives until the process ends (joining in a static destructor at exit can hang).
// A forked child gets a pool of its own (the parent's threads do not exist there); forking while
// another thread is in a launch is not supported.
//
// Waking a sleeping thread takes tens of microseconds on a busy or virtual machine, longer than a
// small launch. So a worker that finishes spins for up to 100 us before it sleeps, and so does the
// launching thread waiting for the workers' last blocks: back-to-back launches (a test sweep, a
// model's layers) find their workers awake, as torch's OpenMP threads are.
#ifndef OPGEN_TWIN_DETAIL_BLOCK_POOL_H
#define OPGEN_TWIN_DETAIL_BLOCK_POOL_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include <unistd.h>

namespace opgen_twin {
namespace detail {

class BlockPool {
public:
    // Runs `work` on the calling thread and on `helpers` pool threads at once; returns when all
    // of them have returned. One launch at a time uses the pool; others wait.
    static void Run(uint32_t helpers, const std::function<void()>& work)
    {
        if (helpers == 0) {
            work();
            return;
        }
        BlockPool& pool = Instance();
        const std::lock_guard<std::mutex> launch(pool.launchMutex_);
        std::unique_lock<std::mutex> lock(pool.mutex_);
        while (pool.threads_ < helpers) {
            std::thread(&BlockPool::Serve, &pool, pool.threads_++).detach();
        }
        pool.work_ = &work;
        pool.wanted_ = helpers;
        pool.pending_.store(helpers);
        pool.generation_.fetch_add(1);
        lock.unlock();
        pool.wake_.notify_all();
        work();
        const auto finished = [&pool] { return pool.pending_.load() == 0; };
        SpinUntil(finished);
        lock.lock();
        pool.done_.wait(lock, finished);
        pool.work_ = nullptr;
    }

private:
    // Returns when `ready()` holds or 100 microseconds have passed.
    template <class Ready>
    static void SpinUntil(const Ready& ready)
    {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
        while (!ready() && std::chrono::steady_clock::now() < until) {
            for (int i = 0; i < 32; ++i) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            }
        }
    }

    static BlockPool& Instance()
    {
        static std::mutex creation;
        static BlockPool* pool = nullptr;
        const std::lock_guard<std::mutex> lock(creation);
        if (pool == nullptr || pool->owner_ != getpid()) {
            pool = new BlockPool();  // never deleted, see the top of the file
        }
        return *pool;
    }

    // Worker `index` takes every launch that asks for more than `index` helpers.
    void Serve(uint32_t index)
    {
        uint64_t seen = 0;
        const auto launched = [&] { return generation_.load() != seen; };
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            lock.unlock();
            SpinUntil(launched);
            lock.lock();
            wake_.wait(lock, launched);
            seen = generation_.load();
            if (index >= wanted_) {
                continue;
            }
            const std::function<void()>& work = *work_;
            lock.unlock();
            work();
            lock.lock();
            if (pending_.fetch_sub(1) == 1) {
                done_.notify_one();
            }
        }
    }

    const pid_t owner_ = getpid();
    std::mutex launchMutex_;
    std::mutex mutex_;  // guards the fields below
    std::condition_variable wake_;
    std::condition_variable done_;
    uint32_t threads_ = 0;
    std::atomic<uint64_t> generation_{0};  // written under mutex_, read by spinning workers too
    const std::function<void()>* work_ = nullptr;
    uint32_t wanted_ = 0;
    std::atomic<uint32_t> pending_{0};
};

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_BLOCK_POOL_H
