// BFS, the version an expert would write: a load-balanced expansion of each level's edges (the scan-based
// gather of Merrill, Garland and Grimshaw, "Scalable GPU Graph Traversal", PPoPP 2012, in the form of
// Gunrock's load-balanced advance: every thread takes the same number of the level's edges and searches
// the scanned degrees for their sources) and all the levels in one cooperative launch of persistent
// blocks, a grid-wide barrier between levels instead of a return to the host (the paper's fused
// iterations, which pay off on graphs of many small levels such as roads and grids).
//
// Each level's frontier is a work list of samples/common/edge_gather.cuh: its edges are numbered by a
// scan of the degrees that the appends make themselves, and every thread takes the same number of them.
//
// Per level: no host synchronisation, no launch, one grid barrier. Per search: two launches.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/bfs/bfs_best.cu
#include <cooperative_groups.h>

#include "bfs.cuh"
#include "edge_gather.cuh"

namespace cg = cooperative_groups;

namespace {

using gather::kBlock;
using gather::kItems;
using gather::kTile;
using Queue = gather::Queue<false>;

// The device state of one search. count[L % 3] describes level L's queue, packed as
// (edges << 32) | entries; both fit 32 bits (every vertex and edge enters at most one level).
struct Search {
  const int* row_ptr;
  const int* col;
  int* level;
  Queue queue[2];  // level L reads queue[L & 1] and fills queue[(L + 1) & 1]
  unsigned long long* count;
  int n;
};

__global__ void __launch_bounds__(kBlock, gather::kBlocksPerSm) bfs_levels(Search s) {
  cg::grid_group grid = cg::this_grid();
  __shared__ gather::Window window;
  for (int level = 0; level < s.n; ++level) {  // a search has fewer than n levels
    const unsigned long long c = gather::load_count(&s.count[level % 3]);
    const int size = gather::entries_of(c);
    if (size == 0) return;  // the same in every thread: read after the barrier, written before it
    const long long edges = gather::edges_of(c);
    // count[(level + 2) % 3] was last read before the previous barrier; it counts the level after next.
    if (blockIdx.x == 0 && threadIdx.x == 0) s.count[(level + 2) % 3] = 0;
    const Queue cur = level & 1 ? s.queue[1] : s.queue[0];  // selects, not an indexed copy of the parameter
    const Queue next = level & 1 ? s.queue[0] : s.queue[1];
    unsigned long long* next_count = &s.count[(level + 1) % 3];
    const long long tiles = (edges + kTile - 1) / kTile;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {  // the same t in the whole block
      const int width = window.load(cur, t, tiles, size, [](int, int) {});
      bool add[kItems];
      int u[kItems];
      #pragma unroll
      for (int i = 0; i < kItems; ++i) {  // edge x of the level: consecutive lanes, consecutive edges
        const long long x = t * kTile + i * kBlock + threadIdx.x;
        add[i] = x < edges;
        u[i] = 0;
        if (add[i]) u[i] = s.col[window.edge(window.slot_of(x, width), x)];
      }
      // bfs::claim in two passes, so that the loads of all items, then their CASes, are in flight together.
      #pragma unroll
      for (int i = 0; i < kItems; ++i)
        if (add[i]) add[i] = graph::load_relaxed(&s.level[u[i]]) == bfs::kUnvisited;
      #pragma unroll
      for (int i = 0; i < kItems; ++i)
        if (add[i]) add[i] = atomicCAS(&s.level[u[i]], bfs::kUnvisited, level + 1) == bfs::kUnvisited;
      gather::append(add, u, s.row_ptr, next, next_count);
    }
    grid.sync();
  }
}

// Level 0: the source alone (nothing when it has no edge).
__global__ void first_level(const int* row_ptr, Queue q, unsigned long long* count, int source) {
  gather::start_with(row_ptr, q, count, source);
}

// The queues and the launch shape, set up once per graph outside the timed runs.
class LevelSearch {
 public:
  explicit LevelSearch(const graph::GraphProblem& p) {
    s_.row_ptr = p.g.row_ptr;
    s_.col = p.g.col;
    s_.level = p.value;
    s_.n = p.in.g.n;
    for (Queue& q : s_.queue) q.allocate(p.in.g.n, p.in.g.nnz());
    CUDA_CHECK(cudaMalloc(&s_.count, 3 * sizeof(unsigned long long)));
    blocks_ = gather::persistent_blocks(bfs_levels, "bfs_levels");
  }
  ~LevelSearch() {
    for (Queue& q : s_.queue) q.release();
    sample::free_all(s_.count);
  }
  LevelSearch(const LevelSearch&) = delete;
  LevelSearch& operator=(const LevelSearch&) = delete;

  // One search from the source on the reset levels: two launches, whatever the depth.
  void run() {
    first_level<<<1, 1>>>(s_.row_ptr, s_.queue[0], s_.count, graph::kSource);
    CUDA_CHECK(cudaGetLastError());
    void* args[] = {&s_};
    CUDA_CHECK(cudaLaunchCooperativeKernel((void*)bfs_levels, blocks_, kBlock, args));
  }

 private:
  Search s_{};
  int blocks_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  return bfs::run_searches(argc, argv, "best", [](const graph::GraphProblem& p) { return LevelSearch(p); });
}
