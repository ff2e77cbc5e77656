// SpMV without dynamic parallelism: one thread per row sums its nonzeros in a loop.
#include "spmv.cuh"

__global__ void spmv_rows(const int* row_ptr, const int* col, const float* val, const float* x, float* y, int n) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float sum = 0.0f;
  for (int k = row_ptr[row]; k < row_ptr[row + 1]; ++k) sum += val[k] * x[col[k]];
  y[row] = sum;
}

int main(int argc, char** argv) {
  spmv::Problem p(sample::parse_options(argc, argv));
  int blocks = (int)(((long long)p.a.n + 255) / 256);
  p.measure("flat", [&] { spmv_rows<<<blocks, 256>>>(p.d.row_ptr, p.d.col, p.d.val, p.dx, p.dy, p.a.n); });
  return 0;
}
