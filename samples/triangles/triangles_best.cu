// Triangle counting, the flat version an expert would write: orient every edge from its endpoint of
// lower degree to the higher (ties by id) on the device, then intersect the short out-lists with one
// warp per chunk of 32 adjacency entries.
//
// Why: with edges oriented by degree, a vertex keeps only its neighbours of higher rank, so an out-list
// has at most sqrt(nnz) entries (each of its k out-neighbours has degree >= k), and hubs, whose
// neighbours mostly have lower degree, get short ones (R-MAT scale 15: the longest out-list has 187
// entries, the longest adjacency list 5,882). A triangle whose corners rank a < b < c is counted once,
// from its edge a -> b, as the common out-neighbour c of a and b.
//
// Everything below runs inside the timed region: the other variants start from the same plain CSR.
//   make_units   one thread per vertex u of degree >= 2 appends the units (u, j), one per chunk j of 32
//                entries of adj(u), to a queue (one global atomic a block), and zeroes out_deg[u]
//   orient       one warp per unit: lane k keeps its entry v when (deg v, v) > (deg u, u) and the
//                warp appends the kept ones to u's out-list, stored at the same offset row_ptr[u] as
//                adj(u) in a second column array (one atomicAdd on out_deg[u] a chunk, so a hub's
//                chunks spread over many warps and no warp walks a whole hub list)
//   count_units  one warp per unit: the warp puts N+(u) in a hash table in its shared memory (2 KB),
//                scans the lengths |N+(v)| of its kept entries over the lanes and walks the concatenated
//                lists N+(v) 32 pairs (v, w) at a time, coalesced, each lane probing w in the table (one
//                shared-memory read, mostly) with four loads in flight; one atomicAdd per warp. Unit
//                costs are very uneven, so past two round-robin units a warp draws its next from a counter.
// A vertex with more than kTableMaxDegree out-neighbours (none in the benchmark inputs) looks w up in its
// sorted adjacency list by binary search instead.
// Techniques: degree ordering (Polak 2016; Hu et al., TriCore, SC'18), a membership structure for N+(u)
// in shared memory probed by a warp (Bisson & Fatica, HPEC'17, who use bitmaps), lanes balanced over the
// concatenated lists instead of one list per thread (the load balancing of Green et al. 2014).
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/triangles/triangles_best.cu
#include <climits>

#include "triangles.cuh"

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;
constexpr int kLogSlots = 9;
constexpr int kSlots = 1 << kLogSlots;         // per-warp hash table: 2 KB of shared memory
// Load factor at most 1/2. -DTRIANGLES_BEST_TABLE_MAX_DEGREE=0 sends every vertex down the binary-search
// path, to test it on the small inputs.
#ifdef TRIANGLES_BEST_TABLE_MAX_DEGREE
constexpr int kTableMaxDegree = TRIANGLES_BEST_TABLE_MAX_DEGREE;
#else
constexpr int kTableMaxDegree = kSlots / 2;
#endif
static_assert(kTableMaxDegree <= kSlots / 2, "the hash table needs free slots");
constexpr int kBatch = 4;                      // pairs per lane in flight
constexpr int kStaticRounds = 2;               // units per warp assigned round-robin before it draws more
constexpr int kEmpty = -1;                     // vertex ids are >= 0

// ---- 1. orientation ----------------------------------------------------------------------------------

// A work unit (u, j) is the chunk j of 32 entries of u's adjacency list, col[row_ptr[u] + 32 j ..], for
// every vertex u of degree >= 2 (a vertex of degree < 2 lies on no triangle: it gets no units and an empty
// out-list). One thread per vertex appends its units (one global atomic a block) and zeroes out_deg[u].
__global__ void __launch_bounds__(kBlock) make_units(const int* row_ptr, int n, int* out_deg, int2* units,
                                                     int* num_units) {
  __shared__ int block_units, block_base;
  const long long u_wide = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  const int u = u_wide < n ? (int)u_wide : -1;
  if (threadIdx.x == 0) block_units = 0;
  __syncthreads();
  int mine = 0, offset = 0;
  if (u >= 0) {
    out_deg[u] = 0;
    const int deg = row_ptr[u + 1] - row_ptr[u];
    mine = deg >= 2 ? (deg + 31) / 32 : 0;
    if (mine > 0) offset = atomicAdd(&block_units, mine);
  }
  __syncthreads();
  if (threadIdx.x == 0 && block_units > 0) block_base = atomicAdd(num_units, block_units);
  __syncthreads();
  for (int j = 0; j < mine; ++j) units[block_base + offset + j] = make_int2(u, j);
}

// One warp per unit (grid-stride): lane k keeps the entry's neighbour v if (deg v, v) > (deg u, u) and
// appends it to out[row_ptr[u] ..] after the kept entries of u's other chunks (one atomicAdd on out_deg[u]
// a chunk, so the order of an out-list is arbitrary: nothing below needs it sorted). masks[unit] records
// which lanes kept their entry, for count_units.
__global__ void __launch_bounds__(kBlock) orient(const int* row_ptr, const int* col, const int2* units,
                                                 const int* num_units, int* out, int* out_deg, unsigned* masks) {
  const int lane = threadIdx.x & 31;
  const int count = *num_units;
  const int stride = gridDim.x * kWarps;
  for (int unit = blockIdx.x * kWarps + (int)(threadIdx.x / 32); unit < count; unit += stride) {  // warp-uniform
    const int2 uj = units[unit];
    const int u = uj.x, begin = row_ptr[u], end = row_ptr[u + 1], du = end - begin;
    const int e = begin + uj.y * 32 + lane;
    int v = 0;
    bool keep = false;
    if (e < end) {
      v = col[e];
      const int dv = row_ptr[v + 1] - row_ptr[v];
      keep = dv > du || (dv == du && v > u);
    }
    const unsigned ballot = __ballot_sync(kFullMask, keep);
    int first = 0;
    if (lane == 0) {
      masks[unit] = ballot;
      if (ballot) first = atomicAdd(&out_deg[u], __popc(ballot));
    }
    first = __shfl_sync(kFullMask, first, 0);
    if (keep) out[begin + first + __popc(ballot & ((1u << lane) - 1u))] = v;
  }
}

// ---- 2. counting -------------------------------------------------------------------------------------

__device__ __forceinline__ int slot_of(int w) { return (int)(((unsigned)w * 2654435761u) >> (32 - kLogSlots)); }

// Linear probing; the keys of one table are distinct and fewer than half the slots, so a free slot exists.
__device__ __forceinline__ void table_insert(int* table, int w) {
  int s = slot_of(w);
  while (atomicCAS(&table[s], kEmpty, w) != kEmpty) s = (s + 1) & (kSlots - 1);
}

__device__ __forceinline__ bool table_contains(const int* table, int w) {
  for (int s = slot_of(w);; s = (s + 1) & (kSlots - 1)) {
    const int k = table[s];
    if (k == w) return true;
    if (k == kEmpty) return false;
  }
}

__device__ __forceinline__ bool sorted_contains(const int* sorted, int n, int w) {
  const int i = triangles::first_greater(sorted, 0, n, w - 1);  // first value >= w (w >= 0)
  return i < n && sorted[i] == w;
}

// The lane k whose range [incl_{k-1}, incl_k) holds t, from the inclusive prefix sums incl of the 32 lanes
// (non-decreasing; t < incl_31). All lanes must call it.
__device__ __forceinline__ int owner_lane(int incl, int t) {
  int lo = 0;
  #pragma unroll
  for (int step = 16; step > 0; step /= 2)
    if (__shfl_sync(kFullMask, incl, lo + step - 1) <= t) lo += step;
  return lo;
}

// The triangles closed by the edges of one unit (u, j), counted by one warp: its kept neighbours v
// (lanes of mask) are edges u -> v, and their triangles are the w in N+(v) that are also in N+(u). The warp
// puts N+(u) into its hash table, scans the lengths |N+(v)| over the lanes and walks the concatenated lists
// 32 pairs at a time (coalesced), kBatch loads in flight per lane. For u with more than kTableMaxDegree
// out-neighbours, w is looked up in u's sorted adjacency list instead: w in N+(v) ranks above v, hence
// above u, so w is in N+(u) exactly when it is a neighbour of u. All 32 lanes call it; returns each lane's
// count.
__device__ unsigned long long unit_triangles(const int* row_ptr, const int* col, const int* out,
                                             const int* out_deg, int2 uj, unsigned mask, int* table) {
  const int lane = threadIdx.x & 31;
  if (mask == 0) return 0;  // no edge leaves u in this chunk
  const int u = uj.x, du = out_deg[u];
  if (du < 2) return 0;  // u is the lowest corner of no triangle
  const int begin = row_ptr[u];

  int len = 0, base = 0;
  if ((mask >> lane) & 1u) {
    const int v = col[begin + uj.y * 32 + lane];
    base = row_ptr[v];
    len = out_deg[v];
  }
  int incl = len;
  #pragma unroll
  for (int d = 1; d < 32; d *= 2) {
    const int y = __shfl_up_sync(kFullMask, incl, d);
    if (lane >= d) incl += y;
  }
  const int items = __shfl_sync(kFullMask, incl, 31);
  if (items == 0) return 0;
  base -= incl - len;  // pair t of the unit, in lane k's list, is out[base_k + t]

  const int* list_u = out + begin;
  const bool hashed = du <= kTableMaxDegree;  // warp-uniform
  if (hashed) {
    for (int s = lane; s < kSlots; s += 32) table[s] = kEmpty;
    __syncwarp();
    for (int i = lane; i < du; i += 32) table_insert(table, list_u[i]);
    __syncwarp();
  }
  const int* adj_u = col + begin;
  const int deg_u = row_ptr[u + 1] - begin;

  unsigned long long found = 0;
  for (int t0 = 0; t0 < items; t0 += 32 * kBatch) {  // warp-uniform
    int w[kBatch];
    #pragma unroll
    for (int q = 0; q < kBatch; ++q) {
      w[q] = kEmpty;
      if (t0 + q * 32 < items) {  // warp-uniform
        const int t = t0 + q * 32 + lane;
        const int at = __shfl_sync(kFullMask, base, owner_lane(incl, t));
        if (t < items) w[q] = out[at + t];
      }
    }
    #pragma unroll
    for (int q = 0; q < kBatch; ++q)
      if (w[q] != kEmpty) found += hashed ? table_contains(table, w[q]) : sorted_contains(adj_u, deg_u, w[q]);
  }
  __syncwarp();  // every lane is done with the table before the warp's next unit clears it
  return found;
}

// One warp per unit. Unit costs vary a lot (a chunk of a core vertex walks thousands of pairs, most walk
// a few), so after kStaticRounds units assigned round-robin a warp takes the next unit from a counter
// (*cursor, zeroed before the launch): a warp that drew heavy units does not hold up the end.
__global__ void __launch_bounds__(kBlock) count_units(const int* row_ptr, const int* col, const int* out,
                                                      const int* out_deg, const int2* units, const unsigned* masks,
                                                      const int* num_units, int* cursor,
                                                      unsigned long long* total) {
  __shared__ int tables[kWarps][kSlots];
  const int lane = threadIdx.x & 31;
  int* table = tables[threadIdx.x / 32];
  const int count = *num_units;
  const int stride = gridDim.x * kWarps;
  const long long dynamic_first = (long long)kStaticRounds * stride;  // units from here on are drawn
  unsigned long long found = 0;

  long long unit = blockIdx.x * kWarps + (int)(threadIdx.x / 32);
  for (int round = 1; unit < count; ++round) {  // warp-uniform
    found += unit_triangles(row_ptr, col, out, out_deg, units[unit], masks[unit], table);
    if (round < kStaticRounds) {
      unit += stride;
    } else {
      int next = 0;
      if (lane == 0)  // a relaxed look first: once the units are gone, no warp needs the atomic
        next = dynamic_first + *(volatile int*)cursor >= count ? INT_MAX : atomicAdd(cursor, 1);
      next = __shfl_sync(kFullMask, next, 0);
      unit = next == INT_MAX ? count : dynamic_first + next;
    }
  }

  for (int offset = 16; offset > 0; offset /= 2) found += __shfl_down_sync(kFullMask, found, offset);
  if (lane == 0 && found) atomicAdd(total, found);
}

}  // namespace

int main(int argc, char** argv) {
  sample::Options opts = sample::parse_options(argc, argv);
  triangles::Input in = triangles::make_input(opts);
  const int n = in.graph.n;
  const long long nnz = in.graph.nnz();

  // Work buffers: allocation only, everything in them is computed inside the timed region. Units: at most
  // one per vertex plus one per 32 entries.
  const long long max_units = n + nnz / 32 + 1;
  if (max_units > INT_MAX) { std::fprintf(stderr, "triangles: graph too large\n"); return 64; }
  int *d_out = nullptr, *d_out_deg = nullptr, *d_counters = nullptr;  // counters: units queued, units drawn
  int2* d_units = nullptr;
  unsigned* d_masks = nullptr;
  CUDA_CHECK(cudaMalloc(&d_out, sizeof(int) * std::max<long long>(1, nnz)));
  CUDA_CHECK(cudaMalloc(&d_out_deg, sizeof(int) * std::max(1, n)));
  CUDA_CHECK(cudaMalloc(&d_units, sizeof(int2) * max_units));
  CUDA_CHECK(cudaMalloc(&d_masks, sizeof(unsigned) * max_units));
  CUDA_CHECK(cudaMalloc(&d_counters, 2 * sizeof(int)));
  int* d_num_units = d_counters;
  int* d_cursor = d_counters + 1;

  int device = 0, sms = 0, orient_per_sm = 0, count_per_sm = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&orient_per_sm, orient, kBlock, 0));
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count_per_sm, count_units, kBlock, 0));
  const long long unit_blocks = (max_units + kWarps - 1) / kWarps;
  const int vertex_blocks = (int)(((long long)n + kBlock - 1) / kBlock);
  const int orient_blocks = (int)std::min<long long>((long long)sms * std::max(1, orient_per_sm), unit_blocks);
  const int count_blocks = (int)std::min<long long>((long long)sms * std::max(1, count_per_sm), unit_blocks);

  auto launch = [&](const sample::DeviceCsr& d, unsigned long long* total) {
    CUDA_CHECK(cudaMemsetAsync(d_counters, 0, 2 * sizeof(int)));
    if (vertex_blocks > 0) make_units<<<vertex_blocks, kBlock>>>(d.row_ptr, d.n, d_out_deg, d_units, d_num_units);
    orient<<<orient_blocks, kBlock>>>(d.row_ptr, d.col, d_units, d_num_units, d_out, d_out_deg, d_masks);
    count_units<<<count_blocks, kBlock>>>(d.row_ptr, d.col, d_out, d_out_deg, d_units, d_masks, d_num_units, d_cursor,
                                          total);
  };
  // Besides the CSR, roughly: two row pointers per entry for the degrees, the columns read again by
  // count_units, the oriented lists (nnz / 2 entries) written and read, the out-degrees and the units.
  const double extra = 16.0 * (double)nnz + 8.0 * n + 12.0 * (double)max_units;
  triangles::measure(in, opts.reps, "best", extra, launch);

  sample::free_all(d_out, d_out_deg, d_units, d_masks, d_counters);
  return 0;
}
