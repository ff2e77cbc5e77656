#line 1 "aggregate_threshold_coarsen.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "aggregate_threshold_coarsen.cu"
// The other half of aggregate.cu: warp, block and multiblock(K) groups behind a threshold and with
// coarsening, and a grid group without either; a 2-D child grid, and a 3-D parent grid whose blocks
// are 2-D (a partial last warp); a parent's `unsigned` values for the child's `int` parameters, one of
// them `const` (records are built without narrowing and stored by copy construction).
__global__ void scale_rows(float* out, const float* in, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * in[i];
}
#line 3 "aggregate_threshold_coarsen.cu"

// pdcc: the body of 'scale_rows' for one (block, thread), built-ins passed in
static __device__ void scale_rows__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, float factor, int n) {
  int i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i < n) out[i] = factor * in[i];
}
#line 5 "aggregate_threshold_coarsen.cu"

// pdcc: every thread of a 'scale_rows' launch, one after another, in the calling thread
static __device__ __noinline__ void scale_rows__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, float factor, int n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      scale_rows__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, in, factor, n);
  }
}

// pdcc: 'scale_rows' coarsened: each block does the work of several original blocks
static __global__ void __launch_bounds__(1024) scale_rows__pdcc_coarse(float* out, const float* in, float factor, int n, const dim3 pdcc_gridDim)
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    scale_rows__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, out, in, factor, n);
  }
}

// pdcc: the launches of a group of parents at site warp_groups_0 as one grid (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) scale_rows__pdcc_agg_warp_groups_0(const pdcc::Batch<pdcc::Record<float*, const float*, pdcc::Uniform, int>> pdcc_batch, float factor)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, scale_rows__pdcc_thread, factor);
}

// pdcc: the launches of a group of parents at site block_groups_0 as one grid (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) scale_rows__pdcc_agg_block_groups_0(const pdcc::Batch<pdcc::Record<float*, const float*, pdcc::Uniform, int>> pdcc_batch, float factor)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, scale_rows__pdcc_thread, factor);
}
#line 9 "aggregate_threshold_coarsen.cu"

__global__ void tile(float* out, const int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] += 1.0f;
}
#line 8 "aggregate_threshold_coarsen.cu"

// pdcc: the body of 'tile' for one (block, thread), built-ins passed in
static __device__ void tile__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const int width, int height) {
  int x = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x, y = pdcc_blockIdx.y * pdcc_blockDim.y + pdcc_threadIdx.y;
  if (x < width && y < height) out[y * width + x] += 1.0f;
}
#line 10 "aggregate_threshold_coarsen.cu"

// pdcc: every thread of a 'tile' launch, one after another, in the calling thread
static __device__ __noinline__ void tile__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const int width, int height)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      tile__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, width, height);
  }
}

// pdcc: 'tile' coarsened: each block does the work of several original blocks
static __global__ void __launch_bounds__(1024) tile__pdcc_coarse(float* out, const int width, int height, const dim3 pdcc_gridDim)
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    tile__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, out, width, height);
  }
}

// pdcc: the launches of a group of parents at site multiblock_groups_0 as one grid (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) tile__pdcc_agg_multiblock_groups_0(const pdcc::Batch<pdcc::Record<float*, const int, int>> pdcc_batch)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, tile__pdcc_thread);
}

// pdcc: 'tile' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) tile__pdcc_counted(float* out, const int width, int height)
{
  pdcc::launch_started();
  tile__pdcc_thread(blockIdx, threadIdx, gridDim, blockDim, out, width, height);
}

// pdcc: the launches of a group of parents at site grid_group_0 as one grid (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) tile__pdcc_agg_grid_group_0(const pdcc::Batch<pdcc::Record<float*, const int, int>> pdcc_batch)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, tile__pdcc_thread);
}
#line 14 "aggregate_threshold_coarsen.cu"

#line 1 "aggregate_threshold_coarsen.cu"
#ifndef PDCC_THRESHOLD_warp_groups_0
#define PDCC_THRESHOLD_warp_groups_0 64
#endif
#ifndef PDCC_COARSEN_warp_groups_0
#define PDCC_COARSEN_warp_groups_0 2
#endif
#ifndef PDCC_POOL_BYTES_warp_groups_0
#define PDCC_POOL_BYTES_warp_groups_0 67108864
#endif
#ifndef PDCC_RECORDS_PER_THREAD_warp_groups_0
#define PDCC_RECORDS_PER_THREAD_warp_groups_0 1
#endif
// pdcc: site warp_groups_0's record storage and its warp groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_warp_groups_0> pdcc_pool_warp_groups_0;
static __shared__ pdcc::WarpGroups pdcc_group_warp_groups_0;
#line 15 "aggregate_threshold_coarsen.cu"
static __device__ void warp_groups__pdcc_body(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int n = end[row] - begin[row];
// pdcc: #pragma dp threshold(64) coarsen(2) consldt(warp)
  { // pdcc: site warp_groups_0: below PDCC_THRESHOLD_warp_groups_0 child threads, run 'scale_rows' here, blocks do PDCC_COARSEN_warp_groups_0 original blocks each, aggregated per warp
    const auto pdcc_n = n;
    const dim3 pdcc_grid = (pdcc_n + 127) / 128;
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_warp_groups_0) {
      const pdcc::RecordOf<decltype(scale_rows__pdcc_agg_warp_groups_0)> pdcc_rec(pdcc_grid, pdcc_block, out + begin[row], in + begin[row], 0.5f, n);
      if (!pdcc_group_warp_groups_0.append(pdcc_rec)) // storage full: launch this one directly
        pdcc::launch_record(pdcc_rec, pdcc::coarsened(scale_rows__pdcc_coarse, PDCC_COARSEN_warp_groups_0), scale_rows__pdcc_serial, 0.5f);
    } else {
      scale_rows__pdcc_serial(pdcc_grid, pdcc_block, out + begin[row], in + begin[row], 0.5f, n);
    }
  }
#line 21 "aggregate_threshold_coarsen.cu"
}
#line 15 "aggregate_threshold_coarsen.cu"

// pdcc: 'warp_groups' as launched: its groups opened, its body, its groups flushed
__global__ void __launch_bounds__(1024) warp_groups(float* out, const float* in, const int* begin, const int* end, int rows)
{
  pdcc_group_warp_groups_0.open<pdcc::RecordOf<decltype(scale_rows__pdcc_agg_warp_groups_0)>>(pdcc_pool_warp_groups_0, 0, PDCC_RECORDS_PER_THREAD_warp_groups_0);
  warp_groups__pdcc_body(out, in, begin, end, rows);
  pdcc_group_warp_groups_0.flush<pdcc::RecordOf<decltype(scale_rows__pdcc_agg_warp_groups_0)>>(pdcc_pool_warp_groups_0, PDCC_COARSEN_warp_groups_0, 1u, pdcc::aggregated_launch(scale_rows__pdcc_agg_warp_groups_0, 0.5f), pdcc::direct_launch(pdcc::coarsened(scale_rows__pdcc_coarse, PDCC_COARSEN_warp_groups_0), scale_rows__pdcc_serial, 0.5f));
}
#line 22 "aggregate_threshold_coarsen.cu"

#line 5 "aggregate_threshold_coarsen.cu"
#ifndef PDCC_THRESHOLD_block_groups_0
#define PDCC_THRESHOLD_block_groups_0 128
#endif
#ifndef PDCC_COARSEN_block_groups_0
#define PDCC_COARSEN_block_groups_0 4
#endif
#ifndef PDCC_POOL_BYTES_block_groups_0
#define PDCC_POOL_BYTES_block_groups_0 67108864
#endif
#ifndef PDCC_RECORDS_PER_THREAD_block_groups_0
#define PDCC_RECORDS_PER_THREAD_block_groups_0 1
#endif
#ifndef PDCC_AGG_THRESHOLD_block_groups_0
#define PDCC_AGG_THRESHOLD_block_groups_0 2
#endif
// pdcc: site block_groups_0's record storage and its block groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_block_groups_0> pdcc_pool_block_groups_0;
static __shared__ pdcc::BlockGroup pdcc_group_block_groups_0;
static __device__ void block_groups__pdcc_body(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x * blockDim.x * blockDim.y
            + blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int n = end[row] - begin[row];
// pdcc: #pragma dp threshold(128) coarsen(4) consldt(block) agg_threshold(2)
  { // pdcc: site block_groups_0: below PDCC_THRESHOLD_block_groups_0 child threads, run 'scale_rows' here, blocks do PDCC_COARSEN_block_groups_0 original blocks each, aggregated per block
    const auto pdcc_n = n;
    const dim3 pdcc_grid = (pdcc_n + 255) / 256;
    const dim3 pdcc_block = 256;
    if (pdcc_n >= PDCC_THRESHOLD_block_groups_0) {
      const pdcc::RecordOf<decltype(scale_rows__pdcc_agg_block_groups_0)> pdcc_rec(pdcc_grid, pdcc_block, out + begin[row], in + begin[row], 2.0f, n);
      if (!pdcc_group_block_groups_0.append(pdcc_rec)) // storage full: launch this one directly
        pdcc::launch_record(pdcc_rec, pdcc::coarsened(scale_rows__pdcc_coarse, PDCC_COARSEN_block_groups_0), scale_rows__pdcc_serial, 2.0f);
    } else {
      scale_rows__pdcc_serial(pdcc_grid, pdcc_block, out + begin[row], in + begin[row], 2.0f, n);
    }
  }
#line 30 "aggregate_threshold_coarsen.cu"
}
#line 23 "aggregate_threshold_coarsen.cu"

// pdcc: 'block_groups' as launched: its groups opened, its body, its groups flushed
__global__ void __launch_bounds__(1024) block_groups(float* out, const float* in, const int* begin, const int* end, int rows)
{
  pdcc_group_block_groups_0.open<pdcc::RecordOf<decltype(scale_rows__pdcc_agg_block_groups_0)>>(pdcc_pool_block_groups_0, 0, PDCC_RECORDS_PER_THREAD_block_groups_0);
  block_groups__pdcc_body(out, in, begin, end, rows);
  pdcc_group_block_groups_0.flush<pdcc::RecordOf<decltype(scale_rows__pdcc_agg_block_groups_0)>>(pdcc_pool_block_groups_0, PDCC_COARSEN_block_groups_0, PDCC_AGG_THRESHOLD_block_groups_0, pdcc::aggregated_launch(scale_rows__pdcc_agg_block_groups_0, 2.0f), pdcc::direct_launch(pdcc::coarsened(scale_rows__pdcc_coarse, PDCC_COARSEN_block_groups_0), scale_rows__pdcc_serial, 2.0f));
}

#line 14 "aggregate_threshold_coarsen.cu"
#ifndef PDCC_THRESHOLD_multiblock_groups_0
#define PDCC_THRESHOLD_multiblock_groups_0 256
#endif
#ifndef PDCC_COARSEN_multiblock_groups_0
#define PDCC_COARSEN_multiblock_groups_0 8
#endif
#ifndef PDCC_POOL_BYTES_multiblock_groups_0
#define PDCC_POOL_BYTES_multiblock_groups_0 67108864
#endif
#ifndef PDCC_RECORDS_PER_THREAD_multiblock_groups_0
#define PDCC_RECORDS_PER_THREAD_multiblock_groups_0 1
#endif
#ifndef PDCC_GRANULARITY_multiblock_groups_0
#define PDCC_GRANULARITY_multiblock_groups_0 16
#endif
// pdcc: site multiblock_groups_0's record storage and its multiblock groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_multiblock_groups_0, 65536> pdcc_pool_multiblock_groups_0;
static __shared__ pdcc::MultiBlockGroup pdcc_group_multiblock_groups_0;
static __device__ void multiblock_groups__pdcc_body(float* out, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  unsigned w = widths[k], h = heights[k];
// pdcc: #pragma dp threshold(256) coarsen(8) consldt(multiblock(16))
  { // pdcc: site multiblock_groups_0: below PDCC_THRESHOLD_multiblock_groups_0 child threads, run 'tile' here, blocks do PDCC_COARSEN_multiblock_groups_0 original blocks each, aggregated per multiblock
    const auto pdcc_nx = w;
    const auto pdcc_ny = h;
    const dim3 pdcc_grid = dim3((pdcc_nx + 15) / 16, (pdcc_ny + 15) / 16);
    const dim3 pdcc_block = dim3(16, 16);
    if ((unsigned long long)pdcc_nx * pdcc_ny * pdcc_grid.z * pdcc_block.z >= PDCC_THRESHOLD_multiblock_groups_0) {
      const pdcc::RecordOf<decltype(tile__pdcc_agg_multiblock_groups_0)> pdcc_rec(pdcc_grid, pdcc_block, out + k * 4096, w, h);
      if (!pdcc_group_multiblock_groups_0.append(pdcc_rec)) // storage full: launch this one directly
        pdcc::launch_record(pdcc_rec, pdcc::coarsened(tile__pdcc_coarse, PDCC_COARSEN_multiblock_groups_0), tile__pdcc_serial);
    } else {
      tile__pdcc_serial(pdcc_grid, pdcc_block, out + k * 4096, w, h);
    }
  }
#line 38 "aggregate_threshold_coarsen.cu"
}
#line 32 "aggregate_threshold_coarsen.cu"

// pdcc: 'multiblock_groups' as launched: its groups opened, its body, its groups flushed
__global__ void __launch_bounds__(1024) multiblock_groups(float* out, const int* widths, const int* heights, int count)
{
  pdcc_group_multiblock_groups_0.open<pdcc::RecordOf<decltype(tile__pdcc_agg_multiblock_groups_0)>>(pdcc_pool_multiblock_groups_0, 0, PDCC_RECORDS_PER_THREAD_multiblock_groups_0, PDCC_GRANULARITY_multiblock_groups_0);
  multiblock_groups__pdcc_body(out, widths, heights, count);
  pdcc_group_multiblock_groups_0.flush<pdcc::RecordOf<decltype(tile__pdcc_agg_multiblock_groups_0)>>(pdcc_pool_multiblock_groups_0, PDCC_COARSEN_multiblock_groups_0, 1u, pdcc::aggregated_launch(tile__pdcc_agg_multiblock_groups_0), pdcc::direct_launch(pdcc::coarsened(tile__pdcc_coarse, PDCC_COARSEN_multiblock_groups_0), tile__pdcc_serial));
}
#line 39 "aggregate_threshold_coarsen.cu"

#line 31 "aggregate_threshold_coarsen.cu"
#ifndef PDCC_POOL_BYTES_grid_group_0
#define PDCC_POOL_BYTES_grid_group_0 67108864
#endif
#ifndef PDCC_RECORDS_PER_THREAD_grid_group_0
#define PDCC_RECORDS_PER_THREAD_grid_group_0 1
#endif
// pdcc: site grid_group_0's record storage and its grid groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_grid_group_0, 1> pdcc_pool_grid_group_0;
static __shared__ pdcc::MultiBlockGroup pdcc_group_grid_group_0;
static __device__ void grid_group__pdcc_body(float* out, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
// pdcc: #pragma dp consldt(grid)
  { // pdcc: site grid_group_0: aggregated per grid
    const dim3 pdcc_grid = dim3((widths[k] + 15) / 16, (heights[k] + 15) / 16);
    const dim3 pdcc_block = dim3(16, 16);
    const pdcc::RecordOf<decltype(tile__pdcc_agg_grid_group_0)> pdcc_rec(pdcc_grid, pdcc_block, out + k * 4096, widths[k], heights[k]);
    if (!pdcc_group_grid_group_0.append(pdcc_rec)) // storage full: launch this one directly
      pdcc::launch_record(pdcc_rec, tile__pdcc_counted, tile__pdcc_serial);
  }
#line 45 "aggregate_threshold_coarsen.cu"
}
#line 40 "aggregate_threshold_coarsen.cu"

// pdcc: 'grid_group' as launched: its groups opened, its body, its groups flushed
__global__ void __launch_bounds__(1024) grid_group(float* out, const int* widths, const int* heights, int count)
{
  pdcc_group_grid_group_0.open<pdcc::RecordOf<decltype(tile__pdcc_agg_grid_group_0)>>(pdcc_pool_grid_group_0, 0, PDCC_RECORDS_PER_THREAD_grid_group_0, pdcc::grid_blocks());
  grid_group__pdcc_body(out, widths, heights, count);
  pdcc_group_grid_group_0.flush<pdcc::RecordOf<decltype(tile__pdcc_agg_grid_group_0)>>(pdcc_pool_grid_group_0, 1, 1u, pdcc::aggregated_launch(tile__pdcc_agg_grid_group_0), pdcc::direct_launch(tile__pdcc_counted, tile__pdcc_serial));
}
