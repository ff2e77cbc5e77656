// SSSP without dynamic parallelism: each worklist thread relaxes its vertex's edges in a loop.
#include "sssp.cuh"

__global__ void relax_round(const int* row_ptr, const int* col, const float* val, int* dist, int* stamp,
                            const int* work, int size, int* next, int* next_size, int round) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= size) return;
  int v = work[t];
  int d = graph::load_relaxed(&dist[v]);
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    int u = col[e];
    if (sssp::relax(u, d + sssp::weight(val, e), dist, stamp, round)) graph::enqueue(u, next, next_size);
  }
}

int main(int argc, char** argv) {
  sample::Options opt = sample::parse_options(argc, argv);
  graph::GraphProblem p(sssp::load(opt), sssp::kInfByte);
  sssp::Stamps s(p.in.g.n);
  graph::Frontier& f = p.frontier;
  int rounds = 0;
  std::vector<double> times = sample::time_runs(opt.reps, [&] { p.reset(); s.reset(); }, [&] {
    rounds = p.run([&](int step) {
      relax_round<<<graph::blocks_for(f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.g.val, p.value, s.stamp, f.cur,
                                                           f.size, f.next, f.next_size, step + 1);
    });
  });
  sssp::report("flat", p, rounds, times);
  return 0;
}
