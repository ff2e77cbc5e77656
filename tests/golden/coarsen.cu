// Coarsening: with a threshold (serial fallback), alone on a child with shared memory and a barrier
// (a barrier between original blocks; failed launches are retried), and on a 2-D grid.
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x[i] *= a;
}

__global__ void block_reverse(int* data, int n) {
  __shared__ int tile[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  tile[threadIdx.x] = i < n ? data[i] : 0;
  __syncthreads();
  if (i < n) data[i] = tile[127 - threadIdx.x];
}

__global__ void stencil_2d(float* out, const float* in, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = 0.5f * in[y * w + x];
}

__global__ void parent(float* x, int* data, float* out, const int* sizes) {
  int n = sizes[threadIdx.x];
#pragma dp threshold(256) coarsen(8)
  scale<<<(n + 127) / 128, 128>>>(x, 2.0f, n);
#pragma dp coarsen(4)
  block_reverse<<<(n + 127) / 128, 128>>>(data, n);
#pragma dp coarsen(2)
  stencil_2d<<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(out, x, n, n);
}
