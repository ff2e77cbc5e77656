// SSSP, the flat version a user would pick: one warp per worklist vertex, lanes striding over its edges,
// warp-aggregated appends to the next worklist.
#include "sssp.cuh"

__global__ void relax_round(const int* row_ptr, const int* col, const float* val, int* dist, int* stamp,
                            const int* work, int size, int* next, int* next_size, int round) {
  long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (w >= size) return;  // the same for all lanes of a warp
  int v = work[w];
  int d = graph::load_relaxed(&dist[v]);  // lanes may read different values; each is a valid path length
  graph::warp_expand(row_ptr[v], row_ptr[v + 1], next, next_size, [&](int e, int& u) {
    u = col[e];
    return sssp::relax(u, d + sssp::weight(val, e), dist, stamp, round);
  });
}

int main(int argc, char** argv) {
  return sssp::run(argc, argv, "best", [](const graph::GraphProblem& p, const graph::Frontier& f, int* stamp, int step) {
    relax_round<<<graph::blocks_for(32LL * f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.g.val, p.value, stamp,
                                                                f.cur, f.size, f.next, f.next_size, step + 1);
  });
}
