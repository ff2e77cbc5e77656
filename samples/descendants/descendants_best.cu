// Descendant counts and subtree heights, the version an expert would write: no levels at all. One pass
// records every node's parent and number of children; a second starts one thread at every leaf, and the
// thread of a node's last child to complete goes on to complete the node (the bottom-up pass of Karras,
// "Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d Trees", HPG 2012, with a count of
// children per node instead of a flag per binary node). Two launches whatever the height.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/descendants/descendants_best.cu
#include "descendants.cuh"

namespace {

// A warp per node, so a node with thousands of children is not one thread's loop.
__global__ void link(const int* child_ptr, const int* children, int* parent, int* pending, int n) {
  const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (w >= n) return;
  const int v = (int)w, k0 = child_ptr[v], k1 = child_ptr[v + 1];
  if (lane == 0) pending[v] = k1 - k0;
  for (int k = k0 + lane; k < k1; k += 32) parent[children[k]] = v;
}

__global__ void leaves(const int* child_ptr, const int* parent, int* pending, int* desc, int* height, int root, int n) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || child_ptr[v + 1] > child_ptr[v]) return;
  descendants::complete(v, root, parent, pending, desc, height);
}

}  // namespace

int main(int argc, char** argv) {
  descendants::Problem p(argc, argv);
  const descendants::Device& d = p.d;
  const int n = d.n, root = p.t.root;
  return p.measure("best", [&] {
    link<<<(int)((32LL * n + 255) / 256), 256>>>(d.child_ptr, d.children, d.parent, d.pending, n);
    leaves<<<(n + 255) / 256, 256>>>(d.child_ptr, d.parent, d.pending, d.desc, d.height, root, n);
  });
}
