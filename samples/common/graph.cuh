// Graph helpers shared by the BFS and SSSP samples: input selection, a device frontier (two vertex
// queues), the host loop that runs one kernel per level or round, warp-aggregated enqueueing for the
// best variants, and the per-vertex result check.
//
// Graph inputs (load_graph), always undirected, traversed from vertex 0:
//   --input FILE.mtx        the file's graph (symmetric files are expanded to both directions)
//   --param P, P >= 100     road-like grid, P x P vertices, 4-neighbour (e.g. --param 1000: 1,000,000 vertices)
//   otherwise               R-MAT (Graph500 a=.57 b=.19 c=.19) with edge factor P (default 16) and
//                           2^scale vertices, scale = ceil(log2(--size)) (default 20)
#pragma once

#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "sample.cuh"

namespace graph {

constexpr int kSource = 0;

struct GraphInput {
  sample::Csr g;
  std::string name;  // goes into the JSON result line
};

inline std::string file_stem(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind(".mtx");
  return dot == std::string::npos ? base : base.substr(0, dot);
}

inline GraphInput load_graph(const sample::Options& o) {
  GraphInput in;
  if (!o.input.empty()) {
    in.g = sample::read_matrix_market(o.input);
    in.name = file_stem(o.input);
  } else if (o.param >= 100) {
    // Keep the edge count (about 4 x side^2) inside the int row pointers.
    if (o.param > 20000) { std::fprintf(stderr, "grid side %.0f too large (max 20000)\n", o.param); std::exit(64); }
    int side = (int)o.param;
    in.g = sample::cached_csr("grid-" + std::to_string(side) + "-" + std::to_string(o.seed),
                              [&] { return sample::grid_graph(side, o.seed); });
    in.name = "grid" + std::to_string(side);
  } else {
    int edge_factor = o.param <= 0 ? 16 : std::max(1, (int)std::lround(o.param));
    int scale = 20;
    if (o.size > 0) {
      scale = 1;
      while (scale < 30 && (1LL << scale) < o.size) ++scale;
    }
    // Both directions of every edge are stored; they must fit int row pointers.
    if (2.0 * (double)(1LL << scale) * edge_factor > (double)(INT_MAX - 64)) {
      std::fprintf(stderr, "R-MAT scale %d edge factor %d: too many edges\n", scale, edge_factor);
      std::exit(64);
    }
    in.g = sample::cached_csr("rmat-" + std::to_string(scale) + "-" + std::to_string(edge_factor) + "-" +
                                  std::to_string(o.seed),
                              [&] { return sample::rmat_graph(scale, edge_factor, o.seed); });
    in.name = "rmat" + std::to_string(scale) + "-" + std::to_string(edge_factor);
  }
  if (in.g.n < 1) { std::fprintf(stderr, "%s: empty graph\n", in.name.c_str()); std::exit(65); }
  return in;
}

inline int blocks_for(long long threads, int block) { return (int)((threads + block - 1) / block); }

// Two device queues of vertex ids, swapped after every step. Each vertex enters the next queue at most
// once per step (the samples guarantee it), so n entries per queue suffice.
struct Frontier {
  int* cur = nullptr;
  int* next = nullptr;
  int* next_size = nullptr;  // device counter the kernels append through
  int size = 0;              // host copy of the length of cur

  explicit Frontier(int n) {
    CUDA_CHECK(cudaMalloc(&cur, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&next, sizeof(int) * n));
    CUDA_CHECK(cudaMalloc(&next_size, sizeof(int)));
  }
  ~Frontier() { cudaFree(cur); cudaFree(next); cudaFree(next_size); }
  Frontier(const Frontier&) = delete;
  Frontier& operator=(const Frontier&) = delete;

  void start(int source) {
    CUDA_CHECK(cudaMemcpy(cur, &source, sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(next_size, 0, sizeof(int)));
    size = 1;
  }
  // Waits for the step's kernel (the copy synchronises), then makes next the current queue.
  void advance() {
    CUDA_CHECK(cudaMemcpy(&size, next_size, sizeof(int), cudaMemcpyDeviceToHost));
    std::swap(cur, next);
    CUDA_CHECK(cudaMemset(next_size, 0, sizeof(int)));
  }
};

// Everything a traversal variant needs on the device: the graph, one int per vertex (BFS level or SSSP
// distance), and the frontier. reset() fills the values with `fill_byte` and starts from the source.
struct GraphProblem {
  GraphInput in;
  sample::DeviceCsr g;
  int* value = nullptr;
  Frontier frontier;
  unsigned char fill_byte;

  GraphProblem(GraphInput input, unsigned char fill)
      : in(std::move(input)), g(sample::to_device(in.g)), frontier(in.g.n), fill_byte(fill) {
    CUDA_CHECK(cudaMalloc(&value, sizeof(int) * in.g.n));
  }
  ~GraphProblem() { cudaFree(value); sample::free_device(g); }
  GraphProblem(const GraphProblem&) = delete;
  GraphProblem& operator=(const GraphProblem&) = delete;

  void reset() {
    CUDA_CHECK(cudaMemset(value, fill_byte, sizeof(int) * in.g.n));
    int zero = 0;
    CUDA_CHECK(cudaMemcpy(value + kSource, &zero, sizeof(int), cudaMemcpyHostToDevice));
    frontier.start(kSource);
  }

  // Runs step(i) (one kernel over the current frontier) until the frontier empties. The cap never binds
  // for a correct traversal (at most n levels or rounds); it keeps a broken one from looping forever.
  template <typename Step>
  int run(Step step) {
    int steps = 0;
    while (frontier.size > 0 && steps <= in.g.n) {
      step(steps);
      CUDA_CHECK(cudaGetLastError());
      frontier.advance();
      ++steps;
    }
    return steps;
  }

  std::vector<int> fetch() const {
    std::vector<int> h(in.g.n);
    CUDA_CHECK(cudaMemcpy(h.data(), value, sizeof(int) * in.g.n, cudaMemcpyDeviceToHost));
    return h;
  }
};

// A relaxed load of a value other threads update atomically (volatile is a strong load in PTX, so the
// racing read is well defined); used to skip atomics that cannot succeed.
__device__ inline int load_relaxed(const int* p) { return *(const volatile int*)p; }

// The vertex of thread t in a one-thread-per-vertex kernel (the flat variants): queue[t], or -1 for the
// threads past the end of the queue.
__device__ inline int thread_vertex(const int* queue, int size) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  return t < size ? queue[t] : -1;
}

// Appends u to a queue with one atomic per thread (dp children and flat loops).
__device__ inline void enqueue(int u, int* queue, int* size) { queue[atomicAdd(size, 1)] = u; }

// Warp-per-vertex expansion for the best variants: the 32 lanes stride over the edges [begin, end);
// visit(e, u) decides whether to append u to the queue. A warp's appends share one atomicAdd. All 32
// lanes must call this with the same begin and end (blocks are multiples of 32).
template <typename Visit>
__device__ void warp_expand(int begin, int end, int* queue, int* size, Visit visit) {
  const unsigned lane = threadIdx.x & 31u;
  for (int base = begin; base < end; base += 32) {
    int e = base + (int)lane;
    int u = 0;
    bool add = e < end && visit(e, u);
    unsigned ballot = __ballot_sync(0xffffffffu, add);
    if (ballot == 0) continue;
    int leader = __ffs(ballot) - 1;
    int slot = 0;
    if ((int)lane == leader) slot = atomicAdd(size, __popc(ballot));
    slot = __shfl_sync(0xffffffffu, slot, leader);
    if (add) queue[slot + __popc(ballot & ((1u << lane) - 1u))] = u;
  }
}

// Compares per-vertex results with the reference; on a mismatch the detail names the first one.
inline bool check_vertices(const std::vector<int>& got, const std::vector<int>& want, const char* what,
                           std::string* detail) {
  long long wrong = 0;
  size_t first = 0;
  for (size_t v = 0; v < want.size(); ++v)
    if (got[v] != want[v] && wrong++ == 0) first = v;
  if (wrong == 0) return true;
  *detail = std::to_string(wrong) + " of " + std::to_string(want.size()) + " " + what + " differ, first at vertex " +
            std::to_string(first) + ": got " + std::to_string(got[first]) + " want " + std::to_string(want[first]);
  return false;
}

// Rough bytes one traversal moves: row pointers and queue traffic for every reached vertex, and
// bytes_per_edge for every edge leaving one (neighbour id, its value, a weight where there is one).
inline double traversal_bytes(const sample::Csr& g, const std::vector<int>& want, int unreached, int bytes_per_edge) {
  double bytes = 4.0 * g.n;
  for (int v = 0; v < g.n; ++v)
    if (want[v] != unreached) bytes += 16.0 + (double)bytes_per_edge * (g.row_ptr[v + 1] - g.row_ptr[v]);
  return bytes;
}

}  // namespace graph
