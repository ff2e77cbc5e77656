// The child synchronises with __syncthreads: it cannot run serially, so the launch stays as written.
__global__ void block_sum(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  __syncthreads();
  if (i < n) atomicAdd(out, v);
}

__global__ void parent(const float* x, float* out, const int* len) {
  int n = len[threadIdx.x];
#pragma dp threshold(32)
  block_sum<<<(n + 63) / 64, 64>>>(x, out + threadIdx.x, n);
}
