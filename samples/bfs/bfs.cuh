// Breadth-first search sample: levels from vertex 0, level-synchronous over a frontier queue.
//
// Nested parallelism: every frontier vertex has a list of neighbours to visit, from none to tens of
// thousands on R-MAT. Inputs (see graph.cuh): R-MAT scale 20 edge factor 16 by default, a P x P grid
// with --param P >= 100, or --input FILE.mtx. Levels are ints, -1 for unreached vertices.
#pragma once

#include <queue>

#include "graph.cuh"

namespace bfs {

constexpr int kUnvisited = -1;
constexpr unsigned char kUnvisitedByte = 0xff;  // memset byte that makes every int -1

// Claims u for the next level; true for exactly one caller per vertex over the whole search.
__device__ inline bool claim(int u, int* level, int next_level) {
  return graph::load_relaxed(&level[u]) == kUnvisited && atomicCAS(&level[u], kUnvisited, next_level) == kUnvisited;
}

inline std::vector<int> reference(const sample::Csr& g, int source) {
  std::vector<int> level(g.n, kUnvisited);
  std::queue<int> q;
  level[source] = 0;
  q.push(source);
  while (!q.empty()) {
    int v = q.front();
    q.pop();
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) {
      int u = g.col[e];
      if (level[u] == kUnvisited) { level[u] = level[v] + 1; q.push(u); }
    }
  }
  return level;
}

inline bool check(const std::vector<int>& level, const std::vector<int>& want, std::string* detail) {
  if (!graph::check_vertices(level, want, "levels", detail)) return false;
  long long reached = 0;
  int depth = 0;
  for (int l : want)
    if (l != kUnvisited) { ++reached; depth = std::max(depth, l); }
  *detail = "levels match, " + std::to_string(reached) + " reached, depth " + std::to_string(depth);
  return true;
}

// Copies the levels back, checks them against the CPU reference and prints the result line.
inline void report(const char* variant, const graph::GraphProblem& p, const std::vector<double>& times) {
  std::vector<int> want = reference(p.in.g, graph::kSource);
  std::string detail;
  bool ok = check(p.fetch(), want, &detail);
  sample::print_result("bfs", variant, p.in.name, times, ok, detail, graph::traversal_bytes(p.in.g, want, kUnvisited, 8));
}

// The host side of every variant: builds the graph from the options, times whole searches from vertex 0
// (one launch(p, p.frontier, depth) per level, until the frontier empties), checks and reports the last.
template <typename Launch>
int run(int argc, char** argv, const char* variant, Launch launch) {
  sample::Options opt = sample::parse_options(argc, argv);
  graph::GraphProblem p(graph::load_graph(opt), kUnvisitedByte);
  std::vector<double> times = sample::time_runs(opt.reps, [&] { p.reset(); }, [&] {
    p.run([&](int depth) { launch(p, p.frontier, depth); });
  });
  report(variant, p, times);
  return 0;
}

}  // namespace bfs

namespace bfs {

// The host side of a variant that runs a whole search without returning to the host between levels (no
// host loop over the levels): make(p) sets the variant up for the problem, untimed, and returns an object
// whose run() does one search from vertex 0 on the reset levels. Timing, check and result line as in run().
template <typename Make>
int run_searches(int argc, char** argv, const char* variant, Make make) {
  sample::Options opt = sample::parse_options(argc, argv);
  graph::GraphProblem p(graph::load_graph(opt), kUnvisitedByte);
  auto search = make(p);
  std::vector<double> times = sample::time_runs(opt.reps, [&] { p.reset(); }, [&] { search.run(); });
  report(variant, p, times);
  return 0;
}

}  // namespace bfs
