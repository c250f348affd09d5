// opgen CPU twin: the worker threads that run a launch's blocks, kept from one launch to the next.
//
// Starting a thread per worker for every launch cost tens of microseconds, and each new thread's
// UB arena (kernel_pipe.h) was allocated and page-faulted again; for a kernel of a millisecond
// that was a good part of the call. The workers wait for the next launch instead. They are never
// joined: the pool lives until the process ends (joining in a static destructor at exit can hang).
// A forked child gets a pool of its own (the parent's threads do not exist there); forking while
// another thread is in a launch is not supported.
#ifndef OPGEN_TWIN_DETAIL_BLOCK_POOL_H
#define OPGEN_TWIN_DETAIL_BLOCK_POOL_H

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
        pool.pending_ = helpers;
        ++pool.generation_;
        lock.unlock();
        pool.wake_.notify_all();
        work();
        lock.lock();
        pool.done_.wait(lock, [&pool] { return pool.pending_ == 0; });
        pool.work_ = nullptr;
    }

private:
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
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return generation_ != seen; });
            seen = generation_;
            if (index >= wanted_) {
                continue;
            }
            const std::function<void()>& work = *work_;
            lock.unlock();
            work();
            lock.lock();
            if (--pending_ == 0) {
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
    uint64_t generation_ = 0;
    const std::function<void()>* work_ = nullptr;
    uint32_t wanted_ = 0;
    uint32_t pending_ = 0;
};

}  // namespace detail
}  // namespace opgen_twin

#endif  // OPGEN_TWIN_DETAIL_BLOCK_POOL_H
