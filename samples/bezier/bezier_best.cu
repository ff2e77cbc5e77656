// Bézier tessellation, the flat version an expert would write: one thread per output point, not per
// curve, so the uneven curves (1 to max_points points) cost nothing in balance and every store is
// coalesced.
//
// The harness has already computed offsets[0..n] (count_points and exclusive_scan, timed for every
// variant). tessellate_points is a grid-stride loop over tiles of kTile consecutive points, up to the
// device's own total offsets[n], with a load-balanced search per tile (in the spirit of moderngpu's
// load-balancing search, which partitions by merge path): two warps find, by a 32-way search of offsets,
// the curves that hold the tile's first and last points; the block stages those curves' offsets (relative
// to the tile; at most kTile + 1 of them, since every curve has at least one point) in shared memory; each
// thread finds the curve of each of its points by binary search there, evaluates the point and writes it,
// consecutive threads writing consecutive points. Points past the allocation (capacity) are never written.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/bezier/bezier_best.cu
#include "bezier.cuh"

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kBlock = 256;
constexpr int kItems = 8;                   // points per thread per tile
constexpr int kTile = kBlock * kItems;      // 2048 points: a tile's curve offsets fit 8 KB of shared memory

// The curve holding point p: the largest c in [0, n) with offsets[c] <= p (offsets[0] = 0 <= p). All 32
// lanes of a warp call it with the same arguments; each round narrows the range 32-fold with one load per
// lane (4 rounds for 65,536 curves).
__device__ int find_curve(const long long* offsets, int n, long long p) {
  const int lane = threadIdx.x & 31;
  int lo = 0, hi = n - 1;  // the answer lies in [lo, hi]
  while (lo < hi) {        // warp-uniform
    const int step = (int)(((long long)hi - lo + 32) / 32);  // ceil((hi - lo + 1) / 32) >= 1
    const long long s = lo + (long long)lane * step;
    const bool below = s <= hi && offsets[s] <= p;
    // offsets are non-decreasing, so the lanes below p form a prefix; lane 0 (s = lo) is among them
    const int m = max(1, __popc(__ballot_sync(kFullMask, below)));
    const int new_lo = lo + (m - 1) * step;
    if (m < 32) hi = min(hi, lo + m * step - 1);
    lo = new_lo;
  }
  return lo;
}

__global__ void __launch_bounds__(kBlock) tessellate_points(const bezier::Curve* curves, const long long* offsets,
                                                            int n, long long capacity, float2* points) {
  __shared__ int tile_offsets[kTile + 1];  // offsets[first + k] - tile start, k = 0 .. curves in the tile
  __shared__ int tile_curves[2];           // the curves of the tile's first and last points
  const long long total = min(offsets[n], capacity);
  const int warp = threadIdx.x / 32;

  for (long long start = blockIdx.x * (long long)kTile; start < total; start += gridDim.x * (long long)kTile) {
    const long long end = min(start + kTile, total);
    if (warp < 2) {
      const int c = find_curve(offsets, n, warp == 0 ? start : end - 1);
      if ((threadIdx.x & 31) == 0) tile_curves[warp] = c;
    }
    __syncthreads();
    const int first = tile_curves[0];
    // Every curve has at least one point, so at most kTile curves meet a tile; the clamp only keeps
    // shared memory safe if the offsets were wrong.
    const int curves_in_tile = min(tile_curves[1] - first + 1, kTile);
    for (int k = threadIdx.x; k <= curves_in_tile; k += kBlock)
      tile_offsets[k] = (int)(offsets[first + k] - start);  // first + curves_in_tile <= n
    __syncthreads();

    int k = 0;  // the curve (in the tile) of the thread's previous point: its points only move forward
    for (int r = 0; r < kItems; ++r) {
      const int rel = r * kBlock + (int)threadIdx.x;
      if (start + rel >= end) break;
      int hi = curves_in_tile - 1;  // largest k with tile_offsets[k] <= rel
      while (k < hi) {
        const int mid = (k + hi + 1) / 2;
        if (tile_offsets[mid] <= rel) k = mid;
        else hi = mid - 1;
      }
      const int from = tile_offsets[k], count = tile_offsets[k + 1] - from;
      points[start + rel] = bezier::point_at(curves[first + k], rel - from, count);
    }
    __syncthreads();  // the next tile overwrites tile_curves and tile_offsets
  }
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0, sms = 0, per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tessellate_points, kBlock, 0));
  return bezier::run(argc, argv, "best", [&](const bezier::Device& d) {
    if (d.n == 0 || d.capacity == 0) return;
    // As many blocks as fit at once (capacity, the allocation, only caps the count for small inputs); the
    // kernel reads the number of points from the device's offsets.
    const long long tiles = (d.capacity + kTile - 1) / kTile;
    const int blocks = (int)std::min<long long>((long long)sms * std::max(1, per_sm), tiles);
    tessellate_points<<<blocks, kBlock>>>(d.curves, d.offsets, d.n, d.capacity, d.points);
  });
}
