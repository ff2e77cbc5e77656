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
  sample::Options opts = sample::parse_options(argc, argv);
  triangles::Input in = triangles::make_input(opts);
  const sample::Csr& g = in.graph;

  sample::DeviceCsr d = sample::to_device(g);
  unsigned long long* d_total = nullptr;
  CUDA_CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));

  int blocks = (g.n + 127) / 128;
  std::vector<double> times = sample::time_runs(
      opts.reps, [&] { CUDA_CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long))); },
      [&] { if (blocks > 0) count_vertices<<<blocks, 128>>>(d.row_ptr, d.col, g.n, d_total); });

  unsigned long long got = 0;
  CUDA_CHECK(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
  std::string detail;
  bool ok = triangles::check(got, triangles::cpu_triangles(g), detail);
  sample::print_result("triangles", "dp", in.name, times, ok, detail, triangles::bytes_moved(g));

  CUDA_CHECK(cudaFree(d_total));
  sample::free_device(d);
  return 0;
}
