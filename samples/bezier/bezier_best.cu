// Bézier tessellation, the flat version a user would pick: one warp per curve, the lanes writing
// consecutive points at the curve's precomputed offset (coalesced stores, and a long curve is shared by
// 32 lanes instead of one thread). Most curves are short, so a warp wastes fewer lanes than a block.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/bezier/bezier_best.cu
#include "bezier.cuh"

namespace {

constexpr int kBlock = 256;

__global__ void tessellate_warps(const bezier::Curve* curves, const long long* offsets, int n, long long capacity,
                                 float2* points) {
  long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;  // curve of this warp
  int lane = threadIdx.x & 31;
  int count = bezier::checked_count(offsets, n, capacity, i);
  if (count < 0) return;
  bezier::Curve c = curves[i];
  float2* out = points + offsets[i];
  for (int j = lane; j < count; j += 32) out[j] = bezier::point_at(c, j, count);
}

}  // namespace

int main(int argc, char** argv) {
  return bezier::run(argc, argv, "best", [](const bezier::Device& d) {
    long long blocks = ((long long)d.n * 32 + kBlock - 1) / kBlock;
    if (blocks) tessellate_warps<<<(unsigned)blocks, kBlock>>>(d.curves, d.offsets, d.n, d.capacity, d.points);
  });
}
