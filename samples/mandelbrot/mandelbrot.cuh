// Mandelbrot by recursive subdivision (Mariani-Silver): the image, the dwell of a pixel (bit-identical on
// the CPU and the GPU), the tile work every variant shares, the CPU reference of the whole subdivision, the
// checker, and the host side every variant's main() uses (Problem).
//
// The image is W x W pixels of the square [-2, 1] x [-1.5, 1.5]; a pixel's dwell is the number of
// iterations of z <- z^2 + c before |z| > 2, at most the maximum dwell. The recursion: the image starts as
// 16 x 16 tiles; a tile whose border pixels all have one dwell is filled with it (the Mandelbrot set and
// its dwell bands are connected and have no holes); a tile larger than kMinTile whose border is not uniform
// is split in four; a tile of kMinTile is computed pixel by pixel. The output is the image this
// subdivision produces, which every variant must reproduce exactly (it may differ from the per-pixel image
// where a filament slips between two border pixels).
#pragma once

#include <climits>

#include "sample.cuh"

namespace mandelbrot {

constexpr int kInitTiles = 16;        // tiles per side of the first level
constexpr int kMinTile = 16;          // tiles this small are computed pixel by pixel
constexpr int kBlock = 256;           // threads of a tile's block
constexpr int kPendingLaunches = 2048;
constexpr float kLeft = -2.0f, kTop = -1.5f, kExtent = 3.0f;

struct Input {
  int width = 0;
  int max_dwell = 0;
  std::string name;
};

// --size W (a power of two, 256..32768, default 8192), --param the maximum dwell (default 512).
inline Input make_input(const sample::Options& o) {
  Input in;
  in.width = o.size > 0 ? (int)std::min<long long>(o.size, 1 << 30) : 8192;
  in.max_dwell = o.param > 0 ? (int)std::min(o.param, 1e6) : 512;
  if (in.width < kInitTiles * kMinTile || in.width > 32768 || (in.width & (in.width - 1)) != 0) {
    std::fprintf(stderr, "mandelbrot: the width must be a power of two in %d..32768\n", kInitTiles * kMinTile);
    std::exit(64);
  }
  in.name = "mandelbrot-" + std::to_string(in.width) + "-d" + std::to_string(in.max_dwell);
  return in;
}

inline double bytes_moved(const Input& in) { return 4.0 * (double)in.width * in.width; }

// ---- the dwell of a pixel: correctly rounded float operations only, never contracted into FMAs, so the
// CPU reference computes exactly what the GPU does. On the device the _rn intrinsics are never contracted;
// on a host whose compiler may contract (FMA enabled, as on AArch64), each product is rounded through a
// volatile -----------------------------------------------------------------------------------------------

__host__ __device__ inline float add(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
__host__ __device__ inline float sub(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
__host__ __device__ inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#elif defined(__FMA__) || defined(__aarch64__) || defined(__ARM_FEATURE_FMA)
  volatile float product = a * b;
  return product;
#else
  return a * b;
#endif
}
__host__ __device__ inline float divide(float a, float b) {
#ifdef __CUDA_ARCH__
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

__host__ __device__ inline int pixel_dwell(int x, int y, int width, int max_dwell) {
  const float step = divide(kExtent, (float)width);  // exact: the width is a power of two
  const float cx = add(kLeft, mul((float)x, step)), cy = add(kTop, mul((float)y, step));
  float zx = cx, zy = cy;
  int dwell = 0;
  while (dwell < max_dwell) {
    const float zx2 = mul(zx, zx), zy2 = mul(zy, zy);
    if (add(zx2, zy2) > 4.0f) break;
    const float next_x = add(sub(zx2, zy2), cx);
    zy = add(mul(mul(2.0f, zx), zy), cy);
    zx = next_x;
    ++dwell;
  }
  return dwell;
}

// The border pixel i (0 <= i < 4 (d - 1)) of the d x d tile at (x0, y0), clockwise from its top-left corner.
__host__ __device__ inline void border_pixel(int x0, int y0, int d, int i, int& x, int& y) {
  const int side = i / (d - 1), k = i % (d - 1);
  if (side == 0) { x = x0 + k; y = y0; }
  else if (side == 1) { x = x0 + d - 1; y = y0 + k; }
  else if (side == 2) { x = x0 + d - 1 - k; y = y0 + d - 1; }
  else { x = x0; y = y0 + d - 1 - k; }
}

// ---- tile work for one block (blockDim.x == kBlock); every thread must call these ----------------------

// The dwell shared by the whole border of the tile, or -1 when the border has more than one.
__device__ inline int border_dwell(int x0, int y0, int d, int width, int max_dwell) {
  __shared__ int lowest, highest;
  if (threadIdx.x == 0) { lowest = INT_MAX; highest = -1; }
  __syncthreads();
  int lo = INT_MAX, hi = -1;
  for (int i = threadIdx.x; i < 4 * (d - 1); i += blockDim.x) {
    int x, y;
    border_pixel(x0, y0, d, i, x, y);
    const int dw = pixel_dwell(x, y, width, max_dwell);
    lo = min(lo, dw);
    hi = max(hi, dw);
  }
  if (hi >= 0) { atomicMin(&lowest, lo); atomicMax(&highest, hi); }
  __syncthreads();
  const int common = lowest == highest ? lowest : -1;
  __syncthreads();  // lowest and highest are reset by the next call
  return common;
}

__device__ inline void fill_tile(int* dwells, int width, int x0, int y0, int d, int value) {
  for (int i = threadIdx.x; i < d * d; i += blockDim.x) dwells[(long long)(y0 + i / d) * width + x0 + i % d] = value;
}

__device__ inline void compute_tile(int* dwells, int width, int max_dwell, int x0, int y0, int d) {
  for (int i = threadIdx.x; i < d * d; i += blockDim.x) {
    const int x = x0 + i % d, y = y0 + i / d;
    dwells[(long long)y * width + x] = pixel_dwell(x, y, width, max_dwell);
  }
}

// failures[0] counts device launches that failed, failures[1] holds the first error code.
__device__ inline void launch_failed(int* failures, cudaError_t error) {
  atomicAdd(&failures[0], 1);
  atomicCAS(&failures[1], 0, (int)error);
}

// ---- CPU reference -------------------------------------------------------------------------------------

struct Recursion {
  long long launches = 0;  // device launches of the dp variant: non-uniform tiles larger than kMinTile
  long long tiles = 0;     // tiles examined, the first level's included
  int depth = 0;           // deepest level that was reached (0: the first 16 x 16 tiles)
};

inline int cpu_border_dwell(int x0, int y0, int d, int width, int max_dwell) {
  int lo = INT_MAX, hi = -1;
  for (int i = 0; i < 4 * (d - 1); ++i) {
    int x, y;
    border_pixel(x0, y0, d, i, x, y);
    const int dw = pixel_dwell(x, y, width, max_dwell);
    lo = std::min(lo, dw);
    hi = std::max(hi, dw);
    if (lo != hi) return -1;
  }
  return lo;
}

// The image the subdivision produces, and the shape of the recursion.
inline std::vector<int> reference(const Input& in, Recursion& r) {
  const int w = in.width, d0 = w / kInitTiles;
  std::vector<int> image((size_t)w * w, -1);
  struct Tile { int x0, y0, d, depth; };
  std::vector<Tile> stack;
  for (int ty = kInitTiles - 1; ty >= 0; --ty)
    for (int tx = kInitTiles - 1; tx >= 0; --tx) stack.push_back({tx * d0, ty * d0, d0, 0});
  while (!stack.empty()) {
    const Tile t = stack.back();
    stack.pop_back();
    ++r.tiles;
    r.depth = std::max(r.depth, t.depth);
    const int common = cpu_border_dwell(t.x0, t.y0, t.d, w, in.max_dwell);
    if (common >= 0) {
      for (int y = t.y0; y < t.y0 + t.d; ++y) std::fill_n(&image[(size_t)y * w + t.x0], t.d, common);
    } else if (t.d > kMinTile) {
      ++r.launches;
      const int h = t.d / 2;
      for (int q = 3; q >= 0; --q) stack.push_back({t.x0 + (q % 2) * h, t.y0 + (q / 2) * h, h, t.depth + 1});
    } else {
      for (int y = t.y0; y < t.y0 + t.d; ++y)
        for (int x = t.x0; x < t.x0 + t.d; ++x) image[(size_t)y * w + x] = pixel_dwell(x, y, w, in.max_dwell);
    }
  }
  return image;
}

// ---- host side of every variant -----------------------------------------------------------------------

struct Problem {
  sample::Options opts;
  Input in;
  int* dwells = nullptr;    // width x width, row-major
  int* failures = nullptr;  // dp only: failed launches and the first error

  Problem(int argc, char** argv) : opts(sample::parse_options(argc, argv)), in(make_input(opts)) {
    CUDA_CHECK(cudaMalloc(&dwells, sizeof(int) * (size_t)in.width * in.width));
    CUDA_CHECK(cudaMalloc(&failures, 2 * sizeof(int)));
  }
  ~Problem() { sample::free_all(dwells, failures); }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  // -1 everywhere: a pixel no tile wrote fails the check.
  void reset() const {
    CUDA_CHECK(cudaMemset(dwells, 0xFF, sizeof(int) * (size_t)in.width * in.width));
    CUDA_CHECK(cudaMemset(failures, 0, 2 * sizeof(int)));
  }

  // Times run() after reset(), checks the last image against the CPU subdivision, prints the result line.
  // A dp run whose device launches failed prints its result with "correct": false, says so on stderr and
  // exits with status 3: it is reported failed, never taken for a time of the whole image.
  template <typename Run>
  int measure(const char* variant, Run run) {
    std::vector<double> times = sample::time_runs(opts.reps, [&] { reset(); }, run);
    int failed[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(failed, failures, sizeof failed, cudaMemcpyDeviceToHost));
    const size_t pixels = (size_t)in.width * in.width;
    std::vector<int> got(pixels);
    CUDA_CHECK(cudaMemcpy(got.data(), dwells, sizeof(int) * pixels, cudaMemcpyDeviceToHost));
    Recursion r;
    std::vector<int> want = reference(in, r);
    long long unset = 0, wrong = 0;
    for (size_t i = 0; i < pixels; ++i) {
      if (got[i] < 0) ++unset;
      else if (got[i] != want[i]) ++wrong;
    }
    std::string detail = std::to_string(in.width) + "^2 pixels, " + std::to_string(unset) + " unset, " +
                         std::to_string(wrong) + " wrong; recursion: " + std::to_string(r.launches) +
                         " device launches, " + std::to_string(r.tiles) + " tiles, depth " + std::to_string(r.depth);
    if (failed[0] > 0)
      detail = "FAILED: " + std::to_string(failed[0]) + " device launches failed (" +
               cudaGetErrorName((cudaError_t)failed[1]) + "), " + detail;
    sample::print_result("mandelbrot", variant, in.name, times, unset == 0 && wrong == 0 && failed[0] == 0, detail,
                         bytes_moved(in));
    if (failed[0] > 0) {
      std::fprintf(stderr, "mandelbrot %s: %d device launches failed (%s): the image is incomplete\n", variant,
                   failed[0], cudaGetErrorName((cudaError_t)failed[1]));
      return 3;
    }
    return 0;
  }
};

}  // namespace mandelbrot
