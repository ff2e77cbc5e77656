// Bitonic sort of shared-memory tiles, melded by hand: bitonic.cu with its direction branch melded the way
// a DARM-style meld does it at source level. The two sides are the same region (an if around a swap of
// shared[tid] and shared[ixj]); they differ only in the comparison. Melded, the two loads are done once
// (their addresses are the same on both sides), the comparison becomes a select on the branch condition and
// the swap (its loads and stores) is one statement that every thread of the warp runs together.
// Build: nvcc -arch=sm_90 -O3 -I samples/common -I samples/meld_common samples/meld_bitonic/bitonic_hand.cu
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
        // melded `if ((tid & k) == 0) {...} else {...}`
        const bool ascending = (tid & k) == 0;
        const int mine = shared[tid], partner = shared[ixj];              // aligned loads, same addresses
        const bool out_of_order = ascending ? mine > partner : mine < partner;  // select of the comparisons
        if (out_of_order) swap_keys(shared[tid], shared[ixj]);           // aligned swap
      }
      __syncthreads();
    }
  }
  block_keys[tid] = shared[tid];
}

int main(int argc, char** argv) {
  return bitonic::run(argc, argv, "hand", [](int* keys, long long n, int tile) {
    bitonic_sort_tiles<<<(unsigned)(n / tile), tile, tile * sizeof(int)>>>(keys);
  });
}
