// Descendant counts and subtree heights, naive dynamic parallelism: a grid handles the children of one node,
// one thread per child; a child with children of its own launches the same kernel over them (recursion,
// one device launch per inner node, nesting as deep as the tree), a leaf completes itself and carries the
// completion up through every ancestor whose last child it was. There is no device-side synchronization on
// sm_90, so no parent waits for its children: the last child to finish does the parent's post-work.
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/descendants/descendants_dp.cu -lcudadevrt
#include "descendants.cuh"

// nvcc does not know the dp pragma below (warning 20199); pdcc reads it and comments it out.
#pragma nv_diag_suppress 20199

// Thread i handles child i of `node`.
__global__ void descend(const int* child_ptr, const int* children, int* parent, int* pending, int* desc, int* height,
                        int root, int node, int* failures) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  const int c = children[first + i];
  parent[c] = node;
  const int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    pending[c] = nchild;
    #pragma dp consldt(block) buffer(default, 256) work(c)
    descend<<<(nchild + 127) / 128, 128>>>(child_ptr, children, parent, pending, desc, height, root, c, failures);
    cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) descendants::launch_failed(failures, launched);
  } else {
    descendants::complete(c, root, parent, pending, desc, height);
  }
}

__global__ void start(const int* child_ptr, int* parent, int* pending, int root) {
  parent[root] = -1;
  pending[root] = child_ptr[root + 1] - child_ptr[root];
}

int main(int argc, char** argv) {
  descendants::Problem p(argc, argv);
  const descendants::Device& d = p.d;
  const int root = p.t.root;
  const int root_children = p.t.child_ptr[root + 1] - p.t.child_ptr[root];
  return p.measure("dp", [&] {
    start<<<1, 1>>>(d.child_ptr, d.parent, d.pending, root);
    if (root_children > 0)
      descend<<<(root_children + 127) / 128, 128>>>(d.child_ptr, d.children, d.parent, d.pending, d.desc, d.height,
                                                    root, root, d.failures);
  });
}
