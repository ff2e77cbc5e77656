#line 1 "consolidate_warp.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "consolidate_warp.cu"
// Consolidation at warp granularity without other clauses: a recursive binary split (quicksort's shape)
// whose two launches of one thread each make it a thread per item; the work item is every argument
// that varies (lo, hi); the partition in a device function of the file takes its arguments by value.
__device__ int partition(float* data, int lo, int hi) {
  float pivot = data[hi];
  int store = lo;
  for (int k = lo; k < hi; ++k)
    if (data[k] < pivot) {
      float t = data[k]; data[k] = data[store]; data[store] = t;
      ++store;
    }
  float t = data[hi]; data[hi] = data[store]; data[store] = t;
  return store;
}

#line 1 "consolidate_warp.cu"
static __global__ void __launch_bounds__(1024) split__pdcc_direct(const pdcc::Level pdcc_level, float* data, int lo, int hi, int cutoff);
#ifndef PDCC_POOL_BYTES_split_0
#define PDCC_POOL_BYTES_split_0 67108864
#endif
#ifndef PDCC_BUFFER_split_0
#define PDCC_BUFFER_split_0 0
#endif
#ifndef PDCC_THREADS_split_0
#define PDCC_THREADS_split_0 256
#endif
#ifndef PDCC_BLOCKS_split_0
#define PDCC_BLOCKS_split_0 0
#endif
// pdcc: the work items of 'split', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<pdcc::Uniform, int, int, pdcc::Uniform>, PDCC_POOL_BYTES_split_0, pdcc::kWarpGroups, PDCC_BUFFER_split_0, true> pdcc_queue_split;
static __device__ void split__pdcc_body(float* data, int lo, int hi, int cutoff) {
  if (hi - lo < cutoff) {
    for (int k = lo + 1; k <= hi; ++k)  // a simple sort below the cutoff
      for (int j = k; j > lo && data[j - 1] > data[j]; --j) {
        float t = data[j]; data[j] = data[j - 1]; data[j - 1] = t;
      }
    return;
  }
  int p = partition(data, lo, hi);
  // pdcc: #pragma dp consldt(warp)
  { // pdcc: site split_0: consolidated per warp
    const dim3 pdcc_grid = 1;
    const dim3 pdcc_block = 1;
    pdcc_queue_split.append(pdcc_queue_split.first_level(), split__pdcc_direct, pdcc_grid, pdcc_block, data, lo, p - 1, cutoff);
  }
#line 27 "consolidate_warp.cu"
  // pdcc: #pragma dp consldt(warp)
  { // pdcc: site split_1: consolidated per warp
    const dim3 pdcc_grid = 1;
    const dim3 pdcc_block = 1;
    pdcc_queue_split.append(pdcc_queue_split.first_level(), split__pdcc_direct, pdcc_grid, pdcc_block, data, p + 1, hi, cutoff);
  }
#line 29 "consolidate_warp.cu"
}
#line 14 "consolidate_warp.cu"

// pdcc: the body of 'split' for one (block, thread) of a work item, appending at its level
static __device__ void split__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, float* data, int lo, int hi, int cutoff) {
  if (hi - lo < cutoff) {
    for (int k = lo + 1; k <= hi; ++k)  // a simple sort below the cutoff
      for (int j = k; j > lo && data[j - 1] > data[j]; --j) {
        float t = data[j]; data[j] = data[j - 1]; data[j - 1] = t;
      }
    return;
  }
  int p = partition(data, lo, hi);
  // pdcc: #pragma dp consldt(warp)
  { // pdcc: site split_0: consolidated per warp
    const dim3 pdcc_grid = 1;
    const dim3 pdcc_block = 1;
    pdcc_queue_split.append(pdcc_level, split__pdcc_direct, pdcc_grid, pdcc_block, data, lo, p - 1, cutoff);
  }
#line 27 "consolidate_warp.cu"
  // pdcc: #pragma dp consldt(warp)
  { // pdcc: site split_1: consolidated per warp
    const dim3 pdcc_grid = 1;
    const dim3 pdcc_block = 1;
    pdcc_queue_split.append(pdcc_level, split__pdcc_direct, pdcc_grid, pdcc_block, data, p + 1, hi, cutoff);
  }
#line 29 "consolidate_warp.cu"
}
#line 16 "consolidate_warp.cu"

// pdcc: one work item of 'split' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) split__pdcc_direct(const pdcc::Level pdcc_level, float* data, int lo, int hi, int cutoff)
{
  pdcc::launch_started();
  split__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, data, lo, hi, cutoff);
}

// pdcc: the consumer of 'split': the items appended at the level before, a thread per item, level after level while they are few (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) split__pdcc_level(pdcc::Level pdcc_level, float* data, int cutoff)
{
  for (;;) {
    pdcc_queue_split.run_level(pdcc_level, split__pdcc_item, data, cutoff);
    if (!pdcc_queue_split.next_level(pdcc_level, PDCC_THREADS_split_0, PDCC_BLOCKS_split_0, pdcc::level_launch(split__pdcc_level, data, cutoff))) return;
  }
}

// pdcc: 'split' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) split(float* data, int lo, int hi, int cutoff)
{
  split__pdcc_body(data, lo, hi, cutoff);
  pdcc_queue_split.level_done(pdcc_queue_split.first_level(), PDCC_THREADS_split_0, PDCC_BLOCKS_split_0, pdcc::level_launch(split__pdcc_level, data, cutoff));
}
