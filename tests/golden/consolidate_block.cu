// Consolidation of a recursive tree traversal at block granularity, in the seed's own form
// (consldt(block) buffer(default, 256) work(c)): a grid handles the children of one node, and a child with
// children of its own launches the kernel over them. The pointers pass on unchanged, the node varies.
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
