// Speckle-reducing anisotropic diffusion (Rodinia srad_v2, CUDA version, written anew): the input (a
// random speckled image), the statistics kernel, the CPU reference and checker, and the host side shared
// by srad.cu (both stencil kernels annotated with `#pragma meld`) and srad_hand.cu.
//
// Each iteration: q0sqr, the squared coefficient of variation of the region of interest (ROI, the top left
// kRoi x kRoi pixels), on the device; srad_coefficients computes each pixel's differences to its four
// neighbours (0 across the image's border) and its diffusion coefficient c in [0, 1]; srad_update moves
// the pixel by lambda / 4 times the coefficient-weighted sum of the differences (the north and west terms
// weighted by the pixel's own c, the south and east ones by the neighbour's). The image is tiled in
// BLOCK_SIZE x BLOCK_SIZE blocks; each block stages its tile and the halo around it in shared memory.
//
// The checker runs the same iterations on the CPU (float, the ROI statistics in double, as on the device)
// and compares every pixel within kTolerance relative error; at most one pixel in kOutliers may be off by
// more (c jumps from 0 to 1 where 1 + den crosses 0, so one rounding there moves a pixel and, over the next
// iterations, its neighbours). The CPU result is cached on disk when
// PDCC_SAMPLE_CACHE names a folder (it takes seconds on large images).
#pragma once

#include "meld.cuh"

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

namespace srad {

constexpr int kRoi = 128;
constexpr float kLambda = 0.5f;
constexpr double kTolerance = 1e-4;
constexpr size_t kOutliers = 100000;

struct Input {
  int rows = 0, cols = 0, iterations = 0;
  std::vector<float> image;
  std::string name;
  size_t size() const { return (size_t)rows * cols; }
};

// --size n: an n x n image (default 2048, a multiple of BLOCK_SIZE), --param iterations (default 10),
// --seed. Pixels are exp(u), u uniform in [0, 1) (Rodinia expands its 8-bit image the same way).
inline Input make_input(const sample::Options& o) {
  Input in;
  in.rows = in.cols = o.size > 0 ? (int)o.size : 2048;
  in.iterations = o.param > 0 ? (int)o.param : 10;
  if (in.rows < kRoi || in.rows % BLOCK_SIZE != 0 || in.rows > 16384 || in.iterations > 1000) {
    std::fprintf(stderr, "srad: --size is a multiple of %d from %d to 16384, --param at most 1000\n", BLOCK_SIZE, kRoi);
    std::exit(64);
  }
  in.image.resize(in.size());
  sample::Rng rng(o.seed);
  for (float& pixel : in.image) pixel = std::exp((float)rng.uniform());
  in.name = "image-" + std::to_string(in.rows) + "x" + std::to_string(in.cols) + "-iter-" + std::to_string(in.iterations) +
            "-seed-" + std::to_string(o.seed);
  return in;
}

// q0sqr = var / mean^2 over the ROI, into *q0sqr: one block of kStatThreads threads, double sums.
constexpr int kStatThreads = 256;

__global__ void roi_statistics(const float* J, int cols, float* q0sqr) {
  __shared__ double sums[kStatThreads], squares[kStatThreads];
  double sum = 0, square = 0;
  for (int k = threadIdx.x; k < kRoi * kRoi; k += blockDim.x) {
    const double v = J[(k / kRoi) * cols + k % kRoi];
    sum += v;
    square += v * v;
  }
  sums[threadIdx.x] = sum;
  squares[threadIdx.x] = square;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      sums[threadIdx.x] += sums[threadIdx.x + half];
      squares[threadIdx.x] += squares[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double mean = sums[0] / (kRoi * kRoi), var = squares[0] / (kRoi * kRoi) - mean * mean;
    *q0sqr = (float)(var / (mean * mean));
  }
}

// The statistics in the order the device sums them (thread strides, then the tree), so both agree closely.
inline float roi_q0sqr(const std::vector<float>& J, int cols) {
  std::vector<double> sums(kStatThreads, 0.0), squares(kStatThreads, 0.0);
  for (int t = 0; t < kStatThreads; ++t)
    for (int k = t; k < kRoi * kRoi; k += kStatThreads) {
      const double v = J[(size_t)(k / kRoi) * cols + k % kRoi];
      sums[t] += v;
      squares[t] += v * v;
    }
  for (int half = kStatThreads / 2; half > 0; half /= 2)
    for (int t = 0; t < half; ++t) {
      sums[t] += sums[t + half];
      squares[t] += squares[t + half];
    }
  const double mean = sums[0] / (kRoi * kRoi), var = squares[0] / (kRoi * kRoi) - mean * mean;
  return (float)(var / (mean * mean));
}

// The diffusion coefficient of a pixel (equations 33-35 of the SRAD paper), shared by the device and the CPU.
__host__ __device__ inline float coefficient(float jc, float n, float s, float w, float e, float q0sqr) {
  const float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  const float l = (n + s + w + e) / jc;
  const float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1 + 0.25f * l;
  const float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
  float c = 1.0f / (1.0f + den);
  if (c < 0) c = 0;
  else if (c > 1) c = 1;
  return c;
}

inline std::vector<float> reference(const Input& in) {
  const int rows = in.rows, cols = in.cols;
  std::vector<float> J = in.image, dN(in.size()), dS(in.size()), dW(in.size()), dE(in.size()), C(in.size());
  for (int iteration = 0; iteration < in.iterations; ++iteration) {
    const float q0sqr = roi_q0sqr(J, cols);
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) {
        const size_t k = (size_t)y * cols + x;
        const float jc = J[k];
        dN[k] = J[(size_t)std::max(y - 1, 0) * cols + x] - jc;
        dS[k] = J[(size_t)std::min(y + 1, rows - 1) * cols + x] - jc;
        dW[k] = J[(size_t)y * cols + std::max(x - 1, 0)] - jc;
        dE[k] = J[(size_t)y * cols + std::min(x + 1, cols - 1)] - jc;
        C[k] = coefficient(jc, dN[k], dS[k], dW[k], dE[k], q0sqr);
      }
    for (int y = 0; y < rows; ++y)
      for (int x = 0; x < cols; ++x) {
        const size_t k = (size_t)y * cols + x;
        const float cc = C[k], cs = C[(size_t)std::min(y + 1, rows - 1) * cols + x], ce = C[(size_t)y * cols + std::min(x + 1, cols - 1)];
        const float d_sum = cc * dN[k] + cs * dS[k] + cc * dW[k] + ce * dE[k];
        J[k] = J[k] + 0.25f * kLambda * d_sum;
      }
  }
  return J;
}

inline bool check(const Input& in, const std::vector<float>& out, std::string& detail) {
  const std::vector<float> J = meld::cached_reference<float>(
      "srad-v1-" + in.name, in.size(), [&] { return reference(in); });
  double worst = 0.0;
  size_t bad = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const double error = std::fabs((double)out[k] - J[k]) / std::fabs((double)J[k]);
    if (!(error <= kTolerance)) ++bad;  // NaN counts
    if (!(error <= worst)) worst = error;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "%zu pixels after %d iterations, %zu off by more than %.0e (at most %zu may be), max relative error %.3g",
                in.size(), in.iterations, bad, kTolerance, in.size() / kOutliers, worst);
  detail = buf;
  return bad <= in.size() / kOutliers;
}

struct Device {
  float *J = nullptr, *dN = nullptr, *dS = nullptr, *dW = nullptr, *dE = nullptr, *C = nullptr, *q0sqr = nullptr;
};

// Times the iterations (step(d, rows, cols) launches the two stencil kernels after the statistics) on a
// fresh copy of the image each run, checks the last result and prints the result line; returns the exit status.
template <typename Step>
int run(int argc, char** argv, const char* variant, Step step) {
  const meld::Options o = meld::parse_options(argc, argv);
  const Input in = make_input(o.base);
  const size_t bytes = sizeof(float) * in.size();
  float* pristine = nullptr;
  Device d;
  CUDA_CHECK(cudaMalloc(&pristine, bytes));
  for (float** p : {&d.J, &d.dN, &d.dS, &d.dW, &d.dE, &d.C}) CUDA_CHECK(cudaMalloc(p, bytes));
  CUDA_CHECK(cudaMalloc(&d.q0sqr, sizeof(float)));
  CUDA_CHECK(cudaMemcpy(pristine, in.image.data(), bytes, cudaMemcpyHostToDevice));
  const std::vector<double> times = sample::time_runs(
      o.base.reps, [&] { CUDA_CHECK(cudaMemcpy(d.J, pristine, bytes, cudaMemcpyDeviceToDevice)); },
      [&] {
        for (int iteration = 0; iteration < in.iterations; ++iteration) {
          roi_statistics<<<1, kStatThreads>>>(d.J, in.cols, d.q0sqr);
          step(d, in.rows, in.cols);
        }
      });
  std::vector<float> out(in.size());
  CUDA_CHECK(cudaMemcpy(out.data(), d.J, bytes, cudaMemcpyDeviceToHost));
  sample::free_all(pristine, d.J, d.dN, d.dS, d.dW, d.dE, d.C, d.q0sqr);
  std::string detail;
  const bool ok = o.check && check(in, out, detail);
  // per iteration: the image read and five arrays written, then five arrays read and the image written
  const double moved = 12.0 * (double)bytes * in.iterations;
  return meld::finish("srad", variant, in.name, times, o, ok, detail, moved, out.data(), bytes, "f32");
}

}  // namespace srad
