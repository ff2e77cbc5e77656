#line 1 "local_variable.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "local_variable.cu"
// The grid size comes through local variables whose initialisers hold the division.
#include <cmath>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
#line 2 "local_variable.cu"

// pdcc: the body of 'scale' for one (block, thread), built-ins passed in
static __device__ void scale__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* x, float a, int n) {
  int i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i < n) x[i] *= a;
}
#line 4 "local_variable.cu"

// pdcc: every thread of a 'scale' launch, one after another, in the calling thread
static __device__ __noinline__ void scale__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* x, float a, int n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      scale__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, x, a, n);
  }
}

// pdcc: 'scale' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) scale__pdcc_counted(float* x, float a, int n)
{
  pdcc::launch_started();
  scale__pdcc_thread(blockIdx, threadIdx, gridDim, blockDim, x, a, n);
}
#line 8 "local_variable.cu"

#line 6 "local_variable.cu"
#ifndef PDCC_THRESHOLD_through_int_0
#define PDCC_THRESHOLD_through_int_0 1024
#endif
__global__ void __launch_bounds__(1024) through_int(float* x, const int* sizes) {
  int n = sizes[blockIdx.x];
  int blocks = (int)ceil((float)n / 256);
  const int threads = 256;
// pdcc: #pragma dp threshold(1024)
  { // pdcc: site through_int_0: below PDCC_THRESHOLD_through_int_0 child threads, run 'scale' here
    const dim3 pdcc_grid = blocks;
    const dim3 pdcc_block = threads;
    if ((n) >= PDCC_THRESHOLD_through_int_0) {
      if (!pdcc::launched([&] {
            scale__pdcc_counted<<<pdcc_grid, pdcc_block>>>(x, 2.0f, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        scale__pdcc_serial(pdcc_grid, pdcc_block, x, 2.0f, n);
    } else {
      scale__pdcc_serial(pdcc_grid, pdcc_block, x, 2.0f, n);
    }
  }
#line 15 "local_variable.cu"
}

#line 14 "local_variable.cu"
#ifndef PDCC_THRESHOLD_through_dim3_0
#define PDCC_THRESHOLD_through_dim3_0 1024
#endif
__global__ void __launch_bounds__(1024) through_dim3(float* x, const int* sizes) {
  int n = sizes[blockIdx.x];
  dim3 grid((n + 127) / 128);
  dim3 block(128);
// pdcc: #pragma dp threshold(1024)
  { // pdcc: site through_dim3_0: below PDCC_THRESHOLD_through_dim3_0 child threads, run 'scale' here
    const dim3 pdcc_grid = grid;
    const dim3 pdcc_block = block;
    if ((unsigned long long)(n) * pdcc_grid.y * pdcc_block.y * pdcc_grid.z * pdcc_block.z >= PDCC_THRESHOLD_through_dim3_0) {
      if (!pdcc::launched([&] {
            scale__pdcc_counted<<<pdcc_grid, pdcc_block>>>(x, 0.5f, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        scale__pdcc_serial(pdcc_grid, pdcc_block, x, 0.5f, n);
    } else {
      scale__pdcc_serial(pdcc_grid, pdcc_block, x, 0.5f, n);
    }
  }
#line 23 "local_variable.cu"
}
