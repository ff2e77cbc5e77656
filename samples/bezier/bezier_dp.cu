// Bézier tessellation, naive dynamic parallelism: after the counts and offsets, one parent thread per
// curve launches a child grid with one thread per point of its curve.
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/bezier/bezier_dp.cu -lcudadevrt
#include "bezier.cuh"

// Child: thread j writes point j of the curve into out[j].
__global__ void curve_points(float2 p0, float2 p1, float2 p2, int count, float2* out) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= count) return;
  bezier::Curve c = {p0, p1, p2};
  out[j] = bezier::point_at(c, j, count);
}

// Parent: one thread per curve; its points go to [offsets[i], offsets[i + 1]).
__global__ void tessellate(const bezier::Curve* curves, const long long* offsets, int n, long long capacity,
                           float2* points) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || offsets[i + 1] > capacity) return;
  int count = (int)(offsets[i + 1] - offsets[i]);
  bezier::Curve c = curves[i];
  if (count > 0) {
    #pragma dp threshold(128)
    curve_points<<<(count + 127) / 128, 128>>>(c.p0, c.p1, c.p2, count, points + offsets[i]);
  }
}

int main(int argc, char** argv) {
  return bezier::run(argc, argv, "dp", [](const bezier::Device& d) {
    if (d.n) tessellate<<<(d.n + 127) / 128, 128>>>(d.curves, d.offsets, d.n, d.capacity, d.points);
  });
}
