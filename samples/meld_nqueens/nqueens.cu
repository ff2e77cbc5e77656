// N-Queens by backtracking, one board prefix per thread, with the thread's stack in shared memory (in the
// style of the GPGPU-Sim benchmark NQU). Each step of the search either backs up a row, when every column
// of the current row is attacked or tried (pop), or places a queen on the lowest free column and goes down
// a row (push), counting a solution instead on the last row. Threads of a warp pop and push at different
// times: the branch diverges on nearly every step.
// Build: nvcc -arch=sm_90 -O3 -diag-suppress 20199 -I samples/common -I samples/meld_common samples/meld_nqueens/nqueens.cu
#include "nqueens.cuh"

using nqueens::kMaxRows;
using nqueens::kThreads;

__global__ void count_completions(int n, int rows, const unsigned* cols0, const unsigned* left0, const unsigned* right0,
                                  int prefixes, unsigned* counts) {
  // the stacks: one entry per row being searched, one column per thread
  __shared__ unsigned cols[kMaxRows][kThreads];   // columns taken
  __shared__ unsigned left[kMaxRows][kThreads];   // columns attacked along one diagonal
  __shared__ unsigned right[kMaxRows][kThreads];  // ... and along the other
  __shared__ unsigned tried[kMaxRows][kThreads];  // columns attacked or already tried in this row
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
    #pragma meld
    if ((tried[level][tid] & all) == all) {
      --level;
    } else {
      unsigned bit = (tried[level][tid] + 1) & ~tried[level][tid];
      tried[level][tid] |= bit;
      if (level + 1 == rows) {
        ++found;
        --level;
      } else {
        cols[level + 1][tid] = cols[level][tid] | bit;
        left[level + 1][tid] = (left[level][tid] | bit) << 1;
        right[level + 1][tid] = (right[level][tid] | bit) >> 1;
        tried[level + 1][tid] = cols[level + 1][tid] | left[level + 1][tid] | right[level + 1][tid];
        ++level;
      }
    }
  }
  counts[p] = found;
}

int main(int argc, char** argv) {
  return nqueens::run(argc, argv, "annotated", [](int n, int rows, const unsigned* cols, const unsigned* left,
                                                  const unsigned* right, int prefixes, unsigned* counts) {
    count_completions<<<(prefixes + kThreads - 1) / kThreads, kThreads>>>(n, rows, cols, left, right, prefixes, counts);
  });
}
