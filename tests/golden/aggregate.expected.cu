#line 1 "aggregate.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "aggregate.cu"
// Aggregation at every granularity: warp with an aggregation threshold, block with record storage of
// its own size, multiblock(K), and grid with threshold and coarsening; a templated child launched with
// explicit template arguments from a templated parent; a launch inside a loop (several records per thread).
#include <cstdint>

__global__ void add_to(float* out, const float* in, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(out, scale * in[i]);
}
#line 4 "aggregate.cu"

// pdcc: the body of 'add_to' for one (block, thread), built-ins passed in
static __device__ void add_to__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, float scale, int n) {
  int i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i >= n) return;
  atomicAdd(out, scale * in[i]);
}
#line 6 "aggregate.cu"

// pdcc: 'add_to' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) add_to__pdcc_counted(float* out, const float* in, float scale, int n)
{
  pdcc::launch_started();
  add_to__pdcc_thread(blockIdx, threadIdx, gridDim, blockDim, out, in, scale, n);
}

// pdcc: every thread of a 'add_to' launch, one after another, in the calling thread
static __device__ __noinline__ void add_to__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, float scale, int n)
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
        add_to__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, in, scale, n);
      }
    }
  }
}

// pdcc: the launches of a group of parents at site per_warp_0 as one grid (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) add_to__pdcc_agg_per_warp_0(const pdcc::Batch<pdcc::Record<float*, const float*, pdcc::Uniform, int>> pdcc_batch, float scale)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, add_to__pdcc_thread, scale);
}

// pdcc: the launches of a group of parents at site per_block_0 as one grid (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) add_to__pdcc_agg_per_block_0(const pdcc::Batch<pdcc::Record<float*, const float*, pdcc::Uniform, int>> pdcc_batch, float scale)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, add_to__pdcc_thread, scale);
}

// pdcc: the launches of a group of parents at site per_group_0 as one grid (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) add_to__pdcc_agg_per_group_0(const pdcc::Batch<pdcc::Record<float*, const float*, pdcc::Uniform, int>> pdcc_batch, float scale)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, add_to__pdcc_thread, scale);
}
#line 11 "aggregate.cu"

template <typename T, int Step>
__global__ void fill_strided(T* data, T value, int64_t n) {
  int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * Step;
  if (i < n) data[i] = value;
}
#line 10 "aggregate.cu"

// pdcc: the body of 'fill_strided' for one (block, thread), built-ins passed in
template <typename T, int Step>
static __device__ void fill_strided__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, T* data, T value, int64_t n) {
  int64_t i = ((int64_t)pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x) * Step;
  if (i < n) data[i] = value;
}
#line 13 "aggregate.cu"

// pdcc: every thread of a 'fill_strided' launch, one after another, in the calling thread
template <typename T, int Step>
static __device__ __noinline__ void fill_strided__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, T* data, T value, int64_t n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      fill_strided__pdcc_thread<T, Step>(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, data, value, n);
  }
}

// pdcc: 'fill_strided' coarsened: each block does the work of several original blocks
template <typename T, int Step>
static __global__ void __launch_bounds__(1024) fill_strided__pdcc_coarse(T* data, T value, int64_t n, const dim3 pdcc_gridDim)
{
  pdcc::launch_started();
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    fill_strided__pdcc_thread<T, Step>(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, data, value, n);
  }
}

// pdcc: the launches of a group of parents at site per_grid_0 as one grid (pdcc_rt.cuh)
template <typename T, int Step>
static __global__ void __launch_bounds__(1024) fill_strided__pdcc_agg_per_grid_0(const pdcc::Batch<pdcc::Record<T*, pdcc::Uniform, int64_t>> pdcc_batch, T value)
{
  pdcc::launch_started();
  pdcc::run_aggregated_block(pdcc_batch, blockIdx.x, threadIdx.x, fill_strided__pdcc_thread<T, Step>, value);
}
#line 17 "aggregate.cu"

#line 6 "aggregate.cu"
#ifndef PDCC_POOL_BYTES_per_warp_0
#define PDCC_POOL_BYTES_per_warp_0 67108864
#endif
#ifndef PDCC_RECORDS_PER_THREAD_per_warp_0
#define PDCC_RECORDS_PER_THREAD_per_warp_0 1
#endif
#ifndef PDCC_AGG_THRESHOLD_per_warp_0
#define PDCC_AGG_THRESHOLD_per_warp_0 4
#endif
// pdcc: site per_warp_0's record storage and its warp groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_per_warp_0> pdcc_pool_per_warp_0;
static __shared__ pdcc::WarpGroups pdcc_group_per_warp_0;
static __device__ void per_warp__pdcc_body(float* out, const float* in, const int* begin, const int* end, float scale) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int n = end[row] - begin[row];
// pdcc: #pragma dp consldt(warp) agg_threshold(4)
  { // pdcc: site per_warp_0: aggregated per warp
    const dim3 pdcc_grid = (n + 63) / 64;
    const dim3 pdcc_block = 64;
    const pdcc::RecordOf<decltype(add_to__pdcc_agg_per_warp_0)> pdcc_rec(pdcc_grid, pdcc_block, out + row, in + begin[row], scale, n);
    if (!pdcc_group_per_warp_0.append(pdcc_rec)) // storage full: launch this one directly
      pdcc::launch_record(pdcc_rec, add_to__pdcc_counted, add_to__pdcc_serial, scale);
  }
#line 23 "aggregate.cu"
}
#line 18 "aggregate.cu"

// pdcc: 'per_warp' as launched: its groups opened, its body, its groups flushed
__global__ void __launch_bounds__(1024) per_warp(float* out, const float* in, const int* begin, const int* end, float scale)
{
  pdcc_group_per_warp_0.open<pdcc::RecordOf<decltype(add_to__pdcc_agg_per_warp_0)>>(pdcc_pool_per_warp_0, 0, PDCC_RECORDS_PER_THREAD_per_warp_0);
  per_warp__pdcc_body(out, in, begin, end, scale);
  pdcc_group_per_warp_0.flush<pdcc::RecordOf<decltype(add_to__pdcc_agg_per_warp_0)>>(pdcc_pool_per_warp_0, 1, PDCC_AGG_THRESHOLD_per_warp_0, pdcc::aggregated_launch(add_to__pdcc_agg_per_warp_0, scale), pdcc::direct_launch(add_to__pdcc_counted, add_to__pdcc_serial, scale));
}
#line 24 "aggregate.cu"

#line 16 "aggregate.cu"
#ifndef PDCC_POOL_BYTES_per_block_0
#define PDCC_POOL_BYTES_per_block_0 67108864
#endif
#ifndef PDCC_RECORDS_per_block_0
#define PDCC_RECORDS_per_block_0 512
#endif
// pdcc: site per_block_0's record storage and its block groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_per_block_0> pdcc_pool_per_block_0;
static __shared__ pdcc::BlockGroup pdcc_group_per_block_0;
static __device__ void per_block__pdcc_body(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int part = 0; part < 2; ++part) {
    int n = (end[row] - begin[row]) / 2;
// pdcc: #pragma dp consldt(block) buffer(pool, 512)
    { // pdcc: site per_block_0: aggregated per block
      const dim3 pdcc_grid = (n + 127) / 128;
      const dim3 pdcc_block = 128;
      const pdcc::RecordOf<decltype(add_to__pdcc_agg_per_block_0)> pdcc_rec(pdcc_grid, pdcc_block, out + row, in + begin[row] + part * n, 1.0f, n);
      if (!pdcc_group_per_block_0.append(pdcc_rec)) // storage full: launch this one directly
        pdcc::launch_record(pdcc_rec, add_to__pdcc_counted, add_to__pdcc_serial, 1.0f);
    }
#line 32 "aggregate.cu"
  }
}
#line 25 "aggregate.cu"

// pdcc: 'per_block' as launched: its groups opened, its body, its groups flushed
__global__ void __launch_bounds__(1024) per_block(float* out, const float* in, const int* begin, const int* end, int rows)
{
  pdcc_group_per_block_0.open<pdcc::RecordOf<decltype(add_to__pdcc_agg_per_block_0)>>(pdcc_pool_per_block_0, PDCC_RECORDS_per_block_0, 1);
  per_block__pdcc_body(out, in, begin, end, rows);
  pdcc_group_per_block_0.flush<pdcc::RecordOf<decltype(add_to__pdcc_agg_per_block_0)>>(pdcc_pool_per_block_0, 1, 1u, pdcc::aggregated_launch(add_to__pdcc_agg_per_block_0, 1.0f), pdcc::direct_launch(add_to__pdcc_counted, add_to__pdcc_serial, 1.0f));
}
#line 34 "aggregate.cu"

#line 23 "aggregate.cu"
#ifndef PDCC_POOL_BYTES_per_group_0
#define PDCC_POOL_BYTES_per_group_0 67108864
#endif
#ifndef PDCC_RECORDS_PER_THREAD_per_group_0
#define PDCC_RECORDS_PER_THREAD_per_group_0 1
#endif
#ifndef PDCC_GRANULARITY_per_group_0
#define PDCC_GRANULARITY_per_group_0 8
#endif
// pdcc: site per_group_0's record storage and its multiblock groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_per_group_0, 65536> pdcc_pool_per_group_0;
static __shared__ pdcc::MultiBlockGroup pdcc_group_per_group_0;
static __device__ void per_group__pdcc_body(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int n = end[row] - begin[row];
// pdcc: #pragma dp consldt(multiblock(8))
  { // pdcc: site per_group_0: aggregated per multiblock
    const dim3 pdcc_grid = (n + 127) / 128;
    const dim3 pdcc_block = 128;
    const pdcc::RecordOf<decltype(add_to__pdcc_agg_per_group_0)> pdcc_rec(pdcc_grid, pdcc_block, out + row, in + begin[row], 2.0f, n);
    if (!pdcc_group_per_group_0.append(pdcc_rec)) // storage full: launch this one directly
      pdcc::launch_record(pdcc_rec, add_to__pdcc_counted, add_to__pdcc_serial, 2.0f);
  }
#line 41 "aggregate.cu"
}
#line 35 "aggregate.cu"

// pdcc: 'per_group' as launched: its groups opened, its body, its groups flushed
__global__ void __launch_bounds__(1024) per_group(float* out, const float* in, const int* begin, const int* end, int rows)
{
  pdcc_group_per_group_0.open<pdcc::RecordOf<decltype(add_to__pdcc_agg_per_group_0)>>(pdcc_pool_per_group_0, 0, PDCC_RECORDS_PER_THREAD_per_group_0, PDCC_GRANULARITY_per_group_0);
  per_group__pdcc_body(out, in, begin, end, rows);
  pdcc_group_per_group_0.flush<pdcc::RecordOf<decltype(add_to__pdcc_agg_per_group_0)>>(pdcc_pool_per_group_0, 1, 1u, pdcc::aggregated_launch(add_to__pdcc_agg_per_group_0, 2.0f), pdcc::direct_launch(add_to__pdcc_counted, add_to__pdcc_serial, 2.0f));
}
#line 42 "aggregate.cu"

#line 28 "aggregate.cu"
#ifndef PDCC_THRESHOLD_per_grid_0
#define PDCC_THRESHOLD_per_grid_0 256
#endif
#ifndef PDCC_COARSEN_per_grid_0
#define PDCC_COARSEN_per_grid_0 4
#endif
#ifndef PDCC_POOL_BYTES_per_grid_0
#define PDCC_POOL_BYTES_per_grid_0 67108864
#endif
#ifndef PDCC_RECORDS_PER_THREAD_per_grid_0
#define PDCC_RECORDS_PER_THREAD_per_grid_0 1
#endif
// pdcc: site per_grid_0's record storage and its grid groups (pdcc_rt.cuh)
static __device__ pdcc::SitePool<PDCC_POOL_BYTES_per_grid_0, 1> pdcc_pool_per_grid_0;
static __shared__ pdcc::MultiBlockGroup pdcc_group_per_grid_0;
template <typename T>
static __device__ void per_grid__pdcc_body(T** data, const int64_t* sizes, T value, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int64_t n = sizes[k];
// pdcc: #pragma dp threshold(256) coarsen(4) consldt(grid)
  { // pdcc: site per_grid_0: below PDCC_THRESHOLD_per_grid_0 child threads, run 'fill_strided' here, blocks do PDCC_COARSEN_per_grid_0 original blocks each, aggregated per grid
    const auto pdcc_n = n;
    const dim3 pdcc_grid = ((pdcc_n + (2 * 128)) - 1) / (2 * 128);
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_per_grid_0) {
      const pdcc::RecordOf<decltype(fill_strided__pdcc_agg_per_grid_0<T, 2>)> pdcc_rec(pdcc_grid, pdcc_block, data[k], value, n);
      if (!pdcc_group_per_grid_0.append(pdcc_rec)) // storage full: launch this one directly
        pdcc::launch_record(pdcc_rec, pdcc::coarsened(fill_strided__pdcc_coarse<T, 2>, PDCC_COARSEN_per_grid_0), fill_strided__pdcc_serial<T, 2>, value);
    } else {
      fill_strided__pdcc_serial<T, 2>(pdcc_grid, pdcc_block, data[k], value, n);
    }
  }
#line 50 "aggregate.cu"
}
#line 44 "aggregate.cu"

// pdcc: 'per_grid' as launched: its groups opened, its body, its groups flushed
template <typename T>
__global__ void __launch_bounds__(1024) per_grid(T** data, const int64_t* sizes, T value, int count)
{
  pdcc_group_per_grid_0.open<pdcc::RecordOf<decltype(fill_strided__pdcc_agg_per_grid_0<T, 2>)>>(pdcc_pool_per_grid_0, 0, PDCC_RECORDS_PER_THREAD_per_grid_0, pdcc::grid_blocks());
  per_grid__pdcc_body<T>(data, sizes, value, count);
  pdcc_group_per_grid_0.flush<pdcc::RecordOf<decltype(fill_strided__pdcc_agg_per_grid_0<T, 2>)>>(pdcc_pool_per_grid_0, PDCC_COARSEN_per_grid_0, 1u, pdcc::aggregated_launch(fill_strided__pdcc_agg_per_grid_0<T, 2>, value), pdcc::direct_launch(pdcc::coarsened(fill_strided__pdcc_coarse<T, 2>, PDCC_COARSEN_per_grid_0), fill_strided__pdcc_serial<T, 2>, value));
}
#line 51 "aggregate.cu"

template __global__ void per_grid<float>(float**, const int64_t*, float, int);
