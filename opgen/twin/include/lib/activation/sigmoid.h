#pragma once
// opgen CPU twin: kernel-side high-level API header; everything lives in kernel_operator.h.
#include "kernel_operator.h"
