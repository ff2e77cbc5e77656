// Shared harness for the pragmadp sample programs: options, error checks, timing, result line.
//
// Every sample program is one .cu file per variant (naive dynamic parallelism, flat, best flat) that
// includes this header and its sample's own header. It generates its input with a fixed seed, runs the
// variant `--reps` times after a warm-up, checks the last output against a CPU reference, and prints one
// JSON line last, which bench/ and the GPU tests read:
//   {"sample": "spmv", "variant": "dp", "input": "powerlaw-1000000", "median_ms": 1.25,
//    "times_ms": [...], "correct": true, "detail": "max relative error 1e-7", "bytes": 123456}
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include <unistd.h>

#include <cuda_runtime.h>

#define CUDA_CHECK(call)                                                                    \
  do {                                                                                      \
    cudaError_t err_ = (call);                                                              \
    if (err_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: CUDA error %s: %s\n", __FILE__, __LINE__,                \
                   cudaGetErrorName(err_), cudaGetErrorString(err_));                       \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)

namespace sample {

// Command-line options shared by all samples: --size N --seed S --reps R --input FILE --param X.
struct Options {
  long long size = 0;        // problem size (rows, vertices, curves, nodes...), 0 = sample default
  unsigned long long seed = 12345;
  int reps = 5;
  std::string input;         // a Matrix Market file instead of a generated input
  double param = -1.0;       // sample-specific knob (skew, fan-out...), < 0 = sample default
};

inline Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) { std::fprintf(stderr, "missing value after %s\n", a.c_str()); std::exit(64); }
      return argv[++i];
    };
    if (a == "--size") o.size = std::atoll(next());
    else if (a == "--seed") o.seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--reps") o.reps = std::atoi(next());
    else if (a == "--input") o.input = next();
    else if (a == "--param") o.param = std::atof(next());
    else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); std::exit(64); }
  }
  if (o.reps < 1) o.reps = 1;
  return o;
}

// splitmix64: a small, fast, seedable generator so CPU and GPU inputs are reproducible everywhere.
struct Rng {
  unsigned long long s;
  explicit Rng(unsigned long long seed) : s(seed) {}
  unsigned long long next() {
    unsigned long long z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
  unsigned long long below(unsigned long long n) { return n ? next() % n : 0; }
};

// Times `run` with CUDA events: one warm-up, then `reps` timed runs; `reset` runs untimed before each.
template <typename Reset, typename Run>
std::vector<double> time_runs(int reps, Reset reset, Run run) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  reset();
  run();
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    reset();
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventRecord(start));
    run();
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0.f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return times;
}

// cudaFree on each pointer in turn, every call checked.
template <typename... T>
void free_all(T*... ptrs) {
  for (void* p : {static_cast<void*>(ptrs)...}) CUDA_CHECK(cudaFree(p));
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

// Prints the one JSON result line that bench/ and the tests parse. `detail` must not contain quotes.
inline void print_result(const char* sample, const char* variant, const std::string& input,
                         const std::vector<double>& times, bool correct, const std::string& detail,
                         double bytes_moved) {
  std::printf("{\"sample\": \"%s\", \"variant\": \"%s\", \"input\": \"%s\", \"median_ms\": %.6f, \"times_ms\": [",
              sample, variant, input.c_str(), median(times));
  for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.6f", i ? ", " : "", times[i]);
  std::printf("], \"correct\": %s, \"detail\": \"%s\", \"bytes\": %.0f}\n", correct ? "true" : "false",
              detail.c_str(), bytes_moved);
  std::fflush(stdout);
}

// A graph or sparse matrix in CSR form, on the host.
struct Csr {
  int n = 0;                    // rows (vertices)
  std::vector<int> row_ptr;     // n + 1
  std::vector<int> col;         // nnz
  std::vector<float> val;       // nnz (weights; 1 when the input has none)
  long long nnz() const { return (long long)col.size(); }
};

// Builds CSR from a coordinate list; duplicates are kept, rows sorted by column.
inline Csr csr_from_coo(int n, const std::vector<int>& r, const std::vector<int>& c, const std::vector<float>& v) {
  Csr m;
  m.n = n;
  m.row_ptr.assign(n + 1, 0);
  for (int x : r) m.row_ptr[x + 1]++;
  for (int i = 0; i < n; ++i) m.row_ptr[i + 1] += m.row_ptr[i];
  m.col.resize(r.size());
  m.val.resize(r.size());
  std::vector<int> fill(m.row_ptr.begin(), m.row_ptr.end() - 1);
  for (size_t k = 0; k < r.size(); ++k) {
    int p = fill[r[k]]++;
    m.col[p] = c[k];
    m.val[p] = v[k];
  }
  return m;
}

// Reads a Matrix Market coordinate file (real, integer or pattern; general or symmetric).
// Symmetric files are expanded to both triangles. Exits with a message on a malformed file.
inline Csr read_matrix_market(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) { std::fprintf(stderr, "%s: cannot open\n", path.c_str()); std::exit(66); }
  char line[1024];
  bool symmetric = false, pattern = false, header = true;
  int rows = 0, cols = 0;
  long long entries = 0;
  std::vector<int> r, c;
  std::vector<float> v;
  while (std::fgets(line, sizeof line, f)) {
    if (line[0] == '%') {
      if (header && std::strstr(line, "symmetric")) symmetric = true;
      if (header && std::strstr(line, "pattern")) pattern = true;
      continue;
    }
    if (header) {
      if (std::sscanf(line, "%d %d %lld", &rows, &cols, &entries) != 3) {
        std::fprintf(stderr, "%s: bad size line\n", path.c_str()); std::exit(65);
      }
      header = false;
      continue;
    }
    int i, j; double x = 1.0;
    int got = std::sscanf(line, "%d %d %lf", &i, &j, &x);
    if (got < 2 || (!pattern && got < 3)) { std::fprintf(stderr, "%s: bad entry line\n", path.c_str()); std::exit(65); }
    r.push_back(i - 1); c.push_back(j - 1); v.push_back((float)x);
    if (symmetric && i != j) { r.push_back(j - 1); c.push_back(i - 1); v.push_back((float)x); }
  }
  std::fclose(f);
  return csr_from_coo(std::max(rows, cols), r, c, v);
}

// R-MAT edges with Graph500 parameters a=.57 b=.19 c=.19 (d=.05); self-loops dropped, undirected.
inline Csr rmat_graph(int scale, int edge_factor, unsigned long long seed) {
  Rng rng(seed);
  int n = 1 << scale;
  long long m = (long long)n * edge_factor;
  std::vector<int> r, c;
  std::vector<float> v;
  r.reserve(2 * m); c.reserve(2 * m); v.reserve(2 * m);
  for (long long e = 0; e < m; ++e) {
    int i = 0, j = 0;
    for (int bit = scale - 1; bit >= 0; --bit) {
      double p = rng.uniform();
      if (p < 0.57) {}
      else if (p < 0.76) j |= 1 << bit;
      else if (p < 0.95) i |= 1 << bit;
      else { i |= 1 << bit; j |= 1 << bit; }
    }
    if (i == j) continue;
    float w = 1.0f + (float)rng.below(100);
    r.push_back(i); c.push_back(j); v.push_back(w);
    r.push_back(j); c.push_back(i); v.push_back(w);
  }
  return csr_from_coo(n, r, c, v);
}

// A road-like graph: a side x side 2-D grid, 4-neighbour, with random weights.
inline Csr grid_graph(int side, unsigned long long seed) {
  Rng rng(seed);
  std::vector<int> r, c;
  std::vector<float> v;
  auto id = [side](int x, int y) { return y * side + x; };
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      if (x + 1 < side) { float w = 1.0f + (float)rng.below(100); r.push_back(id(x, y)); c.push_back(id(x + 1, y)); v.push_back(w); r.push_back(id(x + 1, y)); c.push_back(id(x, y)); v.push_back(w); }
      if (y + 1 < side) { float w = 1.0f + (float)rng.below(100); r.push_back(id(x, y)); c.push_back(id(x, y + 1)); v.push_back(w); r.push_back(id(x, y + 1)); c.push_back(id(x, y)); v.push_back(w); }
    }
  return csr_from_coo(side * side, r, c, v);
}

// Whether m is a well-formed CSR: row pointers from 0 to nnz, never decreasing, columns in range.
inline bool valid_csr(const Csr& m) {
  if (m.n < 0 || m.row_ptr.size() != (size_t)m.n + 1 || m.val.size() != m.col.size() || m.row_ptr[0] != 0 ||
      m.row_ptr[m.n] != m.nnz())
    return false;
  for (int i = 0; i < m.n; ++i)
    if (m.row_ptr[i] > m.row_ptr[i + 1]) return false;
  for (int c : m.col)
    if (c < 0 || c >= m.n) return false;
  return true;
}

// A generated input, cached on disk when PDCC_SAMPLE_CACHE names a folder: the benchmark runs every
// variant on the same inputs, and generating an R-MAT graph of scale 20 takes seconds per run. `key`
// must name every parameter of the generator. A file that is not a well-formed CSR of its own size is
// rebuilt; a new one is written under a private name and renamed, so concurrent runs never see half a file.
template <typename Build>
inline Csr cached_csr(const std::string& key, Build build) {
  const char* dir = std::getenv("PDCC_SAMPLE_CACHE");
  if (dir == nullptr || *dir == 0) return build();
  const std::string path = std::string(dir) + "/" + key + ".csr";
  auto io = [](size_t done, size_t want) { return want == 0 || done == want; };
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    Csr m;
    long long nnz = -1;
    std::fseek(f, 0, SEEK_END);
    const long long size = std::ftell(f);
    std::rewind(f);
    bool ok = std::fread(&m.n, sizeof m.n, 1, f) == 1 && std::fread(&nnz, sizeof nnz, 1, f) == 1 && m.n >= 0 &&
              nnz >= 0 && nnz <= INT32_MAX &&
              size == (long long)(sizeof m.n + sizeof nnz) + 4ll * ((long long)m.n + 1) + 8ll * nnz;
    if (ok) {
      m.row_ptr.resize((size_t)m.n + 1);
      m.col.resize(nnz);
      m.val.resize(nnz);
      ok = io(std::fread(m.row_ptr.data(), sizeof(int), m.row_ptr.size(), f), m.row_ptr.size()) &&
           io(std::fread(m.col.data(), sizeof(int), nnz, f), nnz) && io(std::fread(m.val.data(), sizeof(float), nnz, f), nnz) &&
           valid_csr(m);
    }
    std::fclose(f);
    if (ok) return m;
  }
  Csr m = build();
  const std::string partial = path + ".part" + std::to_string((long long)getpid());
  if (FILE* f = std::fopen(partial.c_str(), "wb")) {
    const long long nnz = m.nnz();
    bool ok = std::fwrite(&m.n, sizeof m.n, 1, f) == 1 && std::fwrite(&nnz, sizeof nnz, 1, f) == 1 &&
              io(std::fwrite(m.row_ptr.data(), sizeof(int), m.row_ptr.size(), f), m.row_ptr.size()) &&
              io(std::fwrite(m.col.data(), sizeof(int), m.col.size(), f), m.col.size()) &&
              io(std::fwrite(m.val.data(), sizeof(float), m.val.size(), f), m.val.size());
    ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(partial.c_str(), path.c_str()) != 0) std::remove(partial.c_str());
  }
  return m;
}

// Device copy of a Csr; freed by the caller with free_device().
struct DeviceCsr {
  int n = 0;
  long long nnz = 0;
  int* row_ptr = nullptr;
  int* col = nullptr;
  float* val = nullptr;
};

inline DeviceCsr to_device(const Csr& m) {
  DeviceCsr d;
  d.n = m.n;
  d.nnz = m.nnz();
  CUDA_CHECK(cudaMalloc(&d.row_ptr, sizeof(int) * (m.n + 1)));
  CUDA_CHECK(cudaMalloc(&d.col, sizeof(int) * std::max<long long>(1, m.nnz())));
  CUDA_CHECK(cudaMalloc(&d.val, sizeof(float) * std::max<long long>(1, m.nnz())));
  CUDA_CHECK(cudaMemcpy(d.row_ptr, m.row_ptr.data(), sizeof(int) * (m.n + 1), cudaMemcpyHostToDevice));
  if (m.nnz()) {
    CUDA_CHECK(cudaMemcpy(d.col, m.col.data(), sizeof(int) * m.nnz(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d.val, m.val.data(), sizeof(float) * m.nnz(), cudaMemcpyHostToDevice));
  }
  return d;
}

inline void free_device(DeviceCsr& d) {
  cudaFree(d.row_ptr); cudaFree(d.col); cudaFree(d.val);
  d = DeviceCsr{};
}

}  // namespace sample
