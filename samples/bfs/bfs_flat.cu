// BFS without dynamic parallelism: each frontier thread visits its neighbours in a loop.
#include "bfs.cuh"

__global__ void expand_frontier(const int* row_ptr, const int* col, int* level, const int* frontier, int size,
                                int* next, int* next_size, int next_level) {
  int v = graph::thread_vertex(frontier, size);
  if (v < 0) return;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = col[e];
    if (bfs::claim(u, level, next_level)) graph::enqueue(u, next, next_size);
  }
}

int main(int argc, char** argv) {
  return bfs::run(argc, argv, "flat", [](const graph::GraphProblem& p, const graph::Frontier& f, int depth) {
    expand_frontier<<<graph::blocks_for(f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.value, f.cur, f.size,
                                                            f.next, f.next_size, depth + 1);
  });
}
