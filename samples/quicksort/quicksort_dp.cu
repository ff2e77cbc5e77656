// Quicksort, naive dynamic parallelism: a block partitions its segment, sorts a small side itself and
// launches the same kernel on the large sides, one block per side (recursion, one device launch per
// partition with a large side). Keys ping-pong between `keys` and `buf` by depth; keys equal to a pivot and
// the sorted small sides are written to `keys`, their final place.
// Build: nvcc -arch=sm_90 -O3 -rdc=true -I samples/common samples/quicksort/quicksort_dp.cu -lcudadevrt
#include "quicksort.cuh"

// nvcc does not know the dp pragma below (warning 20199); pdcc reads it and comments it out.
#pragma nv_diag_suppress 20199

using quicksort::kBlock;

// Block b sorts segment b: [lo0, hi0) or [lo1, hi1). At an even depth the segment is in `keys`, at an odd
// one in `buf`.
__global__ void __launch_bounds__(kBlock) quicksort_segments(unsigned* keys, unsigned* buf, int lo0, int hi0, int lo1,
                                                             int hi1, int depth, int cutoff, int* failures) {
  const int lo = blockIdx.x == 0 ? lo0 : lo1;
  const int hi = blockIdx.x == 0 ? hi0 : hi1;
  const unsigned* src = depth % 2 == 0 ? keys : buf;
  unsigned* dst = depth % 2 == 0 ? buf : keys;
  if (hi - lo <= cutoff) {  // only a root this small gets here
    quicksort::block_sort(src, keys, lo, hi);
    return;
  }
  const quicksort::Split s = quicksort::partition_block(src, dst, keys, lo, hi, quicksort::pivot_of(src, lo, hi));
  const int lt_end = lo + s.lt, gt_begin = hi - s.gt;
  const bool left = s.lt > cutoff, right = s.gt > cutoff;
  // The simple sort below the cutoff, by this block.
  if (!left) quicksort::block_sort(dst, keys, lo, lt_end);
  if (!right) quicksort::block_sort(dst, keys, gt_begin, hi);
  // The recursion: one child grid, a block per large side. (Two launches of one block would go into its
  // default stream and run one after the other.) The barrier makes the whole block's writes visible to it.
  __syncthreads();
  if (threadIdx.x == 0 && (left || right)) {
    const int a0 = left ? lo : gt_begin, b0 = left ? lt_end : hi;
    const int a1 = gt_begin, b1 = hi;  // the second block's side: the right one when both are large
    const int sides = left && right ? 2 : 1;
    #pragma dp consldt(block) buffer(default, 256) work(a0, b0, a1, b1)
    quicksort_segments<<<sides, kBlock>>>(keys, buf, a0, b0, a1, b1, depth + 1, cutoff, failures);
    cudaError_t launched = cudaGetLastError();
    if (launched != cudaSuccess) quicksort::launch_failed(failures, launched);
  }
}

int main(int argc, char** argv) {
  quicksort::Problem p(argc, argv);
  const quicksort::Device& d = p.d;
  const int cutoff = p.in.cutoff;
  return p.measure("dp", [&] {
    if (d.n > 0) quicksort_segments<<<1, kBlock>>>(d.keys, d.buf, 0, d.n, 0, 0, 0, cutoff, d.failures);
  });
}
