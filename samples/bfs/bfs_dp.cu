// BFS, naive dynamic parallelism: one parent thread per frontier vertex launches a child grid with one
// thread per neighbour. This is the input to pdcc; on an H200 the launches beyond the pending-launch
// pool are lost and the checker reports it.
#include "bfs.cuh"

__global__ void visit_neighbours(const int* nbr, int len, int* level, int next_level, int* next, int* next_size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= len) return;
  int u = nbr[i];
  if (bfs::claim(u, level, next_level)) graph::enqueue(u, next, next_size);
}

__global__ void expand_frontier(const int* row_ptr, const int* col, int* level, const int* frontier, int size,
                                int* next, int* next_size, int next_level) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= size) return;
  int v = frontier[t];
  int start = row_ptr[v];
  int len = row_ptr[v + 1] - start;
  if (len == 0) return;
  #pragma dp threshold(128)
  visit_neighbours<<<(len + 127) / 128, 128>>>(col + start, len, level, next_level, next, next_size);
}

int main(int argc, char** argv) {
  return bfs::run(argc, argv, "dp", [](const graph::GraphProblem& p, const graph::Frontier& f, int depth) {
    expand_frontier<<<graph::blocks_for(f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.value, f.cur, f.size,
                                                            f.next, f.next_size, depth + 1);
  });
}
