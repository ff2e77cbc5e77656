// Triangle counting without dynamic parallelism: one thread per vertex u walks its neighbours v > u
// itself and intersects adj(u) and adj(v) above v for each of them.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/triangles/triangles_flat.cu
#include "triangles.cuh"

__global__ void count_vertices(const int* row_ptr, const int* col, int n, unsigned long long* total) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n) return;
  int end = row_ptr[u + 1];
  unsigned long long found = 0;
  for (int p = triangles::first_greater(col, row_ptr[u], end, u); p < end; ++p)
    found += triangles::edge_triangles(row_ptr, col, p, end);
  if (found) atomicAdd(total, found);  // one atomic per vertex, not per edge
}

int main(int argc, char** argv) {
  return triangles::run(argc, argv, "flat", [](const sample::DeviceCsr& d, unsigned long long* total) {
    int blocks = (d.n + 127) / 128;
    if (blocks > 0) count_vertices<<<blocks, 128>>>(d.row_ptr, d.col, d.n, total);
  });
}
