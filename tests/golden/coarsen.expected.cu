#line 1 "coarsen.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "coarsen.cu"
// Coarsening: with a threshold (serial fallback), alone on a child with shared memory and a barrier
// (a barrier between original blocks; failed launches are retried), and on a 2-D grid.
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x[i] *= a;
}
#line 1 "coarsen.cu"

// pdcc: the body of 'scale' for one (block, thread), built-ins passed in
static __device__ void scale__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* x, float a, int n) {
  int i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i >= n) return;
  x[i] *= a;
}
#line 3 "coarsen.cu"

// pdcc: every thread of a 'scale' launch, one after another, in the calling thread
static __device__ __noinline__ void scale__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* x, float a, int n)
{
  const bool pdcc_no_wrap = (unsigned long long)pdcc_gridDim.x * pdcc_blockDim.x <= 0x7fffffffull;
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx) {
    const int pdcc_first = pdcc_bx * pdcc_blockDim.x;
    // the threads of this block and of the blocks after it return at once
    if (pdcc_no_wrap && pdcc_first >= n) break;
    for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
      #pragma unroll 4
      for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx) {
        const int pdcc_index = pdcc_first + pdcc_tx;
        // this thread and the rest of its row return at once
        if (pdcc_no_wrap && pdcc_index >= n) break;
        scale__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, x, a, n);
      }
    }
  }
}

// pdcc: 'scale' coarsened: each block does the work of several original blocks
static __global__ void __launch_bounds__(1024) scale__pdcc_coarse(float* x, float a, int n, const dim3 pdcc_gridDim)
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    scale__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, x, a, n);
  }
}
#line 8 "coarsen.cu"

__global__ void block_reverse(int* data, int n) {
  __shared__ int tile[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  tile[threadIdx.x] = i < n ? data[i] : 0;
  __syncthreads();
  if (i < n) data[i] = tile[127 - threadIdx.x];
}
#line 7 "coarsen.cu"

// pdcc: the body of 'block_reverse' for one (block, thread), built-ins passed in
static __device__ void block_reverse__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, int* data, int n) {
  __shared__ int tile[128];
  int i = pdcc_blockIdx.x * 128 + pdcc_threadIdx.x;
  tile[pdcc_threadIdx.x] = i < n ? data[i] : 0;
  __syncthreads();
  if (i < n) data[i] = tile[127 - pdcc_threadIdx.x];
}
#line 9 "coarsen.cu"

// pdcc: 'block_reverse' coarsened: each block does the work of several original blocks
static __global__ void __launch_bounds__(1024) block_reverse__pdcc_coarse(int* data, int n, const dim3 pdcc_gridDim)
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    block_reverse__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, data, n);
    __syncthreads();  // the next original block reuses the shared memory
  }
}
#line 16 "coarsen.cu"

__global__ void stencil_2d(float* out, const float* in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 0.5f * in[y * w + x];
}
#line 15 "coarsen.cu"

// pdcc: the body of 'stencil_2d' for one (block, thread), built-ins passed in
static __device__ void stencil_2d__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, int w, int h) {
  int x = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  int y = pdcc_blockIdx.y * pdcc_blockDim.y + pdcc_threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 0.5f * in[y * w + x];
}
#line 17 "coarsen.cu"

// pdcc: 'stencil_2d' coarsened: each block does the work of several original blocks
static __global__ void __launch_bounds__(1024) stencil_2d__pdcc_coarse(float* out, const float* in, int w, int h, const dim3 pdcc_gridDim)
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    stencil_2d__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, out, in, w, h);
  }
}

// pdcc: every thread of a 'stencil_2d' launch, one after another, in the calling thread
static __device__ __noinline__ void stencil_2d__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, int w, int h)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      stencil_2d__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, in, w, h);
  }
}
#line 22 "coarsen.cu"

#line 11 "coarsen.cu"
#ifndef PDCC_THRESHOLD_parent_0
#define PDCC_THRESHOLD_parent_0 256
#endif
#ifndef PDCC_COARSEN_parent_0
#define PDCC_COARSEN_parent_0 8
#endif
#ifndef PDCC_COARSEN_parent_1
#define PDCC_COARSEN_parent_1 4
#endif
#ifndef PDCC_COARSEN_parent_2
#define PDCC_COARSEN_parent_2 2
#endif
__global__ void __launch_bounds__(1024) parent(float* x, int* data, float* out, const int* sizes) {
  int n = sizes[threadIdx.x];
// pdcc: #pragma dp threshold(256) coarsen(8)
  { // pdcc: site parent_0: below PDCC_THRESHOLD_parent_0 child threads, run 'scale' here, blocks do PDCC_COARSEN_parent_0 original blocks each
    const auto pdcc_n = n;
    const dim3 pdcc_grid = (pdcc_n + 127) / 128;
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_parent_0) {
      if (!pdcc::launched([&] {
            scale__pdcc_coarse<<<dim3((pdcc_grid.x + PDCC_COARSEN_parent_0 - 1) / PDCC_COARSEN_parent_0, pdcc_grid.y, pdcc_grid.z), pdcc_block>>>(x, 2.0f, n, pdcc_grid); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        scale__pdcc_serial(pdcc_grid, pdcc_block, x, 2.0f, n);
    } else {
      scale__pdcc_serial(pdcc_grid, pdcc_block, x, 2.0f, n);
    }
  }
#line 27 "coarsen.cu"
// pdcc: #pragma dp coarsen(4)
  { // pdcc: site parent_1: blocks do PDCC_COARSEN_parent_1 original blocks each
    const dim3 pdcc_grid = (n + 127) / 128;
    const dim3 pdcc_block = 128;
    pdcc::hold_launch();  // counted: the grid gives it back as it starts
    (void)cudaGetLastError();
    block_reverse__pdcc_coarse<<<dim3((pdcc_grid.x + PDCC_COARSEN_parent_1 - 1) / PDCC_COARSEN_parent_1, pdcc_grid.y, pdcc_grid.z), pdcc_block>>>(data, n, pdcc_grid); // pdcc: generated
    for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
      // the launch failed (pending-launch pool full?): let launches drain, retry; never drop work
      if (pdcc_wait > 4194304u) __trap();
      __nanosleep(pdcc_wait);
      block_reverse__pdcc_coarse<<<dim3((pdcc_grid.x + PDCC_COARSEN_parent_1 - 1) / PDCC_COARSEN_parent_1, pdcc_grid.y, pdcc_grid.z), pdcc_block>>>(data, n, pdcc_grid); // pdcc: generated
    }
  }
#line 29 "coarsen.cu"
// pdcc: #pragma dp coarsen(2)
  { // pdcc: site parent_2: blocks do PDCC_COARSEN_parent_2 original blocks each
    const dim3 pdcc_grid = dim3((n + 15) / 16, (n + 15) / 16);
    const dim3 pdcc_block = dim3(16, 16);
    if (!pdcc::launched([&] {
          stencil_2d__pdcc_coarse<<<dim3((pdcc_grid.x + PDCC_COARSEN_parent_2 - 1) / PDCC_COARSEN_parent_2, pdcc_grid.y, pdcc_grid.z), pdcc_block>>>(out, x, n, n, pdcc_grid); // pdcc: generated
        })) // over the launch budget, or the launch failed: no work lost
      stencil_2d__pdcc_serial(pdcc_grid, pdcc_block, out, x, n, n);
  }
#line 31 "coarsen.cu"
}
