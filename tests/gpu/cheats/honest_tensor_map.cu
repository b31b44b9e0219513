// Honest control: the naive kernel reading q and the KV records through TMA
// copies, with tensor maps the harness encodes from the plan's requests and
// writes into the workspace before every launch. Expected: passes verify and
// every bench check, bf16 and fp8.
#include "../tests/gpu/cheats/tensor_map_kernel.cuh"
