// A consolidated launch inside a loop (a thread appends several items, one per child), in a kernel
// whose parameters have a default argument; a per-item block of 2-D threads.
struct Node {
  int first_child;
  int children;
  float weight;
};

__global__ void visit(const Node* nodes, float* total, int node, float scale = 1.0f) {
  const Node& me = nodes[node];
  if (threadIdx.x == 0 && threadIdx.y == 0) atomicAdd(total, scale * me.weight);
  if (threadIdx.x != 0 || threadIdx.y != 0) return;
  for (int k = 0; k < me.children; ++k) {
    #pragma dp consldt(block) buffer(pool, 64)
    visit<<<1, dim3(4, 2)>>>(nodes, total, me.first_child + k, scale * 0.5f);
  }
}
