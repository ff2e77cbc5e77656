#line 1 "cpp_heavy.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "cpp_heavy.cu"
// nvcc-flags: --extended-lambda -std=c++17
// A C++-heavy file: host classes, templates, namespaces, lambdas (one that tree-sitter cannot parse),
// macros and includes around one annotated, templated device launch.
#include <cstdio>
#include <vector>
#include <type_traits>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) std::printf("%s\n", cudaGetErrorString(e)); } while (0)
#define BLOCK 64

namespace graph {
namespace detail {

template <typename Index, typename Value, typename Op>
__global__ void visit_neighbours(const Index* __restrict__ adjacency, Value* values, Index begin, Index end, Op op) {
  Index k = begin + static_cast<Index>(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= end) return;
  values[adjacency[k]] = op(values[adjacency[k]]);
}
#line 13 "cpp_heavy.cu"

// pdcc: the body of 'visit_neighbours' for one (block, thread), built-ins passed in
template <typename Index, typename Value, typename Op>
static __device__ void visit_neighbours__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, const Index* __restrict__ adjacency, Value* values, Index begin, Index end, Op op) {
  Index k = begin + static_cast<Index>(pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x);
  if (k >= end) return;
  values[adjacency[k]] = op(values[adjacency[k]]);
}
#line 16 "cpp_heavy.cu"

// pdcc: every thread of a 'visit_neighbours' launch, one after another, in the calling thread
template <typename Index, typename Value, typename Op>
static __device__ __noinline__ void visit_neighbours__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, const Index* __restrict__ adjacency, Value* values, Index begin, Index end, Op op)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      visit_neighbours__pdcc_thread<Index, Value, Op>(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, adjacency, values, begin, end, op);
  }
}

// pdcc: 'visit_neighbours' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
template <typename Index, typename Value, typename Op>
static __global__ void __launch_bounds__(1024) visit_neighbours__pdcc_counted(const Index* __restrict__ adjacency, Value* values, Index begin, Index end, Op op)
{
  pdcc::launch_started();
  visit_neighbours__pdcc_thread<Index, Value, Op>(blockIdx, threadIdx, gridDim, blockDim, adjacency, values, begin, end, op);
}
#line 21 "cpp_heavy.cu"

struct Increment {
  __device__ int operator()(int v) const { return v + 1; }
};

}  // namespace detail

template <typename Index, typename Value>
class Frontier {
 public:
  explicit Frontier(std::size_t n) : size_(n) {}
  std::size_t size() const { return size_; }
  template <typename F> void for_each(F&& f) const { for (std::size_t i = 0; i < size_; ++i) f(i); }
 private:
  std::size_t size_;
};

#line 35 "cpp_heavy.cu"
#ifndef PDCC_THRESHOLD_expand_0
#define PDCC_THRESHOLD_expand_0 64
#endif
template <typename Index>
__global__ void __launch_bounds__(1024) expand(const Index* offsets, const Index* adjacency, int* values, Index n) {
  Index v = static_cast<Index>(blockIdx.x * blockDim.x + threadIdx.x);
  if (v >= n) return;
  const Index begin = offsets[v], end = offsets[v + 1];
  auto degree = [=] __device__ () { return end - begin; };  // an extended lambda: an ERROR node for tree-sitter
  if (degree() == 0) return;
// pdcc: #pragma dp threshold(64)
  { // pdcc: site expand_0: below PDCC_THRESHOLD_expand_0 child threads, run 'visit_neighbours' here
    const dim3 pdcc_grid = (end - begin + BLOCK - 1) / BLOCK;
    const dim3 pdcc_block = BLOCK;
    if ((unsigned long long)(end - begin) * pdcc_block.y * pdcc_block.z >= PDCC_THRESHOLD_expand_0) {
      if (!pdcc::launched([&] {
            detail::visit_neighbours__pdcc_counted<Index, int, detail::Increment><<<pdcc_grid, pdcc_block>>>(adjacency, values, begin, end, detail::Increment{}); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        detail::visit_neighbours__pdcc_serial<Index, int, detail::Increment>(pdcc_grid, pdcc_block, adjacency, values, begin, end, detail::Increment{});
    } else {
      detail::visit_neighbours__pdcc_serial<Index, int, detail::Increment>(pdcc_grid, pdcc_block, adjacency, values, begin, end, detail::Increment{});
    }
  }
#line 48 "cpp_heavy.cu"
}

}  // namespace graph

int main() {
  graph::Frontier<int, float> frontier(4);
  std::vector<int> seen;
  frontier.for_each([&](std::size_t i) { seen.push_back(static_cast<int>(i)); });
  static_assert(std::is_same<decltype(seen)::value_type, int>::value, "int frontier");
  int *offsets = nullptr, *adjacency = nullptr, *values = nullptr;
  graph::expand<int><<<1, 32>>>(offsets, adjacency, values, 0);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
