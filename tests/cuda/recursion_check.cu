// Recursions that consolidation must run whole, on the GPU: a chain of one thread per level (as deep as
// argv[1], 10,000 levels in the tests: a naive chain stops at about 2,048 on an H200), a binary tree of
// two threads per node (argv[2] levels), a fan of multi-block grids whose width varies per item, and a
// mutual recursion (ping and pong launch each other, as deep as the chain). The
// tests put each configuration's clauses where CLAUSES stands, build with pdcc and run: the program prints
// "recursion ok" when every count matches the host's, and exits 1 otherwise. Each run is repeated, so a
// queue left dirty by the run before shows too.
#include <cstdio>
#include <cstdlib>

#include "launch_budget_check.cuh"

__global__ void chain(unsigned long long* visits, int level, int depth) {
  atomicAdd(visits, 1ull);
  if (level + 1 < depth) {
#pragma dp CLAUSES
    chain<<<1, 1>>>(visits, level + 1, depth);
  }
}

// Thread t of a node's grid is child t of the node: it counts itself, and one with children launches them.
__global__ void tree(unsigned long long* visits, int level, int depth) {
  atomicAdd(visits, 1ull);
  if (level + 1 < depth) {
#pragma dp CLAUSES
    tree<<<1, 2>>>(visits, level + 1, depth);
  }
}

__host__ __device__ int fan_width(int node) { return node % 7 * 37 + 1; }  // 1 to 223 threads of 32-thread blocks

// A node of `width` threads (several blocks, the last one partial); each of its first 3 threads starts a child.
__global__ void fan(unsigned long long* visits, int node, int width, int level, int depth) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= width) return;
  atomicAdd(visits, 1ull);
  if (i < 3 && level + 1 < depth) {
    const int child = node * 3 + i + 1, w = fan_width(child);
#pragma dp CLAUSES
    fan<<<(w + 31) / 32, 32>>>(visits, child, w, level + 1, depth);
  }
}

// Mutual recursion: ping (one thread) and pong (two threads, an argument more) launch each other, level
// after level; visits[0] counts ping's threads, visits[1] pong's.
__global__ void pong(unsigned long long* visits, int level, int depth, int back);

__global__ void ping(unsigned long long* visits, int level, int depth) {
  atomicAdd(visits, 1ull);
  if (level + 1 < depth) {
#pragma dp CLAUSES
    pong<<<1, 2>>>(visits + 1, level + 1, depth, 1);
  }
}

__global__ void pong(unsigned long long* visits, int level, int depth, int back) {
  atomicAdd(visits, 1ull);
  if (threadIdx.x == 0 && level + 1 < depth) {
#pragma dp CLAUSES
    ping<<<1, 1>>>(visits - back, level + 1, depth);
  }
}

static unsigned long long fan_expected(int node, int level, int depth) {
  unsigned long long total = fan_width(node);
  if (level + 1 < depth)
    for (int i = 0; i < 3 && i < fan_width(node); ++i) total += fan_expected(node * 3 + i + 1, level + 1, depth);
  return total;
}

int main(int argc, char** argv) {
  const int chain_depth = argc > 1 ? std::atoi(argv[1]) : 10, tree_depth = argc > 2 ? std::atoi(argv[2]) : 10;
  const int fan_depth = 6;
  const char* names[5] = {"chain", "tree", "fan", "ping", "pong"};
  const unsigned long long want[5] = {(unsigned long long)chain_depth, (2ull << tree_depth) - 2ull,
                                      fan_expected(0, 0, fan_depth), (chain_depth + 1ull) / 2ull,
                                      2ull * (chain_depth / 2)};
  unsigned long long* visits;
  cudaMalloc(&visits, sizeof want);
  for (int run = 0; run < 3; ++run) {
    cudaMemset(visits, 0, sizeof want);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    chain<<<1, 1>>>(visits, 0, chain_depth);
    cudaEventRecord(stop);
    tree<<<1, 2>>>(visits + 1, 0, tree_depth);
    fan<<<(fan_width(0) + 31) / 32, 32>>>(visits + 2, 0, fan_width(0), 0, fan_depth);
    ping<<<1, 1>>>(visits + 3, 0, chain_depth);
    cudaError_t error = cudaDeviceSynchronize();
    if (error == cudaSuccess) error = cudaGetLastError();
    float chain_ms = 0.0f;
    cudaEventElapsedTime(&chain_ms, start, stop);
    unsigned long long got[5];
    cudaMemcpy(got, visits, sizeof got, cudaMemcpyDeviceToHost);
    bool ok = error == cudaSuccess;
    for (int i = 0; i < 5; ++i) ok = ok && got[i] == want[i];
    if (!ok) {
      std::printf("run %d: %s;", run, cudaGetErrorString(error));
      for (int i = 0; i < 5; ++i) std::printf(" %s %llu want %llu", names[i], got[i], want[i]);
      std::printf("\n");
      return 1;
    }
    if (!launch_budget_given_back(run)) return 1;
    std::printf("run %d: chain of %d levels in %.3f ms (%.2f us per level)\n", run, chain_depth, chain_ms,
                1000.0f * chain_ms / chain_depth);
  }
  std::printf("recursion ok\n");
  return 0;
}
