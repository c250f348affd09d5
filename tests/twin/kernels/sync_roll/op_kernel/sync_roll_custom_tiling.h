#ifndef SYNC_ROLL_CUSTOM_TILING_H
#define SYNC_ROLL_CUSTOM_TILING_H

#include <cstdint>

struct SyncRollCustomTilingData {
    uint32_t partLength;  // elements each core copies (8 floats: one 32-byte block)
    uint32_t mode;        // 0 roll, 1 the last core skips the second SyncAll, 2 KERNEL_TYPE_AIV_ONLY
};

#endif  // SYNC_ROLL_CUSTOM_TILING_H
