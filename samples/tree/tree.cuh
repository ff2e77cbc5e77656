// Tree traversal: a generated irregular tree, the per-node results, CPU reference and checker, the
// level-by-level host loop the two flat variants share, and the host side every variant's main() uses
// (Problem).
//
// Every node gets its depth and the sum of the values on its path from the root (root included). The
// nested parallelism is recursive: processing a node means processing all of its children, then theirs.
#pragma once

#include "sample.cuh"

namespace tree {

// Levels below the root. A recursive device launch per level nests grids that deep, and CDP allows 24.
constexpr int kMaxDepth = 12;

struct Tree {
  int n = 0;
  int root = 0;
  int max_fanout = 0;
  std::vector<int> child_ptr;  // n + 1: children of v are children[child_ptr[v] .. child_ptr[v + 1])
  std::vector<int> children;   // n - 1 node ids
  std::vector<int> value;      // 1..100 per node
};

struct Input {
  Tree tree;
  std::string name;
};

// --size nodes (default 2^20) and a fan-out drawn uniformly in [0, F] per node, F = --param (default 8).
// Nodes are grown breadth first until the budget or depth kMaxDepth is reached (the root always gets F
// children so the tree cannot die at once), then renumbered randomly so siblings are not neighbours in
// memory, as in a tree built by a real program.
inline Input make_input(const sample::Options& o) {
  long long budget = o.size > 0 ? o.size : (1LL << 20);
  int fanout = o.param > 0 ? (int)o.param : 8;
  if (budget > (1LL << 28) || fanout < 1 || fanout > (1 << 20)) {
    std::fprintf(stderr, "tree: need at most 2^28 nodes and a fan-out in 1..2^20\n");
    std::exit(64);
  }
  sample::Rng rng(o.seed);
  // Breadth-first growth in creation order: node k's children are a contiguous run of later ids.
  std::vector<int> depth(1, 0), first_child, nchild;
  long long created = 1;
  for (long long v = 0; v < created; ++v) {
    int k = v == 0 ? fanout : (int)rng.below(fanout + 1);
    if (depth[v] == kMaxDepth) k = 0;
    k = (int)std::min<long long>(k, budget - created);
    first_child.push_back((int)created);
    nchild.push_back(k);
    for (int c = 0; c < k; ++c) depth.push_back(depth[v] + 1);
    created += k;
  }
  int n = (int)created;

  // Random ids, the root keeps id 0.
  std::vector<int> id(n);
  for (int v = 0; v < n; ++v) id[v] = v;
  for (int v = n - 1; v > 1; --v) std::swap(id[v], id[1 + rng.below(v)]);

  Input in;
  Tree& t = in.tree;
  t.n = n;
  t.max_fanout = fanout;
  t.child_ptr.assign(n + 1, 0);
  for (int v = 0; v < n; ++v) t.child_ptr[id[v] + 1] = nchild[v];
  for (int v = 0; v < n; ++v) t.child_ptr[v + 1] += t.child_ptr[v];
  t.children.resize(n - 1);
  for (int v = 0; v < n; ++v)
    for (int c = 0; c < nchild[v]; ++c) t.children[t.child_ptr[id[v]] + c] = id[first_child[v] + c];
  t.value.resize(n);
  for (int v = 0; v < n; ++v) t.value[v] = 1 + (int)rng.below(100);
  in.name = "tree-" + std::to_string(n) + "-f" + std::to_string(fanout);
  return in;
}

// Structure and values read once, depth and path sum written once.
inline double bytes_moved(const Tree& t) {
  return 4.0 * (t.n + 1) + 4.0 * (t.n - 1) + 4.0 * t.n * 3;
}

// ---- device side ---------------------------------------------------------------------------------------

struct Device {
  int n = 0;
  int* child_ptr = nullptr;
  int* children = nullptr;
  int* value = nullptr;
  int* depth = nullptr;     // results; -1 = never reached
  int* path_sum = nullptr;
};

inline Device to_device(const Tree& t) {
  Device d;
  d.n = t.n;
  CUDA_CHECK(cudaMalloc(&d.child_ptr, sizeof(int) * (t.n + 1)));
  CUDA_CHECK(cudaMalloc(&d.children, sizeof(int) * std::max(1, t.n - 1)));
  CUDA_CHECK(cudaMalloc(&d.value, sizeof(int) * t.n));
  CUDA_CHECK(cudaMalloc(&d.depth, sizeof(int) * t.n));
  CUDA_CHECK(cudaMalloc(&d.path_sum, sizeof(int) * t.n));
  CUDA_CHECK(cudaMemcpy(d.child_ptr, t.child_ptr.data(), sizeof(int) * (t.n + 1), cudaMemcpyHostToDevice));
  if (t.n > 1) CUDA_CHECK(cudaMemcpy(d.children, t.children.data(), sizeof(int) * (t.n - 1), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d.value, t.value.data(), sizeof(int) * t.n, cudaMemcpyHostToDevice));
  return d;
}

inline void free_device(Device& d) {
  sample::free_all(d.child_ptr, d.children, d.value, d.depth, d.path_sum);
  d = Device{};
}

// All-ones bytes are -1: a node no thread reached fails the check.
inline void reset(const Device& d) {
  CUDA_CHECK(cudaMemset(d.depth, 0xFF, sizeof(int) * d.n));
  CUDA_CHECK(cudaMemset(d.path_sum, 0xFF, sizeof(int) * d.n));
}

// The root's own results, and (when frontier is given) the root as the first frontier.
__global__ void visit_root(const int* value, int* depth, int* path_sum, int root, int* frontier) {
  depth[root] = 0;
  path_sum[root] = value[root];
  if (frontier) frontier[0] = root;
}

// Level-synchronous driver for the flat variants: `expand(frontier, count, next, next_count)` processes
// the children of every frontier node and appends those that have children of their own to `next`.
// Each node enters a frontier at most once, so n slots per frontier suffice.
struct Levels {
  int* frontier = nullptr;
  int* next = nullptr;
  int* next_count = nullptr;

  explicit Levels(int n) {
    CUDA_CHECK(cudaMalloc(&frontier, sizeof(int) * std::max(1, n)));
    CUDA_CHECK(cudaMalloc(&next, sizeof(int) * std::max(1, n)));
    CUDA_CHECK(cudaMalloc(&next_count, sizeof(int)));
  }
  ~Levels() {
    CUDA_CHECK(cudaFree(frontier));
    CUDA_CHECK(cudaFree(next));
    CUDA_CHECK(cudaFree(next_count));
  }
  Levels(const Levels&) = delete;
  Levels& operator=(const Levels&) = delete;

  template <typename Expand>
  void run(const Tree& t, const Device& d, Expand expand) {
    visit_root<<<1, 1>>>(d.value, d.depth, d.path_sum, t.root, frontier);
    int count = t.child_ptr[t.root + 1] > t.child_ptr[t.root] ? 1 : 0;
    // The host needs each level's size to size the next launch: one small copy per level.
    for (int level = 0; count > 0 && level <= kMaxDepth; ++level) {
      CUDA_CHECK(cudaMemsetAsync(next_count, 0, sizeof(int)));
      expand(frontier, count, next, next_count);
      CUDA_CHECK(cudaMemcpy(&count, next_count, sizeof(int), cudaMemcpyDeviceToHost));
      std::swap(frontier, next);
    }
  }
};

// ---- CPU reference and checker -------------------------------------------------------------------

inline void cpu_traverse(const Tree& t, std::vector<int>& depth, std::vector<int>& path_sum) {
  depth.assign(t.n, -1);
  path_sum.assign(t.n, -1);
  std::vector<int> stack(1, t.root);
  depth[t.root] = 0;
  path_sum[t.root] = t.value[t.root];
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    for (int k = t.child_ptr[v]; k < t.child_ptr[v + 1]; ++k) {
      int c = t.children[k];
      depth[c] = depth[v] + 1;
      path_sum[c] = path_sum[v] + t.value[c];
      stack.push_back(c);
    }
  }
}

inline bool check(const Tree& t, const Device& d, std::string& detail) {
  std::vector<int> depth(t.n), path_sum(t.n), want_depth, want_sum;
  CUDA_CHECK(cudaMemcpy(depth.data(), d.depth, sizeof(int) * t.n, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(path_sum.data(), d.path_sum, sizeof(int) * t.n, cudaMemcpyDeviceToHost));
  cpu_traverse(t, want_depth, want_sum);
  long long unreached = 0, wrong = 0;
  int height = 0;
  for (int v = 0; v < t.n; ++v) {
    height = std::max(height, want_depth[v]);
    if (depth[v] < 0) ++unreached;
    else if (depth[v] != want_depth[v] || path_sum[v] != want_sum[v]) ++wrong;
  }
  detail = std::to_string(t.n) + " nodes, height " + std::to_string(height) + ", " + std::to_string(unreached) +
           " unreached, " + std::to_string(wrong) + " wrong";
  return unreached == 0 && wrong == 0;
}

// ---- host side of every variant -------------------------------------------------------------------

// The tree built from the command line, on the host (t) and on the device (d).
struct Problem {
  sample::Options opts;
  Input in;
  const Tree& t;
  Device d;

  Problem(int argc, char** argv)
      : opts(sample::parse_options(argc, argv)), in(make_input(opts)), t(in.tree), d(to_device(in.tree)) {}
  ~Problem() { free_device(d); }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  // Times run() with the results reset to -1 before each run, checks the last run, prints the result line.
  template <typename Run>
  void measure(const char* variant, Run run) {
    std::vector<double> times = sample::time_runs(opts.reps, [&] { reset(d); }, run);
    std::string detail;
    bool ok = check(t, d, detail);
    sample::print_result("tree", variant, in.name, times, ok, detail, bytes_moved(t));
  }

  // measure() for the level-synchronous variants: each run is one Levels::run with `expand`.
  template <typename Expand>
  void measure_levels(const char* variant, Expand expand) {
    Levels levels(t.n);
    measure(variant, [&] { levels.run(t, d, expand); });
  }
};

}  // namespace tree
