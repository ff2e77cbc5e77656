// The child uses __shared__ memory through a device function it calls: the launch stays as written.
__device__ float stage(float v) {
  __shared__ float tile[64];
  tile[threadIdx.x] = v;
  return tile[threadIdx.x];
}

__global__ void staged_copy(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = stage(x[i]);
}

__global__ void parent(const float* x, float* y, const int* len) {
  int n = len[threadIdx.x];
#pragma dp threshold(32)
  staged_copy<<<(n + 63) / 64, 64>>>(x, y, n);
}
