#line 1 "consolidate_as_launched.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "consolidate_as_launched.cu"
// A recursion whose threads cooperate: each block reverses a tile of 32 floats through shared memory, with
// a barrier between the loads and the stores, and launches itself on the next tile. Every launch gives the
// same block size (kTile), so pdcc consolidates it with consumer blocks of that size, each running one
// block of an item as it was launched.
constexpr int kTile = 32;

#line 1 "consolidate_as_launched.cu"
static __global__ void __launch_bounds__(1024) reverse_tiles__pdcc_direct(const pdcc::Level pdcc_level, float* data, int n);
#ifndef PDCC_POOL_BYTES_reverse_tiles_0
#define PDCC_POOL_BYTES_reverse_tiles_0 67108864
#endif
#ifndef PDCC_BUFFER_reverse_tiles_0
#define PDCC_BUFFER_reverse_tiles_0 0
#endif
#ifndef PDCC_BLOCKS_reverse_tiles_0
#define PDCC_BLOCKS_reverse_tiles_0 0
#endif
// pdcc: the work items of 'reverse_tiles', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<float*, int>, PDCC_POOL_BYTES_reverse_tiles_0, pdcc::kBlockGroups, PDCC_BUFFER_reverse_tiles_0, false, true> pdcc_queue_reverse_tiles;
#line 7 "consolidate_as_launched.cu"
static __device__ void reverse_tiles__pdcc_body(float* data, int n) {
  __shared__ float tile[kTile];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[kTile - 1 - threadIdx.x];
  if (n > kTile) {
    // pdcc: #pragma dp consldt(block)
    { // pdcc: site reverse_tiles_0: consolidated per block
      const dim3 pdcc_grid = 1;
      const dim3 pdcc_block = kTile;
      pdcc_queue_reverse_tiles.append(pdcc_queue_reverse_tiles.first_level(), reverse_tiles__pdcc_direct, pdcc_grid, pdcc_block, data + kTile, n - kTile);
    }
#line 15 "consolidate_as_launched.cu"
  }
}
#line 5 "consolidate_as_launched.cu"

// pdcc: the body of 'reverse_tiles' for one (block, thread) of a work item, appending at its level
static __device__ void reverse_tiles__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, float* data, int n) {
  __shared__ float tile[kTile];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[kTile - 1 - threadIdx.x];
  if (n > kTile) {
    // pdcc: #pragma dp consldt(block)
    { // pdcc: site reverse_tiles_0: consolidated per block
      const dim3 pdcc_grid = 1;
      const dim3 pdcc_block = kTile;
      pdcc_queue_reverse_tiles.append(pdcc_level, reverse_tiles__pdcc_direct, pdcc_grid, pdcc_block, data + kTile, n - kTile);
    }
#line 15 "consolidate_as_launched.cu"
  }
}
#line 7 "consolidate_as_launched.cu"

// pdcc: one work item of 'reverse_tiles' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) reverse_tiles__pdcc_direct(const pdcc::Level pdcc_level, float* data, int n)
{
  pdcc::launch_started();
  reverse_tiles__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, data, n);
}

// pdcc: the consumer of 'reverse_tiles': the items appended at the level before, each block of an item as launched (kTile threads) in a block per item, level after level while they are few (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) reverse_tiles__pdcc_level(pdcc::Level pdcc_level)
{
  for (;;) {
    pdcc_queue_reverse_tiles.run_level(pdcc_level, reverse_tiles__pdcc_item);
    if (!pdcc_queue_reverse_tiles.next_level(pdcc_level, kTile, PDCC_BLOCKS_reverse_tiles_0, pdcc::level_launch(reverse_tiles__pdcc_level))) return;
  }
}

// pdcc: 'reverse_tiles' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) reverse_tiles(float* data, int n)
{
  reverse_tiles__pdcc_body(data, n);
  pdcc_queue_reverse_tiles.level_done(pdcc_queue_reverse_tiles.first_level(), kTile, PDCC_BLOCKS_reverse_tiles_0, pdcc::level_launch(reverse_tiles__pdcc_level));
}
