// Quicksort, naive dynamic parallelism: a segment is partitioned by a grid of a block per tile of 2,048 keys
// (GPU-Quicksort's partition, as the flat variant does it, each block reserving its slots with one atomic per
// side); the last of its blocks to finish places the keys equal to the pivot, sorts a small side itself and
// launches the same kernel on the large sides, one grid for both (recursion, one device launch per partition
// with a large side). Keys ping-pong between `keys` and `buf` by depth; keys equal to a pivot and the sorted
// small sides are written to `keys`, their final place.
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/quicksort/quicksort_dp.cu -lcudadevrt
#include "quicksort.cuh"

// nvcc does not know the dp pragma below (warning 20199); pdcc reads it and comments it out.
#pragma nv_diag_suppress 20199

using quicksort::kBlock;
using quicksort::kTile;

// A segment being partitioned: the slots its blocks have taken on each side, and its blocks that are done.
// Segments partitioned at the same time are disjoint and longer than the cutoff, so `lo / (cutoff + 1)`
// tells them apart; the last block of a segment zeroes its counters before launching the sides, the only
// later segments that may share them.
struct Counters {
  int lt, gt, done;
};

__device__ inline int tiles_of(int len) { return (len + kTile - 1) / kTile; }

// Sides [lo0, hi0) and [lo1, hi1): blocks 0 .. tiles_of(hi0 - lo0) - 1 partition the first, the others the
// second. At an even depth the sides are in `keys`, at an odd one in `buf`.
__global__ void __launch_bounds__(kBlock) quicksort_tiles(unsigned* keys, unsigned* buf, int lo0, int hi0, int lo1,
                                                          int hi1, int depth, int cutoff, Counters* counters,
                                                          int* failures) {
  __shared__ int lt_base, gt_base;
  __shared__ bool last;
  const int first_tiles = tiles_of(hi0 - lo0);
  const bool first = (int)blockIdx.x < first_tiles;
  const int lo = first ? lo0 : lo1, hi = first ? hi0 : hi1;
  const int tile = first ? (int)blockIdx.x : (int)blockIdx.x - first_tiles;
  const unsigned* src = depth % 2 == 0 ? keys : buf;
  unsigned* dst = depth % 2 == 0 ? buf : keys;
  if (hi - lo <= cutoff) {  // only a root this small gets here
    quicksort::block_sort(src, keys, lo, hi);
    return;
  }
  Counters& c = counters[lo / (cutoff + 1)];
  const unsigned pivot = quicksort::pivot_of(src, lo, hi);
  unsigned key[quicksort::kItems];
  const int counts = quicksort::load_tile(src, lo + tile * kTile + (int)threadIdx.x * quicksort::kItems, hi, pivot, key);
  int total = 0;
  const int before = quicksort::block_exclusive_scan(counts, total);
  if (threadIdx.x == 0) {
    lt_base = atomicAdd(&c.lt, total & 0xffff);
    gt_base = atomicAdd(&c.gt, total >> 16);
  }
  __syncthreads();
  quicksort::scatter_tile(key, pivot, dst, lo + lt_base + (before & 0xffff), hi - 1 - gt_base - (before >> 16));
  // The last block of the segment goes on; the fences make every block's keys visible to it.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&c.done, 1) == tiles_of(hi - lo) - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const int lt = atomicAdd(&c.lt, 0), gt = atomicAdd(&c.gt, 0);
  const int lt_end = lo + lt, gt_begin = hi - gt;
  for (int i = lt_end + (int)threadIdx.x; i < gt_begin; i += kBlock) keys[i] = pivot;
  const bool left = lt > cutoff, right = gt > cutoff;
  // The simple sort below the cutoff, by this block.
  if (!left) quicksort::block_sort(dst, keys, lo, lt_end);
  if (!right) quicksort::block_sort(dst, keys, gt_begin, hi);
  // The recursion: one child grid for both large sides. (Two launches from one block would go into its default
  // stream and run one after the other.) The barrier makes the whole block's writes visible to it.
  __syncthreads();
  if (threadIdx.x == 0) {
    c.lt = c.gt = c.done = 0;
    if (left || right) {
      const int a0 = left ? lo : gt_begin, b0 = left ? lt_end : hi;
      const int a1 = gt_begin, b1 = left && right ? hi : gt_begin;  // the second side: the right one when both are large
      const int blocks = tiles_of(b0 - a0) + tiles_of(b1 - a1);
      #pragma dp consldt(block) buffer(default, 256) work(a0, b0, a1, b1)
      quicksort_tiles<<<blocks, kBlock>>>(keys, buf, a0, b0, a1, b1, depth + 1, cutoff, counters, failures);
      cudaError_t launched = cudaGetLastError();
      if (launched != cudaSuccess) quicksort::launch_failed(failures, launched);
    }
  }
}

int main(int argc, char** argv) {
  quicksort::Problem p(argc, argv);
  const quicksort::Device& d = p.d;
  const int n = d.n, cutoff = p.in.cutoff;
  const size_t counters_bytes = sizeof(Counters) * (n / (cutoff + 1) + 1);
  Counters* counters = nullptr;
  CUDA_CHECK(cudaMalloc(&counters, counters_bytes));
  int code = p.measure("dp", [&] {
    CUDA_CHECK(cudaMemsetAsync(counters, 0, counters_bytes));
    if (n > 0) quicksort_tiles<<<n > cutoff ? (n + kTile - 1) / kTile : 1, kBlock>>>(d.keys, d.buf, 0, n, 0, 0, 0, cutoff,
                                                                                     counters, d.failures);
  });
  sample::free_all(counters);
  return code;
}
