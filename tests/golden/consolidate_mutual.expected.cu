#line 1 "consolidate_mutual.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "consolidate_mutual.cu"
// Mutual recursion: a tree walked by two kernels, one for the nodes of even depth and one for those of
// odd depth (the odd levels also weigh each node). Each launches the other over a node's children; both
// launches are consolidated together: one queue per kernel, one consumer per level for both.
__global__ void visit_odd(const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node);

#line 1 "consolidate_mutual.cu"
static __global__ void __launch_bounds__(1024) visit_even__pdcc_level(pdcc::Level pdcc_level);
static __global__ void __launch_bounds__(1024) visit_even__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, int* depth, float* weight, int node);
static __device__ void visit_even__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, int* depth, float* weight, int node);
static __global__ void __launch_bounds__(1024) visit_odd__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node);
static __device__ void visit_odd__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node);
#ifndef PDCC_POOL_BYTES_visit_even_0
#define PDCC_POOL_BYTES_visit_even_0 67108864
#endif
#ifndef PDCC_BUFFER_visit_even_0
#define PDCC_BUFFER_visit_even_0 256
#endif
#ifndef PDCC_THREADS_visit_even_0
#define PDCC_THREADS_visit_even_0 128
#endif
#ifndef PDCC_BLOCKS_visit_even_0
#define PDCC_BLOCKS_visit_even_0 0
#endif
// pdcc: the work items of 'visit_even', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<const int*, const int*, int*, float*, int>, PDCC_POOL_BYTES_visit_even_0, pdcc::kBlockGroups, PDCC_BUFFER_visit_even_0, false, false, true> pdcc_queue_visit_even;
// pdcc: the work items of 'visit_odd', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<const int*, const int*, int*, float*, float, int>, PDCC_POOL_BYTES_visit_even_0, pdcc::kBlockGroups, PDCC_BUFFER_visit_even_0, false, false, true> pdcc_queue_visit_odd;
#line 6 "consolidate_mutual.cu"
static __device__ void visit_even__pdcc_body(const int* child_ptr, const int* children, int* depth, float* weight, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    // pdcc: #pragma dp consldt(block) buffer(default, 256) work(c)
    { // pdcc: site visit_even_0: consolidated per block
      const dim3 pdcc_grid = (nchild + 127) / 128;
      const dim3 pdcc_block = 128;
      pdcc_queue_visit_odd.append_packed(pdcc_queue_visit_even.first_level(), visit_odd__pdcc_direct, visit_odd__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, depth, weight, 0.5f, c);
    }
#line 16 "consolidate_mutual.cu"
  }
}
#line 4 "consolidate_mutual.cu"

// pdcc: the body of 'visit_even' for one (block, thread) of a work item, appending at its level
static __device__ void visit_even__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, const int* child_ptr, const int* children, int* depth, float* weight, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    // pdcc: #pragma dp consldt(block) buffer(default, 256) work(c)
    { // pdcc: site visit_even_0: consolidated per block
      const dim3 pdcc_grid = (nchild + 127) / 128;
      const dim3 pdcc_block = 128;
      pdcc_queue_visit_odd.append_packed(pdcc_level, visit_odd__pdcc_direct, visit_odd__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, depth, weight, 0.5f, c);
    }
#line 16 "consolidate_mutual.cu"
  }
}
#line 4 "consolidate_mutual.cu"

// pdcc: the threads of an item of 'visit_even' that get past its guard at line 9, counted at the append: only those run
static __device__ void visit_even__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, int* depth, float* weight, int node) {
#line 8 "consolidate_mutual.cu"
  int first = child_ptr[node];
  const auto pdcc_bound = child_ptr[node + 1] - first;
  pdcc_threads = pdcc::threads_before(pdcc_threads, [&](int i) { return i >= pdcc_bound; });
#line 17 "consolidate_mutual.cu"
}
#line 6 "consolidate_mutual.cu"

// pdcc: one work item of 'visit_even' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) visit_even__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, int* depth, float* weight, int node)
{
  pdcc::launch_started();
  visit_even__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, child_ptr, children, depth, weight, node);
}

// pdcc: 'visit_even' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) visit_even(const int* child_ptr, const int* children, int* depth, float* weight, int node)
{
  visit_even__pdcc_body(child_ptr, children, depth, weight, node);
  pdcc_queue_visit_even.level_done(pdcc_queue_visit_even.first_level(), PDCC_THREADS_visit_even_0, PDCC_BLOCKS_visit_even_0, pdcc::level_launch(visit_even__pdcc_level), pdcc_queue_visit_odd);
}
#line 18 "consolidate_mutual.cu"

static __device__ void visit_odd__pdcc_body(const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  weight[c] = weight[node] * scale;
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    // pdcc: #pragma dp consldt(block)
    { // pdcc: site visit_odd_0: consolidated per block
      const dim3 pdcc_grid = (nchild + 127) / 128;
      const dim3 pdcc_block = 128;
      pdcc_queue_visit_even.append_packed(pdcc_queue_visit_even.first_level(), visit_even__pdcc_direct, visit_even__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, depth, weight, c);
    }
#line 30 "consolidate_mutual.cu"
  }
}
#line 17 "consolidate_mutual.cu"

// pdcc: the body of 'visit_odd' for one (block, thread) of a work item, appending at its level
static __device__ void visit_odd__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  weight[c] = weight[node] * scale;
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    // pdcc: #pragma dp consldt(block)
    { // pdcc: site visit_odd_0: consolidated per block
      const dim3 pdcc_grid = (nchild + 127) / 128;
      const dim3 pdcc_block = 128;
      pdcc_queue_visit_even.append_packed(pdcc_level, visit_even__pdcc_direct, visit_even__pdcc_live, pdcc_grid, pdcc_block, child_ptr, children, depth, weight, c);
    }
#line 30 "consolidate_mutual.cu"
  }
}
#line 17 "consolidate_mutual.cu"

// pdcc: the threads of an item of 'visit_odd' that get past its guard at line 22, counted at the append: only those run
static __device__ void visit_odd__pdcc_live(unsigned long long& pdcc_threads, const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node) {
#line 21 "consolidate_mutual.cu"
  int first = child_ptr[node];
  const auto pdcc_bound = child_ptr[node + 1] - first;
  pdcc_threads = pdcc::threads_before(pdcc_threads, [&](int i) { return i >= pdcc_bound; });
#line 31 "consolidate_mutual.cu"
}
#line 19 "consolidate_mutual.cu"

// pdcc: one work item of 'visit_odd' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) visit_odd__pdcc_direct(const pdcc::Level pdcc_level, const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node)
{
  pdcc::launch_started();
  visit_odd__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, child_ptr, children, depth, weight, scale, node);
}

// pdcc: the consumer of 'visit_even' and 'visit_odd': the items appended at the level before, several items' live threads per block, level after level while they are few (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) visit_even__pdcc_level(pdcc::Level pdcc_level)
{
  for (;;) {
    pdcc_queue_visit_even.run_level_packed(pdcc_level, visit_even__pdcc_item);
    pdcc_queue_visit_odd.run_level_packed(pdcc_level, visit_odd__pdcc_item);
    if (!pdcc_queue_visit_even.next_level(pdcc_level, PDCC_THREADS_visit_even_0, PDCC_BLOCKS_visit_even_0, pdcc::level_launch(visit_even__pdcc_level), pdcc_queue_visit_odd)) return;
  }
}

// pdcc: 'visit_odd' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) visit_odd(const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node)
{
  visit_odd__pdcc_body(child_ptr, children, depth, weight, scale, node);
  pdcc_queue_visit_even.level_done(pdcc_queue_visit_even.first_level(), PDCC_THREADS_visit_even_0, PDCC_BLOCKS_visit_even_0, pdcc::level_launch(visit_even__pdcc_level), pdcc_queue_visit_odd);
}
