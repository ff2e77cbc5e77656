// Bitonic sort of a shared-memory tile: the direction of each compare-and-swap depends on the thread.
__global__ void sort_tiles(float *keys)
{
  extern __shared__ float s[];
  unsigned int tid = threadIdx.x;
  s[tid] = keys[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned int k = 2; k <= blockDim.x; k <<= 1) {
    for (unsigned int j = k >> 1; j > 0; j >>= 1) {
      unsigned int ixj = tid ^ j;
      if (ixj > tid) {
#pragma meld
        if ((tid & k) == 0) {
          // ascending
          if (s[tid] > s[ixj]) {
            float t = s[tid];
            s[tid] = s[ixj];
            s[ixj] = t;
          }
        } else {
          if (s[tid] < s[ixj]) {
            float t = s[tid];
            s[tid] = s[ixj];
            s[ixj] = t;
          }
        }
      }
      __syncthreads();
    }
  }
  keys[blockIdx.x * blockDim.x + tid] = s[tid];
}
