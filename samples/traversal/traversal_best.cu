// Graph traversal, the version an expert would write: breadth first in one cooperative launch of persistent
// blocks, a grid-wide barrier between levels instead of a return to the host (the fused single-kernel
// iterations of Merrill, Garland and Grimshaw, "Scalable GPU Graph Traversal", PPoPP 2012, which pay off on
// graphs of many small levels such as road networks and grids), a warp per frontier vertex striding over
// its neighbours (their warp-cooperative gather) and one atomic per warp and round to queue the claimed
// vertices.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/traversal/traversal_best.cu
#include <cooperative_groups.h>

#include "traversal.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kBlock = 256;

// counts[level % 3] is the length of the level's queue; the next level's count is counted up in
// counts[(level + 1) % 3], and counts[(level + 2) % 3], read for the last time before the previous
// barrier, is cleared for the level after.
__global__ void __launch_bounds__(kBlock) traverse(const int* row_ptr, const int* col, int* parent, int* depth,
                                                   int* queue_a, int* queue_b, int* counts) {
  cg::grid_group grid = cg::this_grid();
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const long long warps = (long long)gridDim.x * blockDim.x / 32;
  int* cur = queue_a;
  int* next = queue_b;
  for (int level = 0;; ++level) {
    const int size = graph::load_relaxed(&counts[level % 3]);
    if (size == 0) return;  // the same in every thread: read after the barrier, written before it
    int* next_size = &counts[(level + 1) % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) counts[(level + 2) % 3] = 0;
    for (long long w = warp; w < size; w += warps) {  // the same w in all lanes of a warp
      const int v = cur[w];
      graph::warp_expand(row_ptr[v], row_ptr[v + 1], next, next_size, [&](int e, int& u) {
        u = col[e];
        if (!traversal::claim(u, v, parent)) return false;
        depth[u] = level + 1;
        return true;
      });
    }
    grid.sync();
    int* t = cur;
    cur = next;
    next = t;
  }
}

__global__ void first_level(int* queue, int* counts, int source) {
  queue[0] = source;
  counts[0] = 1;
  counts[1] = 0;
  counts[2] = 0;
}

}  // namespace

int main(int argc, char** argv) {
  traversal::Problem p(argc, argv);
  const sample::DeviceCsr& g = p.d;
  int* queue[2] = {nullptr, nullptr};
  int* counts = nullptr;
  CUDA_CHECK(cudaMalloc(&queue[0], sizeof(int) * p.g.n));
  CUDA_CHECK(cudaMalloc(&queue[1], sizeof(int) * p.g.n));
  CUDA_CHECK(cudaMalloc(&counts, 3 * sizeof(int)));

  // As many blocks as can be resident at once: a cooperative launch needs them all on the GPU together.
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, traverse, kBlock, 0));
  const int blocks = sms * std::max(1, per_sm);

  int* parent = p.parent;
  int* depth = p.depth;
  const int* row_ptr = g.row_ptr;
  const int* col = g.col;
  void* args[] = {&row_ptr, &col, &parent, &depth, &queue[0], &queue[1], &counts};
  int code = p.measure("best", [&] {
    first_level<<<1, 1>>>(queue[0], counts, graph::kSource);
    CUDA_CHECK(cudaLaunchCooperativeKernel((void*)traverse, blocks, kBlock, args));
  });
  sample::free_all(queue[0], queue[1], counts);
  return code;
}
