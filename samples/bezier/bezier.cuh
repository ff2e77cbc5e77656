// Bézier line tessellation: curves, the per-curve point count, the offset pipeline shared by all
// variants (count kernel + exclusive scan), CPU reference and checker, and the host side every variant's
// main() hands its launch to (run).
//
// Each quadratic curve gets a number of points that grows with its curvature (1..max_points), so the
// nested loop "for every curve, for every point" is very irregular. Points of curve i are stored
// contiguously from offsets[i]; the offsets come from an exclusive scan of the counts, so no variant
// allocates on the device heap.
#pragma once

#include "sample.cuh"

namespace bezier {

// Control points lie on an integer grid (stored as exact floats), so the point count can be computed
// in integer arithmetic and host and device agree on it bit for bit.
constexpr int kGrid = 4096;

struct Curve {
  float2 p0, p1, p2;
};

// Points for one curve: 1 + (max_points - 1) * curvature^2, clamped, where curvature is the distance of
// the middle control point from the chord's midpoint over the chord length. A degenerate chord gets
// max_points. 2 * p1 - p0 - p2 is twice the offset from the midpoint, hence the 4 below.
__host__ __device__ inline int point_count(const Curve& c, int max_points) {
  long long cx = (long long)c.p2.x - (long long)c.p0.x, cy = (long long)c.p2.y - (long long)c.p0.y;
  long long bx = 2 * (long long)c.p1.x - (long long)c.p0.x - (long long)c.p2.x;
  long long by = 2 * (long long)c.p1.y - (long long)c.p0.y - (long long)c.p2.y;
  long long chord2 = cx * cx + cy * cy, bend2 = bx * bx + by * by;
  if (chord2 == 0) return max_points;
  long long extra = (long long)(max_points - 1) * bend2 / (4 * chord2);
  return 1 + (int)(extra < max_points - 1 ? extra : max_points - 1);
}

// Point j of count on the curve, at evenly spaced parameters t = j / (count - 1).
__host__ __device__ inline float2 point_at(const Curve& c, int j, int count) {
  float t = count > 1 ? (float)j / (float)(count - 1) : 0.0f;
  float s = 1.0f - t;
  float a = s * s, b = 2.0f * s * t, d = t * t;
  return make_float2(a * c.p0.x + b * c.p1.x + d * c.p2.x, a * c.p0.y + b * c.p1.y + d * c.p2.y);
}

// The point count of curve i for the variants that write a curve's points themselves, or -1 when i is
// past the last curve or the curve's points would end past the allocation (wrong offsets must not write
// out of bounds).
__device__ inline int checked_count(const long long* offsets, int n, long long capacity, long long i) {
  if (i >= n || offsets[i + 1] > capacity) return -1;
  return (int)(offsets[i + 1] - offsets[i]);
}

// ---- the offset pipeline (every variant runs it first) -----------------------------------------------

__global__ void count_points(const Curve* curves, int n, int max_points, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) counts[i] = point_count(curves[i], max_points);
}

constexpr int kScanThreads = 1024;

// Exclusive scan of n counts into offsets[0..n], offsets[n] = total, by a single block: each thread scans
// a contiguous chunk, thread 0 scans the chunk sums. Simple, and far from the bottleneck here.
__global__ void exclusive_scan(const int* counts, int n, long long* offsets) {
  __shared__ long long chunk_start[kScanThreads];
  int t = threadIdx.x;
  long long chunk = (n + kScanThreads - 1) / kScanThreads;
  long long lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
  long long sum = 0;
  for (long long i = lo; i < hi; ++i) sum += counts[i];
  chunk_start[t] = sum;
  __syncthreads();
  if (t == 0) {
    long long run = 0;
    for (int k = 0; k < kScanThreads; ++k) { long long x = chunk_start[k]; chunk_start[k] = run; run += x; }
    offsets[n] = run;
  }
  __syncthreads();
  long long run = chunk_start[t];
  for (long long i = lo; i < hi; ++i) { offsets[i] = run; run += counts[i]; }
}

// ---- input ------------------------------------------------------------------------------------------

struct Input {
  std::vector<Curve> curves;
  int max_points = 0;
  std::vector<long long> offsets;  // CPU offsets, n + 1; offsets[n] = total points
  std::string name;
  int n() const { return (int)curves.size(); }
  long long total() const { return offsets.back(); }
};

// --size curves (default 65536) with at most --param points each (default 1024). End points are uniform
// on the grid; the middle point sits off the chord by 1.2 u^2 chord lengths (u uniform), so most curves
// are nearly straight and about a tenth hit max_points.
inline Input make_input(const sample::Options& o) {
  long long n = o.size > 0 ? o.size : 65536;
  double max_points = o.param > 0 ? o.param : 1024;
  if (n > (1LL << 26) || max_points > 65536) {
    std::fprintf(stderr, "bezier: at most 2^26 curves and 65536 points per curve\n");
    std::exit(64);
  }
  Input in;
  in.max_points = (int)max_points < 1 ? 1 : (int)max_points;
  sample::Rng rng(o.seed);
  in.curves.resize(n);
  for (Curve& c : in.curves) {
    long long x0 = rng.below(kGrid), y0 = rng.below(kGrid), x2 = rng.below(kGrid), y2 = rng.below(kGrid);
    double u = rng.uniform();
    double bend = (rng.below(2) ? 1.2 : -1.2) * u * u;
    // perpendicular of the chord (-dy, dx), scaled by bend; rounded back onto the grid
    long long x1 = std::llround(0.5 * (x0 + x2) - bend * (double)(y2 - y0));
    long long y1 = std::llround(0.5 * (y0 + y2) + bend * (double)(x2 - x0));
    c.p0 = make_float2((float)x0, (float)y0);
    c.p1 = make_float2((float)x1, (float)y1);
    c.p2 = make_float2((float)x2, (float)y2);
  }
  in.offsets.assign(n + 1, 0);
  for (long long i = 0; i < n; ++i) in.offsets[i + 1] = in.offsets[i] + point_count(in.curves[i], in.max_points);
  if (in.total() > (1LL << 31)) {
    std::fprintf(stderr, "bezier: %lld points would not fit in device memory\n", in.total());
    std::exit(64);
  }
  in.name = "curves-" + std::to_string(n) + "-max" + std::to_string(in.max_points);
  return in;
}

// Curves and counts read, offsets written and read, points written.
inline double bytes_moved(const Input& in) {
  return (double)in.n() * (sizeof(Curve) + sizeof(int) * 2 + sizeof(long long) * 3) + 8.0 * (double)in.total();
}

// ---- device buffers shared by the variants -----------------------------------------------------------

struct Device {
  int n = 0;
  int max_points = 0;
  long long capacity = 0;    // points allocated: the CPU total; kernels never write past it
  Curve* curves = nullptr;
  int* counts = nullptr;
  long long* offsets = nullptr;  // n + 1
  float2* points = nullptr;
};

inline Device to_device(const Input& in) {
  Device d;
  d.n = in.n();
  d.max_points = in.max_points;
  d.capacity = in.total();
  CUDA_CHECK(cudaMalloc(&d.curves, sizeof(Curve) * std::max(1, d.n)));
  CUDA_CHECK(cudaMalloc(&d.counts, sizeof(int) * std::max(1, d.n)));
  CUDA_CHECK(cudaMalloc(&d.offsets, sizeof(long long) * (d.n + 1)));
  CUDA_CHECK(cudaMalloc(&d.points, sizeof(float2) * std::max(1LL, d.capacity)));
  if (d.n) CUDA_CHECK(cudaMemcpy(d.curves, in.curves.data(), sizeof(Curve) * d.n, cudaMemcpyHostToDevice));
  return d;
}

inline void free_device(Device& d) {
  sample::free_all(d.curves, d.counts, d.offsets, d.points);
  d = Device{};
}

// All-ones bytes are NaN floats: a point that no thread wrote fails the check.
inline void reset(const Device& d) {
  CUDA_CHECK(cudaMemset(d.points, 0xFF, sizeof(float2) * std::max(1LL, d.capacity)));
  CUDA_CHECK(cudaMemset(d.offsets, 0, sizeof(long long) * (d.n + 1)));
}

// Step 1 of every variant: counts, then offsets.
inline void compute_offsets(const Device& d) {
  if (d.n == 0) return;
  count_points<<<(d.n + 255) / 256, 256>>>(d.curves, d.n, d.max_points, d.counts);
  exclusive_scan<<<1, kScanThreads>>>(d.counts, d.n, d.offsets);
}

// ---- checker ---------------------------------------------------------------------------------------

// Offsets must match the CPU's exactly; every point must be written and within kTolerance grid units
// of the double-precision curve (coordinates reach ~10^4, float resolution there is ~10^-3).
constexpr double kTolerance = 0.02;

inline bool check(const Input& in, const Device& d, std::string& detail) {
  std::vector<long long> offsets(in.n() + 1);
  std::vector<float2> points(in.total());
  CUDA_CHECK(cudaMemcpy(offsets.data(), d.offsets, sizeof(long long) * offsets.size(), cudaMemcpyDeviceToHost));
  if (in.total())
    CUDA_CHECK(cudaMemcpy(points.data(), d.points, sizeof(float2) * points.size(), cudaMemcpyDeviceToHost));
  for (int i = 0; i <= in.n(); ++i)
    if (offsets[i] != in.offsets[i]) {
      detail = "offset of curve " + std::to_string(i) + " is " + std::to_string(offsets[i]) + " expected " +
               std::to_string(in.offsets[i]);
      return false;
    }
  long long missing = 0;
  double max_err = 0.0;
  for (int i = 0; i < in.n(); ++i) {
    const Curve& c = in.curves[i];
    int count = (int)(in.offsets[i + 1] - in.offsets[i]);
    for (int j = 0; j < count; ++j) {
      double t = count > 1 ? (double)j / (count - 1) : 0.0, s = 1.0 - t;
      double x = s * s * c.p0.x + 2 * s * t * c.p1.x + t * t * c.p2.x;
      double y = s * s * c.p0.y + 2 * s * t * c.p1.y + t * t * c.p2.y;
      float2 p = points[in.offsets[i] + j];
      double err = std::max(std::fabs(p.x - x), std::fabs(p.y - y));
      if (!(err <= kTolerance)) ++missing;  // NaN (never written) or wrong
      else max_err = std::max(max_err, err);
    }
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld points, %lld missing or wrong, max error %.3g", in.total(), missing, max_err);
  detail = buf;
  return missing == 0;
}

// ---- host side of every variant -------------------------------------------------------------------

// Builds the curves from the options, times compute_offsets(d) then launch(d) (the points reset to NaN
// before each run), checks the last run and prints the result line.
template <typename Launch>
int run(int argc, char** argv, const char* variant, Launch launch) {
  sample::Options opts = sample::parse_options(argc, argv);
  Input in = make_input(opts);
  Device d = to_device(in);

  std::vector<double> times = sample::time_runs(opts.reps, [&] { reset(d); }, [&] {
    compute_offsets(d);
    launch(d);
  });

  std::string detail;
  bool ok = check(in, d, detail);
  sample::print_result("bezier", variant, in.name, times, ok, detail, bytes_moved(in));
  free_device(d);
  return 0;
}

}  // namespace bezier
