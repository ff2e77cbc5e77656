// Sparse matrix-vector product sample: y = A x, A in CSR, x random in [-1, 1].
//
// Nested parallelism: every row has its own list of nonzeros to multiply, and the lengths are skewed.
// Inputs:
//   generated (default)  --size rows (default 1,000,000), square, columns uniform and distinct per row,
//                        values in [-1, 1]; row lengths follow a power law with skew --param (default 1):
//                        len = min(ceil(u^-skew), 4096, size) with u uniform in (0, 1], so P(len > L) ~ L^(-1/skew).
//                        Skew 0 gives one entry per row; skew 1 gives about 10 per row on average, about
//                        8,000 rows of 128 or more and about 250 rows of 4096 per million rows.
//   --input FILE.mtx     the file's matrix (values as given, symmetric files expanded)
#pragma once

#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "sample.cuh"

namespace spmv {

constexpr int kMaxRowLength = 4096;

inline sample::Csr powerlaw_matrix(int rows, double skew, unsigned long long seed) {
  sample::Rng rng(seed);
  sample::Csr a;
  a.n = rows;
  a.row_ptr.assign(rows + 1, 0);
  const int cap = std::min(kMaxRowLength, rows);
  long long nnz = 0;
  for (int r = 0; r < rows; ++r) {
    double len = std::ceil(std::pow(1.0 - rng.uniform(), -skew));  // 1 - uniform lies in (0, 1]
    int l = len >= cap ? cap : std::max(1, (int)len);
    nnz += l;
    if (nnz > INT_MAX - 64) { std::fprintf(stderr, "power-law matrix: too many nonzeros\n"); std::exit(64); }
    a.row_ptr[r + 1] = (int)nnz;
  }
  a.col.resize(nnz);
  a.val.resize(nnz);
  std::vector<int> cols;
  for (int r = 0; r < rows; ++r) {
    int len = a.row_ptr[r + 1] - a.row_ptr[r];
    // Draw, sort, drop repeats, and top up until the row has len distinct columns (len <= rows).
    cols.clear();
    while ((int)cols.size() < len) {
      while ((int)cols.size() < len) cols.push_back((int)rng.below(rows));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    }
    for (int k = 0; k < len; ++k) {
      a.col[a.row_ptr[r] + k] = cols[k];
      a.val[a.row_ptr[r] + k] = (float)(2.0 * rng.uniform() - 1.0);
    }
  }
  return a;
}

// Sorts every row by column, as cuSPARSE expects (a file's symmetric expansion interleaves them).
inline void sort_rows(sample::Csr& a) {
  std::vector<std::pair<int, float>> row;
  for (int r = 0; r < a.n; ++r) {
    row.clear();
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) row.push_back({a.col[k], a.val[k]});
    std::sort(row.begin(), row.end(), [](const auto& p, const auto& q) { return p.first < q.first; });
    for (size_t i = 0; i < row.size(); ++i) {
      a.col[a.row_ptr[r] + i] = row[i].first;
      a.val[a.row_ptr[r] + i] = row[i].second;
    }
  }
}

// y = A x in double; abs_sum[r] = sum |a_rk x_k| scales the tolerance, since the GPU sums floats in any order.
inline void reference(const sample::Csr& a, const std::vector<float>& x, std::vector<double>* y,
                      std::vector<double>* abs_sum) {
  y->assign(a.n, 0.0);
  abs_sum->assign(a.n, 0.0);
  for (int r = 0; r < a.n; ++r)
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      double t = (double)a.val[k] * x[a.col[k]];
      (*y)[r] += t;
      (*abs_sum)[r] += std::fabs(t);
    }
}

inline bool check(const sample::Csr& a, const std::vector<float>& x, const std::vector<float>& y, std::string* detail) {
  std::vector<double> want, abs_sum;
  reference(a, x, &want, &abs_sum);
  long long wrong = 0;
  int first = -1;
  double worst = 0.0;
  for (int r = 0; r < a.n; ++r) {
    // Float rounding of len products and sums in any order stays below len * 2^-24 of the abs sum;
    // allow four times that. A lost or skipped row is off by about the row's size.
    double tol = (a.row_ptr[r + 1] - a.row_ptr[r] + 1) * std::ldexp(1.0, -22);
    double err = std::fabs((double)y[r] - want[r]);
    double rel = abs_sum[r] > 0 ? err / abs_sum[r] : err;
    bool ok = std::isfinite(y[r]) && err <= tol * abs_sum[r];
    if (!ok && wrong++ == 0) first = r;
    if (std::isfinite(rel)) worst = std::max(worst, rel);
  }
  char buf[160];
  if (wrong)
    std::snprintf(buf, sizeof buf, "%lld of %d rows wrong, first row %d: got %g want %g", wrong, a.n, first,
                  (double)y[first], want[first]);
  else
    std::snprintf(buf, sizeof buf, "max error %.2g of the row abs sum, %lld nonzeros", worst, a.nnz());
  *detail = buf;
  return wrong == 0;
}

// Everything a variant needs: the matrix and x on both sides, and y on the device. reset() poisons y
// with NaN so a run that skips a row cannot pass on an earlier run's result.
struct Problem {
  sample::Options opt;
  sample::Csr a;
  std::string name;
  std::vector<float> x;
  sample::DeviceCsr d;
  float* dx = nullptr;
  float* dy = nullptr;

  explicit Problem(const sample::Options& o) : opt(o) {
    if (!o.input.empty()) {
      a = sample::read_matrix_market(o.input);
      sort_rows(a);
      size_t slash = o.input.find_last_of('/');
      name = o.input.substr(slash == std::string::npos ? 0 : slash + 1);
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".mtx") == 0) name.resize(name.size() - 4);
    } else {
      long long rows = o.size > 0 ? o.size : 1000000;
      if (rows > INT_MAX / 2) { std::fprintf(stderr, "--size %lld too large\n", rows); std::exit(64); }
      double skew = o.param >= 0 ? o.param : 1.0;
      char buf[64];
      std::snprintf(buf, sizeof buf, "powerlaw-%lld-skew%g", rows, skew);
      name = buf;
      std::snprintf(buf, sizeof buf, "powerlaw-%lld-%.17g-%llu", rows, skew, o.seed);  // every digit: the cache key
      a = sample::cached_csr(buf, [&] { return powerlaw_matrix((int)rows, skew, o.seed); });
    }
    if (a.n < 1) { std::fprintf(stderr, "%s: empty matrix\n", name.c_str()); std::exit(65); }
    sample::Rng rng(o.seed ^ 0x5eedull);  // x independent of the matrix stream
    x.resize(a.n);
    for (float& v : x) v = (float)(2.0 * rng.uniform() - 1.0);
    d = sample::to_device(a);
    CUDA_CHECK(cudaMalloc(&dx, sizeof(float) * a.n));
    CUDA_CHECK(cudaMalloc(&dy, sizeof(float) * a.n));
    CUDA_CHECK(cudaMemcpy(dx, x.data(), sizeof(float) * a.n, cudaMemcpyHostToDevice));
  }
  ~Problem() { cudaFree(dx); cudaFree(dy); sample::free_device(d); }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  void reset() { CUDA_CHECK(cudaMemset(dy, 0xff, sizeof(float) * a.n)); }

  // Copies y back, checks it and prints the result line.
  void report(const char* variant, const std::vector<double>& times) const {
    std::vector<float> y(a.n);
    CUDA_CHECK(cudaMemcpy(y.data(), dy, sizeof(float) * a.n, cudaMemcpyDeviceToHost));
    std::string detail;
    bool ok = check(a, x, y, &detail);
    // Row pointers, column indices, values and gathered x per nonzero, y once.
    double bytes = 4.0 * (a.n + 1) + 12.0 * (double)a.nnz() + 4.0 * a.n;
    sample::print_result("spmv", variant, name, times, ok, detail, bytes);
  }

  // The timed part of every variant: times launch() (the whole product, y poisoned before each run),
  // then checks the last run and prints the result line.
  template <typename Launch>
  void measure(const char* variant, Launch launch) {
    std::vector<double> times = sample::time_runs(opt.reps, [&] { reset(); }, launch);
    report(variant, times);
  }
};

}  // namespace spmv
