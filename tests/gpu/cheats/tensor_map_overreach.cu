// Cheat: the honest tensor-map kernel, its KV map drawn 4096 rows past the end
// of the cache. TMA copies are checked against the map's dimensions only, not
// against allocations, and compute-sanitizer does not see them: such a map
// reads (or, for a store, writes) whatever the allocator placed after the
// cache, unseen. Expected: the harness refuses the plan at bind (launch_error:
// a map may reach only the buffer it is based on).
#define TENSOR_MAP_KV_ROWS(p) (static_cast<unsigned long long>((p).num_slots) + 4096)
#include "../tests/gpu/cheats/tensor_map_kernel.cuh"
