// A templated child launched from a templated parent, with explicit and deduced template arguments.
#include <cstdint>

namespace kern {

template <typename T, int Unroll>
__global__ void axpy(T* y, const T* x, T a, int64_t n) {
  int64_t i = (int64_t)(blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
  for (int u = 0; u < Unroll; ++u)
    if (i + u < n) y[i + u] += a * x[i + u];
}

}  // namespace kern

template <typename T>
__global__ void batched_axpy(T** ys, T** xs, const int64_t* sizes, T a, int batches) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batches) return;
  int64_t n = sizes[b];
  #pragma dp threshold(128)
  kern::axpy<T, 4><<<(n + 4 * 128 - 1) / (4 * 128), 128>>>(ys[b], xs[b], a, n);
}

template __global__ void batched_axpy<float>(float**, float**, const int64_t*, float, int);
template __global__ void batched_axpy<double>(double**, double**, const int64_t*, double, int);
