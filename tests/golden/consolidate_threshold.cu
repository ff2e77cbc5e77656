// Thresholding composed with consolidation (issue 11 item 6): descendant counts on a tree, a grid over the
// children of one node. A node with many children becomes a work item of the next level; one with fewer
// than 64 runs here, in the thread that would have appended it, through a leaf copy of the body whose own
// launches are all appended (so serial runs never nest). Warp groups; two sites share the queue, the one
// for wide nodes without a threshold.
__global__ void descend(const int* child_ptr, const int* children, int* count, int node, int weight) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int first = child_ptr[node];
  if (i >= child_ptr[node + 1] - first) return;
  int c = children[first + i];
  atomicAdd(&count[node], weight);
  int fan = child_ptr[c + 1] - child_ptr[c];
  if (fan > 1000) {
    #pragma dp consldt(warp) work(c, weight)
    descend<<<(fan + 255) / 256, 256>>>(child_ptr, children, count, c, weight + 1);
  } else if (fan > 0) {
    #pragma dp threshold(64) consldt(warp) work(c, weight)
    descend<<<(fan + 31) / 32, 32>>>(child_ptr, children, count, c, weight);
  }
}
