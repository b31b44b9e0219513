// Compiled to a cubin by nvcc for cubin_symbols_test.cpp ([cuda-compile]):
// every way a kernel's source can spell state that survives a launch. The
// reader must find each one in the symbol table, whatever the spelling, and
// must not report shared memory.
#define CAT(a, b) a##b
__device__ unsigned g_plain;
__device__ unsigned CAT(g_, pasted)[4];
__device__ const unsigned k_table[4] = {1, 2, 3, 4};
__device__ unsigned g_init = 7;
__constant__ float c_table[16];
__constant__ float c_init[2] = {1.f, 2.f};
namespace {
__device__ int anon_counter;
}
static __device__ int static_counter;

extern "C" __global__ void ar_stage0(int* p) {
  __shared__ int shared_tile[32];
  shared_tile[threadIdx.x % 32] = threadIdx.x;
  __syncthreads();
  // The issue's case: a const table written through an integer cast of its address.
  unsigned* t = reinterpret_cast<unsigned*>(reinterpret_cast<unsigned long long>(&k_table[0]));
  t[0] += 1;
  g_plain++;
  g_pasted[1]++;
  g_init++;
  anon_counter++;
  static_counter++;
  p[0] = shared_tile[(threadIdx.x + 1) % 32] + static_cast<int>(c_table[p[1]] + c_init[p[2]]) + k_table[p[3]];
}
