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
  sample::print_result("triangles", "flat", in.name, times, ok, detail, triangles::bytes_moved(g));

  CUDA_CHECK(cudaFree(d_total));
  sample::free_device(d);
  return 0;
}
