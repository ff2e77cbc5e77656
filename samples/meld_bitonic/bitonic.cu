// Bitonic sort of shared-memory tiles (the running example of DARM, seed 004, Fig. 1): each block sorts
// blockDim.x consecutive keys. In every step a thread whose partner ixj lies above it compares the two keys
// and swaps them into the order of its half of the network: ascending where bit k of its index is 0,
// descending where it is 1. That direction branch diverges within a warp for every k below 32.
// Build: nvcc -arch=sm_90 -O3 -diag-suppress 20199 -I samples/common -I samples/meld_common samples/meld_bitonic/bitonic.cu
//        (or pdcc with the same flags, without -diag-suppress: pdcc reads the pragma and nvcc never sees it)
#include "bitonic.cuh"

__device__ inline void swap_keys(int& a, int& b) {
  int t = a;
  a = b;
  b = t;
}

__global__ void bitonic_sort_tiles(int* keys) {
  extern __shared__ int shared[];
  const unsigned tid = threadIdx.x;
  const unsigned tile = blockDim.x;
  int* block_keys = keys + (size_t)blockIdx.x * tile;

  shared[tid] = block_keys[tid];
  __syncthreads();
  for (unsigned k = 2; k <= tile; k *= 2) {
    for (unsigned j = k / 2; j > 0; j /= 2) {
      unsigned ixj = tid ^ j;
      if (ixj > tid) {
        #pragma meld
        if ((tid & k) == 0) {
          if (shared[tid] > shared[ixj]) swap_keys(shared[tid], shared[ixj]);
        } else {
          if (shared[tid] < shared[ixj]) swap_keys(shared[tid], shared[ixj]);
        }
      }
      __syncthreads();
    }
  }
  block_keys[tid] = shared[tid];
}

int main(int argc, char** argv) {
  return bitonic::run(argc, argv, "annotated", [](int* keys, long long n, int tile) {
    bitonic_sort_tiles<<<(unsigned)(n / tile), tile, tile * sizeof(int)>>>(keys);
  });
}
