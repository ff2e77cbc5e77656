// Tree traversal without dynamic parallelism: level by level from the host, one thread per frontier
// node, which handles all of its children itself and queues those that have children.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/tree/tree_flat.cu
#include "tree.cuh"

__global__ void expand(const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum,
                       const int* frontier, int count, int* next, int* next_count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  int v = frontier[i];
  int d = depth[v] + 1, s = path_sum[v];
  for (int k = child_ptr[v]; k < child_ptr[v + 1]; ++k) {
    int c = children[k];
    depth[c] = d;
    path_sum[c] = s + value[c];
    if (child_ptr[c + 1] > child_ptr[c]) next[atomicAdd(next_count, 1)] = c;
  }
}

int main(int argc, char** argv) {
  tree::Problem p(argc, argv);
  const tree::Device& d = p.d;

  p.measure_levels("flat", [&](const int* frontier, int count, int* next, int* next_count) {
    expand<<<(count + 127) / 128, 128>>>(d.child_ptr, d.children, d.value, d.depth, d.path_sum, frontier, count,
                                         next, next_count);
  });
  return 0;
}
