#line 1 "meld_bitonic.cu"
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
// pdcc: #pragma meld
        { // meld site sort_tiles_0: profitability 0.50, 8 of 8 statements melded, 1 selects
          const bool pdcc_then = (tid & k) == 0;
          // ascending
          const float s_tid = s[tid];
          const float s_ixj = s[ixj];
          const bool greater_or_less = pdcc_then ? s_tid > s_ixj : s_tid < s_ixj;
          if (greater_or_less) {
            float t = s[tid];
            s[tid] = s[ixj];
            s[ixj] = t;
          }
        }
#line 27 "meld_bitonic.cu"
      }
      __syncthreads();
    }
  }
  keys[blockIdx.x * blockDim.x + tid] = s[tid];
}
