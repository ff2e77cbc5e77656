#line 1 "consolidate_grid.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "consolidate_grid.cu"
// Consolidation at grid granularity with the consumer's configuration given (threads, blocks) and a
// work item named by work(...): a recursion over intervals, a block of 32 threads per item, each level
// halving the interval; `level + 1` varies too, so it is part of the item. A value may be a macro.
#define PDCC_HALVE_BLOCKS 8

#line 1 "consolidate_grid.cu"
static __global__ void __launch_bounds__(1024) halve__pdcc_direct(const pdcc::Level pdcc_level, unsigned long long* visits, int begin, int end, int level);
#ifndef PDCC_POOL_BYTES_halve_0
#define PDCC_POOL_BYTES_halve_0 67108864
#endif
#ifndef PDCC_BUFFER_halve_0
#define PDCC_BUFFER_halve_0 0
#endif
#ifndef PDCC_THREADS_halve_0
#define PDCC_THREADS_halve_0 64
#endif
#ifndef PDCC_BLOCKS_halve_0
#define PDCC_BLOCKS_halve_0 PDCC_HALVE_BLOCKS
#endif
// pdcc: the work items of 'halve', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<pdcc::Uniform, int, int, int>, PDCC_POOL_BYTES_halve_0, pdcc::kGridGroup, PDCC_BUFFER_halve_0, false> pdcc_queue_halve;
#line 6 "consolidate_grid.cu"
static __device__ void halve__pdcc_body(unsigned long long* visits, int begin, int end, int level) {
  if (threadIdx.x == 0) atomicAdd(visits + level, 1ull);
  int middle = begin + (end - begin) / 2;
  if (end - begin > 1 && threadIdx.x < 2) {
    int from = threadIdx.x == 0 ? begin : middle, to = threadIdx.x == 0 ? middle : end;
    // pdcc: #pragma dp consldt(grid) threads(64) blocks(PDCC_HALVE_BLOCKS) work(from, to)
    { // pdcc: site halve_0: consolidated per grid
      const dim3 pdcc_grid = 1;
      const dim3 pdcc_block = 32;
      pdcc_queue_halve.append(pdcc_queue_halve.first_level(), halve__pdcc_direct, pdcc_grid, pdcc_block, visits, from, to, level + 1);
    }
#line 13 "consolidate_grid.cu"
  }
}
#line 4 "consolidate_grid.cu"

// pdcc: the body of 'halve' for one (block, thread) of a work item, appending at its level
static __device__ void halve__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, unsigned long long* visits, int begin, int end, int level) {
  if (threadIdx.x == 0) atomicAdd(visits + level, 1ull);
  int middle = begin + (end - begin) / 2;
  if (end - begin > 1 && threadIdx.x < 2) {
    int from = threadIdx.x == 0 ? begin : middle, to = threadIdx.x == 0 ? middle : end;
    // pdcc: #pragma dp consldt(grid) threads(64) blocks(PDCC_HALVE_BLOCKS) work(from, to)
    { // pdcc: site halve_0: consolidated per grid
      const dim3 pdcc_grid = 1;
      const dim3 pdcc_block = 32;
      pdcc_queue_halve.append(pdcc_level, halve__pdcc_direct, pdcc_grid, pdcc_block, visits, from, to, level + 1);
    }
#line 13 "consolidate_grid.cu"
  }
}
#line 6 "consolidate_grid.cu"

// pdcc: one work item of 'halve' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) halve__pdcc_direct(const pdcc::Level pdcc_level, unsigned long long* visits, int begin, int end, int level)
{
  pdcc::launch_started();
  halve__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, visits, begin, end, level);
}

// pdcc: the consumer of 'halve': the items appended at the level before, a block per item, level after level while they are few (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) halve__pdcc_level(pdcc::Level pdcc_level, unsigned long long* visits)
{
  for (;;) {
    pdcc_queue_halve.run_level(pdcc_level, halve__pdcc_item, visits);
    if (!pdcc_queue_halve.next_level(pdcc_level, PDCC_THREADS_halve_0, PDCC_BLOCKS_halve_0, pdcc::level_launch(halve__pdcc_level, visits))) return;
  }
}

// pdcc: 'halve' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) halve(unsigned long long* visits, int begin, int end, int level)
{
  halve__pdcc_body(visits, begin, end, level);
  pdcc_queue_halve.level_done(pdcc_queue_halve.first_level(), PDCC_THREADS_halve_0, PDCC_BLOCKS_halve_0, pdcc::level_launch(halve__pdcc_level, visits));
}
