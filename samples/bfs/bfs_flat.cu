// BFS without dynamic parallelism: each frontier thread visits its neighbours in a loop.
#include "bfs.cuh"

__global__ void expand_frontier(const int* row_ptr, const int* col, int* level, const int* frontier, int size,
                                int* next, int* next_size, int next_level) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= size) return;
  int v = frontier[t];
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = col[e];
    if (bfs::claim(u, level, next_level)) graph::enqueue(u, next, next_size);
  }
}

int main(int argc, char** argv) {
  sample::Options opt = sample::parse_options(argc, argv);
  graph::GraphProblem p(graph::load_graph(opt), bfs::kUnvisitedByte);
  graph::Frontier& f = p.frontier;
  std::vector<double> times = sample::time_runs(opt.reps, [&] { p.reset(); }, [&] {
    p.run([&](int depth) {
      expand_frontier<<<graph::blocks_for(f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.value, f.cur, f.size,
                                                              f.next, f.next_size, depth + 1);
    });
  });
  bfs::report("flat", p, times);
  return 0;
}
