#line 1 "early_return.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "early_return.cu"
// The child returns early; the outlined body makes that `return` end one thread's work only.
__global__ void row_child(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;   // early return: the serial loop must go on with the next thread
  y[i] += x[i];
}
#line 1 "early_return.cu"

// pdcc: the body of 'row_child' for one (block, thread), built-ins passed in
#line 2 "early_return.cu"
static __device__ void row_child__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* y, const float* x, int n) {
  int i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i >= n) return;   // early return: the serial loop must go on with the next thread
  y[i] += x[i];
}
#line 2 "early_return.cu"

// pdcc: every thread of a 'row_child' launch, one after another, in the calling thread
static __device__ __noinline__ void row_child__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* y, const float* x, int n)
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
        row_child__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, y, x, n);
      }
    }
  }
}

// pdcc: 'row_child' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) row_child__pdcc_counted(float* y, const float* x, int n)
{
  pdcc::launch_started();
  row_child__pdcc_thread(blockIdx, threadIdx, gridDim, blockDim, y, x, n);
}
#line 7 "early_return.cu"

#line 5 "early_return.cu"
#ifndef PDCC_THRESHOLD_parent_0
#define PDCC_THRESHOLD_parent_0 128
#endif
__global__ void __launch_bounds__(1024) parent(float* y, const float* x, const int* len, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int n = len[r];
  // pdcc: #pragma dp threshold(128)
  { // pdcc: site parent_0: below PDCC_THRESHOLD_parent_0 child threads, run 'row_child' here
    const auto pdcc_n = n;
    const dim3 pdcc_grid = (pdcc_n + 255) / 256;
    const dim3 pdcc_block = 256;
    if (pdcc_n >= PDCC_THRESHOLD_parent_0) {
      if (!pdcc::launched([&] {
            row_child__pdcc_counted<<<pdcc_grid, pdcc_block>>>(y + r, x, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        row_child__pdcc_serial(pdcc_grid, pdcc_block, y + r, x, n);
    } else {
      row_child__pdcc_serial(pdcc_grid, pdcc_block, y + r, x, n);
    }
  }
#line 14 "early_return.cu"
}
