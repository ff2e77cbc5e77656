// Triangle counting, naive dynamic parallelism: one parent thread per vertex u launches a child grid
// with one thread per neighbour v > u; each child thread intersects adj(u) and adj(v) above v.
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/triangles/triangles_dp.cu -lcudadevrt
#include "triangles.cuh"

// Child: thread i handles the edge (u, col[first + i]); adj(u) ends at first + len.
__global__ void count_edges(const int* row_ptr, const int* col, int first, int len, unsigned long long* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= len) return;
  unsigned long long found = triangles::edge_triangles(row_ptr, col, first + i, first + len);
  if (found) atomicAdd(total, found);
}

// Parent: one thread per vertex; its neighbours above u are the tail of its sorted list.
__global__ void count_vertices(const int* row_ptr, const int* col, int n, unsigned long long* total) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= n) return;
  int end = row_ptr[u + 1];
  int first = triangles::first_greater(col, row_ptr[u], end, u);
  int len = end - first;
  if (len > 0) {
    #pragma dp threshold(128)
    count_edges<<<(len + 127) / 128, 128>>>(row_ptr, col, first, len, total);
  }
}

int main(int argc, char** argv) {
  return triangles::run(argc, argv, "dp", [](const sample::DeviceCsr& d, unsigned long long* total) {
    int blocks = (d.n + 127) / 128;
    if (blocks > 0) count_vertices<<<blocks, 128>>>(d.row_ptr, d.col, d.n, total);
  });
}
