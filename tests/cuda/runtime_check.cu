// The device runtime (pragmadp/runtime/pdcc_rt.cuh) on its own, without dynamic parallelism, so that
// compute-sanitizer's racecheck and synccheck (which cannot follow device-side launches) see every
// shared-memory access of the scans and of the group protocol that pdcc's aggregated parents use. The
// protocol runs exactly as generated code runs it (a pdcc::Record, a SitePool, a group in shared memory,
// open, append, flush), but the "launch" given to flush checks and counts the batch instead of launching
// it, running each aggregated block's threads through aggregated_block and run_block_thread as
// child__pdcc_agg does, and can fail a number of times to drive the retries and the one-by-one
// fallback. (The launches themselves, aggregated_launch, direct_launch and launch_record, need
// -rdc=true: the samples run them on the GPU.)
// Prints "runtime ok" and exits 0, or names the first wrong value and exits 1.
//   nvcc -arch=sm_90 -I pragmadp/runtime tests/cuda/runtime_check.cu -o runtime_check
#include <algorithm>
#include <cstdio>
#include <vector>

#define PDCC_RT_NO_DEVICE_RUNTIME  // the one device-runtime call (clearing stale errors) needs -rdc=true
#include "pdcc_rt.cuh"

using Record = pdcc::Record<int>;

constexpr unsigned kCoarsen = 3;

// Record i of block b: a grid of ((i * 7 + b) % 11) x 1 x (1 + i % 2) blocks of (32 + i % 5 * 32) threads.
__host__ __device__ Record make_record(unsigned block, unsigned i) {
  return Record(dim3((i * 7u + block) % 11u, 1u, 1u + i % 2u), dim3(32u + i % 5u * 32u), (int)i);
}

__host__ __device__ unsigned records_of(unsigned block) { return 1u + block * 37u % 300u; }

// Every block scans its records twice: as one block, and as independent warps (warp w takes the
// records w, w + warps, ...: a strided slice copied to its own storage), then finds each block's record.
__global__ void scan_check(Record* records, unsigned* ends, unsigned* totals, unsigned* widest, unsigned* found,
                           unsigned stride) {
  __shared__ unsigned scratch[33];
  const unsigned block = pdcc::linear_block(), count = records_of(block);
  Record* mine = records + block * stride;
  unsigned* my_ends = ends + block * stride;
  for (unsigned i = pdcc::linear_thread(); i < count; i += pdcc::block_threads()) mine[i] = make_record(block, i);
  __syncthreads();
  unsigned block_widest = 0;
  const unsigned total = pdcc::block_scan_records(mine, my_ends, count, kCoarsen, scratch, &block_widest);
  if (pdcc::linear_thread() == 0) {
    totals[block] = total;
    widest[block] = block_widest;
  }
  for (unsigned b = pdcc::linear_thread(); b < total && b < stride; b += pdcc::block_threads())
    found[block * stride + b] = pdcc::find_record(my_ends, count, b);

  // Warp scans: each warp of the block over its own copy of every warps-th record.
  __syncthreads();
  const unsigned warp = pdcc::linear_thread() >> 5, warps = (pdcc::block_threads() + 31u) / 32u;
  const unsigned slice = (count + warps - 1u) / warps, mask = pdcc::warp_lanes();
  Record* warp_records = records + (gridDim.x * gridDim.y + block) * stride + warp * slice;
  unsigned* warp_ends = ends + (gridDim.x * gridDim.y + block) * stride + warp * slice;
  unsigned n = 0;
  for (unsigned i = warp; i < count; i += warps) ++n;
  for (unsigned k = pdcc::linear_thread() & 31u; k < n; k += __popc(mask))  // the last warp may be partial
    warp_records[k] = make_record(block, warp + k * warps);
  __syncwarp(mask);
  unsigned warp_widest = 0;
  const unsigned warp_total = pdcc::warp_scan_records(warp_records, warp_ends, n, kCoarsen, mask, &warp_widest);
  if ((pdcc::linear_thread() & 31u) == 0) {
    totals[gridDim.x * gridDim.y + block * 32u + warp] = warp_total;
    widest[gridDim.x * gridDim.y + block * 32u + warp] = warp_widest;
  }
}

// One parent's launch as generated code records it, for a child `child(unsigned id, float scale, const
// int shape)` whose `scale` is passed once per group (Uniform); the record is built from the launch's
// arguments as written (an unsigned for the const int), as at a site.
using ChildLaunch = pdcc::Record<unsigned, pdcc::Uniform, const int>;
__host__ __device__ constexpr float scale() { return 0.5f; }  // the value passed once

__host__ __device__ unsigned id_of(const ChildLaunch& record) { return pdcc::stored<0>(record); }

// Launch `id`: 1-D, 2-D or 3-D child grids and blocks.
__host__ __device__ ChildLaunch make_launch(unsigned id) {
  const unsigned shape = id % 3u;
  const dim3 grid = shape == 0u ? dim3(1u + id % 7u) : shape == 1u ? dim3(1u + id % 4u, 1u + id % 3u) : dim3(1u + id % 3u, 2u, 1u + id % 2u);
  const dim3 block = shape == 0u ? dim3(32u + id % 4u * 32u) : shape == 1u ? dim3(8u, 1u + id % 4u) : dim3(4u, 4u, 1u + id % 3u);
  return ChildLaunch(grid, block, id, scale(), shape);
}

// Whether a parent thread launches: a different number of lanes in each warp (none in some, all in others).
__host__ __device__ bool launches(unsigned block, unsigned thread) { return (thread & 31u) < ((thread >> 5) * 5u + block) % 33u; }

struct Config {
  unsigned records;           // buffer(pool, CAP)'s CAP, or 0
  unsigned per_thread;        // PDCC_RECORDS_PER_THREAD
  unsigned blocks_per_group;  // multiblock(K), or 0: the grid
  unsigned few;               // agg_threshold
  unsigned coarsen;
  unsigned repeats;           // records per launching thread (a launch in a loop)
  unsigned fail;              // aggregated launches that fail before one succeeds
};

enum How : unsigned { kAggregated = 1, kDirectAtSite = 2, kDirectAtFlush = 3 };

struct Outcome {                  // device arrays indexed by record id, and counters
  unsigned* done;                 // times the record's work was done
  unsigned* how;
  unsigned* blocks;               // original blocks the aggregated grid ran for the record
  unsigned long long* block_sum;  // the sum of 1 + their linear indices
  unsigned* counters;             // [0] first wrong line, [1] most attempts of a batch, [2] fewest attempts of a launched batch
};

__device__ void finish(const Outcome& out, const ChildLaunch& record, How how) {
  atomicAdd(&out.done[id_of(record)], 1u);
  out.how[id_of(record)] = how;
}

#define EXPECT(condition) if (!(condition)) atomicCAS(&out.counters[0], 0u, (unsigned)__LINE__)

// The "launch" of a batch: checks what the aggregated grid would get and runs, in this thread, what the
// first and the last thread of each of its blocks do (and a thread beyond the record's block, idle):
// aggregated_block and run_block_thread, as child__pdcc_agg does, with a child body that checks the arguments it gets
// (the record's, and scale() passed once) and counts the original blocks it runs.
__device__ cudaError_t run_batch(const pdcc::Batch<ChildLaunch>& batch, const Config& config, const Outcome& out,
                                 unsigned attempt) {
  atomicMax(&out.counters[1], attempt);
  if (attempt <= config.fail) return cudaErrorLaunchPendingCountExceeded;
  atomicMin(&out.counters[2], attempt);
  unsigned widest = 0;
  for (unsigned i = 0; i < batch.count; ++i) widest = max(widest, pdcc::record_threads(batch.records[i]));
  EXPECT(batch.count > 0 && batch.threads == widest && batch.blocks == batch.ends[batch.count - 1] &&
         batch.coarsen == config.coarsen);
  for (unsigned b = 0; b < batch.blocks; ++b) {
    const pdcc::AggregatedBlock<ChildLaunch> first = pdcc::aggregated_block(batch, b);
    const ChildLaunch& r = first.record;
    const unsigned id = id_of(r), threads = pdcc::record_threads(r);
    EXPECT(first.stride == (r.grid.x + config.coarsen - 1u) / config.coarsen && first.block.x < first.stride);
    const unsigned thread_of[3] = {0u, threads - 1u, threads};  // first, last, idle
    unsigned ran[3] = {0u, 0u, 0u};
    for (unsigned k = 0; k < 3; ++k)
      pdcc::run_block_thread(first, thread_of[k], [&](uint3 block, uint3 thread, dim3 grid, dim3 block_dim,
                                                      unsigned got, float once, int shape) {
        const uint3 want = pdcc::unflatten(thread_of[k], r.block);
        EXPECT(thread.x == want.x && thread.y == want.y && thread.z == want.z);
        EXPECT(got == id && once == scale() && shape == (int)(id % 3u));
        EXPECT(grid.x == r.grid.x && grid.y == r.grid.y && grid.z == r.grid.z && block_dim.x == r.block.x &&
               block_dim.y == r.block.y && block_dim.z == r.block.z);
        EXPECT(block.x < grid.x && block.y == first.block.y && block.z == first.block.z);
        if (k == 0) {
          atomicAdd(&out.blocks[id], 1u);
          atomicAdd(&out.block_sum[id], 1ull + block.x + grid.x * (block.y + grid.y * block.z));
        }
        ++ran[k];
      }, scale());
    EXPECT(ran[0] > 0u && ran[1] == ran[0] && ran[2] == 0u);
  }
  for (unsigned i = 0; i < batch.count; ++i) finish(out, batch.records[i], kAggregated);
  return cudaSuccess;
}

template <bool PerWarp, typename Site>
__device__ void open_group(pdcc::BlockGroups<PerWarp>& group, Site& site, const Config& config) {
  group.template open<ChildLaunch>(site, config.records, config.per_thread);
}

template <typename Site>
__device__ void open_group(pdcc::MultiBlockGroup& group, Site& site, const Config& config) {
  group.open<ChildLaunch>(site, config.records, config.per_thread,
                          config.blocks_per_group ? config.blocks_per_group : pdcc::grid_blocks());
}

// A parent as pdcc writes it: open the group, append at the site (launch directly when full), flush.
template <typename Group, typename Site>
__global__ void protocol_check(Site* site, Config config, Outcome out) {
  __shared__ Group group;
  open_group(group, *site, config);
  const unsigned block = pdcc::linear_block(), me = block * pdcc::block_threads() + pdcc::linear_thread();
  if (launches(block, pdcc::linear_thread()))
    for (unsigned r = 0; r < config.repeats; ++r) {
      const ChildLaunch record = make_launch(me * config.repeats + r);
      if (!group.append(record)) finish(out, record, kDirectAtSite);
    }
  unsigned attempts = 0;
  group.template flush<ChildLaunch>(
      *site, config.coarsen, config.few,
      [&](const pdcc::Batch<ChildLaunch>& batch) { return run_batch(batch, config, out, ++attempts); },
      [&](const ChildLaunch& record) { finish(out, record, kDirectAtFlush); });
}

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e = (call);                                                                  \
    if (e != cudaSuccess) { std::printf("CUDA error %s at line %d\n", cudaGetErrorString(e), __LINE__); return 1; } \
  } while (0)

static int check_scans(dim3 grid, dim3 block) {
  const unsigned blocks = grid.x * grid.y, stride = 512, cells = 2 * blocks * stride;
  Record* records;
  unsigned *ends, *totals, *widest, *found;
  CHECK(cudaMalloc(&records, sizeof(Record) * cells));
  CHECK(cudaMalloc(&ends, sizeof(unsigned) * cells));
  CHECK(cudaMalloc(&totals, sizeof(unsigned) * blocks * 33));
  CHECK(cudaMalloc(&widest, sizeof(unsigned) * blocks * 33));
  CHECK(cudaMalloc(&found, sizeof(unsigned) * blocks * stride));
  scan_check<<<grid, block>>>(records, ends, totals, widest, found, stride);
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> h_ends(cells), h_totals(blocks * 33), h_widest(blocks * 33), h_found(blocks * stride);
  CHECK(cudaMemcpy(h_ends.data(), ends, sizeof(unsigned) * cells, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_totals.data(), totals, sizeof(unsigned) * blocks * 33, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_widest.data(), widest, sizeof(unsigned) * blocks * 33, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_found.data(), found, sizeof(unsigned) * blocks * stride, cudaMemcpyDeviceToHost));
  const unsigned threads = block.x * block.y * block.z, warps = (threads + 31) / 32;
  for (unsigned b = 0; b < blocks; ++b) {
    unsigned sum = 0, most = 0;
    std::vector<unsigned> owner;
    for (unsigned i = 0; i < records_of(b); ++i) {
      Record r = make_record(b, i);
      unsigned n = (r.grid.x + kCoarsen - 1) / kCoarsen * r.grid.y * r.grid.z;
      sum += n;
      owner.insert(owner.end(), n, i);
      most = std::max(most, r.block.x);
      if (h_ends[b * stride + i] != sum) {
        std::printf("block scan: block %u record %u ends at %u, want %u\n", b, i, h_ends[b * stride + i], sum);
        return 1;
      }
    }
    if (h_totals[b] != sum || h_widest[b] != most) {
      std::printf("block scan: block %u total %u widest %u, want %u %u\n", b, h_totals[b], h_widest[b], sum, most);
      return 1;
    }
    for (unsigned k = 0; k < sum && k < stride; ++k)
      if (h_found[b * stride + k] != owner[k]) {
        std::printf("find_record: block %u child block %u -> %u, want %u\n", b, k, h_found[b * stride + k], owner[k]);
        return 1;
      }
    const unsigned slice = (records_of(b) + warps - 1) / warps;
    for (unsigned w = 0; w < warps; ++w) {
      unsigned want = 0, widest_want = 0, k = 0;
      for (unsigned i = w; i < records_of(b); i += warps, ++k) {
        Record r = make_record(b, i);
        want += (r.grid.x + kCoarsen - 1) / kCoarsen * r.grid.y * r.grid.z;
        widest_want = std::max(widest_want, r.block.x);
        const unsigned got = h_ends[(blocks + b) * stride + w * slice + k];
        if (got != want) {
          std::printf("warp scan: block %u warp %u record %u ends at %u, want %u\n", b, w, k, got, want);
          return 1;
        }
      }
      if (h_totals[blocks + b * 32 + w] != want || h_widest[blocks + b * 32 + w] != widest_want) {
        std::printf("warp scan: block %u warp %u total %u widest %u, want %u %u\n", b, w, h_totals[blocks + b * 32 + w],
                    h_widest[blocks + b * 32 + w], want, widest_want);
        return 1;
      }
    }
  }
  cudaFree(records); cudaFree(ends); cudaFree(totals); cudaFree(widest); cudaFree(found);
  return 0;
}

enum class Kind { kWarp, kBlock, kMultiBlock };

// Attempts of an aggregated launch that always fails: the first, then one per back-off wait up to the limit.
static unsigned attempts_before_giving_up() {
  unsigned attempts = 1;
  for (unsigned wait = 64; wait <= pdcc::kRetryLimitNs; wait *= 2) ++attempts;
  return attempts;
}

// Runs the protocol three times on the same pool (slots and pool are reused by the parent's next
// launch) and checks every record: done exactly once, aggregated while its group's storage held it
// (capacity: the wanted records, capped by the group's fair share of the pool) and enough parents
// launched, else directly at the site (storage full) or at the flush (too few, or launches failing).
template <typename Group, typename Site>
static int check_protocol(const char* name, Kind kind, dim3 grid, dim3 block, Config config) {
  const unsigned blocks = grid.x * grid.y * grid.z, threads = block.x * block.y * block.z;
  const unsigned ids = blocks * threads * config.repeats;
  Site* site;
  Outcome out;
  CHECK(cudaMalloc(&site, sizeof(Site)));
  CHECK(cudaMemset(site, 0, sizeof(Site)));  // as a __device__ variable starts
  CHECK(cudaMalloc(&out.done, sizeof(unsigned) * ids));
  CHECK(cudaMalloc(&out.how, sizeof(unsigned) * ids));
  CHECK(cudaMalloc(&out.blocks, sizeof(unsigned) * ids));
  CHECK(cudaMalloc(&out.block_sum, sizeof(unsigned long long) * ids));
  CHECK(cudaMalloc(&out.counters, sizeof(unsigned) * 3));
  const unsigned k = kind != Kind::kMultiBlock ? 1u : config.blocks_per_group ? config.blocks_per_group : blocks;
  const unsigned groups = (blocks + k - 1) / k, warps = (threads + 31) / 32;
  unsigned capacity;
  if (kind == Kind::kMultiBlock)
    capacity = groups <= Site::kSlots ? pdcc::records_that_fit(config.records ? config.records : 1ull * k * threads * config.per_thread,
                                                               Site::kBytes, groups, 1u, sizeof(ChildLaunch))
                                      : 0u;  // more groups than slots
  else
    capacity = pdcc::records_that_fit(config.records ? config.records : (kind == Kind::kWarp ? 32u : threads) * config.per_thread,
                                      Site::kBytes, blocks, kind == Kind::kWarp ? warps : 1u, sizeof(ChildLaunch));
  const bool launches_fail = config.fail >= attempts_before_giving_up();
  for (int round = 0; round < 3; ++round) {
    CHECK(cudaMemset(out.done, 0, sizeof(unsigned) * ids));
    CHECK(cudaMemset(out.how, 0, sizeof(unsigned) * ids));
    CHECK(cudaMemset(out.blocks, 0, sizeof(unsigned) * ids));
    CHECK(cudaMemset(out.block_sum, 0, sizeof(unsigned long long) * ids));
    const unsigned counters[3] = {0u, 0u, ~0u};
    CHECK(cudaMemcpy(out.counters, counters, sizeof(counters), cudaMemcpyHostToDevice));
    protocol_check<Group, Site><<<grid, block>>>(site, config, out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> done(ids), how(ids), seen(ids), got(3);
    std::vector<unsigned long long> sums(ids);
    CHECK(cudaMemcpy(done.data(), out.done, sizeof(unsigned) * ids, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(how.data(), out.how, sizeof(unsigned) * ids, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(seen.data(), out.blocks, sizeof(unsigned) * ids, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums.data(), out.block_sum, sizeof(unsigned long long) * ids, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got.data(), out.counters, sizeof(unsigned) * 3, cudaMemcpyDeviceToHost));
    if (got[0]) {
      std::printf("%s: round %d: check at line %u of runtime_check.cu failed on the device\n", name, round, got[0]);
      return 1;
    }
    const unsigned keys = kind == Kind::kWarp ? blocks * 32u : kind == Kind::kBlock ? blocks : groups;
    std::vector<unsigned> appended(keys), counted(keys * 4);
    bool any_batch = false;
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads; ++t) {
        if (!launches(b, t)) continue;
        const unsigned key = kind == Kind::kWarp ? b * 32u + (t >> 5) : kind == Kind::kBlock ? b : b / k;
        for (unsigned r = 0; r < config.repeats; ++r) {
          const unsigned id = (b * threads + t) * config.repeats + r;
          const ChildLaunch want = make_launch(id);
          const unsigned long long n = 1ull * want.grid.x * want.grid.y * want.grid.z;
          ++appended[key];
          if (done[id] != 1u || how[id] < kAggregated || how[id] > kDirectAtFlush) {
            std::printf("%s: round %d: record %u done %u times, how %u\n", name, round, id, done[id], how[id]);
            return 1;
          }
          ++counted[key * 4 + how[id]];
          if (how[id] == kAggregated && (seen[id] != n || sums[id] != n * (n + 1) / 2)) {
            std::printf("%s: round %d: record %u ran %u original blocks (sum %llu), want %llu\n", name, round, id,
                        seen[id], sums[id], n);
            return 1;
          }
        }
      }
    for (unsigned key = 0; key < keys; ++key) {
      const unsigned kept = std::min(appended[key], capacity);
      const unsigned aggregated = kept >= config.few && !launches_fail ? kept : 0u;
      any_batch = any_batch || kept >= config.few;
      if (counted[key * 4 + kAggregated] != aggregated || counted[key * 4 + kDirectAtFlush] != kept - aggregated ||
          counted[key * 4 + kDirectAtSite] != appended[key] - kept) {
        std::printf("%s: round %d: group %u (capacity %u) of %u records: %u aggregated, %u direct at the flush, %u "
                    "at the site; want %u, %u, %u\n", name, round, key, capacity, appended[key],
                    counted[key * 4 + kAggregated], counted[key * 4 + kDirectAtFlush], counted[key * 4 + kDirectAtSite],
                    aggregated, kept - aggregated, appended[key] - kept);
        return 1;
      }
    }
    const unsigned attempts = launches_fail ? attempts_before_giving_up() : config.fail + 1u;
    if (any_batch && (got[1] != attempts || (!launches_fail && got[2] != attempts))) {
      std::printf("%s: round %d: batches took %u to %u launch attempts, want %u\n", name, round, got[2], got[1], attempts);
      return 1;
    }
  }
  cudaFree(site); cudaFree(out.done); cudaFree(out.how); cudaFree(out.blocks); cudaFree(out.block_sum);
  cudaFree(out.counters);
  return 0;
}

int main() {
  const dim3 shapes[] = {dim3(256), dim3(100), dim3(16, 12), dim3(8, 4, 3), dim3(1024), dim3(1)};
  for (const dim3& shape : shapes)
    if (check_scans(dim3(5, 3), shape)) return 1;
  using Big = pdcc::SitePool<1u << 20>;
  using Multi = pdcc::SitePool<1u << 20, 64>;
  //                        CAP per_thread K few coarsen repeats fail
  const Config plain =     {0,  1,        0, 1,  1,      1,      0};
  const Config threshold = {0,  1,        0, 12, 3,      1,      0};  // agg_threshold(12), coarsen(3)
  const Config capped =    {50, 1,        0, 1,  1,      2,      0};  // buffer(pool, 50): overflow at the site
  const Config in_loop =   {0,  4,        0, 1,  2,      4,      0};  // a launch in a loop
  const Config retried =   {0,  1,        0, 40, 1,      1,      3};  // three failed launches, then one works
  const Config failing =   {0,  1,        0, 1,  1,      1,      ~0u};  // every launch fails: one by one
  for (const dim3& shape : shapes) {
    if (check_protocol<pdcc::WarpGroups, Big>("warp", Kind::kWarp, dim3(3, 2), shape, plain) ||
        check_protocol<pdcc::WarpGroups, Big>("warp, agg_threshold", Kind::kWarp, dim3(3, 2), shape, threshold) ||
        check_protocol<pdcc::BlockGroup, Big>("block", Kind::kBlock, dim3(3, 2), shape, plain) ||
        check_protocol<pdcc::BlockGroup, Big>("block, CAP", Kind::kBlock, dim3(3, 2), shape, capped) ||
        check_protocol<pdcc::MultiBlockGroup, Multi>("multiblock(3)", Kind::kMultiBlock, dim3(7), shape,
                                                     Config{0, 1, 3, 1, 3, 1, 0}) ||
        check_protocol<pdcc::MultiBlockGroup, pdcc::SitePool<1u << 20, 1>>("grid", Kind::kMultiBlock, dim3(3, 2),
                                                                          shape, in_loop))
      return 1;
  }
  const dim3 wide(1024), partial(8, 4, 3);
  if (check_protocol<pdcc::BlockGroup, pdcc::SitePool<16384>>("block, small pool", Kind::kBlock, dim3(6), wide, in_loop) ||
      check_protocol<pdcc::WarpGroups, pdcc::SitePool<65536>>("warp, small pool", Kind::kWarp, dim3(6), wide, in_loop) ||
      check_protocol<pdcc::MultiBlockGroup, pdcc::SitePool<8192, 64>>("multiblock(2), small pool", Kind::kMultiBlock,
                                                                      dim3(9), wide, Config{0, 4, 2, 1, 1, 4, 0}) ||
      check_protocol<pdcc::MultiBlockGroup, pdcc::SitePool<1u << 20, 2>>("more groups than slots", Kind::kMultiBlock,
                                                                        dim3(6), partial, Config{0, 1, 1, 1, 1, 1, 0}) ||
      check_protocol<pdcc::BlockGroup, Big>("block, retried", Kind::kBlock, dim3(4), wide, retried) ||
      check_protocol<pdcc::WarpGroups, Big>("warp, failing", Kind::kWarp, dim3(2), partial, failing) ||
      check_protocol<pdcc::MultiBlockGroup, Multi>("multiblock(2), failing", Kind::kMultiBlock, dim3(5), partial,
                                                   Config{0, 1, 2, 1, 1, 1, ~0u}))
    return 1;
  std::printf("runtime ok\n");
  return 0;
}
