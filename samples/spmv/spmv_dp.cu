// SpMV, naive dynamic parallelism: one parent thread per row launches a child grid with one thread per
// nonzero, each adding its product into y[row]. This is the input to pdcc; on an H200 the launches beyond
// the pending-launch pool are lost, those rows stay 0, and the checker reports it.
#include "spmv.cuh"

__global__ void row_products(const int* col, const float* val, const float* x, float* out, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= len) return;
  atomicAdd(out, val[i] * x[col[i]]);
}

__global__ void spmv_rows(const int* row_ptr, const int* col, const float* val, const float* x, float* y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  int start = row_ptr[row];
  int len = row_ptr[row + 1] - start;
  y[row] = 0.0f;  // written before the launch, so the child grid sees it
  if (len == 0) return;
  #pragma dp threshold(128)
  row_products<<<(len + 127) / 128, 128>>>(col + start, val + start, x, y + row, len);
}

int main(int argc, char** argv) {
  spmv::Problem p(sample::parse_options(argc, argv));
  int blocks = (int)(((long long)p.a.n + 255) / 256);
  p.measure("dp", [&] { spmv_rows<<<blocks, 256>>>(p.d.row_ptr, p.d.col, p.d.val, p.dx, p.dy, p.a.n); });
  return 0;
}
