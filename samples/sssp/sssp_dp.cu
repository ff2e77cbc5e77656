// SSSP, naive dynamic parallelism: one parent thread per worklist vertex launches a child grid with one
// thread per outgoing edge. This is the input to pdcc; on an H200 the launches beyond the pending-launch
// pool are lost, some distances stay too long, and the checker reports it.
#include "sssp.cuh"

__global__ void relax_edges(const int* nbr, const float* val, int len, int d, int* dist, int* stamp, int round,
                            int* next, int* next_size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= len) return;
  int u = nbr[i];
  if (sssp::relax(u, d + sssp::weight(val, i), dist, stamp, round)) graph::enqueue(u, next, next_size);
}

__global__ void relax_round(const int* row_ptr, const int* col, const float* val, int* dist, int* stamp,
                            const int* work, int size, int* next, int* next_size, int round) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= size) return;
  int v = work[t];
  int d = graph::load_relaxed(&dist[v]);
  int start = row_ptr[v];
  int len = row_ptr[v + 1] - start;
  if (len == 0) return;
  #pragma dp threshold(128)
  relax_edges<<<(len + 127) / 128, 128>>>(col + start, val + start, len, d, dist, stamp, round, next, next_size);
}

int main(int argc, char** argv) {
  return sssp::run(argc, argv, "dp", [](const graph::GraphProblem& p, const graph::Frontier& f, int* stamp, int step) {
    relax_round<<<graph::blocks_for(f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.g.val, p.value, stamp, f.cur,
                                                         f.size, f.next, f.next_size, step + 1);
  });
}
