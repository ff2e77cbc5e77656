// Quicksort without dynamic parallelism, level by level from the host (GPU-Quicksort, Cederman and Tsigas,
// ESA 2008): every segment larger than the cutoff is partitioned by as many blocks as it has tiles of 2048
// keys, each block reserving its output slots with one atomic per side; then one thread per segment places
// the keys equal to the pivot and queues the two sides, the large ones for the next round, the small ones
// for a bitonic sort by one block each, run at the end of the round.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/quicksort/quicksort_flat.cu
#include "quicksort.cuh"

namespace {

using quicksort::kBlock;
using quicksort::kTile;

struct Segment {
  int lo, hi;          // keys [lo, hi) of this round's source
  unsigned pivot;
  int first_block;     // its first block of the round's partition grid
};

struct Counters {
  int segments;  // large sides queued for the next round
  int blocks;    // blocks the next round's partition grid needs
  int small;     // small sides queued for this round's sort
};

// A block partitions one tile of its segment; the slots of its keys come from one atomicAdd per side.
__global__ void __launch_bounds__(kBlock) partition_tiles(const unsigned* src, unsigned* dst, const Segment* segments,
                                                          const int* block_segment, int* lt_count, int* gt_count) {
  __shared__ int lt_base, gt_base;
  const int s = block_segment[blockIdx.x];
  const Segment seg = segments[s];
  const int base = seg.lo + (int)(blockIdx.x - seg.first_block) * kTile;
  unsigned key[quicksort::kItems];
  int counts = quicksort::load_tile(src, base + (int)threadIdx.x * quicksort::kItems, seg.hi, seg.pivot, key);
  int total = 0;
  int before = quicksort::block_exclusive_scan(counts, total);
  if (threadIdx.x == 0) {
    lt_base = atomicAdd(&lt_count[s], total & 0xffff);
    gt_base = atomicAdd(&gt_count[s], total >> 16);
  }
  __syncthreads();
  quicksort::scatter_tile(key, seg.pivot, dst, seg.lo + lt_base + (before & 0xffff),
                          seg.hi - 1 - gt_base - (before >> 16));
}

__device__ int tiles_of(int len) { return (len + kTile - 1) / kTile; }

// Queues a large side for the next round: its pivot, counters and the blocks that will partition it.
__device__ void queue_large(const unsigned* keys, int lo, int hi, Segment* next, int* next_lt, int* next_gt,
                            int* block_segment, Counters* c) {
  const int tiles = tiles_of(hi - lo);
  const int j = atomicAdd(&c->segments, 1);
  const int first = atomicAdd(&c->blocks, tiles);
  next[j] = {lo, hi, quicksort::pivot_of(keys, lo, hi), first};
  next_lt[j] = 0;
  next_gt[j] = 0;
  for (int t = 0; t < tiles; ++t) block_segment[first + t] = j;
}

// One thread per partitioned segment: the keys equal to the pivot go to their final place, the sides to
// the queues.
__global__ void split_segments(const Segment* segments, int count, const int* lt_count, const int* gt_count,
                               const unsigned* dst, unsigned* sorted, int cutoff, Segment* next, int* next_lt,
                               int* next_gt, int* block_segment, int2* small, Counters* c) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count) return;
  const Segment seg = segments[s];
  const int lt_end = seg.lo + lt_count[s], gt_begin = seg.hi - gt_count[s];
  for (int i = lt_end; i < gt_begin; ++i) sorted[i] = seg.pivot;
  const int side[2][2] = {{seg.lo, lt_end}, {gt_begin, seg.hi}};
  for (int k = 0; k < 2; ++k) {
    const int lo = side[k][0], hi = side[k][1];
    if (hi - lo > cutoff) queue_large(dst, lo, hi, next, next_lt, next_gt, block_segment, c);
    else if (hi > lo) small[atomicAdd(&c->small, 1)] = make_int2(lo, hi);
  }
}

__global__ void __launch_bounds__(kBlock) sort_small(const unsigned* from, unsigned* sorted, const int2* small) {
  const int2 range = small[blockIdx.x];
  quicksort::block_sort(from, sorted, range.x, range.y);
}

// The first round: the whole array as one segment (n > cutoff).
__global__ void start(const unsigned* keys, int n, Segment* segments, int* lt_count, int* gt_count, int* block_segment) {
  const int tiles = tiles_of(n);
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < tiles; t += gridDim.x * blockDim.x) block_segment[t] = 0;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    segments[0] = {0, n, quicksort::pivot_of(keys, 0, n), 0};
    lt_count[0] = 0;
    gt_count[0] = 0;
  }
}

template <typename T>
T* device_array(long long count) {
  T* p = nullptr;
  CUDA_CHECK(cudaMalloc(&p, sizeof(T) * std::max(1LL, count)));
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  quicksort::Problem p(argc, argv);
  const quicksort::Device& d = p.d;
  const int n = d.n, cutoff = p.in.cutoff;

  // Segments of a round are disjoint and larger than the cutoff; a round's small sides are at most two per
  // segment; each segment needs at most one block more than its share of n / kTile.
  const long long max_segments = n / (cutoff + 1) + 1;
  const long long max_blocks = n / kTile + max_segments + 1;
  Segment* segments[2] = {device_array<Segment>(max_segments), device_array<Segment>(max_segments)};
  int* lt_count[2] = {device_array<int>(max_segments), device_array<int>(max_segments)};
  int* gt_count[2] = {device_array<int>(max_segments), device_array<int>(max_segments)};
  int* block_segment = device_array<int>(max_blocks);
  int2* small = device_array<int2>(2 * max_segments);
  Counters* counters = device_array<Counters>(1);

  int code = p.measure("flat", [&] {
    if (n <= cutoff) {
      if (n > 0) {
        const int2 all = make_int2(0, n);
        CUDA_CHECK(cudaMemcpy(small, &all, sizeof all, cudaMemcpyHostToDevice));
        sort_small<<<1, kBlock>>>(d.keys, d.keys, small);
      }
      return;
    }
    start<<<64, 256>>>(d.keys, n, segments[0], lt_count[0], gt_count[0], block_segment);
    Counters c = {1, (n + kTile - 1) / kTile, 0};
    for (int round = 0; c.segments > 0; ++round) {
      const int cur = round % 2, nxt = 1 - cur;
      unsigned* src = round % 2 == 0 ? d.keys : d.buf;
      unsigned* dst = round % 2 == 0 ? d.buf : d.keys;
      partition_tiles<<<c.blocks, kBlock>>>(src, dst, segments[cur], block_segment, lt_count[cur], gt_count[cur]);
      CUDA_CHECK(cudaMemsetAsync(counters, 0, sizeof(Counters)));
      split_segments<<<(c.segments + 127) / 128, 128>>>(segments[cur], c.segments, lt_count[cur], gt_count[cur], dst,
                                                        d.keys, cutoff, segments[nxt], lt_count[nxt], gt_count[nxt],
                                                        block_segment, small, counters);
      CUDA_CHECK(cudaMemcpy(&c, counters, sizeof c, cudaMemcpyDeviceToHost));
      if (c.small > 0) sort_small<<<c.small, kBlock>>>(dst, d.keys, small);
    }
  });
  sample::free_all(segments[0], segments[1], lt_count[0], lt_count[1], gt_count[0], gt_count[1], block_segment, small,
                   counters);
  return code;
}
