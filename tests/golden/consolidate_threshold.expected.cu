#line 1 "consolidate_threshold.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "consolidate_threshold.cu"
// Thresholding composed with consolidation (issue 11 item 6): descendant counts on a tree, a grid over the
// children of one node. A node with many children becomes a work item of the next level; one with fewer
// than 64 runs here, in the thread that would have appended it, through a leaf copy of the body whose own
// launches are all appended (so serial runs never nest). Warp groups; two sites share the queue, the one
// for wide nodes without a threshold.
#line 1 "consolidate_threshold.cu"
static __global__ void __launch_bounds__(1024) descend__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, int* count, int node, int weight);
static __device__ void descend__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, int* count, int node, int weight);
static __device__ __noinline__ void descend__pdcc_serial(const pdcc::Level pdcc_level, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, const int* child_ptr, const int* children, int* count, int node, int weight);
#ifndef PDCC_POOL_BYTES_descend_0
#define PDCC_POOL_BYTES_descend_0 67108864
#endif
#ifndef PDCC_BUFFER_descend_0
#define PDCC_BUFFER_descend_0 0
#endif
#ifndef PDCC_THREADS_descend_0
#define PDCC_THREADS_descend_0 256
#endif
#ifndef PDCC_BLOCKS_descend_0
#define PDCC_BLOCKS_descend_0 0
#endif
#ifndef PDCC_THRESHOLD_descend_1
#define PDCC_THRESHOLD_descend_1 64
#endif
// pdcc: the work items of 'descend', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<pdcc::Uniform, pdcc::Uniform, pdcc::Uniform, int, int>, PDCC_POOL_BYTES_descend_0, pdcc::kWarpGroups, PDCC_BUFFER_descend_0, false, false, true> pdcc_queue_descend;
#line 6 "consolidate_threshold.cu"
static __device__ void descend__pdcc_body(const int* child_ptr, const int* children, int* count, int node, int weight) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  atomicAdd(&count[node], weight);
  int fan = child_ptr[c + 1] - child_ptr[c];
  if (fan > 1000) {
    // pdcc: #pragma dp consldt(warp) work(c, weight)
    { // pdcc: site descend_0: consolidated per warp
      const dim3 pdcc_grid = (fan + 255) / 256;
      const dim3 pdcc_block = 256;
      pdcc_queue_descend.append_packed(pdcc_queue_descend.first_level(), descend__pdcc_direct, descend__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, count, c, weight + 1);
    }
#line 16 "consolidate_threshold.cu"
  } else if (fan > 0) {
    // pdcc: #pragma dp threshold(64) consldt(warp) work(c, weight)
    { // pdcc: site descend_1: below PDCC_THRESHOLD_descend_1 child threads, run 'descend' here, consolidated per warp
      const auto pdcc_n = fan;
      const dim3 pdcc_grid = (pdcc_n + 31) / 32;
      const dim3 pdcc_block = 32;
      if (pdcc_n >= PDCC_THRESHOLD_descend_1) {
        pdcc_queue_descend.append_packed(pdcc_queue_descend.first_level(), descend__pdcc_direct, descend__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, count, c, weight);
      } else {
        descend__pdcc_serial(pdcc_queue_descend.first_level(), pdcc_grid, pdcc_block, child_ptr, children, count, c, weight);
      }
    }
#line 19 "consolidate_threshold.cu"
  }
}
#line 4 "consolidate_threshold.cu"

// pdcc: the body of 'descend' for one (block, thread) of a work item, run in the launching thread (a small item), appending every launch at its level
static __device__ void descend__pdcc_leaf(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, const int* child_ptr, const int* children, int* count, int node, int weight) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  atomicAdd(&count[node], weight);
  int fan = child_ptr[c + 1] - child_ptr[c];
  if (fan > 1000) {
    // pdcc: #pragma dp consldt(warp) work(c, weight)
    { // pdcc: site descend_0: consolidated per warp (in a small item run here: appended whatever its size)
      const dim3 pdcc_grid = (fan + 255) / 256;
      const dim3 pdcc_block = 256;
      pdcc_queue_descend.append_packed(pdcc_level, descend__pdcc_direct, descend__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, count, c, weight + 1);
    }
#line 16 "consolidate_threshold.cu"
  } else if (fan > 0) {
    // pdcc: #pragma dp threshold(64) consldt(warp) work(c, weight)
    { // pdcc: site descend_1: consolidated per warp (in a small item run here: appended whatever its size)
      const auto pdcc_n = fan;
      const dim3 pdcc_grid = (pdcc_n + 31) / 32;
      const dim3 pdcc_block = 32;
      pdcc_queue_descend.append_packed(pdcc_level, descend__pdcc_direct, descend__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, count, c, weight);
    }
#line 19 "consolidate_threshold.cu"
  }
}
#line 6 "consolidate_threshold.cu"

// pdcc: every thread of a small item of 'descend', one after another, in the thread that would have appended it
static __device__ __noinline__ void descend__pdcc_serial(const pdcc::Level pdcc_level, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, const int* child_ptr, const int* children, int* count, int node, int weight)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      descend__pdcc_leaf(pdcc_level, make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, child_ptr, children, count, node, weight);
  }
}
#line 4 "consolidate_threshold.cu"

// pdcc: the body of 'descend' for one (block, thread) of a work item, appending at its level
static __device__ void descend__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, const int* child_ptr, const int* children, int* count, int node, int weight) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  atomicAdd(&count[node], weight);
  int fan = child_ptr[c + 1] - child_ptr[c];
  if (fan > 1000) {
    // pdcc: #pragma dp consldt(warp) work(c, weight)
    { // pdcc: site descend_0: consolidated per warp
      const dim3 pdcc_grid = (fan + 255) / 256;
      const dim3 pdcc_block = 256;
      pdcc_queue_descend.append_packed(pdcc_level, descend__pdcc_direct, descend__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, count, c, weight + 1);
    }
#line 16 "consolidate_threshold.cu"
  } else if (fan > 0) {
    // pdcc: #pragma dp threshold(64) consldt(warp) work(c, weight)
    { // pdcc: site descend_1: below PDCC_THRESHOLD_descend_1 child threads, run 'descend' here, consolidated per warp
      const auto pdcc_n = fan;
      const dim3 pdcc_grid = (pdcc_n + 31) / 32;
      const dim3 pdcc_block = 32;
      if (pdcc_n >= PDCC_THRESHOLD_descend_1) {
        pdcc_queue_descend.append_packed(pdcc_level, descend__pdcc_direct, descend__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, count, c, weight);
      } else {
        descend__pdcc_serial(pdcc_level, pdcc_grid, pdcc_block, child_ptr, children, count, c, weight);
      }
    }
#line 19 "consolidate_threshold.cu"
  }
}
#line 4 "consolidate_threshold.cu"

// pdcc: the threads of an item of 'descend' that get past its guard at line 9, counted at the append: only those run
static __device__ void descend__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, int* count, int node, int weight) {
#line 8 "consolidate_threshold.cu"
  int first = child_ptr[node];
  const auto pdcc_bound = child_ptr[node + 1] - first;
  pdcc_threads = pdcc::threads_before(pdcc_threads, [&](int i) { return i >= pdcc_bound; });
#line 20 "consolidate_threshold.cu"
}
#line 6 "consolidate_threshold.cu"

// pdcc: one work item of 'descend' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) descend__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, int* count, int node, int weight)
{
  pdcc::launch_started();
  descend__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, child_ptr, children, count, node, weight);
}

// pdcc: the consumer of 'descend': the items appended at the level before, several items' live threads per block, level after level while they are few (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) descend__pdcc_level(pdcc::Level pdcc_level, const int* child_ptr, const int* children, int* count)
{
  for (;;) {
    pdcc_queue_descend.run_level_packed(pdcc_level, descend__pdcc_item, child_ptr, children, count);
    if (!pdcc_queue_descend.next_level(pdcc_level, PDCC_THREADS_descend_0, PDCC_BLOCKS_descend_0, pdcc::level_launch(descend__pdcc_level, child_ptr, children, count))) return;
  }
}

// pdcc: 'descend' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) descend(const int* child_ptr, const int* children, int* count, int node, int weight)
{
  descend__pdcc_body(child_ptr, children, count, node, weight);
  pdcc_queue_descend.level_done(pdcc_queue_descend.first_level(), PDCC_THREADS_descend_0, PDCC_BLOCKS_descend_0, pdcc::level_launch(descend__pdcc_level, child_ptr, children, count));
}
