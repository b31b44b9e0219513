// The wgmma probes' shared pieces (../wgmma_rate, ../wgmma_sw128_probe, ../rs_chain_probe): a shared-memory
// matrix descriptor and the warpgroup's fence / commit / wait. Included after probe_ptx.cuh (smem_addr),
// inside the probe's anonymous namespace where it has one.
#pragma once

// Start address, leading and stride byte offsets (in bytes; encoded in 16-byte units), and the layout type in bits 62-63
// (0: no swizzle, the 8 x 16-byte core matrices of the interleave; 1: the 128-byte swizzle).
__device__ __forceinline__ uint64_t wgmma_desc(uint32_t addr, unsigned lbo, unsigned sbo, unsigned layout = 0) {
  return static_cast<uint64_t>((addr & 0x3FFFFu) >> 4) | (static_cast<uint64_t>(lbo >> 4) << 16) |
         (static_cast<uint64_t>(sbo >> 4) << 32) | (static_cast<uint64_t>(layout) << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
