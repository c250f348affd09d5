#pragma once
// opgen CPU twin: kernel-side Broadcast (asc-devkit adv_api/pad/broadcast.h); everything lives in kernel_operator.h.
#include "kernel_operator.h"
