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

template <typename Index>
__global__ void expand(const Index* offsets, const Index* adjacency, int* values, Index n) {
  Index v = static_cast<Index>(blockIdx.x * blockDim.x + threadIdx.x);
  if (v >= n) return;
  const Index begin = offsets[v], end = offsets[v + 1];
  auto degree = [=] __device__ () { return end - begin; };  // an extended lambda: an ERROR node for tree-sitter
  if (degree() == 0) return;
#pragma dp threshold(64)
  detail::visit_neighbours<Index, int, detail::Increment><<<(end - begin + BLOCK - 1) / BLOCK, BLOCK>>>(
      adjacency, values, begin, end, detail::Increment{});
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
