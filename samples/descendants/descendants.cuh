// Descendant counts and subtree heights of a random tree with skewed fan-out: the generator, the bottom-up
// completion every variant shares ("the last child to finish completes its parent"), the CPU reference and
// checker, and the host side every variant's main() uses (Problem).
//
// For every node v: desc[v], the number of nodes below v, and height[v], the length of the longest path
// from v down to a leaf (0 for a leaf). Both depend on the children's results: the nested parallelism is
// recursive on the way down and a reduction on the way up.
#pragma once

#include <deque>

#include "sample.cuh"

namespace descendants {

constexpr int kMaxFanout = 4096;
constexpr int kPendingLaunches = 2048;

struct Tree {
  int n = 0;
  int root = 0;
  std::vector<int> child_ptr;  // n + 1: children of v are children[child_ptr[v] .. child_ptr[v + 1])
  std::vector<int> children;   // n - 1 node ids
};

struct Input {
  Tree tree;
  std::string name;
};

// The fan-out of a node: a leaf with probability 1/2, else a Pareto(1.2) number of children, floor(U^(-1/1.2))
// capped at kMaxFanout (of the inner nodes, 57% have one child, 73% at most two, one in 200 more than 80).
inline int draw_fanout(sample::Rng& rng) {
  if (rng.uniform() < 0.5) return 0;
  double u = 1.0 - rng.uniform();  // (0, 1]
  double k = std::floor(std::pow(u, -1.0 / 1.2));
  return (int)std::min<double>(k, kMaxFanout);
}

// --size nodes (default 2^20); --param p in [0, 1] (default 0.5): the tree grows by expanding one open
// node at a time, the newest with probability p (depth first: deep trees), else the oldest (breadth
// first: shallow, bushy trees). The last open node always gets at least one child, so the tree reaches
// its size; open nodes left when it does are leaves. Node ids are then shuffled (the root stays 0).
inline Input make_input(const sample::Options& o) {
  long long budget = o.size > 0 ? o.size : (1LL << 20);
  double p = o.param >= 0 ? o.param : 0.5;
  if (budget > (1LL << 28) || p > 1.0) {
    std::fprintf(stderr, "descendants: need at most 2^28 nodes and a depth-first probability in [0, 1]\n");
    std::exit(64);
  }
  const int n = (int)budget;
  sample::Rng rng(o.seed);
  std::vector<int> first_child(n, 0), nchild(n, 0);
  std::deque<int> open{0};
  int created = 1;
  while (created < n) {
    int v;
    if (rng.uniform() < p) { v = open.back(); open.pop_back(); }
    else { v = open.front(); open.pop_front(); }
    int k = draw_fanout(rng);
    if (open.empty()) k = std::max(k, 1);
    k = std::min(k, n - created);
    first_child[v] = created;
    nchild[v] = k;
    for (int c = 0; c < k; ++c) open.push_back(created + c);
    created += k;
  }

  std::vector<int> id(n);
  for (int v = 0; v < n; ++v) id[v] = v;
  for (int v = n - 1; v > 1; --v) std::swap(id[v], id[1 + rng.below(v)]);

  Input in;
  Tree& t = in.tree;
  t.n = n;
  t.child_ptr.assign(n + 1, 0);
  for (int v = 0; v < n; ++v) t.child_ptr[id[v] + 1] = nchild[v];
  for (int v = 0; v < n; ++v) t.child_ptr[v + 1] += t.child_ptr[v];
  t.children.resize(std::max(0, n - 1));
  for (int v = 0; v < n; ++v)
    for (int c = 0; c < nchild[v]; ++c) t.children[t.child_ptr[id[v]] + c] = id[first_child[v] + c];
  char label[32];
  std::snprintf(label, sizeof label, "%.2f", p);
  in.name = "skewed-" + std::to_string(n) + "-p" + label;
  return in;
}

// Structure read once, parents, counters and both results written once and updated once per child.
inline double bytes_moved(const Tree& t) { return 4.0 * (t.n + 1) + 4.0 * (t.n - 1) + 4.0 * t.n * 6; }

// ---- device side ----------------------------------------------------------------------------------------

struct Device {
  int n = 0;
  int* child_ptr = nullptr;
  int* children = nullptr;
  int* parent = nullptr;    // written by the variants (the input has child lists only)
  int* pending = nullptr;   // children of a node that have not completed yet
  int* desc = nullptr;      // results
  int* height = nullptr;
  int* failures = nullptr;  // dp only: failed launches and the first error
};

__device__ inline int load_volatile(const int* p) { return *(const volatile int*)p; }

// Node v has its final desc and height: add them to its parent, and if v was the parent's last child to
// complete, the parent is complete too: go on up. One thread carries each completion as far as it goes;
// every node is completed exactly once, by the thread of its last child (Karras, HPG 2012, builds the
// bounding boxes of a BVH the same way).
__device__ inline void complete(int v, int root, const int* parent, int* pending, int* desc, int* height) {
  while (v != root) {
    const int p = parent[v];
    atomicAdd(&desc[p], load_volatile(&desc[v]) + 1);
    atomicMax(&height[p], load_volatile(&height[v]) + 1);
    __threadfence();  // the updates above before the count below: the parent's completer must see them
    if (atomicSub(&pending[p], 1) != 1) return;
    __threadfence();
    v = p;
  }
}

// failures[0] counts device launches that failed, failures[1] holds the first error code.
__device__ inline void launch_failed(int* failures, cudaError_t error) {
  atomicAdd(&failures[0], 1);
  atomicCAS(&failures[1], 0, (int)error);
}

// ---- CPU reference --------------------------------------------------------------------------------------

struct Shape {
  int height = 0;         // the root's height: the dp recursion's nesting depth
  long long inner = 0;    // nodes with children: the dp variant's device launches (the root's from the host)
  int max_fanout = 0;
};

inline void reference(const Tree& t, std::vector<int>& desc, std::vector<int>& height, Shape& s) {
  desc.assign(t.n, 0);
  height.assign(t.n, 0);
  std::vector<int> order{t.root};  // breadth-first: parents before children
  order.reserve(t.n);
  for (size_t i = 0; i < order.size(); ++i)
    for (int k = t.child_ptr[order[i]]; k < t.child_ptr[order[i] + 1]; ++k) order.push_back(t.children[k]);
  for (size_t i = order.size(); i-- > 0;) {
    const int v = order[i];
    const int k0 = t.child_ptr[v], k1 = t.child_ptr[v + 1];
    for (int k = k0; k < k1; ++k) {
      desc[v] += desc[t.children[k]] + 1;
      height[v] = std::max(height[v], height[t.children[k]] + 1);
    }
    if (k1 > k0) ++s.inner;
    s.max_fanout = std::max(s.max_fanout, k1 - k0);
  }
  s.height = t.n ? height[t.root] : 0;
}

// ---- host side of every variant -------------------------------------------------------------------------

struct Problem {
  sample::Options opts;
  Input in;
  const Tree& t;
  Device d;

  Problem(int argc, char** argv) : opts(sample::parse_options(argc, argv)), in(make_input(opts)), t(in.tree) {
    d.n = t.n;
    const size_t nodes = sizeof(int) * std::max(1, t.n);
    CUDA_CHECK(cudaMalloc(&d.child_ptr, sizeof(int) * (t.n + 1)));
    CUDA_CHECK(cudaMalloc(&d.children, nodes));
    for (int** a : {&d.parent, &d.pending, &d.desc, &d.height}) CUDA_CHECK(cudaMalloc(a, nodes));
    CUDA_CHECK(cudaMalloc(&d.failures, 2 * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d.child_ptr, t.child_ptr.data(), sizeof(int) * (t.n + 1), cudaMemcpyHostToDevice));
    if (t.n > 1) CUDA_CHECK(cudaMemcpy(d.children, t.children.data(), sizeof(int) * (t.n - 1), cudaMemcpyHostToDevice));
  }
  ~Problem() { sample::free_all(d.child_ptr, d.children, d.parent, d.pending, d.desc, d.height, d.failures); }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  // Results to 0 (what a leaf has); parents and counters to -1 (written by every variant before use).
  void reset() const {
    CUDA_CHECK(cudaMemset(d.desc, 0, sizeof(int) * d.n));
    CUDA_CHECK(cudaMemset(d.height, 0, sizeof(int) * d.n));
    CUDA_CHECK(cudaMemset(d.parent, 0xFF, sizeof(int) * d.n));
    CUDA_CHECK(cudaMemset(d.pending, 0xFF, sizeof(int) * d.n));
    CUDA_CHECK(cudaMemset(d.failures, 0, 2 * sizeof(int)));
  }

  // Times run() after reset(), checks the last run against the CPU, prints the result line. A dp run whose
  // device launches failed prints its result with "correct": false, says so on stderr and exits with
  // status 3: it is reported failed, never taken for a time of the whole computation.
  template <typename Run>
  int measure(const char* variant, Run run) {
    std::vector<double> times = sample::time_runs(opts.reps, [&] { reset(); }, run);
    int failed[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(failed, d.failures, sizeof failed, cudaMemcpyDeviceToHost));
    std::vector<int> desc(t.n), height(t.n), want_desc, want_height;
    CUDA_CHECK(cudaMemcpy(desc.data(), d.desc, sizeof(int) * t.n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(height.data(), d.height, sizeof(int) * t.n, cudaMemcpyDeviceToHost));
    Shape s;
    reference(t, want_desc, want_height, s);
    long long wrong = 0;
    for (int v = 0; v < t.n; ++v) wrong += desc[v] != want_desc[v] || height[v] != want_height[v];
    std::string detail = std::to_string(t.n) + " nodes, height " + std::to_string(s.height) + ", " +
                         std::to_string(s.inner) + " inner nodes (device launches), fan-out up to " +
                         std::to_string(s.max_fanout) + ", " + std::to_string(wrong) + " wrong";
    if (failed[0] > 0)
      detail = "FAILED: " + std::to_string(failed[0]) + " device launches failed (" +
               cudaGetErrorName((cudaError_t)failed[1]) + "), " + detail;
    sample::print_result("descendants", variant, in.name, times, wrong == 0 && failed[0] == 0, detail, bytes_moved(t));
    if (failed[0] > 0) {
      std::fprintf(stderr, "descendants %s: %d device launches failed (%s): the counts are incomplete\n", variant,
                   failed[0], cudaGetErrorName((cudaError_t)failed[1]));
      return 3;
    }
    return 0;
  }
};

}  // namespace descendants
