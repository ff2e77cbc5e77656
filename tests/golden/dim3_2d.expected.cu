#line 1 "dim3_2d.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "dim3_2d.cu"
// A 2-D child launched with a dim3 grid of two ceiling divisions.
__global__ void tile_child(float* img, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  img[y * width + x] *= 0.5f;
}
#line 1 "dim3_2d.cu"

// pdcc: the body of 'tile_child' for one (block, thread), built-ins passed in
#line 2 "dim3_2d.cu"
static __device__ void tile_child__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* img, int width, int height) {
  int x = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  int y = pdcc_blockIdx.y * pdcc_blockDim.y + pdcc_threadIdx.y;
  if (x >= width || y >= height) return;
  img[y * width + x] *= 0.5f;
}
#line 2 "dim3_2d.cu"

// pdcc: every thread of a 'tile_child' launch, one after another, in the calling thread
static __device__ __noinline__ void tile_child__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* img, int width, int height)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      tile_child__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, img, width, height);
  }
}

// pdcc: 'tile_child' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) tile_child__pdcc_counted(float* img, int width, int height)
{
  pdcc::launch_started();
  tile_child__pdcc_thread(blockIdx, threadIdx, gridDim, blockDim, img, width, height);
}
#line 8 "dim3_2d.cu"

#line 6 "dim3_2d.cu"
#ifndef PDCC_THRESHOLD_tile_parent_0
#define PDCC_THRESHOLD_tile_parent_0 256
#endif
__global__ void __launch_bounds__(1024) tile_parent(float** images, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int w = widths[k], h = heights[k];
  // pdcc: #pragma dp threshold(256)
  { // pdcc: site tile_parent_0: below PDCC_THRESHOLD_tile_parent_0 child threads, run 'tile_child' here
    const auto pdcc_nx = w;
    const auto pdcc_ny = h;
    const dim3 pdcc_grid = dim3((pdcc_nx + 15) / 16, (pdcc_ny + 15) / 16);
    const dim3 pdcc_block = dim3(16, 16);
    if ((unsigned long long)pdcc_nx * pdcc_ny * pdcc_grid.z * pdcc_block.z >= PDCC_THRESHOLD_tile_parent_0) {
      if (!pdcc::launched([&] {
            tile_child__pdcc_counted<<<pdcc_grid, pdcc_block>>>(images[k], w, h); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        tile_child__pdcc_serial(pdcc_grid, pdcc_block, images[k], w, h);
    } else {
      tile_child__pdcc_serial(pdcc_grid, pdcc_block, images[k], w, h);
    }
  }
#line 15 "dim3_2d.cu"
}
