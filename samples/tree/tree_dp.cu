// Tree traversal, naive dynamic parallelism: a grid processes the children of one node, one thread per
// child, and every child that has children of its own launches the same kernel over them (recursion,
// one launch per inner node, nesting as deep as the tree).
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/tree/tree_dp.cu -lcudadevrt
#include "tree.cuh"

// Thread i handles child i of `node`. The parent's writes to depth/path_sum before the launch are
// visible to the child grid, so a node's own results can be read here.
__global__ void traverse(const int* child_ptr, const int* children, const int* value, int* depth, int* path_sum,
                         int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  path_sum[c] = path_sum[node] + value[c];
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    #pragma dp consldt(block) buffer(default, 256) work(c)
    traverse<<<(nchild + 127) / 128, 128>>>(child_ptr, children, value, depth, path_sum, c);
  }
}

int main(int argc, char** argv) {
  tree::Problem p(argc, argv);
  const tree::Tree& t = p.t;
  const tree::Device& d = p.d;

  int root_children = t.child_ptr[t.root + 1] - t.child_ptr[t.root];
  p.measure("dp", [&] {
    tree::visit_root<<<1, 1>>>(d.value, d.depth, d.path_sum, t.root, nullptr);
    if (root_children > 0)
      traverse<<<(root_children + 127) / 128, 128>>>(d.child_ptr, d.children, d.value, d.depth, d.path_sum, t.root);
  });
  return 0;
}
