// N-Queens by backtracking with a per-thread stack, melded by hand: nqueens.cu with its pop/push branch
// melded the way DARM melds it, by region replication (seed 004 §IV-C, case 2). The pop side is one
// statement, `--level`, which matches the `--level` of the push side's last-row path; so the pop side is
// made to take that path of the push side's inner if (its condition becomes `exhausted || last row`), and
// the statements the pop side lacks (finding the next column, marking it tried, counting the solution)
// stay guarded by the branch condition. Every thread of a warp then steps through the same code.
// Build: nvcc -arch=sm_90 -O3 -I samples/common -I samples/meld_common samples/meld_nqueens/nqueens_hand.cu
#include "nqueens.cuh"

using nqueens::kMaxRows;
using nqueens::kThreads;

__global__ void count_completions(int n, int rows, const unsigned* cols0, const unsigned* left0, const unsigned* right0,
                                  int prefixes, unsigned* counts) {
  __shared__ unsigned cols[kMaxRows][kThreads];
  __shared__ unsigned left[kMaxRows][kThreads];
  __shared__ unsigned right[kMaxRows][kThreads];
  __shared__ unsigned tried[kMaxRows][kThreads];
  const int tid = threadIdx.x;
  const int p = blockIdx.x * blockDim.x + tid;
  if (p >= prefixes) return;
  const unsigned all = (1u << n) - 1;

  cols[0][tid] = cols0[p];
  left[0][tid] = left0[p];
  right[0][tid] = right0[p];
  tried[0][tid] = cols0[p] | left0[p] | right0[p];
  unsigned found = 0;
  int level = 0;
  while (level >= 0) {
    // melded `if ((tried[level][tid] & all) == all) {pop} else {push}`
    const bool exhausted = (tried[level][tid] & all) == all;
    unsigned bit = 0;
    if (!exhausted) {                                  // the push side's own statements, guarded
      bit = (tried[level][tid] + 1) & ~tried[level][tid];
      tried[level][tid] |= bit;
    }
    if (exhausted || level + 1 == rows) {              // the pop side replicated into the last-row path
      if (!exhausted) ++found;
      --level;                                         // aligned: the pop and the last-row pop
    } else {
      cols[level + 1][tid] = cols[level][tid] | bit;
      left[level + 1][tid] = (left[level][tid] | bit) << 1;
      right[level + 1][tid] = (right[level][tid] | bit) >> 1;
      tried[level + 1][tid] = cols[level + 1][tid] | left[level + 1][tid] | right[level + 1][tid];
      ++level;
    }
  }
  counts[p] = found;
}

int main(int argc, char** argv) {
  return nqueens::run(argc, argv, "hand", [](int n, int rows, const unsigned* cols, const unsigned* left,
                                             const unsigned* right, int prefixes, unsigned* counts) {
    count_completions<<<(prefixes + kThreads - 1) / kThreads, kThreads>>>(n, rows, cols, left, right, prefixes, counts);
  });
}
