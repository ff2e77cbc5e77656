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

// pdcc: every thread of a 'add_to' launch, one after another, in the calling thread
static __device__ __noinline__ void add_to__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, float scale, int n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
    for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      add_to__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, in, scale, n);
}
#line 6 "aggregate.cu"

// pdcc: one parent's launch of 'add_to' at site per_warp_0, kept for the aggregated launch
struct pdcc_record_per_warp_0 {
  float* out;
  const float* in;
  int n;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site per_warp_0 as one grid
static __global__ void add_to__pdcc_agg_per_warp_0(const pdcc_record_per_warp_0* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen, float scale)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_per_warp_0 pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    add_to__pdcc_thread(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
static __device__ void add_to__pdcc_direct_per_warp_0(const pdcc_record_per_warp_0& pdcc_rec, float scale, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  (void)cudaGetLastError();
  add_to<<<pdcc_grid, pdcc_block>>>(pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    add_to__pdcc_serial(pdcc_grid, pdcc_block, pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n);
}
#line 6 "aggregate.cu"

// pdcc: one parent's launch of 'add_to' at site per_block_0, kept for the aggregated launch
struct pdcc_record_per_block_0 {
  float* out;
  const float* in;
  int n;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site per_block_0 as one grid
static __global__ void add_to__pdcc_agg_per_block_0(const pdcc_record_per_block_0* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen, float scale)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_per_block_0 pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    add_to__pdcc_thread(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
static __device__ void add_to__pdcc_direct_per_block_0(const pdcc_record_per_block_0& pdcc_rec, float scale, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  (void)cudaGetLastError();
  add_to<<<pdcc_grid, pdcc_block>>>(pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    add_to__pdcc_serial(pdcc_grid, pdcc_block, pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n);
}
#line 6 "aggregate.cu"

// pdcc: one parent's launch of 'add_to' at site per_group_0, kept for the aggregated launch
struct pdcc_record_per_group_0 {
  float* out;
  const float* in;
  int n;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site per_group_0 as one grid
static __global__ void add_to__pdcc_agg_per_group_0(const pdcc_record_per_group_0* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen, float scale)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_per_group_0 pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    add_to__pdcc_thread(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
static __device__ void add_to__pdcc_direct_per_group_0(const pdcc_record_per_group_0& pdcc_rec, float scale, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  (void)cudaGetLastError();
  add_to<<<pdcc_grid, pdcc_block>>>(pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    add_to__pdcc_serial(pdcc_grid, pdcc_block, pdcc_rec.out, pdcc_rec.in, scale, pdcc_rec.n);
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
    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      fill_strided__pdcc_thread<T, Step>(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, data, value, n);
}
#line 13 "aggregate.cu"

// pdcc: 'fill_strided' coarsened: each block does the work of several original blocks
template <typename T, int Step>
static __global__ void fill_strided__pdcc_coarse(T* data, T value, int64_t n, const dim3 pdcc_gridDim)
{
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    fill_strided__pdcc_thread<T, Step>(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, data, value, n);
  }
}
#line 13 "aggregate.cu"

// pdcc: one parent's launch of 'fill_strided' at site per_grid_0, kept for the aggregated launch
template <typename T, int Step>
struct pdcc_record_per_grid_0 {
  T* data;
  int64_t n;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site per_grid_0 as one grid
template <typename T, int Step>
static __global__ void fill_strided__pdcc_agg_per_grid_0(const pdcc_record_per_grid_0<T, Step>* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen, T value)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_per_grid_0<T, Step> pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    fill_strided__pdcc_thread<T, Step>(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.data, value, pdcc_rec.n);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
template <typename T, int Step>
static __device__ void fill_strided__pdcc_direct_per_grid_0(const pdcc_record_per_grid_0<T, Step>& pdcc_rec, T value, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  dim3 pdcc_cgrid = pdcc_grid;
  pdcc_cgrid.x = (pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  (void)cudaGetLastError();
  fill_strided__pdcc_coarse<T, Step><<<pdcc_cgrid, pdcc_block>>>(pdcc_rec.data, value, pdcc_rec.n, pdcc_grid); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    fill_strided__pdcc_serial<T, Step>(pdcc_grid, pdcc_block, pdcc_rec.data, value, pdcc_rec.n);
}
#line 17 "aggregate.cu"

#line 1 "aggregate.cu"
#ifndef PDCC_POOL_BYTES_per_warp_0
#define PDCC_POOL_BYTES_per_warp_0 67108864
#endif
#ifndef PDCC_RECORDS_per_warp_0
#define PDCC_RECORDS_per_warp_0 0
#endif
#ifndef PDCC_RECORDS_PER_THREAD_per_warp_0
#define PDCC_RECORDS_PER_THREAD_per_warp_0 1
#endif
#ifndef PDCC_AGG_THRESHOLD_per_warp_0
#define PDCC_AGG_THRESHOLD_per_warp_0 4
#endif
// pdcc: site per_warp_0's groups (warp): records per group, this block's storage
__shared__ unsigned pdcc_count_per_warp_0[32];
__shared__ unsigned char* pdcc_chunk_per_warp_0;
__device__ pdcc::Pool pdcc_pool_per_warp_0;
__device__ __align__(128) unsigned char pdcc_storage_per_warp_0[PDCC_POOL_BYTES_per_warp_0];
__shared__ unsigned pdcc_scratch_per_warp_0[33];
static __device__ __forceinline__ unsigned pdcc_capacity_per_warp_0(unsigned pdcc_record_bytes) {
  return pdcc::records_that_fit(PDCC_RECORDS_per_warp_0 ? PDCC_RECORDS_per_warp_0 : 32u * PDCC_RECORDS_PER_THREAD_per_warp_0,
                                PDCC_POOL_BYTES_per_warp_0, (unsigned long long)gridDim.x * gridDim.y * gridDim.z,
                                ((pdcc::block_threads() + 31u) / 32u), pdcc_record_bytes);
}
template <typename Record>
static __device__ bool pdcc_append_per_warp_0(const Record& pdcc_rec)
{
  if (pdcc_chunk_per_warp_0 == nullptr) return false;
  const unsigned pdcc_group = pdcc::linear_thread() >> 5, pdcc_capacity = pdcc_capacity_per_warp_0(sizeof(Record));
  const unsigned pdcc_slot = atomicAdd(&pdcc_count_per_warp_0[pdcc_group], 1u);
  if (pdcc_slot >= pdcc_capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_chunk_per_warp_0)[pdcc_group * pdcc_capacity + pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the child grid another thread of the group launches
  return true;
}
#line 18 "aggregate.cu"
static __device__ void per_warp__pdcc_body(float* out, const float* in, const int* begin, const int* end, float scale) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int n = end[row] - begin[row];
// pdcc: #pragma dp consldt(warp) agg_threshold(4)
  { // pdcc: site per_warp_0: aggregated per warp
    const dim3 pdcc_grid = (n + 63) / 64;
    const dim3 pdcc_block = 64;
    const pdcc_record_per_warp_0 pdcc_rec = {out + row, in + begin[row], n, pdcc_grid, pdcc_block};
    if (!pdcc_append_per_warp_0(pdcc_rec))  // storage full: launch this one directly
      add_to__pdcc_direct_per_warp_0(pdcc_rec, scale, 1);
  }
#line 23 "aggregate.cu"
}
#line 18 "aggregate.cu"

// pdcc: 'per_warp' as launched: its body, then one flush per aggregated site
__global__ void per_warp(float* out, const float* in, const int* begin, const int* end, float scale)
{
  if (pdcc::linear_thread() < 32u) pdcc_count_per_warp_0[pdcc::linear_thread()] = 0u;
  if (pdcc::linear_thread() == 0u)  // this block's records for site per_warp_0, then their scanned ends
    pdcc_chunk_per_warp_0 = pdcc::pool_take(pdcc_pool_per_warp_0, pdcc_storage_per_warp_0, PDCC_POOL_BYTES_per_warp_0,
        (unsigned long long)((pdcc::block_threads() + 31u) / 32u) * pdcc_capacity_per_warp_0(sizeof(pdcc_record_per_warp_0)) * (sizeof(pdcc_record_per_warp_0) + 4u));
  __syncthreads();
  per_warp__pdcc_body(out, in, begin, end, scale);
  { // pdcc: flush site per_warp_0: one aggregated launch per warp
    const unsigned pdcc_mask = pdcc::warp_lanes(), pdcc_lane = pdcc::linear_thread() & 31u;
    __syncwarp(pdcc_mask);
    const unsigned pdcc_capacity = pdcc_capacity_per_warp_0(sizeof(pdcc_record_per_warp_0)), pdcc_group = pdcc::linear_thread() >> 5;
    const unsigned pdcc_groups = (pdcc::block_threads() + 31u) / 32u;
    pdcc_record_per_warp_0* pdcc_records = reinterpret_cast<pdcc_record_per_warp_0*>(pdcc_chunk_per_warp_0) + pdcc_group * pdcc_capacity;
    unsigned* pdcc_ends = reinterpret_cast<unsigned*>(reinterpret_cast<pdcc_record_per_warp_0*>(pdcc_chunk_per_warp_0) + pdcc_groups * pdcc_capacity) + pdcc_group * pdcc_capacity;
    const unsigned pdcc_n = pdcc_chunk_per_warp_0 ? min(pdcc_count_per_warp_0[pdcc_group], pdcc_capacity) : 0u;
    if (pdcc_n >= PDCC_AGG_THRESHOLD_per_warp_0) {
      unsigned pdcc_widest = 0;
      const unsigned pdcc_total = pdcc::warp_scan_records(pdcc_records, pdcc_ends, pdcc_n, 1, pdcc_mask, &pdcc_widest);
      if (pdcc_lane == 0u) {
        (void)cudaGetLastError();
        add_to__pdcc_agg_per_warp_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1, scale); // pdcc: generated
        for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
          // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
          if (pdcc_wait > 262144u) {
            for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
              add_to__pdcc_direct_per_warp_0(pdcc_records[pdcc_i], scale, 1);
            break;
          }
          __nanosleep(pdcc_wait);
          add_to__pdcc_agg_per_warp_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1, scale); // pdcc: generated
        }
      }
    } else {  // too few records to be worth a group launch
      for (unsigned pdcc_i = pdcc_lane; pdcc_i < pdcc_n; pdcc_i += __popc(pdcc_mask))
        add_to__pdcc_direct_per_warp_0(pdcc_records[pdcc_i], scale, 1);
    }
  }
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_per_warp_0);
}
#line 24 "aggregate.cu"

#line 1 "aggregate.cu"
#ifndef PDCC_POOL_BYTES_per_block_0
#define PDCC_POOL_BYTES_per_block_0 67108864
#endif
#ifndef PDCC_RECORDS_per_block_0
#define PDCC_RECORDS_per_block_0 512
#endif
#ifndef PDCC_RECORDS_PER_THREAD_per_block_0
#define PDCC_RECORDS_PER_THREAD_per_block_0 4
#endif
// pdcc: site per_block_0's groups (block): records per group, this block's storage
__shared__ unsigned pdcc_count_per_block_0[32];
__shared__ unsigned char* pdcc_chunk_per_block_0;
__device__ pdcc::Pool pdcc_pool_per_block_0;
__device__ __align__(128) unsigned char pdcc_storage_per_block_0[PDCC_POOL_BYTES_per_block_0];
__shared__ unsigned pdcc_scratch_per_block_0[33];
static __device__ __forceinline__ unsigned pdcc_capacity_per_block_0(unsigned pdcc_record_bytes) {
  return pdcc::records_that_fit(PDCC_RECORDS_per_block_0 ? PDCC_RECORDS_per_block_0 : pdcc::block_threads() * PDCC_RECORDS_PER_THREAD_per_block_0,
                                PDCC_POOL_BYTES_per_block_0, (unsigned long long)gridDim.x * gridDim.y * gridDim.z,
                                1u, pdcc_record_bytes);
}
template <typename Record>
static __device__ bool pdcc_append_per_block_0(const Record& pdcc_rec)
{
  if (pdcc_chunk_per_block_0 == nullptr) return false;
  const unsigned pdcc_group = 0u, pdcc_capacity = pdcc_capacity_per_block_0(sizeof(Record));
  const unsigned pdcc_slot = atomicAdd(&pdcc_count_per_block_0[pdcc_group], 1u);
  if (pdcc_slot >= pdcc_capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_chunk_per_block_0)[pdcc_group * pdcc_capacity + pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the child grid another thread of the group launches
  return true;
}
#line 25 "aggregate.cu"
static __device__ void per_block__pdcc_body(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int part = 0; part < 2; ++part) {
    int n = (end[row] - begin[row]) / 2;
// pdcc: #pragma dp consldt(block) buffer(pool, 512)
    { // pdcc: site per_block_0: aggregated per block
      const dim3 pdcc_grid = (n + 127) / 128;
      const dim3 pdcc_block = 128;
      const pdcc_record_per_block_0 pdcc_rec = {out + row, in + begin[row] + part * n, n, pdcc_grid, pdcc_block};
      if (!pdcc_append_per_block_0(pdcc_rec))  // storage full: launch this one directly
        add_to__pdcc_direct_per_block_0(pdcc_rec, 1.0f, 1);
    }
#line 32 "aggregate.cu"
  }
}
#line 25 "aggregate.cu"

// pdcc: 'per_block' as launched: its body, then one flush per aggregated site
__global__ void per_block(float* out, const float* in, const int* begin, const int* end, int rows)
{
  if (pdcc::linear_thread() < 32u) pdcc_count_per_block_0[pdcc::linear_thread()] = 0u;
  if (pdcc::linear_thread() == 0u)  // this block's records for site per_block_0, then their scanned ends
    pdcc_chunk_per_block_0 = pdcc::pool_take(pdcc_pool_per_block_0, pdcc_storage_per_block_0, PDCC_POOL_BYTES_per_block_0,
        (unsigned long long)1u * pdcc_capacity_per_block_0(sizeof(pdcc_record_per_block_0)) * (sizeof(pdcc_record_per_block_0) + 4u));
  __syncthreads();
  per_block__pdcc_body(out, in, begin, end, rows);
  { // pdcc: flush site per_block_0: one aggregated launch per block
    __syncthreads();
    const unsigned pdcc_capacity = pdcc_capacity_per_block_0(sizeof(pdcc_record_per_block_0));
    pdcc_record_per_block_0* pdcc_records = reinterpret_cast<pdcc_record_per_block_0*>(pdcc_chunk_per_block_0);
    unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);
    const unsigned pdcc_n = pdcc_chunk_per_block_0 ? min(pdcc_count_per_block_0[0], pdcc_capacity) : 0u;
    if (pdcc_n >= 1u) {
      unsigned pdcc_widest = 0;
      const unsigned pdcc_total = pdcc::block_scan_records(pdcc_records, pdcc_ends, pdcc_n, 1, pdcc_scratch_per_block_0, &pdcc_widest);
      if (pdcc::linear_thread() == 0u) {
        (void)cudaGetLastError();
        add_to__pdcc_agg_per_block_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1, 1.0f); // pdcc: generated
        for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
          // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
          if (pdcc_wait > 262144u) {
            for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
              add_to__pdcc_direct_per_block_0(pdcc_records[pdcc_i], 1.0f, 1);
            break;
          }
          __nanosleep(pdcc_wait);
          add_to__pdcc_agg_per_block_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1, 1.0f); // pdcc: generated
        }
      }
    } else {  // too few records to be worth a group launch
      for (unsigned pdcc_i = pdcc::linear_thread(); pdcc_i < pdcc_n; pdcc_i += pdcc::block_threads())
        add_to__pdcc_direct_per_block_0(pdcc_records[pdcc_i], 1.0f, 1);
    }
  }
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_per_block_0);
}
#line 34 "aggregate.cu"

#line 4 "aggregate.cu"
#ifndef PDCC_POOL_BYTES_per_group_0
#define PDCC_POOL_BYTES_per_group_0 67108864
#endif
#ifndef PDCC_RECORDS_per_group_0
#define PDCC_RECORDS_per_group_0 0
#endif
#ifndef PDCC_RECORDS_PER_THREAD_per_group_0
#define PDCC_RECORDS_PER_THREAD_per_group_0 1
#endif
#ifndef PDCC_GRANULARITY_per_group_0
#define PDCC_GRANULARITY_per_group_0 8
#endif
// pdcc: site per_group_0's groups (multiblock), shared by their blocks
__device__ pdcc::GroupSlot pdcc_groups_per_group_0[65536];
__shared__ pdcc::GroupSlot* pdcc_group_per_group_0;
__shared__ int pdcc_flag_per_group_0;  // this block is its group's last
__device__ pdcc::Pool pdcc_pool_per_group_0;
__device__ __align__(128) unsigned char pdcc_storage_per_group_0[PDCC_POOL_BYTES_per_group_0];
__shared__ unsigned pdcc_scratch_per_group_0[33];
static __device__ __forceinline__ unsigned pdcc_blocks_per_group_per_group_0() { return PDCC_GRANULARITY_per_group_0; }
template <typename Record>
static __device__ bool pdcc_append_per_group_0(const Record& pdcc_rec)
{
  pdcc::GroupSlot* pdcc_group = pdcc_group_per_group_0;
  if (pdcc_group == nullptr || pdcc_group->records == nullptr) return false;
  const unsigned pdcc_slot = atomicAdd(&pdcc_group->count, 1u);
  if (pdcc_slot >= pdcc_group->capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_group->records)[pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the block that launches for the group
  return true;
}
static __device__ void per_group__pdcc_body(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int n = end[row] - begin[row];
// pdcc: #pragma dp consldt(multiblock(8))
  { // pdcc: site per_group_0: aggregated per multiblock
    const dim3 pdcc_grid = (n + 127) / 128;
    const dim3 pdcc_block = 128;
    const pdcc_record_per_group_0 pdcc_rec = {out + row, in + begin[row], n, pdcc_grid, pdcc_block};
    if (!pdcc_append_per_group_0(pdcc_rec))  // storage full: launch this one directly
      add_to__pdcc_direct_per_group_0(pdcc_rec, 2.0f, 1);
  }
#line 41 "aggregate.cu"
}
#line 35 "aggregate.cu"

// pdcc: 'per_group' as launched: its body, then one flush per aggregated site
__global__ void per_group(float* out, const float* in, const int* begin, const int* end, int rows)
{
  if (pdcc::linear_thread() == 0u) {  // join this block's group for site per_group_0
    const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned pdcc_k = pdcc_blocks_per_group_per_group_0();
    const unsigned pdcc_capacity = pdcc::records_that_fit(
        PDCC_RECORDS_per_group_0 ? PDCC_RECORDS_per_group_0 : (unsigned long long)pdcc_k * pdcc::block_threads() * PDCC_RECORDS_PER_THREAD_per_group_0,
        PDCC_POOL_BYTES_per_group_0, (pdcc_blocks + pdcc_k - 1) / pdcc_k, 1u, sizeof(pdcc_record_per_group_0));
    pdcc_group_per_group_0 = (pdcc_blocks + pdcc_k - 1) / pdcc_k <= sizeof(pdcc_groups_per_group_0) / sizeof(pdcc::GroupSlot)
        ? pdcc::join_group(pdcc_groups_per_group_0, pdcc::linear_block() / pdcc_k, pdcc_pool_per_group_0, pdcc_storage_per_group_0,
                           PDCC_POOL_BYTES_per_group_0, pdcc_capacity, sizeof(pdcc_record_per_group_0))
        : nullptr;  // more groups than slots: every parent launches directly
  }
  __syncthreads();
  per_group__pdcc_body(out, in, begin, end, rows);
  { // pdcc: flush site per_group_0: the last block of each group launches for the whole group
    __threadfence();
    __syncthreads();
    pdcc::GroupSlot* pdcc_slot = pdcc_group_per_group_0;
    if (pdcc::linear_thread() == 0u) {
      const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
      const unsigned pdcc_k = pdcc_blocks_per_group_per_group_0(), pdcc_first = pdcc::linear_block() / pdcc_k * pdcc_k;
      const unsigned pdcc_members = min(pdcc_k, pdcc_blocks - pdcc_first);
      pdcc_flag_per_group_0 = pdcc_slot != nullptr && atomicAdd(&pdcc_slot->blocks_done, 1u) == pdcc_members - 1u;
    }
    __syncthreads();
    if (pdcc_flag_per_group_0) {
      __threadfence();
      pdcc_record_per_group_0* pdcc_records = reinterpret_cast<pdcc_record_per_group_0*>(pdcc_slot->records);
      const unsigned pdcc_capacity = pdcc_slot->capacity;
      unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);
      const unsigned pdcc_n = min(*(volatile unsigned*)&pdcc_slot->count, pdcc_capacity);
      __syncthreads();
      if (pdcc_n >= 1u) {
        unsigned pdcc_widest = 0;
        const unsigned pdcc_total = pdcc::block_scan_records(pdcc_records, pdcc_ends, pdcc_n, 1, pdcc_scratch_per_group_0, &pdcc_widest);
        if (pdcc::linear_thread() == 0u) {
          (void)cudaGetLastError();
          add_to__pdcc_agg_per_group_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1, 2.0f); // pdcc: generated
          for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
            // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
            if (pdcc_wait > 262144u) {
              for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
                add_to__pdcc_direct_per_group_0(pdcc_records[pdcc_i], 2.0f, 1);
              break;
            }
            __nanosleep(pdcc_wait);
            add_to__pdcc_agg_per_group_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1, 2.0f); // pdcc: generated
          }
          pdcc_slot->records = nullptr;  // free the slot for the parent's next launch
          pdcc_slot->capacity = 0u;
          pdcc_slot->count = 0u;
          pdcc_slot->blocks_done = 0u;
          __threadfence();
          atomicExch(&pdcc_slot->state, 0);
        }
      } else {  // too few records to be worth a group launch
        for (unsigned pdcc_i = pdcc::linear_thread(); pdcc_i < pdcc_n; pdcc_i += pdcc::block_threads())
          add_to__pdcc_direct_per_group_0(pdcc_records[pdcc_i], 2.0f, 1);
        __syncthreads();  // every thread is done with the records
        if (pdcc::linear_thread() == 0u) {
          pdcc_slot->records = nullptr;  // free the slot for the parent's next launch
          pdcc_slot->capacity = 0u;
          pdcc_slot->count = 0u;
          pdcc_slot->blocks_done = 0u;
          __threadfence();
          atomicExch(&pdcc_slot->state, 0);
        }
      }
    }
  }
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_per_group_0);
}
#line 42 "aggregate.cu"

#line 9 "aggregate.cu"
#ifndef PDCC_THRESHOLD_per_grid_0
#define PDCC_THRESHOLD_per_grid_0 256
#endif
#ifndef PDCC_COARSEN_per_grid_0
#define PDCC_COARSEN_per_grid_0 4
#endif
#ifndef PDCC_POOL_BYTES_per_grid_0
#define PDCC_POOL_BYTES_per_grid_0 67108864
#endif
#ifndef PDCC_RECORDS_per_grid_0
#define PDCC_RECORDS_per_grid_0 0
#endif
#ifndef PDCC_RECORDS_PER_THREAD_per_grid_0
#define PDCC_RECORDS_PER_THREAD_per_grid_0 1
#endif
// pdcc: site per_grid_0's groups (grid), shared by their blocks
__device__ pdcc::GroupSlot pdcc_groups_per_grid_0[1];
__shared__ pdcc::GroupSlot* pdcc_group_per_grid_0;
__shared__ int pdcc_flag_per_grid_0;  // this block is its group's last
__device__ pdcc::Pool pdcc_pool_per_grid_0;
__device__ __align__(128) unsigned char pdcc_storage_per_grid_0[PDCC_POOL_BYTES_per_grid_0];
__shared__ unsigned pdcc_scratch_per_grid_0[33];
static __device__ __forceinline__ unsigned pdcc_blocks_per_group_per_grid_0() { return gridDim.x * gridDim.y * gridDim.z; }
template <typename Record>
static __device__ bool pdcc_append_per_grid_0(const Record& pdcc_rec)
{
  pdcc::GroupSlot* pdcc_group = pdcc_group_per_grid_0;
  if (pdcc_group == nullptr || pdcc_group->records == nullptr) return false;
  const unsigned pdcc_slot = atomicAdd(&pdcc_group->count, 1u);
  if (pdcc_slot >= pdcc_group->capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_group->records)[pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the block that launches for the group
  return true;
}
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
      const pdcc_record_per_grid_0<T, 2> pdcc_rec = {data[k], n, pdcc_grid, pdcc_block};
      if (!pdcc_append_per_grid_0(pdcc_rec))  // storage full: launch this one directly
        fill_strided__pdcc_direct_per_grid_0<T, 2>(pdcc_rec, value, PDCC_COARSEN_per_grid_0);
    } else {
      fill_strided__pdcc_serial<T, 2>(pdcc_grid, pdcc_block, data[k], value, n);
    }
  }
#line 50 "aggregate.cu"
}
#line 44 "aggregate.cu"

// pdcc: 'per_grid' as launched: its body, then one flush per aggregated site
template <typename T>
__global__ void per_grid(T** data, const int64_t* sizes, T value, int count)
{
  if (pdcc::linear_thread() == 0u) {  // join this block's group for site per_grid_0
    const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned pdcc_k = pdcc_blocks_per_group_per_grid_0();
    const unsigned pdcc_capacity = pdcc::records_that_fit(
        PDCC_RECORDS_per_grid_0 ? PDCC_RECORDS_per_grid_0 : (unsigned long long)pdcc_k * pdcc::block_threads() * PDCC_RECORDS_PER_THREAD_per_grid_0,
        PDCC_POOL_BYTES_per_grid_0, (pdcc_blocks + pdcc_k - 1) / pdcc_k, 1u, sizeof(pdcc_record_per_grid_0<T, 2>));
    pdcc_group_per_grid_0 = (pdcc_blocks + pdcc_k - 1) / pdcc_k <= sizeof(pdcc_groups_per_grid_0) / sizeof(pdcc::GroupSlot)
        ? pdcc::join_group(pdcc_groups_per_grid_0, pdcc::linear_block() / pdcc_k, pdcc_pool_per_grid_0, pdcc_storage_per_grid_0,
                           PDCC_POOL_BYTES_per_grid_0, pdcc_capacity, sizeof(pdcc_record_per_grid_0<T, 2>))
        : nullptr;  // more groups than slots: every parent launches directly
  }
  __syncthreads();
  per_grid__pdcc_body<T>(data, sizes, value, count);
  { // pdcc: flush site per_grid_0: the last block of each group launches for the whole group
    __threadfence();
    __syncthreads();
    pdcc::GroupSlot* pdcc_slot = pdcc_group_per_grid_0;
    if (pdcc::linear_thread() == 0u) {
      const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
      const unsigned pdcc_k = pdcc_blocks_per_group_per_grid_0(), pdcc_first = pdcc::linear_block() / pdcc_k * pdcc_k;
      const unsigned pdcc_members = min(pdcc_k, pdcc_blocks - pdcc_first);
      pdcc_flag_per_grid_0 = pdcc_slot != nullptr && atomicAdd(&pdcc_slot->blocks_done, 1u) == pdcc_members - 1u;
    }
    __syncthreads();
    if (pdcc_flag_per_grid_0) {
      __threadfence();
      pdcc_record_per_grid_0<T, 2>* pdcc_records = reinterpret_cast<pdcc_record_per_grid_0<T, 2>*>(pdcc_slot->records);
      const unsigned pdcc_capacity = pdcc_slot->capacity;
      unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);
      const unsigned pdcc_n = min(*(volatile unsigned*)&pdcc_slot->count, pdcc_capacity);
      __syncthreads();
      if (pdcc_n >= 1u) {
        unsigned pdcc_widest = 0;
        const unsigned pdcc_total = pdcc::block_scan_records(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_per_grid_0, pdcc_scratch_per_grid_0, &pdcc_widest);
        if (pdcc::linear_thread() == 0u) {
          (void)cudaGetLastError();
          fill_strided__pdcc_agg_per_grid_0<T, 2><<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_per_grid_0, value); // pdcc: generated
          for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
            // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
            if (pdcc_wait > 262144u) {
              for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
                fill_strided__pdcc_direct_per_grid_0<T, 2>(pdcc_records[pdcc_i], value, PDCC_COARSEN_per_grid_0);
              break;
            }
            __nanosleep(pdcc_wait);
            fill_strided__pdcc_agg_per_grid_0<T, 2><<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_per_grid_0, value); // pdcc: generated
          }
          pdcc_slot->records = nullptr;  // free the slot for the parent's next launch
          pdcc_slot->capacity = 0u;
          pdcc_slot->count = 0u;
          pdcc_slot->blocks_done = 0u;
          __threadfence();
          atomicExch(&pdcc_slot->state, 0);
        }
      } else {  // too few records to be worth a group launch
        for (unsigned pdcc_i = pdcc::linear_thread(); pdcc_i < pdcc_n; pdcc_i += pdcc::block_threads())
          fill_strided__pdcc_direct_per_grid_0<T, 2>(pdcc_records[pdcc_i], value, PDCC_COARSEN_per_grid_0);
        __syncthreads();  // every thread is done with the records
        if (pdcc::linear_thread() == 0u) {
          pdcc_slot->records = nullptr;  // free the slot for the parent's next launch
          pdcc_slot->capacity = 0u;
          pdcc_slot->count = 0u;
          pdcc_slot->blocks_done = 0u;
          __threadfence();
          atomicExch(&pdcc_slot->state, 0);
        }
      }
    }
  }
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_per_grid_0);
}
#line 51 "aggregate.cu"

template __global__ void per_grid<float>(float**, const int64_t*, float, int);
