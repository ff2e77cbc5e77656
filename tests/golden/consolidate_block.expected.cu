#line 1 "consolidate_block.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "consolidate_block.cu"
// Consolidation of a recursive tree traversal at block granularity, in the seed's own form
// (consldt(block) buffer(default, 256) work(c)): a grid handles the children of one node, and a child with
// children of its own launches the kernel over them. The pointers pass on unchanged, the node varies.
#line 1 "consolidate_block.cu"
static __global__ void __launch_bounds__(1024) traverse__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum, int node);
static __device__ void traverse__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum, int node);
#ifndef PDCC_POOL_BYTES_traverse_0
#define PDCC_POOL_BYTES_traverse_0 67108864
#endif
#ifndef PDCC_BUFFER_traverse_0
#define PDCC_BUFFER_traverse_0 256
#endif
#ifndef PDCC_THREADS_traverse_0
#define PDCC_THREADS_traverse_0 128
#endif
#ifndef PDCC_BLOCKS_traverse_0
#define PDCC_BLOCKS_traverse_0 0
#endif
// pdcc: the work items of 'traverse', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<pdcc::Uniform, pdcc::Uniform, pdcc::Uniform, pdcc::Uniform, pdcc::Uniform, int>, PDCC_POOL_BYTES_traverse_0, pdcc::kBlockGroups, PDCC_BUFFER_traverse_0, false, false, true> pdcc_queue_traverse;
#line 4 "consolidate_block.cu"
static __device__ void traverse__pdcc_body(const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum,
                         int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  path_sum[c] = path_sum[node] + value[c];
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    // pdcc: #pragma dp consldt(block) buffer(default, 256) work(c)
    { // pdcc: site traverse_0: consolidated per block
      const dim3 pdcc_grid = (nchild + 127) / 128;
      const dim3 pdcc_block = 128;
      pdcc_queue_traverse.append_packed(pdcc_queue_traverse.first_level(), traverse__pdcc_direct, traverse__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, value, depth, path_sum, c);
    }
#line 16 "consolidate_block.cu"
  }
}
#line 3 "consolidate_block.cu"

// pdcc: the body of 'traverse' for one (block, thread) of a work item, appending at its level
static __device__ void traverse__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  path_sum[c] = path_sum[node] + value[c];
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    // pdcc: #pragma dp consldt(block) buffer(default, 256) work(c)
    { // pdcc: site traverse_0: consolidated per block
      const dim3 pdcc_grid = (nchild + 127) / 128;
      const dim3 pdcc_block = 128;
      pdcc_queue_traverse.append_packed(pdcc_level, traverse__pdcc_direct, traverse__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, value, depth, path_sum, c);
    }
#line 16 "consolidate_block.cu"
  }
}
#line 3 "consolidate_block.cu"

// pdcc: the threads of an item of 'traverse' that get past its guard at line 8, counted at the append: only those run
static __device__ void traverse__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum, int node) {
#line 7 "consolidate_block.cu"
  int first = child_ptr[node];
  const auto pdcc_bound = child_ptr[node + 1] - first;
  pdcc_threads = pdcc::threads_before(pdcc_threads, [&](int i) { return i >= pdcc_bound; });
#line 17 "consolidate_block.cu"
}
#line 4 "consolidate_block.cu"

// pdcc: one work item of 'traverse' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) traverse__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum, int node)
{
  pdcc::launch_started();
  traverse__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, child_ptr, children, value, depth, path_sum, node);
}

// pdcc: the consumer of 'traverse': the items appended at the level before, several items' live threads per block, level after level while they are few (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) traverse__pdcc_level(pdcc::Level pdcc_level, const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum)
{
  for (;;) {
    pdcc_queue_traverse.run_level_packed(pdcc_level, traverse__pdcc_item, child_ptr, children, value, depth, path_sum);
    if (!pdcc_queue_traverse.next_level(pdcc_level, PDCC_THREADS_traverse_0, PDCC_BLOCKS_traverse_0, pdcc::level_launch(traverse__pdcc_level, child_ptr, children, value, depth, path_sum))) return;
  }
}

// pdcc: 'traverse' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) traverse(const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum, int node)
{
  traverse__pdcc_body(child_ptr, children, value, depth, path_sum, node);
  pdcc_queue_traverse.level_done(pdcc_queue_traverse.first_level(), PDCC_THREADS_traverse_0, PDCC_BLOCKS_traverse_0, pdcc::level_launch(traverse__pdcc_level, child_ptr, children, value, depth, path_sum));
}
