// SSSP without dynamic parallelism: each worklist thread relaxes its vertex's edges in a loop.
#include "sssp.cuh"

__global__ void relax_round(const int* row_ptr, const int* col, const float* val, int* dist, int* stamp,
                            const int* work, int size, int* next, int* next_size, int round) {
  int v = graph::thread_vertex(work, size);
  if (v < 0) return;
  int d = graph::load_relaxed(&dist[v]);
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = col[e];
    if (sssp::relax(u, d + sssp::weight(val, e), dist, stamp, round)) graph::enqueue(u, next, next_size);
  }
}

int main(int argc, char** argv) {
  return sssp::run(argc, argv, "flat", [](const graph::GraphProblem& p, const graph::Frontier& f, int* stamp, int step) {
    relax_round<<<graph::blocks_for(f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.g.val, p.value, stamp, f.cur,
                                                         f.size, f.next, f.next_size, step + 1);
  });
}
