#line 1 "three_d.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "three_d.cu"
// A 3-D child: the serial version loops over every block and thread in x, y and z.
__global__ void voxel_child(float* v, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz)
    v[(z * ny + y) * nx + x] = gridDim.x * blockDim.x;
}
#line 1 "three_d.cu"

// pdcc: the body of 'voxel_child' for one (block, thread), built-ins passed in
#line 2 "three_d.cu"
static __device__ void voxel_child__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* v, int nx, int ny, int nz) {
  int x = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  int y = pdcc_blockIdx.y * pdcc_blockDim.y + pdcc_threadIdx.y;
  int z = pdcc_blockIdx.z * pdcc_blockDim.z + pdcc_threadIdx.z;
  if (x < nx && y < ny && z < nz)
    v[(z * ny + y) * nx + x] = pdcc_gridDim.x * pdcc_blockDim.x;
}
#line 2 "three_d.cu"

// pdcc: every thread of a 'voxel_child' launch, one after another, in the calling thread
static __device__ __noinline__ void voxel_child__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* v, int nx, int ny, int nz)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      voxel_child__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, v, nx, ny, nz);
  }
}

// pdcc: 'voxel_child' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) voxel_child__pdcc_counted(float* v, int nx, int ny, int nz)
{
  pdcc::launch_started();
  voxel_child__pdcc_thread(blockIdx, threadIdx, gridDim, blockDim, v, nx, ny, nz);
}
#line 9 "three_d.cu"

#line 7 "three_d.cu"
#ifndef PDCC_THRESHOLD_volume_parent_0
#define PDCC_THRESHOLD_volume_parent_0 512
#endif
__global__ void __launch_bounds__(1024) volume_parent(float* v, int nx, int ny, int nz) {
  dim3 block(8, 8, 4);
// pdcc: #pragma dp threshold(512)
  { // pdcc: site volume_parent_0: below PDCC_THRESHOLD_volume_parent_0 child threads, run 'voxel_child' here
    const auto pdcc_nx = nx;
    const auto pdcc_ny = ny;
    const auto pdcc_nz = nz;
    const dim3 pdcc_grid = dim3((pdcc_nx + 7) / 8, (pdcc_ny + 7) / 8, (pdcc_nz + 3) / 4);
    const dim3 pdcc_block = block;
    if ((unsigned long long)pdcc_nx * pdcc_ny * pdcc_nz >= PDCC_THRESHOLD_volume_parent_0) {
      if (!pdcc::launched([&] {
            voxel_child__pdcc_counted<<<pdcc_grid, pdcc_block>>>(v, nx, ny, nz); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        voxel_child__pdcc_serial(pdcc_grid, pdcc_block, v, nx, ny, nz);
    } else {
      voxel_child__pdcc_serial(pdcc_grid, pdcc_block, v, nx, ny, nz);
    }
  }
#line 14 "three_d.cu"
}
