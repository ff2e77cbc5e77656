// Mandelbrot by subdivision, the version an expert would write: one launch of persistent blocks that take
// tiles from a device work list and append the quarters of the tiles they split (a work-list kernel, as in
// Gupta, Stuart and Owens, "A Study of Persistent Threads Style GPU Programming", InPar 2012). No level
// waits for the slowest tile of the previous one, and nothing goes back to the host between levels.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/mandelbrot/mandelbrot_best.cu
#include "mandelbrot.cuh"

namespace {

using mandelbrot::kBlock;

constexpr unsigned long long kEmpty = ~0ull;  // a slot not written yet

// A tile as one 64-bit word (x0, y0 and d below 2^16), written and read whole.
__host__ __device__ unsigned long long pack(int x0, int y0, int d) {
  return (unsigned long long)x0 | (unsigned long long)y0 << 16 | (unsigned long long)d << 32;
}

struct List {
  unsigned long long* items;  // `capacity` slots, kEmpty until written
  int capacity;
  int* head;     // next slot to take
  int* tail;     // slots reserved
  int* pending;  // tiles listed and not finished: the work is done when it reaches 0
};

__device__ unsigned long long load_volatile(const unsigned long long* p) { return *(const volatile unsigned long long*)p; }
__device__ int load_volatile(const int* p) { return *(const volatile int*)p; }

// Each block takes one slot at a time; thread 0 waits until its tile is written, or until nothing is
// pending (then no tile will ever be written there and the block stops). A tile that splits adds its four
// quarters to `pending` before its own completion takes one off, so pending reaches 0 only at the end.
__global__ void __launch_bounds__(kBlock) work_list(int* dwells, int width, int max_dwell, List list) {
  __shared__ unsigned long long tile;
  for (;;) {
    if (threadIdx.x == 0) {
      const int slot = atomicAdd(list.head, 1);
      for (;;) {
        const unsigned long long v = slot < list.capacity ? load_volatile(&list.items[slot]) : kEmpty;
        if (v != kEmpty) { tile = v; break; }
        if (load_volatile(list.pending) == 0) { tile = kEmpty; break; }
        __nanosleep(64);
      }
    }
    __syncthreads();
    const unsigned long long t = tile;
    if (t == kEmpty) return;  // the same in every thread
    const int x0 = (int)(t & 0xffff), y0 = (int)(t >> 16 & 0xffff), d = (int)(t >> 32);
    const int common = mandelbrot::border_dwell(x0, y0, d, width, max_dwell);  // its barriers also protect `tile`
    if (common >= 0) {
      mandelbrot::fill_tile(dwells, width, x0, y0, d, common);
    } else if (d > mandelbrot::kMinTile) {
      if (threadIdx.x == 0) {
        atomicAdd(list.pending, 4);
        const int slot = atomicAdd(list.tail, 4), h = d / 2;
        for (int q = 0; q < 4; ++q)
          *(volatile unsigned long long*)&list.items[slot + q] = pack(x0 + (q % 2) * h, y0 + (q / 2) * h, h);
      }
    } else {
      mandelbrot::compute_tile(dwells, width, max_dwell, x0, y0, d);
    }
    if (threadIdx.x == 0) {
      __threadfence();
      atomicSub(list.pending, 1);
    }
  }
}

__global__ void first_tiles(List list, int d) {
  const int i = threadIdx.x;  // one thread per tile of the first level
  list.items[i] = pack(i % mandelbrot::kInitTiles * d, i / mandelbrot::kInitTiles * d, d);
  if (i == 0) {
    *list.head = 0;
    *list.tail = blockDim.x;
    *list.pending = blockDim.x;
  }
}

}  // namespace

int main(int argc, char** argv) {
  mandelbrot::Problem p(argc, argv);
  const int width = p.in.width, max_dwell = p.in.max_dwell;
  constexpr int first = mandelbrot::kInitTiles * mandelbrot::kInitTiles;
  // Level k has at most first * 4^k tiles, down to tiles of kMinTile.
  long long capacity = 0, level = first;
  for (int d = width / mandelbrot::kInitTiles; d >= mandelbrot::kMinTile; d /= 2, level *= 4) capacity += level;
  List list{};
  list.capacity = (int)capacity;
  CUDA_CHECK(cudaMalloc(&list.items, sizeof(unsigned long long) * capacity));
  CUDA_CHECK(cudaMalloc(&list.head, 3 * sizeof(int)));
  list.tail = list.head + 1;
  list.pending = list.head + 2;

  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, work_list, kBlock, 0));
  const int blocks = sms * std::max(1, per_sm);

  int code = p.measure("best", [&] {
    CUDA_CHECK(cudaMemsetAsync(list.items, 0xFF, sizeof(unsigned long long) * capacity));
    first_tiles<<<1, first>>>(list, width / mandelbrot::kInitTiles);
    work_list<<<blocks, kBlock>>>(p.dwells, width, max_dwell, list);
  });
  sample::free_all(list.items, list.head);
  return code;
}
