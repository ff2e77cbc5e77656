// BFS, the flat version a user would pick: one warp per frontier vertex, lanes striding over its
// neighbours, warp-aggregated appends to the next frontier.
#include "bfs.cuh"

__global__ void expand_frontier(const int* row_ptr, const int* col, int* level, const int* frontier, int size,
                                int* next, int* next_size, int next_level) {
  long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (w >= size) return;  // the same for all lanes of a warp
  int v = frontier[w];
  graph::warp_expand(row_ptr[v], row_ptr[v + 1], next, next_size, [&](int e, int& u) {
    u = col[e];
    return bfs::claim(u, level, next_level);
  });
}

int main(int argc, char** argv) {
  return bfs::run(argc, argv, "best", [](const graph::GraphProblem& p, const graph::Frontier& f, int depth) {
    expand_frontier<<<graph::blocks_for(32LL * f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.value, f.cur, f.size,
                                                                   f.next, f.next_size, depth + 1);
  });
}
