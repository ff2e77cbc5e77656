// Single-source shortest paths sample: Bellman-Ford-style relaxation rounds over a worklist, from vertex 0.
//
// Nested parallelism: every vertex whose distance dropped in the last round relaxes its outgoing edges,
// from none to tens of thousands on R-MAT. Each round appends the vertices whose distance dropped to the
// next worklist; the host stops when a round leaves it empty (the "changed" test). Inputs as in graph.cuh:
// R-MAT scale 20 edge factor 16 by default, a P x P grid with --param P >= 100, or --input FILE.mtx.
//
// Weights and distances are ints so atomicMin works directly. Generated graphs carry weights 1..100.
// A file's values are used when all are integers in [1, 2^20] (pattern files: all 1); otherwise (real,
// zero or negative entries, as in a stiffness matrix) each undirected edge gets a hashed weight in 1..100,
// the same in both directions. The weights stay stored as floats in Csr::val (exact below 2^24).
#pragma once

#include <functional>
#include <queue>

#include "graph.cuh"

namespace sssp {

constexpr int kInf = 0x7f7f7f7f;                // distance of unreached vertices
constexpr unsigned char kInfByte = 0x7f;        // memset byte that makes every int kInf
constexpr double kMaxFileWeight = 1 << 20;

inline void make_integer_weights(sample::Csr& g, unsigned long long seed) {
  bool usable = true;
  for (float w : g.val)
    if (!(w >= 1.0f && w <= kMaxFileWeight && w == std::floor(w))) { usable = false; break; }
  if (!usable) {
    for (int v = 0; v < g.n; ++v)
      for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) {
        unsigned long long lo = (unsigned)std::min(v, g.col[e]), hi = (unsigned)std::max(v, g.col[e]);
        sample::Rng rng(seed ^ (lo << 32 | hi));
        g.val[e] = 1.0f + (float)rng.below(100);
      }
  }
  // Every finite distance must stay below kInf, and d + w must not overflow.
  double max_w = 1.0;
  for (float w : g.val) max_w = std::max(max_w, (double)w);
  if (max_w * (double)g.n >= (double)kInf) {
    std::fprintf(stderr, "weights up to %.0f on %d vertices could overflow int distances\n", max_w, g.n);
    std::exit(64);
  }
}

inline graph::GraphInput load(const sample::Options& o) {
  graph::GraphInput in = graph::load_graph(o);
  make_integer_weights(in.g, o.seed);
  return in;
}

__device__ inline int weight(const float* val, int e) { return (int)val[e]; }

// Lowers u's distance to nd; true when it dropped and u is not yet in this round's next worklist.
// stamp[u] holds the last round that queued u, so a vertex is queued at most once per round.
__device__ inline bool relax(int u, int nd, int* dist, int* stamp, int round) {
  if (nd >= graph::load_relaxed(&dist[u])) return false;
  if (atomicMin(&dist[u], nd) <= nd) return false;
  return atomicExch(&stamp[u], round) != round;
}

// The round-stamp array the variants need besides graph::GraphProblem; zeroed by reset().
struct Stamps {
  int* stamp = nullptr;
  int n;
  explicit Stamps(int n_) : n(n_) { CUDA_CHECK(cudaMalloc(&stamp, sizeof(int) * n)); }
  ~Stamps() { cudaFree(stamp); }
  Stamps(const Stamps&) = delete;
  Stamps& operator=(const Stamps&) = delete;
  void reset() { CUDA_CHECK(cudaMemset(stamp, 0, sizeof(int) * n)); }
};

// Dijkstra with a binary heap, in 64-bit so the reference cannot overflow.
inline std::vector<int> reference(const sample::Csr& g, int source) {
  std::vector<long long> dist(g.n, LLONG_MAX);
  using Item = std::pair<long long, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  dist[source] = 0;
  heap.push({0, source});
  while (!heap.empty()) {
    auto [d, v] = heap.top();
    heap.pop();
    if (d != dist[v]) continue;
    for (int e = g.row_ptr[v]; e < g.row_ptr[v + 1]; ++e) {
      long long nd = d + (long long)g.val[e];
      if (nd < dist[g.col[e]]) { dist[g.col[e]] = nd; heap.push({nd, g.col[e]}); }
    }
  }
  std::vector<int> out(g.n);
  for (int v = 0; v < g.n; ++v) out[v] = dist[v] == LLONG_MAX ? kInf : (int)dist[v];
  return out;
}

inline bool check(const std::vector<int>& dist, const std::vector<int>& want, int rounds, std::string* detail) {
  if (!graph::check_vertices(dist, want, "distances", detail)) return false;
  long long reached = 0;
  int far = 0;
  for (int d : want)
    if (d != kInf) { ++reached; far = std::max(far, d); }
  *detail = "distances match, " + std::to_string(reached) + " reached, max distance " + std::to_string(far) + ", " +
            std::to_string(rounds) + " rounds";
  return true;
}

// Copies the distances back, checks them against the CPU reference and prints the result line;
// rounds is the count of the last timed run.
inline void report(const char* variant, const graph::GraphProblem& p, int rounds, const std::vector<double>& times) {
  std::vector<int> want = reference(p.in.g, graph::kSource);
  std::string detail;
  bool ok = check(p.fetch(), want, rounds, &detail);
  sample::print_result("sssp", variant, p.in.name, times, ok, detail, graph::traversal_bytes(p.in.g, want, kInf, 12));
}

// The host side of every variant: builds the weighted graph from the options, times whole searches from
// vertex 0 (one launch(p, p.frontier, stamp, step) per round, until the worklist empties), checks and
// reports the last.
template <typename Launch>
int run(int argc, char** argv, const char* variant, Launch launch) {
  sample::Options opt = sample::parse_options(argc, argv);
  graph::GraphProblem p(load(opt), kInfByte);
  Stamps s(p.in.g.n);
  int rounds = 0;
  std::vector<double> times = sample::time_runs(opt.reps, [&] { p.reset(); s.reset(); }, [&] {
    rounds = p.run([&](int step) { launch(p, p.frontier, s.stamp, step); });
  });
  report(variant, p, rounds, times);
  return 0;
}

}  // namespace sssp

namespace sssp {

// The host side of a variant that runs a whole search without a host loop over the rounds: make(p, stamp)
// sets the variant up for the problem, untimed, and returns an object with reset() (untimed, after the
// distances and the stamps are reset), run() (one search from vertex 0) and rounds() (the rounds of the
// last run, read after the timing). Timing, check and result line as in run().
template <typename Make>
int run_searches(int argc, char** argv, const char* variant, Make make) {
  sample::Options opt = sample::parse_options(argc, argv);
  graph::GraphProblem p(load(opt), kInfByte);
  Stamps s(p.in.g.n);
  auto search = make(p, s.stamp);
  std::vector<double> times = sample::time_runs(opt.reps, [&] { p.reset(); s.reset(); search.reset(); },
                                                [&] { search.run(); });
  report(variant, p, search.rounds(), times);
  return 0;
}

}  // namespace sssp
