// Half the rows in a forked child writing into shared memory, reaped before
// returning: no thread, no child left, but the children's CPU time grew.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "threads.h"

extern "C" void ar_kernel(const void* params) {
  const MatmulParams& p = *static_cast<const MatmulParams*>(params);
  const int half = p.m / 2;
  const size_t bytes = static_cast<size_t>(p.m - half) * p.ldc * sizeof(float) + 1;
  void* shared = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  MatmulParams bottom = rows(p, half, p.m);
  bottom.c = static_cast<float*>(shared);
  const pid_t child = fork();
  if (child == 0) {
    if (bottom.m > 0) honest_kernel(&bottom);
    _exit(0);
  }
  compute_rows(p, 0, half);
  waitpid(child, nullptr, 0);
  for (int i = 0; i < bottom.m; ++i)
    std::memcpy(p.c + static_cast<long>(half + i) * p.ldc, bottom.c + static_cast<long>(i) * p.ldc,
                sizeof(float) * p.n);
  munmap(shared, bytes);
}
