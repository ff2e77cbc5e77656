// Graph traversal: from vertex 0, visit every vertex it reaches and record how it was reached (a spanning
// tree of its component: the parent of every vertex and its depth in that tree). The graph (R-MAT, a grid
// or a Matrix Market file) comes from graph.cuh; this header holds the claim every variant shares, the
// checker, and the host side every variant's main() uses (Problem).
//
// A vertex is visited once: the first thread to claim it (an atomicCAS on its parent) records the parent
// and the depth and goes on to its neighbours. Different variants build different trees (the naive
// recursion a depth-first-like one, the level-synchronous ones a breadth-first one); the checker accepts any
// spanning tree of the source's component.
#pragma once

#include "graph.cuh"

namespace traversal {

constexpr int kNone = -1;  // parent of a vertex not reached (all-ones bytes)
constexpr int kPendingLaunches = 2048;

// Claims u for parent v; true for exactly one caller per vertex over the whole traversal.
__device__ inline bool claim(int u, int v, int* parent) {
  return graph::load_relaxed(&parent[u]) == kNone && atomicCAS(&parent[u], kNone, v) == kNone;
}

// failures[0] counts device launches that failed, failures[1] holds the first error code.
__device__ inline void launch_failed(int* failures, cudaError_t error) {
  atomicAdd(&failures[0], 1);
  atomicCAS(&failures[1], 0, (int)error);
}

__global__ void start(int* parent, int* depth, int source) {
  parent[source] = source;
  depth[source] = 0;
}

// ---- CPU reference and checker -------------------------------------------------------------------------

inline std::vector<int> bfs_levels(const sample::Csr& g, int source) {
  std::vector<int> level(g.n, kNone);
  std::vector<int> queue{source};
  level[source] = 0;
  for (size_t i = 0; i < queue.size(); ++i) {
    const int v = queue[i];
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e)
      if (level[g.col[e]] == kNone) { level[g.col[e]] = level[v] + 1; queue.push_back(g.col[e]); }
  }
  return level;
}

// Whether parent/depth is a spanning tree of the source's component: exactly the reachable vertices have a
// parent; the source is its own parent at depth 0; every other reached vertex's parent is reached, has an
// edge to it and is one level shallower (so following parents always ends at the source).
inline bool check(const sample::Csr& g, int source, const std::vector<int>& parent, const std::vector<int>& depth,
                  const std::vector<int>& level, std::string& detail) {
  // Rows sorted on the side, to look edges up by binary search.
  std::vector<int> sorted_col = g.col;
  for (int v = 0; v < g.n; ++v) std::sort(sorted_col.begin() + g.row_ptr[v], sorted_col.begin() + g.row_ptr[v + 1]);
  auto has_edge = [&](int from, int to) {
    return std::binary_search(sorted_col.begin() + g.row_ptr[from], sorted_col.begin() + g.row_ptr[from + 1], to);
  };
  long long reached = 0, missing = 0, extra = 0, bad = 0;
  int bfs_depth = 0, tree_depth = 0;
  for (int v = 0; v < g.n; ++v) {
    const int p = parent[v];
    if (level[v] == kNone) {
      extra += p != kNone;
      continue;
    }
    ++reached;
    bfs_depth = std::max(bfs_depth, level[v]);
    if (p == kNone) { ++missing; continue; }
    tree_depth = std::max(tree_depth, depth[v]);
    if (v == source) bad += p != source || depth[v] != 0;
    else bad += p < 0 || p >= g.n || parent[p] == kNone || depth[v] < 1 || depth[p] != depth[v] - 1 || !has_edge(p, v);
  }
  detail = std::to_string(reached) + " of " + std::to_string(g.n) + " vertices reached, breadth-first depth " +
           std::to_string(bfs_depth) + ", tree depth " + std::to_string(tree_depth) + "; " + std::to_string(missing) +
           " missed, " + std::to_string(extra) + " unreachable ones visited, " + std::to_string(bad) +
           " bad tree edges; recursion: " + std::to_string(reached - 1) + " device launches, nesting at least " +
           std::to_string(bfs_depth) + " deep";
  return missing == 0 && extra == 0 && bad == 0;
}

// ---- host side of every variant -------------------------------------------------------------------------

struct Problem {
  sample::Options opts;
  graph::GraphInput in;
  const sample::Csr& g;
  sample::DeviceCsr d;
  int* parent = nullptr;
  int* depth = nullptr;
  int* failures = nullptr;  // dp only: failed launches and the first error

  Problem(int argc, char** argv)
      : opts(sample::parse_options(argc, argv)), in(graph::load_graph(opts)), g(in.g), d(sample::to_device(in.g)) {
    CUDA_CHECK(cudaMalloc(&parent, sizeof(int) * g.n));
    CUDA_CHECK(cudaMalloc(&depth, sizeof(int) * g.n));
    CUDA_CHECK(cudaMalloc(&failures, 2 * sizeof(int)));
  }
  ~Problem() {
    sample::free_all(parent, depth, failures);
    sample::free_device(d);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  // Nothing reached but the source.
  void reset() const {
    CUDA_CHECK(cudaMemset(parent, 0xFF, sizeof(int) * g.n));
    CUDA_CHECK(cudaMemset(depth, 0xFF, sizeof(int) * g.n));
    CUDA_CHECK(cudaMemset(failures, 0, 2 * sizeof(int)));
    start<<<1, 1>>>(parent, depth, graph::kSource);
    CUDA_CHECK(cudaGetLastError());
  }

  // Times run() after reset(), checks the last traversal, prints the result line. A dp run whose device
  // launches failed prints its result with "correct": false, says so on stderr and exits with status 3: it
  // is reported failed, never taken for a time of the whole traversal.
  template <typename Run>
  int measure(const char* variant, Run run) {
    std::vector<double> times = sample::time_runs(opts.reps, [&] { reset(); }, run);
    int failed[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(failed, failures, sizeof failed, cudaMemcpyDeviceToHost));
    std::vector<int> got_parent(g.n), got_depth(g.n);
    CUDA_CHECK(cudaMemcpy(got_parent.data(), parent, sizeof(int) * g.n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got_depth.data(), depth, sizeof(int) * g.n, cudaMemcpyDeviceToHost));
    const std::vector<int> level = bfs_levels(g, graph::kSource);
    std::string detail;
    const bool ok = check(g, graph::kSource, got_parent, got_depth, level, detail);
    if (failed[0] > 0)
      detail = "FAILED: " + std::to_string(failed[0]) + " device launches failed (" +
               cudaGetErrorName((cudaError_t)failed[1]) + "), " + detail;
    sample::print_result("traversal", variant, in.name, times, ok && failed[0] == 0, detail,
                         graph::traversal_bytes(g, level, kNone, 8));
    if (failed[0] > 0) {
      std::fprintf(stderr, "traversal %s: %d device launches failed (%s): the traversal is incomplete\n", variant,
                   failed[0], cudaGetErrorName((cudaError_t)failed[1]));
      return 3;
    }
    return 0;
  }
};

}  // namespace traversal
