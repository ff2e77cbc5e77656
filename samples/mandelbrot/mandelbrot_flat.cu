// Mandelbrot by subdivision without dynamic parallelism: level by level from the host, a block per tile of
// the level's list; a tile that must be split appends its four quarters to the next level's list (one
// atomic per tile). The host reads the list's length after each level (at most log2(W / 256) + 1 levels).
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/mandelbrot/mandelbrot_flat.cu
#include "mandelbrot.cuh"

namespace {

using mandelbrot::kBlock;

__global__ void __launch_bounds__(kBlock) level_tiles(int* dwells, int width, int max_dwell, const int2* tiles, int d,
                                                      int2* next, int* next_count) {
  const int2 t = tiles[blockIdx.x];
  const int common = mandelbrot::border_dwell(t.x, t.y, d, width, max_dwell);
  if (common >= 0) {
    mandelbrot::fill_tile(dwells, width, t.x, t.y, d, common);
  } else if (d > mandelbrot::kMinTile) {
    if (threadIdx.x == 0) {
      const int slot = atomicAdd(next_count, 4), h = d / 2;
      for (int q = 0; q < 4; ++q) next[slot + q] = make_int2(t.x + (q % 2) * h, t.y + (q / 2) * h);
    }
  } else {
    mandelbrot::compute_tile(dwells, width, max_dwell, t.x, t.y, d);
  }
}

__global__ void first_tiles(int2* tiles, int d) {
  const int i = threadIdx.x;  // one thread per tile of the first level
  tiles[i] = make_int2(i % mandelbrot::kInitTiles * d, i / mandelbrot::kInitTiles * d);
}

}  // namespace

int main(int argc, char** argv) {
  mandelbrot::Problem p(argc, argv);
  const int width = p.in.width, max_dwell = p.in.max_dwell;
  // A level of tiles of side d has at most (width / d)^2 of them; the smallest tiles are kMinTile.
  const long long capacity = (long long)(width / mandelbrot::kMinTile) * (width / mandelbrot::kMinTile);
  int2* tiles[2] = {nullptr, nullptr};
  int* next_count = nullptr;
  CUDA_CHECK(cudaMalloc(&tiles[0], sizeof(int2) * capacity));
  CUDA_CHECK(cudaMalloc(&tiles[1], sizeof(int2) * capacity));
  CUDA_CHECK(cudaMalloc(&next_count, sizeof(int)));

  int code = p.measure("flat", [&] {
    int d = width / mandelbrot::kInitTiles, count = mandelbrot::kInitTiles * mandelbrot::kInitTiles, cur = 0;
    first_tiles<<<1, count>>>(tiles[0], d);
    while (count > 0) {
      CUDA_CHECK(cudaMemsetAsync(next_count, 0, sizeof(int)));
      level_tiles<<<count, kBlock>>>(p.dwells, width, max_dwell, tiles[cur], d, tiles[1 - cur], next_count);
      CUDA_CHECK(cudaMemcpy(&count, next_count, sizeof(int), cudaMemcpyDeviceToHost));
      cur = 1 - cur;
      d /= 2;
    }
  });
  sample::free_all(tiles[0], tiles[1], next_count);
  return code;
}
