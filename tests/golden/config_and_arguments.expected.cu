#line 1 "config_and_arguments.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "config_and_arguments.cu"
// Four configuration arguments, arguments with side effects (evaluated once), a child defined after
// its parent (its serial and coarsened versions are declared before the parent), and a clause whose
// transformation does not exist yet.
#include <cuda_runtime.h>

__global__ void fill(int* out, int value, int n);

__device__ int next_slot(int* counter) { return atomicAdd(counter, 1); }

#line 2 "config_and_arguments.cu"
static __device__ __noinline__ void fill__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, int* out, int value, int n);
static __global__ void __launch_bounds__(1024) fill__pdcc_coarse(int* out, int value, int n, const dim3 pdcc_gridDim);
#ifndef PDCC_THRESHOLD_parent_0
#define PDCC_THRESHOLD_parent_0 96
#endif
#ifndef PDCC_COARSEN_parent_0
#define PDCC_COARSEN_parent_0 4
#endif
__global__ void __launch_bounds__(1024) parent(int* out, int* counter, const int* len) {
  int n = len[threadIdx.x];
// pdcc: #pragma dp threshold(96) coarsen(4) consldt(warp)
  { // pdcc: site parent_0: below PDCC_THRESHOLD_parent_0 child threads, run 'fill' here, blocks do PDCC_COARSEN_parent_0 original blocks each
    const auto pdcc_n = n;
    const dim3 pdcc_grid = (pdcc_n + 31) / 32;
    const dim3 pdcc_block = 32;
    int* pdcc_arg0 = out + 64 * next_slot(counter);
    int pdcc_arg1 = (int)threadIdx.x;
    int pdcc_arg2 = n;
    if (pdcc_n >= PDCC_THRESHOLD_parent_0) {
      if (!pdcc::launched([&] {
            fill__pdcc_coarse<<<dim3((pdcc_grid.x + PDCC_COARSEN_parent_0 - 1) / PDCC_COARSEN_parent_0, pdcc_grid.y, pdcc_grid.z), pdcc_block, 0, 0>>>(pdcc_arg0, pdcc_arg1, pdcc_arg2, pdcc_grid); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        fill__pdcc_serial(pdcc_grid, pdcc_block, pdcc_arg0, pdcc_arg1, pdcc_arg2);
    } else {
      fill__pdcc_serial(pdcc_grid, pdcc_block, pdcc_arg0, pdcc_arg1, pdcc_arg2);
    }
  }
#line 14 "config_and_arguments.cu"
}

__global__ void fill(int* out, int value, int n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}
#line 14 "config_and_arguments.cu"

// pdcc: the body of 'fill' for one (block, thread), built-ins passed in
static __device__ void fill__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, int* out, int value, int n) {
  unsigned i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i < n) out[i] = value;
}
#line 16 "config_and_arguments.cu"

// pdcc: every thread of a 'fill' launch, one after another, in the calling thread
static __device__ __noinline__ void fill__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, int* out, int value, int n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      fill__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, value, n);
  }
}

// pdcc: 'fill' coarsened: each block does the work of several original blocks
static __global__ void __launch_bounds__(1024) fill__pdcc_coarse(int* out, int value, int n, const dim3 pdcc_gridDim)
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    fill__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, out, value, n);
  }
}
