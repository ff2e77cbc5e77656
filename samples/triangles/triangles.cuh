// Triangle counting: input graph, device helpers shared by the variants, CPU reference, checker, and the
// host side every variant's main() hands its launch to (measure, run).
//
// The graph is undirected and simple: every adjacency list is sorted, without duplicates or self-loops.
// Each triangle u < v < w is counted once, from its lowest edge (u, v): the nested parallelism is
// "for every vertex u, for every neighbour v > u, intersect the parts of adj(u) and adj(v) above v".
#pragma once

#include "sample.cuh"

namespace triangles {

// ---- device helpers (also usable on the host) ----------------------------------------------------

// First index in the sorted range col[lo, hi) whose value is greater than x (hi if none).
__host__ __device__ inline int first_greater(const int* col, int lo, int hi, int x) {
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (col[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Number of common values of two sorted, duplicate-free ranges (a merge: linear in na + nb).
__host__ __device__ inline unsigned long long merge_count(const int* a, int na, const int* b, int nb) {
  unsigned long long found = 0;
  int i = 0, j = 0;
  while (i < na && j < nb) {
    if (a[i] < b[j]) ++i;
    else if (a[i] > b[j]) ++j;
    else { ++found; ++i; ++j; }
  }
  return found;
}

// Triangles closed by the edge (u, v) where v = col[p] sits in adj(u) = col[.., end): the common
// neighbours w > v. Since adj(u) is sorted, its part above v is simply the tail after position p.
__device__ inline unsigned long long edge_triangles(const int* row_ptr, const int* col, int p, int end) {
  int v = col[p];
  int v_first = first_greater(col, row_ptr[v], row_ptr[v + 1], v);
  return merge_count(col + p + 1, end - p - 1, col + v_first, row_ptr[v + 1] - v_first);
}

// ---- input ------------------------------------------------------------------------------------------

struct Input {
  sample::Csr graph;  // symmetric, sorted, duplicate-free, no self-loops; val unused (all 1)
  std::string name;
};

// Symmetrises any Csr (directed or already symmetric), drops self-loops, sorts and dedups each list.
inline sample::Csr simple_undirected(const sample::Csr& m) {
  std::vector<std::vector<int>> adj(m.n);
  for (int u = 0; u < m.n; ++u)
    for (int k = m.row_ptr[u]; k < m.row_ptr[u + 1]; ++k) {
      int v = m.col[k];
      if (v == u || v < 0 || v >= m.n) continue;
      adj[u].push_back(v);
      adj[v].push_back(u);
    }
  sample::Csr g;
  g.n = m.n;
  g.row_ptr.assign(m.n + 1, 0);
  for (int u = 0; u < m.n; ++u) {
    std::sort(adj[u].begin(), adj[u].end());
    adj[u].erase(std::unique(adj[u].begin(), adj[u].end()), adj[u].end());
    g.row_ptr[u + 1] = g.row_ptr[u] + (int)adj[u].size();
  }
  g.col.reserve(g.row_ptr[m.n]);
  for (int u = 0; u < m.n; ++u) g.col.insert(g.col.end(), adj[u].begin(), adj[u].end());
  g.val.assign(g.col.size(), 1.0f);
  return g;
}

// --input FILE.mtx, or an R-MAT graph of scale --size (default 15) and edge factor --param (default 16).
// Scale 15 keeps the flat variant's worst thread (vertex 0, the biggest hub, ~18M merge steps) well
// under a second; every scale up roughly triples it.
inline Input make_input(const sample::Options& o) {
  Input in;
  if (!o.input.empty()) {
    in.graph = simple_undirected(sample::read_matrix_market(o.input));
    size_t slash = o.input.find_last_of('/');
    in.name = slash == std::string::npos ? o.input : o.input.substr(slash + 1);
    return in;
  }
  long long scale = o.size > 0 ? o.size : 15;
  int edge_factor = o.param > 0 ? (int)o.param : 16;
  // 2^scale * edge_factor * 2 directed entries must fit the int offsets of Csr.
  if (scale > 24 || (double)(1LL << scale) * edge_factor * 2 >= 2147483647.0) {
    std::fprintf(stderr, "triangles: R-MAT scale %lld with edge factor %d is too large\n", scale, edge_factor);
    std::exit(64);
  }
  in.graph = sample::cached_csr(
      "triangles-rmat-" + std::to_string(scale) + "-" + std::to_string(edge_factor) + "-" + std::to_string(o.seed),
      [&] { return simple_undirected(sample::rmat_graph((int)scale, edge_factor, o.seed)); });
  in.name = "rmat-" + std::to_string(scale) + "-ef" + std::to_string(edge_factor);
  return in;
}

// Bytes a variant must at least read: the CSR once.
inline double bytes_moved(const sample::Csr& g) {
  return 4.0 * (g.n + 1) + 4.0 * (double)g.nnz();
}

// ---- CPU reference and checker -------------------------------------------------------------------

// Counts with a marker array (a different method from the GPU's merges, so a shared bug shows up).
inline unsigned long long cpu_triangles(const sample::Csr& g) {
  std::vector<int> mark(g.n, -1);
  unsigned long long total = 0;
  for (int u = 0; u < g.n; ++u) {
    for (int k = g.row_ptr[u]; k < g.row_ptr[u + 1]; ++k) mark[g.col[k]] = u;
    for (int k = g.row_ptr[u]; k < g.row_ptr[u + 1]; ++k) {
      int v = g.col[k];
      if (v <= u) continue;
      for (int l = g.row_ptr[v]; l < g.row_ptr[v + 1]; ++l) {
        int w = g.col[l];
        if (w > v && mark[w] == u) ++total;
      }
    }
  }
  return total;
}

inline bool check(unsigned long long got, unsigned long long expected, std::string& detail) {
  detail = "triangles " + std::to_string(got) + " expected " + std::to_string(expected);
  return got == expected;
}

// ---- host side of every variant -------------------------------------------------------------------

// Copies the graph to the device, times launch(d, total) with the count zeroed before each run, checks
// the last count against the CPU and prints the result line. extra_bytes: what the variant reads besides
// the CSR.
template <typename Launch>
void measure(const Input& in, int reps, const char* variant, double extra_bytes, Launch launch) {
  const sample::Csr& g = in.graph;
  sample::DeviceCsr d = sample::to_device(g);
  unsigned long long* d_total = nullptr;
  CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));

  std::vector<double> times = sample::time_runs(
      reps, [&] { CUDA_CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long))); }, [&] { launch(d, d_total); });

  unsigned long long got = 0;
  CUDA_CHECK(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
  std::string detail;
  bool ok = check(got, cpu_triangles(g), detail);
  sample::print_result("triangles", variant, in.name, times, ok, detail, bytes_moved(g) + extra_bytes);

  CUDA_CHECK(cudaFree(d_total));
  sample::free_device(d);
}

// The whole program for a variant that needs nothing besides the CSR.
template <typename Launch>
int run(int argc, char** argv, const char* variant, Launch launch) {
  sample::Options opts = sample::parse_options(argc, argv);
  measure(make_input(opts), opts.reps, variant, 0.0, launch);
  return 0;
}

}  // namespace triangles
