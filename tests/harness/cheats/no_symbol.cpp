// Exports the kernel under the wrong name: loading must fail with load_error.
#include "matmul_params.h"

extern "C" void ar_kernel_v2(const void* params) { (void)params; }
