// Aggregation at every granularity: warp with an aggregation threshold, block with record storage of
// its own size, multiblock(K), and grid with threshold and coarsening; a templated child launched with
// explicit template arguments from a templated parent; a launch inside a loop (several records per thread).
#include <cstdint>

__global__ void add_to(float* out, const float* in, float scale, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(out, scale * in[i]);
}

template <typename T, int Step>
__global__ void fill_strided(T* data, T value, int64_t n) {
  int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * Step;
  if (i < n) data[i] = value;
}

__global__ void per_warp(float* out, const float* in, const int* begin, const int* end, float scale) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int n = end[row] - begin[row];
#pragma dp consldt(warp) agg_threshold(4)
  add_to<<<(n + 63) / 64, 64>>>(out + row, in + begin[row], scale, n);
}

__global__ void per_block(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int part = 0; part < 2; ++part) {
    int n = (end[row] - begin[row]) / 2;
#pragma dp consldt(block) buffer(pool, 512)
    add_to<<<(n + 127) / 128, 128>>>(out + row, in + begin[row] + part * n, 1.0f, n);
  }
}

__global__ void per_group(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int n = end[row] - begin[row];
#pragma dp consldt(multiblock(8))
  add_to<<<(n + 127) / 128, 128>>>(out + row, in + begin[row], 2.0f, n);
}

template <typename T>
__global__ void per_grid(T** data, const int64_t* sizes, T value, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int64_t n = sizes[k];
#pragma dp threshold(256) coarsen(4) consldt(grid)
  fill_strided<T, 2><<<(n + 2 * 128 - 1) / (2 * 128), 128>>>(data[k], value, n);
}

template __global__ void per_grid<float>(float**, const int64_t*, float, int);
