// The child returns early; the outlined body makes that `return` end one thread's work only.
__global__ void row_child(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;   // early return: the serial loop must go on with the next thread
  y[i] += x[i];
}

__global__ void parent(float* y, const float* x, const int* len, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int n = len[r];
  #pragma dp threshold(128)
  row_child<<<(n + 255) / 256, 256>>>(y + r, x, n);
}
