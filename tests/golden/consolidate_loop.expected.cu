#line 1 "consolidate_loop.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "consolidate_loop.cu"
// A consolidated launch inside a loop (a thread appends several items, one per child), in a kernel
// whose parameters have a default argument; a per-item block of 2-D threads.
struct Node {
  int first_child;
  int children;
  float weight;
};

#line 1 "consolidate_loop.cu"
static __global__ void __launch_bounds__(1024) visit__pdcc_direct(const pdcc::Level pdcc_level, const Node* nodes, float* total, int node, float scale);
#ifndef PDCC_POOL_BYTES_visit_0
#define PDCC_POOL_BYTES_visit_0 67108864
#endif
#ifndef PDCC_BUFFER_visit_0
#define PDCC_BUFFER_visit_0 64
#endif
#ifndef PDCC_THREADS_visit_0
#define PDCC_THREADS_visit_0 8
#endif
#ifndef PDCC_BLOCKS_visit_0
#define PDCC_BLOCKS_visit_0 0
#endif
// pdcc: the work items of 'visit', two levels of them (pdcc_rt.cuh)
static __device__ pdcc::WorkQueue<pdcc::Record<pdcc::Uniform, pdcc::Uniform, int, float>, PDCC_POOL_BYTES_visit_0, pdcc::kBlockGroups, PDCC_BUFFER_visit_0, false> pdcc_queue_visit;
#line 9 "consolidate_loop.cu"
static __device__ void visit__pdcc_body(const Node* nodes, float* total, int node, float scale = 1.0f) {
  const Node& me = nodes[node];
  if (threadIdx.x == 0 && threadIdx.y == 0) atomicAdd(total, scale * me.weight);
  if (threadIdx.x != 0 || threadIdx.y != 0) return;
  for (int k = 0; k < me.children; ++k) {
    // pdcc: #pragma dp consldt(block) buffer(pool, 64)
    { // pdcc: site visit_0: consolidated per block
      const dim3 pdcc_grid = 1;
      const dim3 pdcc_block = dim3(4, 2);
      pdcc_queue_visit.append(pdcc_queue_visit.first_level(), visit__pdcc_direct, pdcc_grid, pdcc_block, nodes, total, me.first_child + k, scale * 0.5f);
    }
#line 16 "consolidate_loop.cu"
  }
}
#line 7 "consolidate_loop.cu"

// pdcc: the body of 'visit' for one (block, thread) of a work item, appending at its level
static __device__ void visit__pdcc_item(const pdcc::Level pdcc_level, const uint3 blockIdx, const uint3 threadIdx, const dim3 gridDim, const dim3 blockDim, const Node* nodes, float* total, int node, float scale) {
  const Node& me = nodes[node];
  if (threadIdx.x == 0 && threadIdx.y == 0) atomicAdd(total, scale * me.weight);
  if (threadIdx.x != 0 || threadIdx.y != 0) return;
  for (int k = 0; k < me.children; ++k) {
    // pdcc: #pragma dp consldt(block) buffer(pool, 64)
    { // pdcc: site visit_0: consolidated per block
      const dim3 pdcc_grid = 1;
      const dim3 pdcc_block = dim3(4, 2);
      pdcc_queue_visit.append(pdcc_level, visit__pdcc_direct, pdcc_grid, pdcc_block, nodes, total, me.first_child + k, scale * 0.5f);
    }
#line 16 "consolidate_loop.cu"
  }
}
#line 9 "consolidate_loop.cu"

// pdcc: one work item of 'visit' that did not fit its level's queue, as a grid of its own
static __global__ void __launch_bounds__(1024) visit__pdcc_direct(const pdcc::Level pdcc_level, const Node* nodes, float* total, int node, float scale)
{
  pdcc::launch_started();
  visit__pdcc_item(pdcc_level, blockIdx, threadIdx, gridDim, blockDim, nodes, total, node, scale);
}

// pdcc: the consumer of 'visit': the items appended at the level before, a block per item, level after level while they are few (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) visit__pdcc_level(pdcc::Level pdcc_level, const Node* nodes, float* total)
{
  for (;;) {
    pdcc_queue_visit.run_level(pdcc_level, visit__pdcc_item, nodes, total);
    if (!pdcc_queue_visit.next_level(pdcc_level, PDCC_THREADS_visit_0, PDCC_BLOCKS_visit_0, pdcc::level_launch(visit__pdcc_level, nodes, total))) return;
  }
}

// pdcc: 'visit' as launched: level 0 of the recursion, then the levels its items make
__global__ void __launch_bounds__(1024) visit(const Node* nodes, float* total, int node, float scale = 1.0f)
{
  visit__pdcc_body(nodes, total, node, scale);
  pdcc_queue_visit.level_done(pdcc_queue_visit.first_level(), PDCC_THREADS_visit_0, PDCC_BLOCKS_visit_0, pdcc::level_launch(visit__pdcc_level, nodes, total));
}
