// Bézier tessellation without dynamic parallelism: after the counts and offsets, one thread per curve
// computes all of its points itself.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/bezier/bezier_flat.cu
#include "bezier.cuh"

__global__ void tessellate(const bezier::Curve* curves, const long long* offsets, int n, long long capacity,
                           float2* points) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int count = bezier::checked_count(offsets, n, capacity, i);
  if (count < 0) return;
  bezier::Curve c = curves[i];
  float2* out = points + offsets[i];
  for (int j = 0; j < count; ++j) out[j] = bezier::point_at(c, j, count);
}

int main(int argc, char** argv) {
  return bezier::run(argc, argv, "flat", [](const bezier::Device& d) {
    if (d.n) tessellate<<<(d.n + 127) / 128, 128>>>(d.curves, d.offsets, d.n, d.capacity, d.points);
  });
}
