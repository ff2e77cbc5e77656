// Mutual recursion: a tree walked by two kernels, one for the nodes of even depth and one for those of
// odd depth (the odd levels also weigh each node). Each launches the other over a node's children; both
// launches are consolidated together: one queue per kernel, one consumer per level for both.
__global__ void visit_odd(const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node);

__global__ void visit_even(const int* child_ptr, const int* children, int* depth, float* weight, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    #pragma dp consldt(block) buffer(default, 256) work(c)
    visit_odd<<<(nchild + 127) / 128, 128>>>(child_ptr, children, depth, weight, 0.5f, c);
  }
}

__global__ void visit_odd(const int* child_ptr, const int* children, int* depth, float* weight, float scale, int node) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  depth[c] = depth[node] + 1;
  weight[c] = weight[node] * scale;
  int nchild = child_ptr[c + 1] - child_ptr[c];
  if (nchild > 0) {
    #pragma dp consldt(block)
    visit_even<<<(nchild + 127) / 128, 128>>>(child_ptr, children, depth, weight, c);
  }
}
