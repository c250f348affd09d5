// opgen CPU twin: the header the Ascend C docs name for ListTensorDesc; kernel_operator.h
// already declares it (opgen_twin/detail/kernel_list.h).
#ifndef OPGEN_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H
#define OPGEN_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H
#include "kernel_operator.h"
#endif  // OPGEN_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H
