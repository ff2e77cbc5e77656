// Four configuration arguments, arguments with side effects (evaluated once), a child defined after
// its parent (its serial and coarsened versions are declared before the parent), and a clause whose
// transformation does not exist yet.
#include <cuda_runtime.h>

__global__ void fill(int* out, int value, int n);

__device__ int next_slot(int* counter) { return atomicAdd(counter, 1); }

__global__ void parent(int* out, int* counter, const int* len) {
  int n = len[threadIdx.x];
#pragma dp threshold(96) coarsen(4) consldt(warp)
  fill<<<(n + 31) / 32, 32, 0, 0>>>(out + 64 * next_slot(counter), (int)threadIdx.x, n);
}

__global__ void fill(int* out, int value, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}
