// Bézier tessellation without dynamic parallelism: after the counts and offsets, one thread per curve
// computes all of its points itself.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/bezier/bezier_flat.cu
#include "bezier.cuh"

__global__ void tessellate(const bezier::Curve* curves, const long long* offsets, int n, long long capacity,
                           float2* points) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || offsets[i + 1] > capacity) return;
  int count = (int)(offsets[i + 1] - offsets[i]);
  bezier::Curve c = curves[i];
  float2* out = points + offsets[i];
  for (int j = 0; j < count; ++j) out[j] = bezier::point_at(c, j, count);
}

int main(int argc, char** argv) {
  sample::Options opts = sample::parse_options(argc, argv);
  bezier::Input in = bezier::make_input(opts);
  bezier::Device d = bezier::to_device(in);

  std::vector<double> times = sample::time_runs(opts.reps, [&] { bezier::reset(d); }, [&] {
    bezier::compute_offsets(d);
    if (d.n) tessellate<<<(d.n + 127) / 128, 128>>>(d.curves, d.offsets, d.n, d.capacity, d.points);
  });

  std::string detail;
  bool ok = bezier::check(in, d, detail);
  sample::print_result("bezier", "flat", in.name, times, ok, detail, bezier::bytes_moved(in));
  bezier::free_device(d);
  return 0;
}
