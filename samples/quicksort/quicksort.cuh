// Quicksort: random 32-bit keys, the device code the naive and flat variants share (block partition,
// block bitonic sort), the CPU reference and checker, and the host side every variant's main() uses
// (Problem).
//
// The recursion: a segment of more than `cutoff` keys is partitioned around a pivot (median of its first,
// middle and last key) into keys less than, equal to and greater than the pivot; the equal ones are in
// their final place, each other side is sorted the same way. A side of at most `cutoff` keys is sorted by a
// bitonic network in shared memory instead (the "simple sort" below the cutoff).
#pragma once

#include <climits>

#include "sample.cuh"

namespace quicksort {

constexpr int kBlock = 256;                // threads of every partition and sort block
constexpr int kItems = 8;                  // keys per thread per tile
constexpr int kTile = kBlock * kItems;     // keys a block partitions per step: 2048
constexpr int kMaxCutoff = kTile;          // the bitonic sort holds at most one tile in shared memory (8 KiB)
constexpr int kPendingLaunches = 2048;     // the device runtime's default pending-launch limit

struct Input {
  std::vector<unsigned> keys;
  int cutoff = 0;
  std::string name;
};

// --size keys (default 2^24), uniform over all 32-bit values; --param the cutoff (default 1024, 1..2048).
inline Input make_input(const sample::Options& o) {
  long long n = o.size > 0 ? o.size : (1LL << 24);
  int cutoff = o.param > 0 ? (int)o.param : 1024;
  if (n > (1LL << 28) || cutoff < 1 || cutoff > kMaxCutoff) {
    std::fprintf(stderr, "quicksort: need at most 2^28 keys and a cutoff in 1..%d\n", kMaxCutoff);
    std::exit(64);
  }
  Input in;
  sample::Rng rng(o.seed);
  in.keys.resize(n);
  for (auto& k : in.keys) k = (unsigned)(rng.next() >> 32);
  in.cutoff = cutoff;
  in.name = "uniform-" + std::to_string(n) + "-c" + std::to_string(cutoff);
  return in;
}

// Every key read and written once per partition level, roughly: one read and one write of the whole array.
inline double bytes_moved(const Input& in) { return 8.0 * (double)in.keys.size(); }

// ---- device side shared by the variants ----------------------------------------------------------------

__host__ __device__ inline unsigned median3(unsigned a, unsigned b, unsigned c) {
  unsigned lo = a < b ? a : b, hi = a < b ? b : a;
  return c < lo ? lo : (c > hi ? hi : c);
}

// The pivot of segment [lo, hi) of `keys`.
__host__ __device__ inline unsigned pivot_of(const unsigned* keys, int lo, int hi) {
  return median3(keys[lo], keys[lo + (hi - lo) / 2], keys[hi - 1]);
}

// Exclusive prefix sum over the block (blockDim.x == kBlock); `total` gets the block's sum. Every
// thread of the block must call it.
__device__ inline int block_exclusive_scan(int x, int& total) {
  __shared__ int warp_sum[kBlock / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int inclusive = x;
  for (int offset = 1; offset < 32; offset <<= 1) {
    int y = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += y;
  }
  if (lane == 31) warp_sum[warp] = inclusive;
  __syncthreads();
  int base = 0;
  total = 0;
  for (int w = 0; w < kBlock / 32; ++w) {
    int s = warp_sum[w];
    if (w < warp) base += s;
    total += s;
  }
  __syncthreads();  // warp_sum is written again by the next call
  return base + inclusive - x;
}

// The counts of one tile of keys against a pivot: the thread's own keys (kItems consecutive ones from
// `first`, those past `hi` ignored), less and greater, packed in the two 16-bit halves of an int (a tile
// has at most 2048 of each).
__device__ inline int load_tile(const unsigned* src, int first, int hi, unsigned pivot, unsigned (&key)[kItems]) {
  int lt = 0, gt = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    key[j] = first + j < hi ? src[first + j] : pivot;  // past the end: counted as equal, never written
    lt += key[j] < pivot;
    gt += key[j] > pivot;
  }
  return lt | (gt << 16);
}

// Writes a thread's keys of a tile: less-than keys forward from dst[lt_pos], greater-than keys backward
// from dst[gt_pos].
__device__ inline void scatter_tile(const unsigned (&key)[kItems], unsigned pivot, unsigned* dst, int lt_pos,
                                    int gt_pos) {
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (key[j] < pivot) dst[lt_pos++] = key[j];
    else if (key[j] > pivot) dst[gt_pos--] = key[j];
  }
}

struct Split {
  int lt;  // keys less than the pivot: dst[lo, lo + lt)
  int gt;  // keys greater than the pivot: dst[hi - gt, hi)
};

// One block partitions src[lo, hi) around `pivot`: the keys less than it go to dst[lo, lo + lt) in their
// order, the greater ones to dst[hi - gt, hi) in reverse order, and the keys equal to it are written to
// their final place in `sorted`. Deterministic (the CPU reference replays it to count the recursion).
// Every thread of the block must call it and gets the same Split.
__device__ inline Split partition_block(const unsigned* src, unsigned* dst, unsigned* sorted, int lo, int hi,
                                        unsigned pivot) {
  int lt_total = 0, gt_total = 0;
  for (int base = lo; base < hi; base += kTile) {
    unsigned key[kItems];
    int counts = load_tile(src, base + (int)threadIdx.x * kItems, hi, pivot, key);
    int total = 0;
    int before = block_exclusive_scan(counts, total);
    scatter_tile(key, pivot, dst, lo + lt_total + (before & 0xffff), hi - 1 - gt_total - (before >> 16));
    lt_total += total & 0xffff;
    gt_total += total >> 16;
  }
  for (int i = lo + lt_total + (int)threadIdx.x; i < hi - gt_total; i += kBlock) sorted[i] = pivot;
  __syncthreads();  // dst is read next by the whole block (a small side's sort), not only by its writers
  return {lt_total, gt_total};
}

// One block sorts from[lo, hi) (at most kTile keys) into to[lo, hi) with a bitonic network in shared
// memory, padded to a power of two with the largest key. `from` may be `to`. Every thread must call it.
__device__ inline void block_sort(const unsigned* from, unsigned* to, int lo, int hi) {
  __shared__ unsigned s[kTile];
  const int n = hi - lo;
  if (n <= 0) return;  // the same in every thread
  int size = 2;
  while (size < n) size *= 2;
  for (int i = threadIdx.x; i < size; i += kBlock) s[i] = i < n ? from[lo + i] : UINT_MAX;
  __syncthreads();
  for (int k = 2; k <= size; k *= 2) {
    for (int j = k / 2; j > 0; j /= 2) {
      for (int i = threadIdx.x; i < size; i += kBlock) {
        int partner = i ^ j;
        if (partner > i) {
          unsigned a = s[i], b = s[partner];
          bool ascending = (i & k) == 0;
          if (ascending ? a > b : a < b) {
            s[i] = b;
            s[partner] = a;
          }
        }
      }
      __syncthreads();
    }
  }
  for (int i = threadIdx.x; i < n; i += kBlock) to[lo + i] = s[i];
  __syncthreads();  // s is written again by the next call
}

// ---- naive dynamic parallelism: launch failures --------------------------------------------------------

// failures[0] counts device launches that failed, failures[1] holds the first error code.
__device__ inline void launch_failed(int* failures, cudaError_t error) {
  atomicAdd(&failures[0], 1);
  atomicCAS(&failures[1], 0, (int)error);
}

// ---- CPU reference: the recursion the dp variant performs ----------------------------------------------

struct Recursion {
  long long launches = 0;    // device launches of the dp variant (one per partitioned segment with a large side)
  long long partitions = 0;  // segments partitioned (blocks of the dp variant, the host's root launch included)
  int depth = 0;             // deepest partition level
};

// Replays the dp variant's deterministic partitions on the CPU and counts them.
inline Recursion replay(const std::vector<unsigned>& keys, int cutoff) {
  Recursion r;
  const int n = (int)keys.size();
  if (n <= cutoff) return r;
  std::vector<unsigned> a = keys, b(keys.size());
  struct Item { int lo, hi, depth; };
  std::vector<Item> stack{{0, n, 0}};
  while (!stack.empty()) {
    Item it = stack.back();
    stack.pop_back();
    std::vector<unsigned>& src = it.depth % 2 == 0 ? a : b;
    std::vector<unsigned>& dst = it.depth % 2 == 0 ? b : a;
    unsigned pivot = pivot_of(src.data(), it.lo, it.hi);
    int lt = it.lo, gt = it.hi - 1;
    for (int i = it.lo; i < it.hi; ++i) {
      if (src[i] < pivot) dst[lt++] = src[i];
      else if (src[i] > pivot) dst[gt--] = src[i];
    }
    ++r.partitions;
    r.depth = std::max(r.depth, it.depth);
    bool left = lt - it.lo > cutoff, right = it.hi - 1 - gt > cutoff;
    if (left || right) ++r.launches;
    if (left) stack.push_back({it.lo, lt, it.depth + 1});
    if (right) stack.push_back({gt + 1, it.hi, it.depth + 1});
  }
  return r;
}

// ---- device buffers and the host side of every variant -------------------------------------------------

struct Device {
  int n = 0;
  unsigned* original = nullptr;  // the input, copied into `keys` before every run
  unsigned* keys = nullptr;      // sorted in place (or, for the best variant, into `buf`)
  unsigned* buf = nullptr;       // the other half of the ping-pong buffers
  int* failures = nullptr;       // dp only: failed launches and the first error
};

struct Problem {
  sample::Options opts;
  Input in;
  Device d;
  const unsigned* result = nullptr;  // where the sorted keys are after a run (keys unless a variant says so)

  Problem(int argc, char** argv) : opts(sample::parse_options(argc, argv)), in(make_input(opts)) {
    d.n = (int)in.keys.size();
    size_t bytes = sizeof(unsigned) * std::max(1, d.n);
    CUDA_CHECK(cudaMalloc(&d.original, bytes));
    CUDA_CHECK(cudaMalloc(&d.keys, bytes));
    CUDA_CHECK(cudaMalloc(&d.buf, bytes));
    CUDA_CHECK(cudaMalloc(&d.failures, 2 * sizeof(int)));
    CUDA_CHECK(cudaMemcpy(d.original, in.keys.data(), sizeof(unsigned) * d.n, cudaMemcpyHostToDevice));
    result = d.keys;
  }
  ~Problem() { sample::free_all(d.original, d.keys, d.buf, d.failures); }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  void reset() const {
    CUDA_CHECK(cudaMemcpy(d.keys, d.original, sizeof(unsigned) * d.n, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemset(d.buf, 0, sizeof(unsigned) * d.n));
    CUDA_CHECK(cudaMemset(d.failures, 0, 2 * sizeof(int)));
  }

  // Times run() after reset(), checks the last run against std::sort, prints the result line. A dp run
  // whose device launches failed prints its result with "correct": false, says so on stderr and exits
  // with status 3: it is reported failed, never taken for a time of the whole sort.
  template <typename Run>
  int measure(const char* variant, Run run) {
    std::vector<double> times = sample::time_runs(opts.reps, [&] { reset(); }, run);
    int failures[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(failures, d.failures, sizeof failures, cudaMemcpyDeviceToHost));
    std::vector<unsigned> got(d.n);
    CUDA_CHECK(cudaMemcpy(got.data(), result, sizeof(unsigned) * d.n, cudaMemcpyDeviceToHost));
    std::vector<unsigned> want = in.keys;
    std::sort(want.begin(), want.end());
    long long wrong = 0;
    for (int i = 0; i < d.n; ++i) wrong += got[i] != want[i];
    Recursion r = replay(in.keys, in.cutoff);
    std::string detail = std::to_string(d.n) + " keys, " + std::to_string(wrong) + " misplaced; recursion: " +
                         std::to_string(r.launches) + " device launches, " + std::to_string(r.partitions) +
                         " partitions, depth " + std::to_string(r.depth);
    if (failures[0] > 0)
      detail = "FAILED: " + std::to_string(failures[0]) + " device launches failed (" +
               cudaGetErrorName((cudaError_t)failures[1]) + "), " + detail;
    sample::print_result("quicksort", variant, in.name, times, wrong == 0 && failures[0] == 0, detail,
                         bytes_moved(in));
    if (failures[0] > 0) {
      std::fprintf(stderr, "quicksort %s: %d device launches failed (%s): the sort is incomplete\n", variant,
                   failures[0], cudaGetErrorName((cudaError_t)failures[1]));
      return 3;
    }
    return 0;
  }
};

}  // namespace quicksort
