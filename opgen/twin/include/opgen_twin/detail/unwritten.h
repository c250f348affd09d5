// opgen CPU twin: the hooks opgen's kernel library calls around a tile it lends the compute step
// unwritten (op_kernel/opgen_kernel.h: OPGEN_LEND_UNWRITTEN, OPGEN_RETURN_UNWRITTEN; on the NPU
// they do nothing). A READ_ONLY row-broadcast input (BroadcastInStream<..., true>) hands out the
// same repeated row as every tile of the core, so the step must leave it as it was: core 0's
// tiles are compared byte for byte before and after each step (every core runs the same step).
#ifndef OPGEN_TWIN_DETAIL_UNWRITTEN_H
#define OPGEN_TWIN_DETAIL_UNWRITTEN_H

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "opgen_twin/detail/kernel_misc.h"
#include "opgen_twin/errors.h"

namespace opgen_twin {
namespace detail {

struct LentTile {
    const void* data = nullptr;
    std::vector<uint8_t> before;  // its bytes when lent
};

// The tiles lent and not yet returned, by their lender (a stream object of one core).
inline std::map<const void*, LentTile>& LentTiles(std::unique_lock<std::mutex>& lock)
{
    static std::mutex mutex;
    static std::map<const void*, LentTile> lent;
    lock = std::unique_lock<std::mutex>(mutex);
    return lent;
}

template <typename Tensor>
Tensor LendUnwritten(const void* owner, Tensor tile, uint32_t count)
{
    if (AscendC::GetBlockIdx() != 0) {
        return tile;
    }
    using T = typename Tensor::PrimType;
    const uint8_t* bytes = static_cast<const uint8_t*>(tile.TwinData());
    std::unique_lock<std::mutex> lock;
    LentTiles(lock)[owner] = LentTile{bytes, std::vector<uint8_t>(bytes, bytes + count * sizeof(T))};
    return tile;
}

inline void ReturnUnwritten(const void* owner)
{
    std::unique_lock<std::mutex> lock;
    std::map<const void*, LentTile>& lent = LentTiles(lock);
    const auto it = lent.find(owner);
    if (it == lent.end()) {
        return;
    }
    const LentTile tile = it->second;
    lent.erase(it);
    lock.unlock();
    if (std::memcmp(tile.data, tile.before.data(), tile.before.size()) != 0) {
        ThrowHardware(
            "the compute step wrote into the tile of a READ_ONLY input (a BroadcastInStream<..., true> "
            "in op_kernel/<op>.cpp): every tile of its row broadcast is the same repeated row, so the "
            "later tiles would read what was written; leave that tile unwritten in <op>_compute.h, or "
            "give the stream READ_ONLY false");
    }
}

}  // namespace detail
}  // namespace opgen_twin

#define OPGEN_LEND_UNWRITTEN(owner, tile, count) ::opgen_twin::detail::LendUnwritten(owner, tile, count)
#define OPGEN_RETURN_UNWRITTEN(owner) ::opgen_twin::detail::ReturnUnwritten(owner)

#endif  // OPGEN_TWIN_DETAIL_UNWRITTEN_H
