// LU decomposition (Rodinia lud, CUDA version, written anew): the input (a random, diagonally dominant
// matrix), the CPU checker, the two kernels that are the same in both builds (lud_diagonal, lud_internal)
// and the host side shared by lud.cu (lud_perimeter annotated with `#pragma meld`) and lud_hand.cu.
//
// In place and without pivoting, block by block (BLOCK_SIZE x BLOCK_SIZE): for each diagonal block, from
// the top left, lud_diagonal factors it, lud_perimeter solves the blocks to its right (rows of U) and
// below it (columns of L), and lud_internal updates the trailing matrix. The result holds U on and above
// the diagonal and L (unit diagonal, not stored) below it.
//
// The checker multiplies out: for two random vectors x, L (U x) must equal A x within float rounding
// (relative to the size of the row's terms), in O(n^2) on the CPU.
#pragma once

#include "meld.cuh"

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 16
#endif

namespace lud {

struct Input {
  int n = 0;
  std::vector<float> a;  // row-major n x n
  std::string name;
};

// --size n (default 2048, a multiple of BLOCK_SIZE), --seed. Off the diagonal uniform in [-1, 1], on it
// 4 sqrt(n) plus uniform in [0, 1]: far from singular, and every leading block is too (no pivoting needed).
inline Input make_input(const sample::Options& o) {
  Input in;
  in.n = o.size > 0 ? (int)o.size : 2048;
  if (in.n < 2 * BLOCK_SIZE || in.n % BLOCK_SIZE != 0 || in.n > 16384) {
    std::fprintf(stderr, "lud: --size is a multiple of %d from %d to 16384\n", BLOCK_SIZE, 2 * BLOCK_SIZE);
    std::exit(64);
  }
  in.a.resize((size_t)in.n * in.n);
  sample::Rng rng(o.seed);
  for (float& x : in.a) x = (float)(2.0 * rng.uniform() - 1.0);
  for (int i = 0; i < in.n; ++i) in.a[(size_t)i * in.n + i] = (float)(4.0 * std::sqrt((double)in.n) + rng.uniform());
  in.name = "matrix-" + std::to_string(in.n);
  return in;
}

// max over rows of |L U x - A x| / sum_j |a_ij x_j|, for two random x; a correct float LU stays near 1e-7.
constexpr double kTolerance = 2e-5;

inline bool check(const Input& in, const std::vector<float>& lu, std::string& detail) {
  const int n = in.n;
  sample::Rng rng(0xC0FFEE);
  double worst = 0.0;
  std::vector<double> x(n), ux(n);
  for (int probe = 0; probe < 2; ++probe) {
    for (double& v : x) v = 2.0 * rng.uniform() - 1.0;
    for (int i = 0; i < n; ++i) {  // U x
      double s = 0.0;
      for (int j = i; j < n; ++j) s += (double)lu[(size_t)i * n + j] * x[j];
      ux[i] = s;
    }
    for (int i = 0; i < n; ++i) {  // L (U x) against A x
      double lux = ux[i], ax = 0.0, scale = 0.0;
      for (int j = 0; j < i; ++j) lux += (double)lu[(size_t)i * n + j] * ux[j];
      for (int j = 0; j < n; ++j) {
        ax += (double)in.a[(size_t)i * n + j] * x[j];
        scale += std::fabs((double)in.a[(size_t)i * n + j] * x[j]);
      }
      const double error = std::fabs(lux - ax) / scale;
      if (!(error <= worst)) worst = error;  // NaN sticks
    }
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "max relative residual of L U x - A x: %.3g (tolerance %.0e)", worst, kTolerance);
  detail = buf;
  return worst <= kTolerance;
}

// Factors the diagonal block at (offset, offset) in place: one block of BLOCK_SIZE threads, one per column.
__global__ void lud_diagonal(float* m, int matrix_dim, int offset) {
  __shared__ float shadow[BLOCK_SIZE][BLOCK_SIZE];
  int array_offset = offset * matrix_dim + offset;
  for (int i = 0; i < BLOCK_SIZE; i++) {
    shadow[i][threadIdx.x] = m[array_offset + threadIdx.x];
    array_offset += matrix_dim;
  }
  __syncthreads();
  for (int i = 0; i < BLOCK_SIZE - 1; i++) {
    if (threadIdx.x > i) {  // column i of L
      for (int j = 0; j < i; j++) shadow[threadIdx.x][i] -= shadow[threadIdx.x][j] * shadow[j][i];
      shadow[threadIdx.x][i] /= shadow[i][i];
    }
    __syncthreads();
    if (threadIdx.x > i) {  // row i + 1 of U
      for (int j = 0; j < i + 1; j++) shadow[i + 1][threadIdx.x] -= shadow[i + 1][j] * shadow[j][threadIdx.x];
    }
    __syncthreads();
  }
  array_offset = (offset + 1) * matrix_dim + offset;  // row 0 is unchanged
  for (int i = 1; i < BLOCK_SIZE; i++) {
    m[array_offset + threadIdx.x] = shadow[i][threadIdx.x];
    array_offset += matrix_dim;
  }
}

// Updates the trailing matrix: block (bx, by) of BLOCK_SIZE x BLOCK_SIZE threads subtracts the product of
// the perimeter column block by and the perimeter row block bx.
__global__ void lud_internal(float* m, int matrix_dim, int offset) {
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];
  const int global_row_id = offset + (blockIdx.y + 1) * BLOCK_SIZE;
  const int global_col_id = offset + (blockIdx.x + 1) * BLOCK_SIZE;
  peri_row[threadIdx.y][threadIdx.x] = m[(offset + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x];
  peri_col[threadIdx.y][threadIdx.x] = m[(global_row_id + threadIdx.y) * matrix_dim + offset + threadIdx.x];
  __syncthreads();
  float sum = 0;
  for (int i = 0; i < BLOCK_SIZE; i++) sum += peri_col[threadIdx.y][i] * peri_row[i][threadIdx.x];
  m[(global_row_id + threadIdx.y) * matrix_dim + global_col_id + threadIdx.x] -= sum;
}

// Times the whole factorisation (perimeter(m, n, offset, blocks) launches lud_perimeter) on a fresh copy of
// the matrix each run, checks the last result and prints the result line; returns the exit status.
template <typename Perimeter>
int run(int argc, char** argv, const char* variant, Perimeter perimeter) {
  const meld::Options o = meld::parse_options(argc, argv);
  const Input in = make_input(o.base);
  const int n = in.n;
  const size_t bytes = sizeof(float) * in.a.size();
  float *pristine = nullptr, *m = nullptr;
  CUDA_CHECK(cudaMalloc(&pristine, bytes));
  CUDA_CHECK(cudaMalloc(&m, bytes));
  CUDA_CHECK(cudaMemcpy(pristine, in.a.data(), bytes, cudaMemcpyHostToDevice));
  const std::vector<double> times = sample::time_runs(
      o.base.reps, [&] { CUDA_CHECK(cudaMemcpy(m, pristine, bytes, cudaMemcpyDeviceToDevice)); },
      [&] {
        int offset = 0;
        for (; offset < n - BLOCK_SIZE; offset += BLOCK_SIZE) {
          const int blocks = (n - offset) / BLOCK_SIZE - 1;
          lud_diagonal<<<1, BLOCK_SIZE>>>(m, n, offset);
          perimeter(m, n, offset, blocks);
          lud_internal<<<dim3(blocks, blocks), dim3(BLOCK_SIZE, BLOCK_SIZE)>>>(m, n, offset);
        }
        lud_diagonal<<<1, BLOCK_SIZE>>>(m, n, offset);
      });
  std::vector<float> out(in.a.size());
  CUDA_CHECK(cudaMemcpy(out.data(), m, bytes, cudaMemcpyDeviceToHost));
  sample::free_all(pristine, m);
  std::string detail;
  const bool ok = o.check && check(in, out, detail);
  // every step reads and writes the trailing matrix about once: sum over k of (n - k BLOCK_SIZE)^2
  const double moved = 2.0 * sizeof(float) * (double)n * n * n / (3.0 * BLOCK_SIZE);
  return meld::finish("lud", variant, in.name, times, o, ok, detail, moved, out.data(), bytes, "f32");
}

}  // namespace lud
