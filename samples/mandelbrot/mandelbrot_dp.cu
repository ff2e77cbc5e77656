// Mandelbrot by recursive subdivision, naive dynamic parallelism (Adinets, "Adaptive Parallel Computation
// with CUDA Dynamic Parallelism", NVIDIA 2014): a block per tile; a tile whose border has one dwell is
// filled, a tile larger than the minimum whose border is not uniform launches the same kernel over its four
// quarters (one device launch per such tile), a minimum tile is computed pixel by pixel.
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/mandelbrot/mandelbrot_dp.cu -lcudadevrt
#include "mandelbrot.cuh"

// nvcc does not know the dp pragma below (warning 20199); pdcc reads it and comments it out.
#pragma nv_diag_suppress 20199

using mandelbrot::kBlock;

// Block (bx, by) handles the d x d tile at (x0 + bx d, y0 + by d).
__global__ void __launch_bounds__(kBlock) mandelbrot_tiles(int* dwells, int width, int max_dwell, int x0, int y0, int d,
                                                           int* failures) {
  const int tx = x0 + blockIdx.x * d, ty = y0 + blockIdx.y * d;
  const int common = mandelbrot::border_dwell(tx, ty, d, width, max_dwell);
  if (common >= 0) {
    mandelbrot::fill_tile(dwells, width, tx, ty, d, common);
  } else if (d > mandelbrot::kMinTile) {
    if (threadIdx.x == 0) {
      #pragma dp consldt(block) buffer(default, 256) work(tx, ty)
      mandelbrot_tiles<<<dim3(2, 2), kBlock>>>(dwells, width, max_dwell, tx, ty, d / 2, failures);
      cudaError_t launched = cudaGetLastError();
      if (launched != cudaSuccess) mandelbrot::launch_failed(failures, launched);
    }
  } else {
    mandelbrot::compute_tile(dwells, width, max_dwell, tx, ty, d);
  }
}

int main(int argc, char** argv) {
  mandelbrot::Problem p(argc, argv);
  const int width = p.in.width, max_dwell = p.in.max_dwell;
  int* dwells = p.dwells;
  int* failures = p.failures;
  return p.measure("dp", [&] {
    mandelbrot_tiles<<<dim3(mandelbrot::kInitTiles, mandelbrot::kInitTiles), kBlock>>>(
        dwells, width, max_dwell, 0, 0, width / mandelbrot::kInitTiles, failures);
  });
}
