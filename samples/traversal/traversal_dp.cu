// Graph traversal, naive dynamic parallelism: a grid handles the neighbours of one vertex, one thread per
// neighbour; a thread that claims its neighbour (the first to reach it) records the parent and depth and
// launches the same kernel over that neighbour's neighbours (recursion, one device launch per reached
// vertex, nesting as deep as the path that reached it).
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/traversal/traversal_dp.cu -lcudadevrt
#include "traversal.cuh"

// nvcc does not know the dp pragma below (warning 20199); pdcc reads it and comments it out.
#pragma nv_diag_suppress 20199

// Thread i handles neighbour i of v, which was reached at depth dv.
__global__ void visit(const int* row_ptr, const int* col, int* parent, int* depth, int v, int dv, int* failures) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int begin = row_ptr[v];
  if (i >= row_ptr[v + 1] - begin) return;
  const int u = col[begin + i];
  if (!traversal::claim(u, v, parent)) return;  // visited already
  const int du = dv + 1;
  depth[u] = du;
  const int degree = row_ptr[u + 1] - row_ptr[u];
  if (degree > 0) {
    #pragma dp consldt(block) buffer(default, 256) work(u, du)
    visit<<<(degree + 127) / 128, 128>>>(row_ptr, col, parent, depth, u, du, failures);
    cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) traversal::launch_failed(failures, launched);
  }
}

int main(int argc, char** argv) {
  traversal::Problem p(argc, argv);
  const sample::DeviceCsr& g = p.d;
  const int source = graph::kSource;
  const int degree = p.g.row_ptr[source + 1] - p.g.row_ptr[source];
  return p.measure("dp", [&] {
    if (degree > 0) visit<<<(degree + 127) / 128, 128>>>(g.row_ptr, g.col, p.parent, p.depth, source, 0, p.failures);
  });
}
