// opgen CPU twin: kernel-side umbrella header, same include name as the CANN one.
// Provides the subset of the Ascend C API (namespace AscendC) that opgen-generated
// kernels use, emulated on the CPU with hardware-rule checks. See opgen/twin/README.md.
#ifndef OPGEN_TWIN_KERNEL_OPERATOR_H
#define OPGEN_TWIN_KERNEL_OPERATOR_H

// Kernels compiled against the twin: code may check there what the NPU cannot afford to.
#define OPGEN_TWIN 1

#include <cstdint>

#include "opgen_twin/fp16.h"
#include "opgen_twin/detail/launch.h"
#include "opgen_twin/detail/kernel_tensor.h"
#include "opgen_twin/detail/kernel_pipe.h"
#include "opgen_twin/detail/kernel_copy.h"
#include "opgen_twin/detail/kernel_vec.h"
#include "opgen_twin/detail/kernel_vec_repeat.h"
#include "opgen_twin/detail/kernel_cmpsel.h"
#include "opgen_twin/detail/kernel_cmpmask.h"
#include "opgen_twin/detail/kernel_subs.h"
#include "opgen_twin/detail/kernel_reduce.h"
#include "opgen_twin/detail/kernel_reduce_repeat.h"
#include "opgen_twin/detail/kernel_adv.h"
#include "opgen_twin/detail/kernel_adv_math.h"
#include "opgen_twin/detail/kernel_misc.h"
#include "opgen_twin/detail/kernel_list.h"
#include "opgen_twin/detail/kernel_symbol.h"
#include "opgen_twin/detail/kernel_shift.h"
#include "opgen_twin/detail/kernel_gather_sort.h"
#include "opgen_twin/detail/kernel_mrgsort.h"
#include "opgen_twin/detail/kernel_gather.h"
#include "opgen_twin/detail/kernel_broadcast.h"
#include "opgen_twin/detail/kernel_assert.h"
#include "opgen_twin/detail/kernel_debug.h"
#include "opgen_twin/detail/unwritten.h"
// Not in CANN's umbrella, but kernels include it from inside the namespace a variant wraps
// them in, where it must find its classes declared already (at global scope).
#include "op_frame/elemwise_frame.h"

#endif  // OPGEN_TWIN_KERNEL_OPERATOR_H
