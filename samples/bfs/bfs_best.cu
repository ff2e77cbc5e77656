// BFS, the version an expert would write: a load-balanced expansion of each level's edges (the scan-based
// gather of Merrill, Garland and Grimshaw, "Scalable GPU Graph Traversal", PPoPP 2012, in the form of
// Gunrock's load-balanced advance: every thread takes the same number of the level's edges and searches
// the scanned degrees for their sources) and all the levels in one cooperative launch of persistent
// blocks, a grid-wide barrier between levels instead of a return to the host (the paper's fused
// iterations, which pay off on graphs of many small levels such as roads and grids).
//
// Each level's frontier is a queue of its vertices with at least one edge, stored as (first edge,
// offset): the offsets are an exclusive scan of the degrees, so the level's E edges are 0..E-1 and every
// thread of the grid takes the same number of them, whatever the degrees (a vertex with 100,000 edges is
// spread over the whole GPU, a run of degree-1 vertices over consecutive lanes). The scan costs no pass
// of its own: a warp appends the vertices it claims with one 64-bit atomicAdd on (edges << 32 | entries),
// which reserves their queue entries and their edge offsets together, so offsets increase with the
// entries. The appending thread also records, for each tile of kTile edges whose first edge is one of its
// vertex's, the tile's first entry; a block that takes tile t of the next level reads that start (no
// search over the whole queue), loads the entries the tile spans into shared memory (at most kTile + 1)
// and each thread finds the source of each of its edges by a binary search there.
//
// Per level: no host synchronisation, no launch, one grid barrier. Per search: two launches.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/bfs/bfs_best.cu
#include <cooperative_groups.h>

#include "bfs.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kBlock = 512;             // threads per block
constexpr int kBlocksPerSm = 2;         // persistent blocks per SM: enough threads, and a cheap grid barrier
constexpr int kItems = 4;               // edges per thread and tile, loaded together
constexpr int kTile = kBlock * kItems;  // edges per tile
constexpr unsigned kFull = 0xffffffffu;

// One level's frontier. Entry p is a vertex with at least one edge: begin[p] is its first edge,
// offset[p] the number of edges of the entries before it; tile_start[t] is the entry that holds the
// level's edge t * kTile.
struct Queue {
  int* begin;
  int* offset;
  int* tile_start;
};

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

__device__ inline unsigned long long load_count(const unsigned long long* p) {
  return *(const volatile unsigned long long*)p;
}
__device__ inline int entries_of(unsigned long long c) { return (int)(unsigned)(c & 0xffffffffull); }
__device__ inline long long edges_of(unsigned long long c) { return (long long)(c >> 32); }

// The largest j < width with window[j] <= x, for an increasing window with window[0] <= x.
__device__ inline int last_at_most(const int* window, int width, int x) {
  int lo = 0, hi = width - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (window[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Records entry p, holding edges [offset, offset + deg) of its level, as the start of the tiles whose
// first edge is one of them.
__device__ inline void mark_tiles(int* tile_start, int p, int offset, int deg) {
  for (long long t = ((long long)offset + kTile - 1) / kTile; t * kTile < (long long)offset + deg; ++t)
    tile_start[t] = p;
}

// Appends the vertices u[i] with add[i] and at least one edge to q, the warp's with one atomicAdd that
// reserves their entries and edge offsets (an inclusive scan of the lanes' packed counts gives each lane
// its place). All 32 lanes of the warp must call it.
__device__ void append(const bool (&add)[kItems], const int (&u)[kItems], const int* __restrict__ row_ptr,
                       const Queue& q, unsigned long long* count) {
  const unsigned lane = threadIdx.x & 31u;
  int begin[kItems], deg[kItems];
  unsigned long long mine = 0;  // this thread's (edges << 32) | entries
  #pragma unroll
  for (int i = 0; i < kItems; ++i) {
    begin[i] = 0;
    deg[i] = 0;
    if (add[i]) {
      begin[i] = row_ptr[u[i]];
      deg[i] = row_ptr[u[i] + 1] - begin[i];
    }
    if (deg[i] > 0) mine += ((unsigned long long)(unsigned)deg[i] << 32) | 1ull;
  }
  if (!__any_sync(kFull, mine != 0)) return;
  unsigned long long incl = mine;
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const unsigned long long y = __shfl_up_sync(kFull, incl, d);
    if (lane >= (unsigned)d) incl += y;
  }
  unsigned long long base = 0;
  if (lane == 31) base = atomicAdd(count, incl);  // lane 31's inclusive sum is the warp's
  base = __shfl_sync(kFull, base, 31) + (incl - mine);
  int p = entries_of(base);
  int offset = (int)edges_of(base);
  #pragma unroll
  for (int i = 0; i < kItems; ++i) {
    if (deg[i] == 0) continue;
    q.begin[p] = begin[i];
    q.offset[p] = offset;
    mark_tiles(q.tile_start, p, offset, deg[i]);
    ++p;
    offset += deg[i];
  }
}

__global__ void __launch_bounds__(kBlock, kBlocksPerSm) bfs_levels(Search s) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int window_offset[kTile + 1];
  __shared__ int window_begin[kTile + 1];
  for (int level = 0; level < s.n; ++level) {  // a search has fewer than n levels
    const unsigned long long c = load_count(&s.count[level % 3]);
    const int size = entries_of(c);
    if (size == 0) return;  // the same in every thread: read after the barrier, written before it
    const long long edges = edges_of(c);
    // count[(level + 2) % 3] was last read before the previous barrier; it counts the level after next.
    if (blockIdx.x == 0 && threadIdx.x == 0) s.count[(level + 2) % 3] = 0;
    const Queue cur = level & 1 ? s.queue[1] : s.queue[0];  // selects, not an indexed copy of the parameter
    const Queue next = level & 1 ? s.queue[0] : s.queue[1];
    unsigned long long* next_count = &s.count[(level + 1) % 3];
    const long long tiles = (edges + kTile - 1) / kTile;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {  // the same t in the whole block
      // The entries that hold the tile's edges: from the one holding its first edge to the one holding the
      // next tile's first edge (or the last entry); the ones between lie inside the tile, so width <= kTile + 1.
      const int first = cur.tile_start[t];
      const int last = t + 1 < tiles ? cur.tile_start[t + 1] : size - 1;
      const int width = last - first + 1;
      __syncthreads();  // the previous tile's searches are done with the window
      for (int i = threadIdx.x; i < width; i += kBlock) {
        window_offset[i] = cur.offset[first + i];
        window_begin[i] = cur.begin[first + i];
      }
      __syncthreads();
      bool add[kItems];
      int u[kItems];
      #pragma unroll
      for (int i = 0; i < kItems; ++i) {  // edge x of the level: consecutive lanes, consecutive edges
        const long long x = t * kTile + i * kBlock + threadIdx.x;
        add[i] = x < edges;
        u[i] = 0;
        if (add[i]) {
          const int j = last_at_most(window_offset, width, (int)x);
          u[i] = s.col[window_begin[j] + ((int)x - window_offset[j])];
        }
      }
      // bfs::claim in two passes, so that the loads of all items, then their CASes, are in flight together.
      #pragma unroll
      for (int i = 0; i < kItems; ++i)
        if (add[i]) add[i] = graph::load_relaxed(&s.level[u[i]]) == bfs::kUnvisited;
      #pragma unroll
      for (int i = 0; i < kItems; ++i)
        if (add[i]) add[i] = atomicCAS(&s.level[u[i]], bfs::kUnvisited, level + 1) == bfs::kUnvisited;
      append(add, u, s.row_ptr, next, next_count);
    }
    grid.sync();
  }
}

// Level 0: the source alone (nothing when it has no edge).
__global__ void first_level(const int* row_ptr, Queue q, unsigned long long* count, int source) {
  const int begin = row_ptr[source];
  const int deg = row_ptr[source + 1] - begin;
  q.begin[0] = begin;
  q.offset[0] = 0;
  mark_tiles(q.tile_start, 0, 0, deg);
  count[0] = deg > 0 ? ((unsigned long long)(unsigned)deg << 32) | 1ull : 0ull;
  count[1] = 0;
  count[2] = 0;
}

// The queues and the launch shape, set up once per graph outside the timed runs.
class LevelSearch {
 public:
  explicit LevelSearch(const graph::GraphProblem& p) {
    const int n = p.in.g.n;
    const long long tiles = p.in.g.nnz() / kTile + 2;
    s_.row_ptr = p.g.row_ptr;
    s_.col = p.g.col;
    s_.level = p.value;
    s_.n = n;
    for (Queue& q : s_.queue) {
      CUDA_CHECK(cudaMalloc(&q.begin, sizeof(int) * n));
      CUDA_CHECK(cudaMalloc(&q.offset, sizeof(int) * n));
      CUDA_CHECK(cudaMalloc(&q.tile_start, sizeof(int) * tiles));
    }
    CUDA_CHECK(cudaMalloc(&s_.count, 3 * sizeof(unsigned long long)));
    // As many blocks as can be resident at once (at most kBlocksPerSm per SM): a cooperative launch
    // needs them all on the GPU together.
    int device = 0, sms = 0, per_sm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bfs_levels, kBlock, 0));
    if (per_sm < 1) {
      std::fprintf(stderr, "bfs_levels: no block of %d threads fits on an SM\n", kBlock);
      std::exit(2);
    }
    blocks_ = sms * std::min(per_sm, kBlocksPerSm);
  }
  ~LevelSearch() {
    for (Queue& q : s_.queue) sample::free_all(q.begin, q.offset, q.tile_start);
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
