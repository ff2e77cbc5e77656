#line 1 "aggregate_threshold_coarsen.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "aggregate_threshold_coarsen.cu"
// The other half of aggregate.cu: warp, block and multiblock(K) groups behind a threshold and with
// coarsening, and a grid group without either; a 2-D child grid, and a 3-D parent grid whose blocks
// are 2-D (a partial last warp).
__global__ void scale_rows(float* out, const float* in, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * in[i];
}
#line 2 "aggregate_threshold_coarsen.cu"

// pdcc: the body of 'scale_rows' for one (block, thread), built-ins passed in
static __device__ void scale_rows__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, float factor, int n) {
  int i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i < n) out[i] = factor * in[i];
}
#line 4 "aggregate_threshold_coarsen.cu"

// pdcc: every thread of a 'scale_rows' launch, one after another, in the calling thread
static __device__ __noinline__ void scale_rows__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, const float* in, float factor, int n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
    for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      scale_rows__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, in, factor, n);
}
#line 4 "aggregate_threshold_coarsen.cu"

// pdcc: 'scale_rows' coarsened: each block does the work of several original blocks
static __global__ void scale_rows__pdcc_coarse(float* out, const float* in, float factor, int n, const dim3 pdcc_gridDim)
{
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    scale_rows__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, out, in, factor, n);
  }
}
#line 4 "aggregate_threshold_coarsen.cu"

// pdcc: one parent's launch of 'scale_rows' at site warp_groups_0, kept for the aggregated launch
struct pdcc_record_warp_groups_0 {
  float* out;
  const float* in;
  int n;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site warp_groups_0 as one grid
static __global__ void scale_rows__pdcc_agg_warp_groups_0(const pdcc_record_warp_groups_0* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen, float factor)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_warp_groups_0 pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    scale_rows__pdcc_thread(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.out, pdcc_rec.in, factor, pdcc_rec.n);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
static __device__ void scale_rows__pdcc_direct_warp_groups_0(const pdcc_record_warp_groups_0& pdcc_rec, float factor, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  dim3 pdcc_cgrid = pdcc_grid;
  pdcc_cgrid.x = (pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  (void)cudaGetLastError();
  scale_rows__pdcc_coarse<<<pdcc_cgrid, pdcc_block>>>(pdcc_rec.out, pdcc_rec.in, factor, pdcc_rec.n, pdcc_grid); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    scale_rows__pdcc_serial(pdcc_grid, pdcc_block, pdcc_rec.out, pdcc_rec.in, factor, pdcc_rec.n);
}
#line 4 "aggregate_threshold_coarsen.cu"

// pdcc: one parent's launch of 'scale_rows' at site block_groups_0, kept for the aggregated launch
struct pdcc_record_block_groups_0 {
  float* out;
  const float* in;
  int n;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site block_groups_0 as one grid
static __global__ void scale_rows__pdcc_agg_block_groups_0(const pdcc_record_block_groups_0* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen, float factor)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_block_groups_0 pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    scale_rows__pdcc_thread(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.out, pdcc_rec.in, factor, pdcc_rec.n);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
static __device__ void scale_rows__pdcc_direct_block_groups_0(const pdcc_record_block_groups_0& pdcc_rec, float factor, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  dim3 pdcc_cgrid = pdcc_grid;
  pdcc_cgrid.x = (pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  (void)cudaGetLastError();
  scale_rows__pdcc_coarse<<<pdcc_cgrid, pdcc_block>>>(pdcc_rec.out, pdcc_rec.in, factor, pdcc_rec.n, pdcc_grid); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    scale_rows__pdcc_serial(pdcc_grid, pdcc_block, pdcc_rec.out, pdcc_rec.in, factor, pdcc_rec.n);
}
#line 8 "aggregate_threshold_coarsen.cu"

__global__ void tile(float* out, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] += 1.0f;
}
#line 7 "aggregate_threshold_coarsen.cu"

// pdcc: the body of 'tile' for one (block, thread), built-ins passed in
static __device__ void tile__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, int width, int height) {
  int x = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x, y = pdcc_blockIdx.y * pdcc_blockDim.y + pdcc_threadIdx.y;
  if (x < width && y < height) out[y * width + x] += 1.0f;
}
#line 9 "aggregate_threshold_coarsen.cu"

// pdcc: every thread of a 'tile' launch, one after another, in the calling thread
static __device__ __noinline__ void tile__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, float* out, int width, int height)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
    for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
    for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty)
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      tile__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, width, height);
}
#line 9 "aggregate_threshold_coarsen.cu"

// pdcc: 'tile' coarsened: each block does the work of several original blocks
static __global__ void tile__pdcc_coarse(float* out, int width, int height, const dim3 pdcc_gridDim)
{
  for (unsigned int pdcc_bx = blockIdx.x; pdcc_bx < pdcc_gridDim.x; pdcc_bx += gridDim.x) {
    tile__pdcc_thread(make_uint3(pdcc_bx, blockIdx.y, blockIdx.z), threadIdx, pdcc_gridDim, blockDim, out, width, height);
  }
}
#line 9 "aggregate_threshold_coarsen.cu"

// pdcc: one parent's launch of 'tile' at site multiblock_groups_0, kept for the aggregated launch
struct pdcc_record_multiblock_groups_0 {
  float* out;
  int width;
  int height;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site multiblock_groups_0 as one grid
static __global__ void tile__pdcc_agg_multiblock_groups_0(const pdcc_record_multiblock_groups_0* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_multiblock_groups_0 pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    tile__pdcc_thread(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.out, pdcc_rec.width, pdcc_rec.height);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
static __device__ void tile__pdcc_direct_multiblock_groups_0(const pdcc_record_multiblock_groups_0& pdcc_rec, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  dim3 pdcc_cgrid = pdcc_grid;
  pdcc_cgrid.x = (pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  (void)cudaGetLastError();
  tile__pdcc_coarse<<<pdcc_cgrid, pdcc_block>>>(pdcc_rec.out, pdcc_rec.width, pdcc_rec.height, pdcc_grid); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    tile__pdcc_serial(pdcc_grid, pdcc_block, pdcc_rec.out, pdcc_rec.width, pdcc_rec.height);
}
#line 9 "aggregate_threshold_coarsen.cu"

// pdcc: one parent's launch of 'tile' at site grid_group_0, kept for the aggregated launch
struct pdcc_record_grid_group_0 {
  float* out;
  int width;
  int height;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

// pdcc: the launches of a group of parents at site grid_group_0 as one grid
static __global__ void tile__pdcc_agg_grid_group_0(const pdcc_record_grid_group_0* pdcc_records, const unsigned* pdcc_ends, unsigned pdcc_count, unsigned pdcc_coarsen)
{
  const unsigned pdcc_r = pdcc::find_record(pdcc_ends, pdcc_count, blockIdx.x);
  const pdcc_record_grid_group_0 pdcc_rec = pdcc_records[pdcc_r];
  if (threadIdx.x >= pdcc::record_threads(pdcc_rec)) return;  // this record's blocks are smaller
  const unsigned pdcc_cx = (pdcc_rec.pdcc_grid.x + pdcc_coarsen - 1) / pdcc_coarsen;
  const uint3 pdcc_b = pdcc::unflatten(blockIdx.x - (pdcc_r ? pdcc_ends[pdcc_r - 1] : 0u),
                                       dim3(pdcc_cx, pdcc_rec.pdcc_grid.y, pdcc_rec.pdcc_grid.z));
  const uint3 pdcc_t = pdcc::unflatten(threadIdx.x, pdcc_rec.pdcc_block);
  for (unsigned int pdcc_bx = pdcc_b.x; pdcc_bx < pdcc_rec.pdcc_grid.x; pdcc_bx += pdcc_cx)
    tile__pdcc_thread(make_uint3(pdcc_bx, pdcc_b.y, pdcc_b.z), pdcc_t, pdcc_rec.pdcc_grid, pdcc_rec.pdcc_block, pdcc_rec.out, pdcc_rec.width, pdcc_rec.height);
}

// pdcc: one record launched on its own (storage full, too few parents, or the aggregated launch failed)
static __device__ void tile__pdcc_direct_grid_group_0(const pdcc_record_grid_group_0& pdcc_rec, unsigned pdcc_coarsen)
{
  const dim3 pdcc_grid = pdcc_rec.pdcc_grid;
  const dim3 pdcc_block = pdcc_rec.pdcc_block;
  (void)cudaGetLastError();
  tile<<<pdcc_grid, pdcc_block>>>(pdcc_rec.out, pdcc_rec.width, pdcc_rec.height); // pdcc: generated
  if (cudaGetLastError() != cudaSuccess) // the launch failed (pending-launch pool full?): no work lost
    tile__pdcc_serial(pdcc_grid, pdcc_block, pdcc_rec.out, pdcc_rec.width, pdcc_rec.height);
}
#line 13 "aggregate_threshold_coarsen.cu"

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
#ifndef PDCC_RECORDS_warp_groups_0
#define PDCC_RECORDS_warp_groups_0 0
#endif
#ifndef PDCC_RECORDS_PER_THREAD_warp_groups_0
#define PDCC_RECORDS_PER_THREAD_warp_groups_0 1
#endif
// pdcc: site warp_groups_0's groups (warp): records per group, this block's storage
__shared__ unsigned pdcc_count_warp_groups_0[32];
__shared__ unsigned char* pdcc_chunk_warp_groups_0;
__device__ pdcc::Pool pdcc_pool_warp_groups_0;
__device__ __align__(128) unsigned char pdcc_storage_warp_groups_0[PDCC_POOL_BYTES_warp_groups_0];
__shared__ unsigned pdcc_scratch_warp_groups_0[33];
static __device__ __forceinline__ unsigned pdcc_capacity_warp_groups_0(unsigned pdcc_record_bytes) {
  return pdcc::records_that_fit(PDCC_RECORDS_warp_groups_0 ? PDCC_RECORDS_warp_groups_0 : 32u * PDCC_RECORDS_PER_THREAD_warp_groups_0,
                                PDCC_POOL_BYTES_warp_groups_0, (unsigned long long)gridDim.x * gridDim.y * gridDim.z,
                                ((pdcc::block_threads() + 31u) / 32u), pdcc_record_bytes);
}
template <typename Record>
static __device__ bool pdcc_append_warp_groups_0(const Record& pdcc_rec)
{
  if (pdcc_chunk_warp_groups_0 == nullptr) return false;
  const unsigned pdcc_group = pdcc::linear_thread() >> 5, pdcc_capacity = pdcc_capacity_warp_groups_0(sizeof(Record));
  const unsigned pdcc_slot = atomicAdd(&pdcc_count_warp_groups_0[pdcc_group], 1u);
  if (pdcc_slot >= pdcc_capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_chunk_warp_groups_0)[pdcc_group * pdcc_capacity + pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the child grid another thread of the group launches
  return true;
}
#line 14 "aggregate_threshold_coarsen.cu"
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
      const pdcc_record_warp_groups_0 pdcc_rec = {out + begin[row], in + begin[row], n, pdcc_grid, pdcc_block};
      if (!pdcc_append_warp_groups_0(pdcc_rec))  // storage full: launch this one directly
        scale_rows__pdcc_direct_warp_groups_0(pdcc_rec, 0.5f, PDCC_COARSEN_warp_groups_0);
    } else {
      scale_rows__pdcc_serial(pdcc_grid, pdcc_block, out + begin[row], in + begin[row], 0.5f, n);
    }
  }
#line 20 "aggregate_threshold_coarsen.cu"
}
#line 14 "aggregate_threshold_coarsen.cu"

// pdcc: 'warp_groups' as launched: its body, then one flush per aggregated site
__global__ void warp_groups(float* out, const float* in, const int* begin, const int* end, int rows)
{
  if (pdcc::linear_thread() < 32u) pdcc_count_warp_groups_0[pdcc::linear_thread()] = 0u;
  if (pdcc::linear_thread() == 0u)  // this block's records for site warp_groups_0, then their scanned ends
    pdcc_chunk_warp_groups_0 = pdcc::pool_take(pdcc_pool_warp_groups_0, pdcc_storage_warp_groups_0, PDCC_POOL_BYTES_warp_groups_0,
        (unsigned long long)((pdcc::block_threads() + 31u) / 32u) * pdcc_capacity_warp_groups_0(sizeof(pdcc_record_warp_groups_0)) * (sizeof(pdcc_record_warp_groups_0) + 4u));
  __syncthreads();
  warp_groups__pdcc_body(out, in, begin, end, rows);
  { // pdcc: flush site warp_groups_0: one aggregated launch per warp
    const unsigned pdcc_mask = pdcc::warp_lanes(), pdcc_lane = pdcc::linear_thread() & 31u;
    __syncwarp(pdcc_mask);
    const unsigned pdcc_capacity = pdcc_capacity_warp_groups_0(sizeof(pdcc_record_warp_groups_0)), pdcc_group = pdcc::linear_thread() >> 5;
    const unsigned pdcc_groups = (pdcc::block_threads() + 31u) / 32u;
    pdcc_record_warp_groups_0* pdcc_records = reinterpret_cast<pdcc_record_warp_groups_0*>(pdcc_chunk_warp_groups_0) + pdcc_group * pdcc_capacity;
    unsigned* pdcc_ends = reinterpret_cast<unsigned*>(reinterpret_cast<pdcc_record_warp_groups_0*>(pdcc_chunk_warp_groups_0) + pdcc_groups * pdcc_capacity) + pdcc_group * pdcc_capacity;
    const unsigned pdcc_n = pdcc_chunk_warp_groups_0 ? min(pdcc_count_warp_groups_0[pdcc_group], pdcc_capacity) : 0u;
    if (pdcc_n >= 1u) {
      unsigned pdcc_widest = 0;
      const unsigned pdcc_total = pdcc::warp_scan_records(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_warp_groups_0, pdcc_mask, &pdcc_widest);
      if (pdcc_lane == 0u) {
        (void)cudaGetLastError();
        scale_rows__pdcc_agg_warp_groups_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_warp_groups_0, 0.5f); // pdcc: generated
        for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
          // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
          if (pdcc_wait > 262144u) {
            for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
              scale_rows__pdcc_direct_warp_groups_0(pdcc_records[pdcc_i], 0.5f, PDCC_COARSEN_warp_groups_0);
            break;
          }
          __nanosleep(pdcc_wait);
          scale_rows__pdcc_agg_warp_groups_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_warp_groups_0, 0.5f); // pdcc: generated
        }
      }
    } else {  // too few records to be worth a group launch
      for (unsigned pdcc_i = pdcc_lane; pdcc_i < pdcc_n; pdcc_i += __popc(pdcc_mask))
        scale_rows__pdcc_direct_warp_groups_0(pdcc_records[pdcc_i], 0.5f, PDCC_COARSEN_warp_groups_0);
    }
  }
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_warp_groups_0);
}
#line 21 "aggregate_threshold_coarsen.cu"

#line 1 "aggregate_threshold_coarsen.cu"
#ifndef PDCC_THRESHOLD_block_groups_0
#define PDCC_THRESHOLD_block_groups_0 128
#endif
#ifndef PDCC_COARSEN_block_groups_0
#define PDCC_COARSEN_block_groups_0 4
#endif
#ifndef PDCC_POOL_BYTES_block_groups_0
#define PDCC_POOL_BYTES_block_groups_0 67108864
#endif
#ifndef PDCC_RECORDS_block_groups_0
#define PDCC_RECORDS_block_groups_0 0
#endif
#ifndef PDCC_RECORDS_PER_THREAD_block_groups_0
#define PDCC_RECORDS_PER_THREAD_block_groups_0 1
#endif
#ifndef PDCC_AGG_THRESHOLD_block_groups_0
#define PDCC_AGG_THRESHOLD_block_groups_0 2
#endif
// pdcc: site block_groups_0's groups (block): records per group, this block's storage
__shared__ unsigned pdcc_count_block_groups_0[32];
__shared__ unsigned char* pdcc_chunk_block_groups_0;
__device__ pdcc::Pool pdcc_pool_block_groups_0;
__device__ __align__(128) unsigned char pdcc_storage_block_groups_0[PDCC_POOL_BYTES_block_groups_0];
__shared__ unsigned pdcc_scratch_block_groups_0[33];
static __device__ __forceinline__ unsigned pdcc_capacity_block_groups_0(unsigned pdcc_record_bytes) {
  return pdcc::records_that_fit(PDCC_RECORDS_block_groups_0 ? PDCC_RECORDS_block_groups_0 : pdcc::block_threads() * PDCC_RECORDS_PER_THREAD_block_groups_0,
                                PDCC_POOL_BYTES_block_groups_0, (unsigned long long)gridDim.x * gridDim.y * gridDim.z,
                                1u, pdcc_record_bytes);
}
template <typename Record>
static __device__ bool pdcc_append_block_groups_0(const Record& pdcc_rec)
{
  if (pdcc_chunk_block_groups_0 == nullptr) return false;
  const unsigned pdcc_group = 0u, pdcc_capacity = pdcc_capacity_block_groups_0(sizeof(Record));
  const unsigned pdcc_slot = atomicAdd(&pdcc_count_block_groups_0[pdcc_group], 1u);
  if (pdcc_slot >= pdcc_capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_chunk_block_groups_0)[pdcc_group * pdcc_capacity + pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the child grid another thread of the group launches
  return true;
}
#line 22 "aggregate_threshold_coarsen.cu"
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
      const pdcc_record_block_groups_0 pdcc_rec = {out + begin[row], in + begin[row], n, pdcc_grid, pdcc_block};
      if (!pdcc_append_block_groups_0(pdcc_rec))  // storage full: launch this one directly
        scale_rows__pdcc_direct_block_groups_0(pdcc_rec, 2.0f, PDCC_COARSEN_block_groups_0);
    } else {
      scale_rows__pdcc_serial(pdcc_grid, pdcc_block, out + begin[row], in + begin[row], 2.0f, n);
    }
  }
#line 29 "aggregate_threshold_coarsen.cu"
}
#line 22 "aggregate_threshold_coarsen.cu"

// pdcc: 'block_groups' as launched: its body, then one flush per aggregated site
__global__ void block_groups(float* out, const float* in, const int* begin, const int* end, int rows)
{
  if (pdcc::linear_thread() < 32u) pdcc_count_block_groups_0[pdcc::linear_thread()] = 0u;
  if (pdcc::linear_thread() == 0u)  // this block's records for site block_groups_0, then their scanned ends
    pdcc_chunk_block_groups_0 = pdcc::pool_take(pdcc_pool_block_groups_0, pdcc_storage_block_groups_0, PDCC_POOL_BYTES_block_groups_0,
        (unsigned long long)1u * pdcc_capacity_block_groups_0(sizeof(pdcc_record_block_groups_0)) * (sizeof(pdcc_record_block_groups_0) + 4u));
  __syncthreads();
  block_groups__pdcc_body(out, in, begin, end, rows);
  { // pdcc: flush site block_groups_0: one aggregated launch per block
    __syncthreads();
    const unsigned pdcc_capacity = pdcc_capacity_block_groups_0(sizeof(pdcc_record_block_groups_0));
    pdcc_record_block_groups_0* pdcc_records = reinterpret_cast<pdcc_record_block_groups_0*>(pdcc_chunk_block_groups_0);
    unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);
    const unsigned pdcc_n = pdcc_chunk_block_groups_0 ? min(pdcc_count_block_groups_0[0], pdcc_capacity) : 0u;
    if (pdcc_n >= PDCC_AGG_THRESHOLD_block_groups_0) {
      unsigned pdcc_widest = 0;
      const unsigned pdcc_total = pdcc::block_scan_records(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_block_groups_0, pdcc_scratch_block_groups_0, &pdcc_widest);
      if (pdcc::linear_thread() == 0u) {
        (void)cudaGetLastError();
        scale_rows__pdcc_agg_block_groups_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_block_groups_0, 2.0f); // pdcc: generated
        for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
          // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
          if (pdcc_wait > 262144u) {
            for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
              scale_rows__pdcc_direct_block_groups_0(pdcc_records[pdcc_i], 2.0f, PDCC_COARSEN_block_groups_0);
            break;
          }
          __nanosleep(pdcc_wait);
          scale_rows__pdcc_agg_block_groups_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_block_groups_0, 2.0f); // pdcc: generated
        }
      }
    } else {  // too few records to be worth a group launch
      for (unsigned pdcc_i = pdcc::linear_thread(); pdcc_i < pdcc_n; pdcc_i += pdcc::block_threads())
        scale_rows__pdcc_direct_block_groups_0(pdcc_records[pdcc_i], 2.0f, PDCC_COARSEN_block_groups_0);
    }
  }
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_block_groups_0);
}
#line 30 "aggregate_threshold_coarsen.cu"

#line 1 "aggregate_threshold_coarsen.cu"
#ifndef PDCC_THRESHOLD_multiblock_groups_0
#define PDCC_THRESHOLD_multiblock_groups_0 256
#endif
#ifndef PDCC_COARSEN_multiblock_groups_0
#define PDCC_COARSEN_multiblock_groups_0 8
#endif
#ifndef PDCC_POOL_BYTES_multiblock_groups_0
#define PDCC_POOL_BYTES_multiblock_groups_0 67108864
#endif
#ifndef PDCC_RECORDS_multiblock_groups_0
#define PDCC_RECORDS_multiblock_groups_0 0
#endif
#ifndef PDCC_RECORDS_PER_THREAD_multiblock_groups_0
#define PDCC_RECORDS_PER_THREAD_multiblock_groups_0 1
#endif
#ifndef PDCC_GRANULARITY_multiblock_groups_0
#define PDCC_GRANULARITY_multiblock_groups_0 16
#endif
// pdcc: site multiblock_groups_0's groups (multiblock), shared by their blocks
__device__ pdcc::GroupSlot pdcc_groups_multiblock_groups_0[65536];
__shared__ pdcc::GroupSlot* pdcc_group_multiblock_groups_0;
__shared__ int pdcc_flag_multiblock_groups_0;  // this block is its group's last
__device__ pdcc::Pool pdcc_pool_multiblock_groups_0;
__device__ __align__(128) unsigned char pdcc_storage_multiblock_groups_0[PDCC_POOL_BYTES_multiblock_groups_0];
__shared__ unsigned pdcc_scratch_multiblock_groups_0[33];
static __device__ __forceinline__ unsigned pdcc_blocks_per_group_multiblock_groups_0() { return PDCC_GRANULARITY_multiblock_groups_0; }
template <typename Record>
static __device__ bool pdcc_append_multiblock_groups_0(const Record& pdcc_rec)
{
  pdcc::GroupSlot* pdcc_group = pdcc_group_multiblock_groups_0;
  if (pdcc_group == nullptr || pdcc_group->records == nullptr) return false;
  const unsigned pdcc_slot = atomicAdd(&pdcc_group->count, 1u);
  if (pdcc_slot >= pdcc_group->capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_group->records)[pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the block that launches for the group
  return true;
}
#line 31 "aggregate_threshold_coarsen.cu"
static __device__ void multiblock_groups__pdcc_body(float* out, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int w = widths[k], h = heights[k];
// pdcc: #pragma dp threshold(256) coarsen(8) consldt(multiblock(16))
  { // pdcc: site multiblock_groups_0: below PDCC_THRESHOLD_multiblock_groups_0 child threads, run 'tile' here, blocks do PDCC_COARSEN_multiblock_groups_0 original blocks each, aggregated per multiblock
    const auto pdcc_nx = w;
    const auto pdcc_ny = h;
    const dim3 pdcc_grid = dim3((pdcc_nx + 15) / 16, (pdcc_ny + 15) / 16);
    const dim3 pdcc_block = dim3(16, 16);
    if ((unsigned long long)pdcc_nx * pdcc_ny * pdcc_grid.z * pdcc_block.z >= PDCC_THRESHOLD_multiblock_groups_0) {
      const pdcc_record_multiblock_groups_0 pdcc_rec = {out + k * 4096, w, h, pdcc_grid, pdcc_block};
      if (!pdcc_append_multiblock_groups_0(pdcc_rec))  // storage full: launch this one directly
        tile__pdcc_direct_multiblock_groups_0(pdcc_rec, PDCC_COARSEN_multiblock_groups_0);
    } else {
      tile__pdcc_serial(pdcc_grid, pdcc_block, out + k * 4096, w, h);
    }
  }
#line 37 "aggregate_threshold_coarsen.cu"
}
#line 31 "aggregate_threshold_coarsen.cu"

// pdcc: 'multiblock_groups' as launched: its body, then one flush per aggregated site
__global__ void multiblock_groups(float* out, const int* widths, const int* heights, int count)
{
  if (pdcc::linear_thread() == 0u) {  // join this block's group for site multiblock_groups_0
    const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned pdcc_k = pdcc_blocks_per_group_multiblock_groups_0();
    const unsigned pdcc_capacity = pdcc::records_that_fit(
        PDCC_RECORDS_multiblock_groups_0 ? PDCC_RECORDS_multiblock_groups_0 : (unsigned long long)pdcc_k * pdcc::block_threads() * PDCC_RECORDS_PER_THREAD_multiblock_groups_0,
        PDCC_POOL_BYTES_multiblock_groups_0, (pdcc_blocks + pdcc_k - 1) / pdcc_k, 1u, sizeof(pdcc_record_multiblock_groups_0));
    pdcc_group_multiblock_groups_0 = (pdcc_blocks + pdcc_k - 1) / pdcc_k <= sizeof(pdcc_groups_multiblock_groups_0) / sizeof(pdcc::GroupSlot)
        ? pdcc::join_group(pdcc_groups_multiblock_groups_0, pdcc::linear_block() / pdcc_k, pdcc_pool_multiblock_groups_0, pdcc_storage_multiblock_groups_0,
                           PDCC_POOL_BYTES_multiblock_groups_0, pdcc_capacity, sizeof(pdcc_record_multiblock_groups_0))
        : nullptr;  // more groups than slots: every parent launches directly
  }
  __syncthreads();
  multiblock_groups__pdcc_body(out, widths, heights, count);
  { // pdcc: flush site multiblock_groups_0: the last block of each group launches for the whole group
    __threadfence();
    __syncthreads();
    pdcc::GroupSlot* pdcc_slot = pdcc_group_multiblock_groups_0;
    if (pdcc::linear_thread() == 0u) {
      const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
      const unsigned pdcc_k = pdcc_blocks_per_group_multiblock_groups_0(), pdcc_first = pdcc::linear_block() / pdcc_k * pdcc_k;
      const unsigned pdcc_members = min(pdcc_k, pdcc_blocks - pdcc_first);
      pdcc_flag_multiblock_groups_0 = pdcc_slot != nullptr && atomicAdd(&pdcc_slot->blocks_done, 1u) == pdcc_members - 1u;
    }
    __syncthreads();
    if (pdcc_flag_multiblock_groups_0) {
      __threadfence();
      pdcc_record_multiblock_groups_0* pdcc_records = reinterpret_cast<pdcc_record_multiblock_groups_0*>(pdcc_slot->records);
      const unsigned pdcc_capacity = pdcc_slot->capacity;
      unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);
      const unsigned pdcc_n = min(*(volatile unsigned*)&pdcc_slot->count, pdcc_capacity);
      __syncthreads();
      if (pdcc_n >= 1u) {
        unsigned pdcc_widest = 0;
        const unsigned pdcc_total = pdcc::block_scan_records(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_multiblock_groups_0, pdcc_scratch_multiblock_groups_0, &pdcc_widest);
        if (pdcc::linear_thread() == 0u) {
          (void)cudaGetLastError();
          tile__pdcc_agg_multiblock_groups_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_multiblock_groups_0); // pdcc: generated
          for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
            // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
            if (pdcc_wait > 262144u) {
              for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
                tile__pdcc_direct_multiblock_groups_0(pdcc_records[pdcc_i], PDCC_COARSEN_multiblock_groups_0);
              break;
            }
            __nanosleep(pdcc_wait);
            tile__pdcc_agg_multiblock_groups_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, PDCC_COARSEN_multiblock_groups_0); // pdcc: generated
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
          tile__pdcc_direct_multiblock_groups_0(pdcc_records[pdcc_i], PDCC_COARSEN_multiblock_groups_0);
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
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_multiblock_groups_0);
}
#line 38 "aggregate_threshold_coarsen.cu"

#line 11 "aggregate_threshold_coarsen.cu"
#ifndef PDCC_POOL_BYTES_grid_group_0
#define PDCC_POOL_BYTES_grid_group_0 67108864
#endif
#ifndef PDCC_RECORDS_grid_group_0
#define PDCC_RECORDS_grid_group_0 0
#endif
#ifndef PDCC_RECORDS_PER_THREAD_grid_group_0
#define PDCC_RECORDS_PER_THREAD_grid_group_0 1
#endif
// pdcc: site grid_group_0's groups (grid), shared by their blocks
__device__ pdcc::GroupSlot pdcc_groups_grid_group_0[1];
__shared__ pdcc::GroupSlot* pdcc_group_grid_group_0;
__shared__ int pdcc_flag_grid_group_0;  // this block is its group's last
__device__ pdcc::Pool pdcc_pool_grid_group_0;
__device__ __align__(128) unsigned char pdcc_storage_grid_group_0[PDCC_POOL_BYTES_grid_group_0];
__shared__ unsigned pdcc_scratch_grid_group_0[33];
static __device__ __forceinline__ unsigned pdcc_blocks_per_group_grid_group_0() { return gridDim.x * gridDim.y * gridDim.z; }
template <typename Record>
static __device__ bool pdcc_append_grid_group_0(const Record& pdcc_rec)
{
  pdcc::GroupSlot* pdcc_group = pdcc_group_grid_group_0;
  if (pdcc_group == nullptr || pdcc_group->records == nullptr) return false;
  const unsigned pdcc_slot = atomicAdd(&pdcc_group->count, 1u);
  if (pdcc_slot >= pdcc_group->capacity) return false;  // full: the caller launches directly
  reinterpret_cast<Record*>(pdcc_group->records)[pdcc_slot] = pdcc_rec;
  __threadfence();  // visible to the block that launches for the group
  return true;
}
static __device__ void grid_group__pdcc_body(float* out, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
// pdcc: #pragma dp consldt(grid)
  { // pdcc: site grid_group_0: aggregated per grid
    const dim3 pdcc_grid = dim3((widths[k] + 15) / 16, (heights[k] + 15) / 16);
    const dim3 pdcc_block = dim3(16, 16);
    const pdcc_record_grid_group_0 pdcc_rec = {out + k * 4096, widths[k], heights[k], pdcc_grid, pdcc_block};
    if (!pdcc_append_grid_group_0(pdcc_rec))  // storage full: launch this one directly
      tile__pdcc_direct_grid_group_0(pdcc_rec, 1);
  }
#line 44 "aggregate_threshold_coarsen.cu"
}
#line 39 "aggregate_threshold_coarsen.cu"

// pdcc: 'grid_group' as launched: its body, then one flush per aggregated site
__global__ void grid_group(float* out, const int* widths, const int* heights, int count)
{
  if (pdcc::linear_thread() == 0u) {  // join this block's group for site grid_group_0
    const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
    const unsigned pdcc_k = pdcc_blocks_per_group_grid_group_0();
    const unsigned pdcc_capacity = pdcc::records_that_fit(
        PDCC_RECORDS_grid_group_0 ? PDCC_RECORDS_grid_group_0 : (unsigned long long)pdcc_k * pdcc::block_threads() * PDCC_RECORDS_PER_THREAD_grid_group_0,
        PDCC_POOL_BYTES_grid_group_0, (pdcc_blocks + pdcc_k - 1) / pdcc_k, 1u, sizeof(pdcc_record_grid_group_0));
    pdcc_group_grid_group_0 = (pdcc_blocks + pdcc_k - 1) / pdcc_k <= sizeof(pdcc_groups_grid_group_0) / sizeof(pdcc::GroupSlot)
        ? pdcc::join_group(pdcc_groups_grid_group_0, pdcc::linear_block() / pdcc_k, pdcc_pool_grid_group_0, pdcc_storage_grid_group_0,
                           PDCC_POOL_BYTES_grid_group_0, pdcc_capacity, sizeof(pdcc_record_grid_group_0))
        : nullptr;  // more groups than slots: every parent launches directly
  }
  __syncthreads();
  grid_group__pdcc_body(out, widths, heights, count);
  { // pdcc: flush site grid_group_0: the last block of each group launches for the whole group
    __threadfence();
    __syncthreads();
    pdcc::GroupSlot* pdcc_slot = pdcc_group_grid_group_0;
    if (pdcc::linear_thread() == 0u) {
      const unsigned pdcc_blocks = gridDim.x * gridDim.y * gridDim.z;
      const unsigned pdcc_k = pdcc_blocks_per_group_grid_group_0(), pdcc_first = pdcc::linear_block() / pdcc_k * pdcc_k;
      const unsigned pdcc_members = min(pdcc_k, pdcc_blocks - pdcc_first);
      pdcc_flag_grid_group_0 = pdcc_slot != nullptr && atomicAdd(&pdcc_slot->blocks_done, 1u) == pdcc_members - 1u;
    }
    __syncthreads();
    if (pdcc_flag_grid_group_0) {
      __threadfence();
      pdcc_record_grid_group_0* pdcc_records = reinterpret_cast<pdcc_record_grid_group_0*>(pdcc_slot->records);
      const unsigned pdcc_capacity = pdcc_slot->capacity;
      unsigned* pdcc_ends = reinterpret_cast<unsigned*>(pdcc_records + pdcc_capacity);
      const unsigned pdcc_n = min(*(volatile unsigned*)&pdcc_slot->count, pdcc_capacity);
      __syncthreads();
      if (pdcc_n >= 1u) {
        unsigned pdcc_widest = 0;
        const unsigned pdcc_total = pdcc::block_scan_records(pdcc_records, pdcc_ends, pdcc_n, 1, pdcc_scratch_grid_group_0, &pdcc_widest);
        if (pdcc::linear_thread() == 0u) {
          (void)cudaGetLastError();
          tile__pdcc_agg_grid_group_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1); // pdcc: generated
          for (unsigned int pdcc_wait = 64; cudaGetLastError() != cudaSuccess; pdcc_wait *= 2) {
            // the aggregated launch failed (pending-launch pool full?): let launches drain and retry, at last launch each record on its own
            if (pdcc_wait > 262144u) {
              for (unsigned pdcc_i = 0; pdcc_i < pdcc_n; ++pdcc_i)
                tile__pdcc_direct_grid_group_0(pdcc_records[pdcc_i], 1);
              break;
            }
            __nanosleep(pdcc_wait);
            tile__pdcc_agg_grid_group_0<<<pdcc_total, pdcc_widest>>>(pdcc_records, pdcc_ends, pdcc_n, 1); // pdcc: generated
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
          tile__pdcc_direct_grid_group_0(pdcc_records[pdcc_i], 1);
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
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(pdcc_pool_grid_group_0);
}
