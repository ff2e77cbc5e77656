// The load-balanced edge gather of the BFS and SSSP best versions (bfs_best.cu, sssp_best.cu): the
// scan-based gather of Merrill, Garland and Grimshaw, "Scalable GPU Graph Traversal", PPoPP 2012, in the
// form of Gunrock's load-balanced advance, run by persistent blocks of one cooperative launch.
//
// A work list is a queue of vertices with at least one edge, stored as (first edge, offset): the offsets
// are an exclusive scan of the degrees, so the list's E edges are 0..E-1 and every thread takes the same
// number of them, whatever the degrees (a vertex with 100,000 edges is spread over the whole GPU, a run of
// degree-1 vertices over consecutive lanes). The scan costs no pass of its own: a warp appends the
// vertices it claims with one 64-bit atomicAdd on (edges << 32 | entries), which reserves their entries
// and their edge offsets together, so offsets increase with the entries. The appending thread also
// records, for each tile of kTile edges whose first edge is one of its vertex's, the tile's first entry;
// a block that takes tile t reads that start (no search over the whole queue), loads the entries the tile
// spans into shared memory (at most kTile + 1, a Window) and each thread finds the source of each of its
// edges by a binary search there.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "sample.cuh"

namespace gather {

constexpr int kBlock = 512;             // threads per block
constexpr int kBlocksPerSm = 2;         // persistent blocks per SM: enough threads, and a cheap grid barrier
constexpr int kItems = 4;               // edges per thread and tile, loaded together
constexpr int kTile = kBlock * kItems;  // edges per tile
constexpr unsigned kFull = 0xffffffffu;

// One work list. Entry p is a vertex with at least one edge: begin[p] is its first edge, offset[p] the
// number of edges of the entries before it, and with Vertices, vertex[p] the vertex itself;
// tile_start[t] is the entry that holds the list's edge t * kTile.
template <bool Vertices>
struct Queue {
  int* vertex;  // (nullptr without Vertices)
  int* begin;
  int* offset;
  int* tile_start;

  // Device storage for a list of at most n vertices and nnz edges.
  void allocate(int n, long long nnz) {
    vertex = nullptr;
    if (Vertices) CUDA_CHECK(cudaMalloc(&vertex, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&begin, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&offset, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&tile_start, sizeof(int) * (nnz / kTile + 2)));
  }
  void release() { sample::free_all(vertex, begin, offset, tile_start); }
};

// A list's length, packed as (edges << 32) | entries (both fit 32 bits: a vertex enters a list once).
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

// Records entry p, holding edges [offset, offset + deg) of its list, as the start of the tiles whose
// first edge is one of them.
__device__ inline void mark_tiles(int* tile_start, int p, int offset, int deg) {
  for (long long t = ((long long)offset + kTile - 1) / kTile; t * kTile < (long long)offset + deg; ++t)
    tile_start[t] = p;
}

// Appends the vertices u[i] with add[i] and at least one edge to q, the warp's with one atomicAdd that
// reserves their entries and edge offsets (an inclusive scan of the lanes' packed counts gives each lane
// its place). All 32 lanes of the warp must call it.
template <bool Vertices>
__device__ void append(const bool (&add)[kItems], const int (&u)[kItems], const int* __restrict__ row_ptr,
                       const Queue<Vertices>& q, unsigned long long* count) {
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
    if (Vertices) q.vertex[p] = u[i];
    q.begin[p] = begin[i];
    q.offset[p] = offset;
    mark_tiles(q.tile_start, p, offset, deg[i]);
    ++p;
    offset += deg[i];
  }
}

// A list of the source alone (nothing when it has no edge), in one thread: count[0] gets its length,
// count[1] and count[2] none.
template <bool Vertices>
__device__ void start_with(const int* row_ptr, const Queue<Vertices>& q, unsigned long long* count, int source) {
  const int begin = row_ptr[source];
  const int deg = row_ptr[source + 1] - begin;
  if (Vertices) q.vertex[0] = source;
  q.begin[0] = begin;
  q.offset[0] = 0;
  mark_tiles(q.tile_start, 0, 0, deg);
  count[0] = deg > 0 ? ((unsigned long long)(unsigned)deg << 32) | 1ull : 0ull;
  count[1] = 0;
  count[2] = 0;
}

// The entries of list `cur` (of `size` entries) that hold tile t's edges, in shared memory: from the one
// holding its first edge to the one holding the next tile's first edge (or the last entry); the ones
// between lie inside the tile, so there are at most kTile + 1.
struct Window {
  int offset[kTile + 1];
  int begin[kTile + 1];

  // Every thread of the block calls it, with the same t; returns the window's width. `also(slot, entry)`
  // runs once for each slot, beside its loads (a caller's own data per entry).
  template <bool Vertices, typename Also>
  __device__ int load(const Queue<Vertices>& cur, long long t, long long tiles, int size, Also also) {
    const int first = cur.tile_start[t];
    const int last = t + 1 < tiles ? cur.tile_start[t + 1] : size - 1;
    const int width = last - first + 1;
    __syncthreads();  // the previous tile's searches are done with the window
    for (int i = threadIdx.x; i < width; i += kBlock) {
      offset[i] = cur.offset[first + i];
      begin[i] = cur.begin[first + i];
      also(i, first + i);
    }
    __syncthreads();
    return width;
  }

  // The slot of the list's edge x (one of the tile's) in a window of `width`, and the edge itself.
  __device__ int slot_of(long long x, int width) const { return last_at_most(offset, width, (int)x); }
  __device__ int edge(int slot, long long x) const { return begin[slot] + ((int)x - offset[slot]); }
};

// Blocks of `kernel` (kBlock threads) that can all be resident at once, at most kBlocksPerSm per SM: a
// cooperative launch needs them on the GPU together.
template <typename Kernel>
int persistent_blocks(Kernel kernel, const char* name) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
  if (per_sm < 1) {
    std::fprintf(stderr, "%s: no block of %d threads fits on an SM\n", name, kBlock);
    std::exit(2);
  }
  return sms * std::min(per_sm, kBlocksPerSm);
}

}  // namespace gather
