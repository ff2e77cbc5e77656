// The grid size comes through local variables whose initialisers hold the division.
#include <cmath>

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void through_int(float* x, const int* sizes) {
  int n = sizes[blockIdx.x];
  int blocks = (int)ceil((float)n / 256);
  const int threads = 256;
#pragma dp threshold(1024)
  scale<<<blocks, threads>>>(x, 2.0f, n);
}

__global__ void through_dim3(float* x, const int* sizes) {
  int n = sizes[blockIdx.x];
  dim3 grid((n + 127) / 128);
  dim3 block(128);
#pragma dp threshold(1024)
  scale<<<grid, block>>>(x, 0.5f, n);
}
