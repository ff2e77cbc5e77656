#line 1 "templated.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "templated.cu"
// A templated child launched from a templated parent, with explicit and deduced template arguments.
#include <cstdint>

namespace kern {

template <typename T, int Unroll>
__global__ void axpy(T* y, const T* x, T a, int64_t n) {
  int64_t i = (int64_t)(blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
  for (int u = 0; u < Unroll; ++u)
    if (i + u < n) y[i + u] += a * x[i + u];
}
#line 4 "templated.cu"

// pdcc: the body of 'axpy' for one (block, thread), built-ins passed in
template <typename T, int Unroll>
static __device__ void axpy__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, T* y, const T* x, T a, int64_t n) {
  int64_t i = (int64_t)(pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x) * Unroll;
  for (int u = 0; u < Unroll; ++u)
    if (i + u < n) y[i + u] += a * x[i + u];
}
#line 7 "templated.cu"

// pdcc: every thread of a 'axpy' launch, one after another, in the calling thread
template <typename T, int Unroll>
static __device__ __noinline__ void axpy__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, T* y, const T* x, T a, int64_t n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      axpy__pdcc_thread<T, Unroll>(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, y, x, a, n);
  }
}

// pdcc: 'axpy' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
template <typename T, int Unroll>
static __global__ void __launch_bounds__(1024) axpy__pdcc_counted(T* y, const T* x, T a, int64_t n)
{
  pdcc::launch_started();
  axpy__pdcc_thread<T, Unroll>(blockIdx, threadIdx, gridDim, blockDim, y, x, a, n);
}
#line 12 "templated.cu"

}  // namespace kern

#line 12 "templated.cu"
#ifndef PDCC_THRESHOLD_batched_axpy_0
#define PDCC_THRESHOLD_batched_axpy_0 128
#endif
template <typename T>
__global__ void __launch_bounds__(1024) batched_axpy(T** ys, T** xs, const int64_t* sizes, T a, int batches) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= batches) return;
  int64_t n = sizes[b];
  // pdcc: #pragma dp threshold(128)
  { // pdcc: site batched_axpy_0: below PDCC_THRESHOLD_batched_axpy_0 child threads, run 'axpy' here
    const auto pdcc_n = n;
    const dim3 pdcc_grid = ((pdcc_n + (4 * 128)) - 1) / (4 * 128);
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_batched_axpy_0) {
      if (!pdcc::launched([&] {
            kern::axpy__pdcc_counted<T, 4><<<pdcc_grid, pdcc_block>>>(ys[b], xs[b], a, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        kern::axpy__pdcc_serial<T, 4>(pdcc_grid, pdcc_block, ys[b], xs[b], a, n);
    } else {
      kern::axpy__pdcc_serial<T, 4>(pdcc_grid, pdcc_block, ys[b], xs[b], a, n);
    }
  }
#line 22 "templated.cu"
}

template __global__ void batched_axpy<float>(float**, float**, const int64_t*, float, int);
template __global__ void batched_axpy<double>(double**, double**, const int64_t*, double, int);
