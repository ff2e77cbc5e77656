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
  sample::Options opt = sample::parse_options(argc, argv);
  graph::GraphProblem p(sssp::load(opt), sssp::kInfByte);
  sssp::Stamps s(p.in.g.n);
  graph::Frontier& f = p.frontier;
  int rounds = 0;
  std::vector<double> times = sample::time_runs(opt.reps, [&] { p.reset(); s.reset(); }, [&] {
    rounds = p.run([&](int step) {
      relax_round<<<graph::blocks_for(32LL * f.size, 256), 256>>>(p.g.row_ptr, p.g.col, p.g.val, p.value, s.stamp,
                                                                  f.cur, f.size, f.next, f.next_size, step + 1);
    });
  });
  sssp::report("best", p, rounds, times);
  return 0;
}
