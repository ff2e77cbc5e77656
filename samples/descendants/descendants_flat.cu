// Descendant counts and subtree heights without dynamic parallelism: level by level from the host, down
// then up. Going down, one thread per node of a level records the parent of each of its children and
// queues them (the queue holds the levels one after the other); going up, from the deepest level to the
// first, one thread per node adds its results to its parent's with atomics.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/descendants/descendants_flat.cu
#include "descendants.cuh"

namespace {

__global__ void down(const int* child_ptr, const int* children, int* parent, int* order, int begin, int end, int* tail) {
  const int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= end) return;
  const int v = order[i];
  const int k0 = child_ptr[v], k1 = child_ptr[v + 1];
  if (k1 == k0) return;
  int slot = atomicAdd(tail, k1 - k0);
  for (int k = k0; k < k1; ++k) {
    const int c = children[k];
    parent[c] = v;
    order[slot++] = c;
  }
}

__global__ void up(const int* parent, const int* order, int begin, int end, int* desc, int* height) {
  const int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= end) return;
  const int v = order[i], p = parent[v];
  atomicAdd(&desc[p], desc[v] + 1);
  atomicMax(&height[p], height[v] + 1);
}

__global__ void start(int* order, int* tail, int root) {
  order[0] = root;
  *tail = 1;
}

int blocks(int threads) { return (threads + 255) / 256; }

}  // namespace

int main(int argc, char** argv) {
  descendants::Problem p(argc, argv);
  const descendants::Device& d = p.d;
  int* order = nullptr;
  int* tail = nullptr;
  CUDA_CHECK(cudaMalloc(&order, sizeof(int) * std::max(1, d.n)));
  CUDA_CHECK(cudaMalloc(&tail, sizeof(int)));
  std::vector<int> level_end;  // level L is order[level_end[L - 1], level_end[L]), level 0 the root alone

  int code = p.measure("flat", [&] {
    start<<<1, 1>>>(order, tail, p.t.root);
    level_end.assign(1, 1);
    // The host needs each level's size to size the next launch: one small copy per level.
    for (int begin = 0, end = 1; end > begin;) {
      down<<<blocks(end - begin), 256>>>(d.child_ptr, d.children, d.parent, order, begin, end, tail);
      begin = end;
      CUDA_CHECK(cudaMemcpy(&end, tail, sizeof(int), cudaMemcpyDeviceToHost));
      if (end > begin) level_end.push_back(end);
    }
    for (size_t level = level_end.size() - 1; level > 0; --level) {
      const int begin = level_end[level - 1], end = level_end[level];
      up<<<blocks(end - begin), 256>>>(d.parent, order, begin, end, d.desc, d.height);
    }
  });
  sample::free_all(order, tail);
  return code;
}
