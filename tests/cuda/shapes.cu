// Code shapes aggregation must survive, on the GPU: launches inside a loop (several records per thread),
// early returns, two annotated sites in one kernel, a templated child, 2-D child grids, and 2-D parent
// blocks whose last warp is partial. The tests put each configuration's clauses where CLAUSES stands,
// build with pdcc, and run: the program prints "shapes ok" when every count matches the host's, and
// exits 1 otherwise. Every child adds 1 per (child thread, item) it covers, so lost or repeated work shows,
// and each run's launches of pdcc's kernels must all have given back their launch of the launch budget.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "launch_budget_check.cuh"

__global__ void count_1d(unsigned long long* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, 1ull);
}

template <int Weight>
__global__ void count_2d(unsigned long long* total, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) atomicAdd(total, (unsigned long long)Weight);
}

__host__ __device__ int work_of(int parent, int round) { return (parent * 37 + round * 11) % 97 * (parent % 5 == 0 ? 9 : 1); }

// Parent blocks are 2-D (10 x 7 = 70 threads: the last warp has 6 lanes).
__global__ void parent(unsigned long long* totals, int parents, int rounds) {
  int me = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  if (me >= parents) return;                   // early return: these threads never reach the sites
  if (me % 7 == 3) return;
  for (int round = 0; round < rounds; ++round) {  // several records per thread
    int n = work_of(me, round);
    if (n == 0) continue;
#pragma dp CLAUSES
    count_1d<<<(n + 31) / 32, 32>>>(&totals[0], n);
  }
  int w = work_of(me, 7) % 40 + 1, h = me % 3 + 1;
#pragma dp CLAUSES
  count_2d<3><<<dim3((w + 7) / 8, (h + 3) / 4), dim3(8, 4)>>>(&totals[1], w, h);
}

int main(int argc, char** argv) {
  const int parents = argc > 1 ? std::atoi(argv[1]) : 3000, rounds = argc > 2 ? std::atoi(argv[2]) : 4;
  unsigned long long want[2] = {0, 0};
  for (int me = 0; me < parents; ++me) {
    if (me % 7 == 3) continue;
    for (int round = 0; round < rounds; ++round) want[0] += work_of(me, round);
    want[1] += 3ull * (work_of(me, 7) % 40 + 1) * (me % 3 + 1);
  }
  if (argc > 3) cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, std::atoi(argv[3]));  // probes
  unsigned long long* totals;
  cudaMalloc(&totals, sizeof want);
  for (int run = 0; run < 3; ++run) {  // a parent's next launch reuses its record storage
    cudaMemset(totals, 0, sizeof want);
    const dim3 block(10, 7);
    parent<<<(parents + 69) / 70, block>>>(totals, parents, rounds);
    cudaError_t error = cudaDeviceSynchronize();
    unsigned long long got[2];
    cudaMemcpy(got, totals, sizeof got, cudaMemcpyDeviceToHost);
    if (error != cudaSuccess || got[0] != want[0] || got[1] != want[1]) {
      std::printf("run %d: %s; 1-D total %llu want %llu, 2-D total %llu want %llu\n", run, cudaGetErrorString(error),
                  got[0], want[0], got[1], want[1]);
      return 1;
    }
    if (!launch_budget_given_back(run)) return 1;
  }
  std::printf("shapes ok\n");
  return 0;
}
