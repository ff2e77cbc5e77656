// Recursions whose threads cooperate within their blocks, which consolidation runs block by block as
// launched (the consumer's blocks have the items' block size): a block-wide reduction in shared memory
// with barriers, and a warp reduction with __shfl_down_sync. A chain of one 64-thread block per level
// (argv[1] levels, 10,000 in the tests), a tree of two-block items (argv[2] levels) and a chain whose items
// alternate between 100 blocks (launched as grids of their own) and one (queued by those). Each block sums 1
// per thread through shared memory or its warps and adds the sum once, so a block whose threads did not
// run together, or ran in a block of another size, adds a wrong sum. The tests put each configuration's
// clauses where CLAUSES stands, build with pdcc and run: "as launched ok" when every count matches.
#include <cstdio>
#include <cstdlib>

#include "launch_budget_check.cuh"

constexpr int kThreads = 64;

__device__ int block_sum(int value) {
  __shared__ int partial[kThreads];
  partial[threadIdx.x] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  const int sum = partial[0];
  __syncthreads();  // partial is written again by the next call
  return sum;
}

__global__ void chain(unsigned long long* visits, int level, int depth) {
  const int sum = block_sum(1);
  if (threadIdx.x == 0) atomicAdd(visits, (unsigned long long)sum);
  if (threadIdx.x == 0 && level + 1 < depth) {
#pragma dp CLAUSES
    chain<<<1, kThreads>>>(visits, level + 1, depth);
  }
}

// Each block of an item sums its warps with shuffles; block b of node n starts the item of node 2n + b + 1.
__global__ void tree(unsigned long long* visits, int node, int level, int depth) {
  int lanes = 1;
  for (int offset = 16; offset > 0; offset /= 2) lanes += __shfl_down_sync(0xffffffffu, lanes, offset);
  const int sum = block_sum(threadIdx.x % 32 == 0 ? lanes : 0);
  if (threadIdx.x == 0) atomicAdd(visits, (unsigned long long)sum);
  if (threadIdx.x == 0 && level + 1 < depth) {
#pragma dp CLAUSES
    tree<<<2, kThreads>>>(visits, 2 * node + blockIdx.x + 1, level + 1, depth);
  }
}

// Block 0 of each item starts the next: of kWide blocks at odd levels (launched as grids of their own),
// of one block at even ones (stored in the queue by those grids, after the level that launched them ended).
constexpr int kWide = 100, kWideLevels = 50;
__host__ __device__ constexpr int wide_blocks(int level) { return level % 2 == 1 ? kWide : 1; }
__global__ void wide(unsigned long long* visits, int level) {
  const int sum = block_sum(1);
  if (threadIdx.x == 0) atomicAdd(visits, (unsigned long long)sum);
  if (blockIdx.x == 0 && threadIdx.x == 0 && level + 1 < kWideLevels) {
#pragma dp CLAUSES
    wide<<<wide_blocks(level + 1), kThreads>>>(visits, level + 1);
  }
}

int main(int argc, char** argv) {
  const int chain_depth = argc > 1 ? std::atoi(argv[1]) : 10, tree_depth = argc > 2 ? std::atoi(argv[2]) : 8;
  // The tree: 1 block at level 0, then 2^l blocks at level l (each block of level l - 1 starts an item of 2).
  const unsigned long long tree_blocks = (1ull << tree_depth) - 1ull;
  unsigned long long wide_total = 0ull;
  for (int l = 0; l < kWideLevels; ++l) wide_total += (unsigned long long)wide_blocks(l);
  const unsigned long long want[3] = {(unsigned long long)chain_depth * kThreads, tree_blocks * kThreads,
                                      wide_total * kThreads};
  unsigned long long* visits;
  cudaMalloc(&visits, sizeof want);
  for (int run = 0; run < 3; ++run) {
    cudaMemset(visits, 0, sizeof want);
    chain<<<1, kThreads>>>(visits, 0, chain_depth);
    tree<<<1, kThreads>>>(visits + 1, 0, 0, tree_depth);
    wide<<<1, kThreads>>>(visits + 2, 0);
    cudaError_t error = cudaDeviceSynchronize();
    if (error == cudaSuccess) error = cudaGetLastError();
    unsigned long long got[3];
    cudaMemcpy(got, visits, sizeof got, cudaMemcpyDeviceToHost);
    if (error != cudaSuccess || got[0] != want[0] || got[1] != want[1] || got[2] != want[2]) {
      std::printf("run %d: %s; chain %llu want %llu, tree %llu want %llu, wide %llu want %llu\n", run,
                  cudaGetErrorString(error), got[0], want[0], got[1], want[1], got[2], want[2]);
      return 1;
    }
    if (!launch_budget_given_back(run)) return 1;
  }
  std::printf("as launched ok\n");
  return 0;
}
