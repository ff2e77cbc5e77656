// pdcc's device runtime: the group protocol of aggregated sites (seed 000 §V, KLAP), which every
// aggregated site instantiates with its record type: the Record of one parent's launch, a SitePool
// (record storage, multi-block group slots), a group in shared memory (WarpGroups, BlockGroup,
// MultiBlockGroup: open, append, flush), the Batch an aggregated grid gets and run_aggregated_block,
// what each of its threads runs; and the launches a site hands to flush (aggregated_launch,
// direct_launch) or makes itself (launch_record). pdcc puts this directory on nvcc's include path when
// a file needs it; it has no host code and allocates nothing by itself. tests/cuda/runtime_check.cu
// drives these classes as generated code does.
#pragma once

#include <cuda_runtime.h>

#include <new>
#include <type_traits>
#include <utility>

namespace pdcc {

constexpr unsigned kFullMask = 0xffffffffu;

// The lanes of this thread's warp that exist (the last warp of a block may be partial).
__device__ __forceinline__ unsigned warp_lanes() {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned base = linear & ~31u;
  const unsigned present = threads - base >= 32u ? 32u : threads - base;
  return present == 32u ? kFullMask : (1u << present) - 1u;
}

__device__ __forceinline__ unsigned linear_thread() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ unsigned linear_block() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

__device__ __forceinline__ unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

// (x, y, z) of a linear index in a box of the given extent, x fastest (the hardware's order); a
// one-dimensional box (the usual launch) costs no division.
__device__ __forceinline__ uint3 unflatten(unsigned index, dim3 extent) {
  if ((extent.y | extent.z) == 1u) return make_uint3(index, 0u, 0u);
  return make_uint3(index % extent.x, (index / extent.x) % extent.y, index / (extent.x * extent.y));
}

// Inclusive prefix sum over the lanes in `mask` (lanes in order; absent lanes contribute nothing).
__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned value, unsigned mask) {
  const unsigned lane = linear_thread() & 31u;  // lanes follow the linear thread index, in 2-D blocks too
  for (unsigned offset = 1; offset < 32u; offset <<= 1) {
    const unsigned other = __shfl_up_sync(mask, value, offset);
    if (lane >= offset) value += other;
  }
  return value;
}

// Largest value over the lanes in `mask` (a partial warp too).
__device__ __forceinline__ unsigned warp_max(unsigned value, unsigned mask) {
  return __reduce_max_sync(mask, value);
}

// The record whose block range holds `block`: the first i with ends[i] > block (ends is inclusive).
__device__ __forceinline__ unsigned find_record(const unsigned* ends, unsigned count, unsigned block) {
  unsigned low = 0, high = count - 1;
  while (low < high) {
    const unsigned middle = (low + high) >> 1;
    if (ends[middle] <= block) low = middle + 1; else high = middle;
  }
  return low;
}

// --- records --------------------------------------------------------------------------------------

// In a record's parameter list, a child parameter whose argument is the same for every parent of a
// group: records do not store it, the aggregated kernel gets it once. The constructor takes the value
// and drops it, so that a record is built from the launch's arguments as written.
struct Uniform {
  template <typename T>
  __host__ __device__ Uniform(const T&) {}
};

// Argument I of a record, stored as the child receives it (by value; an array or function as a
// pointer), or nothing for a Uniform parameter.
template <unsigned I, typename Parameter>
struct Stored {
  typename std::decay<Parameter>::type value;
  __host__ __device__ Stored(Parameter argument) : value(argument) {}
};

template <unsigned I>
struct Stored<I, Uniform> {
  __host__ __device__ Stored(Uniform) {}
};

// Every argument of a parameter list, in order: one base per parameter, so that the stored ones are
// laid out as the members of a struct would be (a Uniform one is an empty base and takes no space).
template <typename Indices, typename... Parameters>
struct Arguments;

template <unsigned... I, typename... Parameters>
struct Arguments<std::integer_sequence<unsigned, I...>, Parameters...> : Stored<I, Parameters>... {
  __host__ __device__ Arguments(Parameters... arguments) : Stored<I, Parameters>(arguments)... {}
};

template <typename... Parameters>
using ArgumentsOf = Arguments<std::make_integer_sequence<unsigned, sizeof...(Parameters)>, Parameters...>;

// One parent's launch at an aggregated site: the child's parameters in order, `Uniform` for those
// passed once per group, and the launch's grid and block. The constructor takes the launch's arguments
// as written and converts each one as the child's own call would (a copy, never braces: no narrowing).
template <typename... Parameters>
struct Record : ArgumentsOf<Parameters...> {
  dim3 grid;
  dim3 block;
  __host__ __device__ Record(dim3 launch_grid, dim3 launch_block, Parameters... arguments)
      : ArgumentsOf<Parameters...>(arguments...), grid(launch_grid), block(launch_block) {}
};

template <unsigned I, typename Parameter>
__host__ __device__ __forceinline__ const typename std::decay<Parameter>::type& stored(const Stored<I, Parameter>& own) {
  return own.value;
}

// How many of the first `count` parameters are Uniform.
template <typename... Parameters>
__host__ __device__ constexpr unsigned uniforms_before(unsigned count) {
  const bool uniform[] = {std::is_same<Parameters, Uniform>::value..., false};
  unsigned found = 0;
  for (unsigned k = 0; k < count; ++k) found += uniform[k];
  return found;
}

// Argument I of the child's call: the record's own, or for a Uniform parameter (the K-th Uniform one)
// the K-th value passed once per group.
template <unsigned I, unsigned K, typename Parameter, typename Once>
__device__ __forceinline__ const typename std::decay<Parameter>::type& argument(const Stored<I, Parameter>& own,
                                                                                const Once&) {
  return own.value;
}

template <unsigned I, unsigned K, typename Once>
__device__ __forceinline__ auto argument(const Stored<I, Uniform>&, const Once& once) -> decltype(pdcc::stored<K>(once)) {
  return pdcc::stored<K>(once);
}

template <typename F, typename... Parameters, typename Once, unsigned... I>
__device__ __forceinline__ void call_in_order(F& f, const Record<Parameters...>& record, const Once& once,
                                              std::integer_sequence<unsigned, I...>) {
  f(pdcc::argument<I, uniforms_before<Parameters...>(I)>(record, once)...);
}

// f(the child's arguments in order): the record's, and where it has a Uniform parameter the next of
// `once`, the values passed once per group.
template <typename F, typename... Parameters, typename... Once>
__device__ __forceinline__ void call_with_arguments(F f, const Record<Parameters...>& record, const Once&... once) {
  pdcc::call_in_order(f, record, ArgumentsOf<Once...>(once...),
                      std::make_integer_sequence<unsigned, sizeof...(Parameters)>());
}

// Blocks in x of a grid of `x` blocks coarsened by `factor` (each block runs `factor` of the original
// ones); no division for the usual factor 1.
__device__ __forceinline__ unsigned coarsened_x(unsigned x, unsigned factor) {
  return factor == 1u ? x : (x + factor - 1) / factor;
}

// Blocks of one record's (coarsened) child grid and its threads per block.
template <typename Record>
__device__ __forceinline__ unsigned record_blocks(const Record& r, unsigned coarsen) {
  return coarsened_x(r.grid.x, coarsen) * r.grid.y * r.grid.z;
}

template <typename Record>
__device__ __forceinline__ unsigned record_threads(const Record& r) {
  return r.block.x * r.block.y * r.block.z;
}

// ends[i] = blocks of records 0..i, by one warp (lanes in `mask`, the low ones, all of them call it).
// Returns the total; *max_threads gets the largest block of the records.
template <typename Record>
__device__ unsigned warp_scan_records(const Record* records, unsigned* ends, unsigned count, unsigned coarsen,
                                      unsigned mask, unsigned* max_threads) {
  const unsigned lane = linear_thread() & 31u, lanes = __popc(mask);  // a block's last warp may be partial
  unsigned carry = 0, widest = 0;
  for (unsigned start = 0; start < count; start += lanes) {
    const unsigned i = start + lane;
    const unsigned blocks = i < count ? record_blocks(records[i], coarsen) : 0u;
    widest = i < count && record_threads(records[i]) > widest ? record_threads(records[i]) : widest;
    const unsigned sum = warp_inclusive_scan(blocks, mask) + carry;
    if (i < count) ends[i] = sum;
    carry = __shfl_sync(mask, sum, 31 - __clz(mask));
  }
  *max_threads = warp_max(widest, mask);
  __threadfence();     // the ends this lane wrote, before the launch that reads them
  __syncwarp(mask);
  return carry;
}

// Inclusive prefix sum over the threads of the block in linear order (every thread calls it); *total gets the
// block's sum. scratch holds 33 unsigned; the caller synchronises the block before using scratch again.
__device__ __forceinline__ unsigned block_inclusive_scan(unsigned value, unsigned* scratch, unsigned* total) {
  const unsigned me = linear_thread(), lane = me & 31u, warp = me >> 5;
  const unsigned warps = (block_threads() + 31u) / 32u, mask = warp_lanes();
  unsigned sum = warp_inclusive_scan(value, mask);
  if (lane == 31u - __clz(mask)) scratch[warp] = sum;
  __syncthreads();
  if (warp == 0) {  // warp 0 may be partial in a block of fewer than 32 threads
    const unsigned all = lane < warps ? scratch[lane] : 0u;
    const unsigned scanned = warp_inclusive_scan(all, mask);
    if (lane < warps) scratch[lane] = scanned - all;  // exclusive: what the warps before add
    if (lane == warps - 1u) scratch[32] = scanned;
  }
  __syncthreads();
  *total = scratch[32];
  return sum + scratch[warp];
}

// The same for a whole block (every thread of the block calls it); scratch holds 33 unsigned.
template <typename Record>
__device__ unsigned block_scan_records(const Record* records, unsigned* ends, unsigned count, unsigned coarsen,
                                       unsigned* scratch, unsigned* max_threads) {
  const unsigned me = linear_thread(), threads = block_threads(), lane = me & 31u;
  const unsigned mask = warp_lanes();
  unsigned carry = 0, widest = 0;
  for (unsigned start = 0; start < count; start += threads) {
    const unsigned i = start + me;
    const unsigned blocks = i < count ? record_blocks(records[i], coarsen) : 0u;
    if (i < count && record_threads(records[i]) > widest) widest = record_threads(records[i]);
    unsigned round;
    const unsigned sum = block_inclusive_scan(blocks, scratch, &round) + carry;
    if (i < count) ends[i] = sum;
    carry += round;
    __threadfence();   // the ends this thread wrote, before the launch that reads them
    __syncthreads();
  }
  widest = warp_max(widest, mask);
  if (me == 0) scratch[0] = 0;
  __syncthreads();
  if (lane == 0) atomicMax(&scratch[0], widest);
  __syncthreads();
  *max_threads = scratch[0];
  __syncthreads();
  return carry;
}

__device__ __forceinline__ unsigned grid_blocks() { return gridDim.x * gridDim.y * gridDim.z; }

// Records per group: what the launch asks for (`wanted`), but no more than a fair share of the pool:
// the pool is cut into `chunks` (one per block, or per multi-block group), each rounded to 128 bytes by
// SitePool::take, and a chunk holds `groups_per_chunk` groups (the warps of a block), so that every group
// gets storage and only the excess launches directly.
__host__ __device__ __forceinline__ unsigned records_that_fit(unsigned long long wanted, unsigned long long pool_bytes,
                                                              unsigned long long chunks,
                                                              unsigned long long groups_per_chunk,
                                                              unsigned long long record_bytes) {
  const unsigned long long bytes = pool_bytes / (chunks ? chunks : 1ull);
  const unsigned long long per_group = bytes > 128ull ? (bytes - 128ull) / (groups_per_chunk ? groups_per_chunk : 1ull) : 0ull;
  const unsigned long long share = per_group / (record_bytes + 4ull);
  const unsigned long long records = wanted < share ? wanted : share;
  return records < 0xffffffffull ? (unsigned)records : 0xffffffffu;
}

// One multi-block group's shared state (multiblock(K) and grid groups), in its site's SitePool. The
// first block of the group to start takes the group's records from the pool; the last block to finish
// launches them and releases the slot for the parent's next launch.
struct GroupSlot {
  unsigned char* records;
  unsigned capacity;
  unsigned count;
  unsigned blocks_done;
  int state;  // 0 free, 1 being set up, 2 ready

  __device__ void release() {
    records = nullptr;
    capacity = 0u;
    count = 0u;
    blocks_done = 0u;
    __threadfence();
    atomicExch(&state, 0);
  }
};

// One aggregated site's device memory: a bump allocator over `Bytes` of record storage (reset by the
// parent grid's last block: the next launch of the parent cannot start before this grid's children have
// finished reading it) and, for multi-block groups, one slot per group. A zero-initialised __device__
// variable per site; two grids of the same parent must not run at once.
template <unsigned long long Bytes, unsigned Slots = 0>
struct SitePool {
  static constexpr unsigned long long kBytes = Bytes;
  static constexpr unsigned kSlots = Slots;

  unsigned long long used;
  unsigned blocks_done;
  GroupSlot slots[Slots ? Slots : 1];  // (an array cannot be empty; warp and block groups use none)
  alignas(128) unsigned char storage[Bytes];

  // `bytes` of storage (rounded up to 128, so that chunks start on their own cache lines), or nullptr.
  __device__ unsigned char* take(unsigned long long bytes) {
    bytes = (bytes + 127ull) & ~127ull;
    const unsigned long long at = atomicAdd(&used, bytes);
    return at + bytes <= Bytes ? storage + at : nullptr;
  }

  // The slot of group `group`, set up (storage for `capacity` records) by whichever of its blocks comes first.
  __device__ GroupSlot* join(unsigned group, unsigned capacity, unsigned record_bytes) {
    GroupSlot* slot = &slots[group];
    if (atomicCAS(&slot->state, 0, 1) == 0) {
      slot->records = take((unsigned long long)capacity * (record_bytes + 4u));
      slot->capacity = slot->records != nullptr ? capacity : 0u;
      slot->count = 0;
      __threadfence();
      atomicExch(&slot->state, 2);
    } else {
      for (unsigned wait = 32; atomicAdd(&slot->state, 0) != 2; wait = wait < 1024u ? wait * 2 : wait) __nanosleep(wait);
      __threadfence();  // acquire: read the records and capacity the setting-up block wrote, not a stale line
    }
    return slot;
  }

  // Called once per parent block (by its first thread) after its last use of the pool.
  __device__ void block_done() {
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) == grid_blocks() - 1u) {
      used = 0;
      blocks_done = 0;
      __threadfence();
    }
  }
};

// A group's records as one aggregated launch: child__pdcc_agg<<<blocks, threads>>>(batch, ...).
template <typename Record>
struct Batch {
  const Record* records;
  const unsigned* ends;  // ends[i]: the aggregated grid's blocks of records 0..i
  unsigned count;
  unsigned blocks;       // of all records (coarsened)
  unsigned threads;      // the widest record's block
  unsigned coarsen;      // original blocks per block of the aggregated grid (in x)
};

// The record type of an aggregated kernel (the R of its `const Batch<R>` parameter): how a parent names
// its site's records, `pdcc::RecordOf<decltype(child__pdcc_agg_SITE)>`, with the child's parameter types
// resolved where the kernel is defined (beside the child, in its namespace, with its template arguments).
template <typename Kernel>
struct RecordOfKernel;

template <typename Record, typename... Once>
struct RecordOfKernel<void(Batch<Record>, Once...)> {
  using type = Record;
};

template <typename Kernel>
using RecordOf = typename RecordOfKernel<Kernel>::type;

constexpr unsigned kRetryLimitNs = 1u << 18;  // about 0.5 ms of waiting in all before the one-by-one fallback

// The group's leader launches the batch (`launch(batch)` returns the launch's cudaGetLastError()). A
// failed launch (pending-launch pool full, or the launch budget spent) is retried with doubling back-off
// while launches drain; false when it never went through: then the whole group, having waited for the
// leader's attempts, runs the records between its threads, each through `direct(record)` (run_directly),
// so no work is lost. Stale errors are cleared first (else a launch that worked would look failed and run
// twice); runtime_check.cu, whose "launch" launches nothing, defines PDCC_RT_NO_DEVICE_RUNTIME to build
// without -rdc, as compute-sanitizer's racecheck and synccheck need.
template <typename Record, typename Launch>
__device__ bool launch_batch(const Batch<Record>& batch, Launch& launch) {
#ifndef PDCC_RT_NO_DEVICE_RUNTIME
  (void)cudaGetLastError();
#endif
  for (unsigned wait = 64; launch(batch) != cudaSuccess; wait *= 2) {
    if (wait > kRetryLimitNs) return false;
    __nanosleep(wait);
  }
  return true;
}

// Records `first`, `first + stride`, ... of `count`, each on its own through `direct(record)`: a group's
// records that no aggregated launch runs, shared by the group's threads.
template <typename Record, typename Direct>
__device__ __forceinline__ void run_directly(const Record* records, unsigned count, unsigned first, unsigned stride,
                                             Direct& direct) {
  for (unsigned i = first; i < count; i += stride) direct(records[i]);
}

// Warp groups (PerWarp) or one group per block, in shared memory (hence no constructor). Every thread
// of the block calls open() before the parent's body and flush() after it; append() is called at the
// site. The block's groups share one chunk of the pool: every group's records, then their scanned ends.
template <bool PerWarp>
struct BlockGroups {
  unsigned count[32];    // records appended per group (a block has at most 32 warps)
  unsigned char* chunk;  // nullptr when the pool is spent: every parent launches directly
  unsigned capacity;     // records per group
  unsigned scratch[33];  // block_scan_records

  __device__ static unsigned groups() { return PerWarp ? (block_threads() + 31u) / 32u : 1u; }
  __device__ static unsigned group() { return PerWarp ? linear_thread() >> 5 : 0u; }

  // `records` per group (buffer's CAP), or 0: `records_per_thread` for each thread of the group.
  template <typename Record, typename Site>
  __device__ void open(Site& site, unsigned records, unsigned records_per_thread) {
    if (linear_thread() < 32u) count[linear_thread()] = 0u;
    if (linear_thread() == 0u) {
      capacity = records_that_fit(records ? records : (PerWarp ? 32u : block_threads()) * records_per_thread,
                                  Site::kBytes, (unsigned long long)gridDim.x * gridDim.y * gridDim.z, groups(),
                                  sizeof(Record));
      chunk = site.take((unsigned long long)groups() * capacity * (sizeof(Record) + 4u));
    }
    __syncthreads();
  }

  // False when the group's storage is full: the caller launches this record directly.
  template <typename Record>
  __device__ bool append(const Record& record) {
    if (chunk == nullptr) return false;
    const unsigned g = group();
    const unsigned slot = atomicAdd(&count[g], 1u);
    if (slot >= capacity) return false;
    ::new (reinterpret_cast<Record*>(chunk) + g * capacity + slot) Record(record);
    return true;  // made visible to the group's launch by the flush's fence
  }

  // Every group launches its records as one grid, or, when fewer than `few` or the launch never goes
  // through, its threads run them one by one between them; then the block is done with the pool.
  template <typename Record, typename Site, typename Launch, typename Direct>
  __device__ void flush(Site& site, unsigned coarsen, unsigned few, Launch launch, Direct direct) {
    const unsigned mask = PerWarp ? warp_lanes() : 0u, lane = linear_thread() & 31u, g = group();
    __threadfence();  // this thread's appends, before the launch another thread of the group makes
    if (PerWarp) __syncwarp(mask); else __syncthreads();
    Record* records = reinterpret_cast<Record*>(chunk) + g * capacity;
    unsigned* ends = reinterpret_cast<unsigned*>(reinterpret_cast<Record*>(chunk) + groups() * capacity) + g * capacity;
    const unsigned n = chunk ? min(count[g], capacity) : 0u;
    const unsigned me = PerWarp ? lane : linear_thread(), stride = PerWarp ? __popc(mask) : block_threads();
    bool launched = false;  // too few records to be worth a group launch, or the launch never went through
    if (n >= few) {
      unsigned widest = 0;
      const unsigned total = PerWarp ? warp_scan_records(records, ends, n, coarsen, mask, &widest)
                                     : block_scan_records(records, ends, n, coarsen, scratch, &widest);
      launched = me == 0u && launch_batch(Batch<Record>{records, ends, n, total, widest, coarsen}, launch);
      launched = PerWarp ? __any_sync(mask, launched) : __syncthreads_or(launched);
    }
    if (!launched) run_directly(records, n, me, stride, direct);
    if (linear_thread() == 0u) site.block_done();
  }
};

using WarpGroups = BlockGroups<true>;
using BlockGroup = BlockGroups<false>;

// A multiblock(K) or grid group (K = every block of the grid), in shared memory: the group's state is a
// slot of the site's pool, set up by its first block; its last block to finish launches for the group.
struct MultiBlockGroup {
  GroupSlot* slot;       // nullptr when there are more groups than slots: every parent launches directly
  unsigned members;      // blocks in this block's group (the last group may have fewer)
  int last;              // this block is its group's last to finish
  unsigned scratch[33];  // block_scan_records

  template <typename Record, typename Site>
  __device__ void open(Site& site, unsigned records, unsigned records_per_thread, unsigned blocks_per_group) {
    if (linear_thread() == 0u) {
      const unsigned blocks = grid_blocks(), k = blocks_per_group, groups = (blocks + k - 1) / k;
      const unsigned capacity = records_that_fit(
          records ? records : (unsigned long long)k * block_threads() * records_per_thread, Site::kBytes, groups, 1u,
          sizeof(Record));
      slot = groups <= Site::kSlots ? site.join(linear_block() / k, capacity, sizeof(Record)) : nullptr;
      members = min(k, blocks - linear_block() / k * k);
    }
    __syncthreads();
  }

  template <typename Record>
  __device__ bool append(const Record& record) {
    GroupSlot* group = slot;
    if (group == nullptr || group->records == nullptr) return false;
    const unsigned at = atomicAdd(&group->count, 1u);
    if (at >= group->capacity) return false;
    ::new (reinterpret_cast<Record*>(group->records) + at) Record(record);
    return true;  // made visible to the block that launches for the group by the flush's fence
  }

  // The last block of the group launches its records as one grid (or, when fewer than `few` or the
  // launch never goes through, its threads run them one by one between them) and releases the slot;
  // then the block is done with the pool.
  template <typename Record, typename Site, typename Launch, typename Direct>
  __device__ void flush(Site& site, unsigned coarsen, unsigned few, Launch launch, Direct direct) {
    __threadfence();
    __syncthreads();
    GroupSlot* group = slot;
    if (linear_thread() == 0u) last = group != nullptr && atomicAdd(&group->blocks_done, 1u) == members - 1u;
    __syncthreads();
    if (last) {
      __threadfence();
      Record* records = reinterpret_cast<Record*>(group->records);
      const unsigned capacity = group->capacity;
      unsigned* ends = reinterpret_cast<unsigned*>(records + capacity);
      const unsigned n = min(*(volatile unsigned*)&group->count, capacity);
      __syncthreads();
      bool launched = false;  // too few records to be worth a group launch, or the launch never went through
      if (n >= few) {
        unsigned widest = 0;
        const unsigned total = block_scan_records(records, ends, n, coarsen, scratch, &widest);
        launched = __syncthreads_or(linear_thread() == 0u &&
                                    launch_batch(Batch<Record>{records, ends, n, total, widest, coarsen}, launch));
      }
      if (!launched) {
        run_directly(records, n, linear_thread(), block_threads(), direct);
        __syncthreads();  // every thread is done with the records
      }
      if (linear_thread() == 0u) group->release();
    }
    if (linear_thread() == 0u) site.block_done();
  }
};

// One block of an aggregated grid: its record (found by binary search over the scanned block counts),
// the first original block it runs (it strides over the record's coarsened grid in x).
template <typename Record>
struct AggregatedBlock {
  Record record;
  uint3 block;
  unsigned stride;
};

template <typename Record>
__device__ AggregatedBlock<Record> aggregated_block(const Batch<Record>& batch, unsigned block_index) {
  const unsigned r = find_record(batch.ends, batch.count, block_index);
  const Record& record = batch.records[r];
  const unsigned stride = coarsened_x(record.grid.x, batch.coarsen);
  return {record, unflatten(block_index - (r ? batch.ends[r - 1] : 0u), dim3(stride, record.grid.y, record.grid.z)),
          stride};
}

// What thread `thread_index` of aggregated block `a` does: for each original block of its record that it
// covers, runs `thread(block, thread, grid, blockDim, the child's arguments...)`, the child's outlined
// body, unless the record's blocks are smaller than the aggregated grid's; `once...` are the values
// passed once per group.
template <typename Record, typename Thread, typename... Once>
__device__ __forceinline__ void run_block_thread(const AggregatedBlock<Record>& a, unsigned thread_index, Thread thread,
                                                 const Once&... once) {
  if (thread_index >= record_threads(a.record)) return;
  const uint3 own = unflatten(thread_index, a.record.block);
  for (unsigned bx = a.block.x; bx < a.record.grid.x; bx += a.stride)
    pdcc::call_with_arguments([&](const auto&... arguments) {
      thread(make_uint3(bx, a.block.y, a.block.z), own, a.record.grid, a.record.block, arguments...);
    }, a.record, once...);
}

// The body of every child__pdcc_agg kernel. Every thread searches and loads its block's record itself,
// at the latency one thread would (the loads are broadcasts within a warp). Having the block's first
// thread do it once, into shared memory behind a barrier, measured the same within the run's noise on an
// H200, whether always, never or from 4096 records on (bench/results/2026-12-02-h200-record-pool/), so
// the simpler form stays.
template <typename Record, typename Thread, typename... Once>
__device__ __forceinline__ void run_aggregated_block(const Batch<Record>& batch, unsigned block_index,
                                                     unsigned thread_index, Thread thread, const Once&... once) {
  run_block_thread(aggregated_block(batch, block_index), thread_index, thread, once...);
}

// --- the launch budget ------------------------------------------------------------------------------
// Past the pending-launch pool (2,048 launches on an H200 unless the program raises it) a device launch
// does not always fail: measured on an H200, in 1 to 2 of 10 runs of tests/cuda/shapes.cu (threshold(32),
// or consldt(block) buffer(pool, 3): some 15,000 launches of 3,000 parents) the last parent blocks spun for
// ever inside the device runtime (__cudaCDP2GetParameterBufferV2) while no child grid ran; with the pool
// raised to 32,768, or with 300 parents, none of 10 runs did. So every launch pdcc makes of a kernel it wrote
// (child__pdcc_counted, child__pdcc_coarse, child__pdcc_agg_SITE) first takes one of PDCC_LAUNCH_BUDGET
// launches, and the launched grid gives it back as it starts (launch_started, in its first thread), when
// the device runtime lets go of its pool entry: a launch leaves the pool when it begins to execute. A
// launch that finds the budget spent is not made: the work runs in the launching thread (its fallback)
// instead of waiting in the device runtime. One budget per translation unit; a program that raises the
// pool (cudaDeviceSetLimit) may raise it with -DPDCC_LAUNCH_BUDGET=N.
#ifndef PDCC_LAUNCH_BUDGET
#define PDCC_LAUNCH_BUDGET 1024u  // half the default pool: the rest is for launches pdcc does not count
#endif

static __device__ unsigned launches_pending;  // launches of pdcc's kernels made and not yet started

// Called first by every thread of a kernel pdcc launches through the budget.
__device__ __forceinline__ void launch_started() {
  if ((blockIdx.x | blockIdx.y | blockIdx.z | threadIdx.x | threadIdx.y | threadIdx.z) == 0u)
    atomicSub(&launches_pending, 1u);
}

#ifndef PDCC_RT_NO_DEVICE_RUNTIME
// --- launches -------------------------------------------------------------------------------------
// Every launch here is safe as every launch pdcc writes (transforms/site.py): stale errors cleared
// first, the launch checked, and a failed one (pending-launch pool full?) falls back without losing work.

constexpr unsigned kLaunchRetryLimitNs = 64u << 16;  // a direct launch's longest wait: site.py's RETRY_LIMIT_NS

// `launch()` (a lambda making one device launch of a kernel that calls launch_started) when the budget has
// a launch left; false when it has none or the launch failed: the caller runs the work itself.
template <typename Launch>
__device__ bool launched(Launch launch) {
  if (atomicAdd(&launches_pending, 1u) >= PDCC_LAUNCH_BUDGET) {
    atomicSub(&launches_pending, 1u);
    return false;
  }
  (void)cudaGetLastError();
  launch();
  if (cudaGetLastError() == cudaSuccess) return true;
  atomicSub(&launches_pending, 1u);
  return false;
}

// A launch that must be made (the child cannot run in the launching thread) of a kernel that calls
// launch_started: counted whatever the budget says, so that the grid's give-back balances.
__device__ __forceinline__ void hold_launch() { atomicAdd(&launches_pending, 1u); }

// A record's child kernel coarsened by `factor`: launched on ceil(grid.x / factor) blocks in x, with the
// record's grid as its last argument (child__pdcc_coarse).
template <typename Kernel>
struct Coarsened {
  Kernel kernel;
  unsigned factor;
};

template <typename Kernel>
__device__ __forceinline__ Coarsened<Kernel> coarsened(Kernel kernel, unsigned factor) {
  return {kernel, factor};
}

// A direct launch of a child that cannot run serially: retried with back-off until it goes through.
struct Retry {};

template <typename Kernel, typename... Parameters, typename... Once>
__device__ void launch_child(Kernel kernel, const Record<Parameters...>& record, const Once&... once) {
  pdcc::call_with_arguments([&](const auto&... arguments) { kernel<<<record.grid, record.block>>>(arguments...); },
                            record, once...);
}

template <typename Kernel, typename... Parameters, typename... Once>
__device__ void launch_child(Coarsened<Kernel> child, const Record<Parameters...>& record, const Once&... once) {
  const dim3 grid(coarsened_x(record.grid.x, child.factor), record.grid.y, record.grid.z);
  pdcc::call_with_arguments(
      [&](const auto&... arguments) { child.kernel<<<grid, record.block>>>(arguments..., record.grid); }, record, once...);
}

// One record launched on its own (its group's storage full, too few records in the group, or the
// aggregated launch failed): `kernel` (child__pdcc_counted, or `coarsened(child__pdcc_coarse, factor)`) on
// the record's grid and block, through the launch budget; when the budget is spent or the launch fails,
// `serial(grid, block, arguments...)` runs the record's work in this thread.
template <typename Kernel, typename Serial, typename... Parameters, typename... Once>
__device__ void launch_record(const Record<Parameters...>& record, Kernel kernel, Serial serial, const Once&... once) {
  if (!pdcc::launched([&] { pdcc::launch_child(kernel, record, once...); }))
    pdcc::call_with_arguments([&](const auto&... arguments) { serial(record.grid, record.block, arguments...); },
                              record, once...);
}

// The same for a child that cannot run serially (`Retry()` in place of its serial version): the launch
// is retried with doubling back-off, and past kLaunchRetryLimitNs per wait __trap() stops the program
// loudly rather than losing work. The child as written is not counted; its coarsened kernel is.
template <typename Kernel, typename... Parameters, typename... Once>
__device__ void retry_launch(const Record<Parameters...>& record, Kernel kernel, const Once&... once) {
  (void)cudaGetLastError();
  pdcc::launch_child(kernel, record, once...);
  for (unsigned wait = 64; cudaGetLastError() != cudaSuccess; wait *= 2) {
    if (wait > kLaunchRetryLimitNs) __trap();
    __nanosleep(wait);
    pdcc::launch_child(kernel, record, once...);
  }
}

template <typename Kernel, typename... Parameters, typename... Once>
__device__ void launch_record(const Record<Parameters...>& record, Kernel kernel, Retry, const Once&... once) {
  pdcc::retry_launch(record, kernel, once...);
}

template <typename Kernel, typename... Parameters, typename... Once>
__device__ void launch_record(const Record<Parameters...>& record, Coarsened<Kernel> kernel, Retry, const Once&... once) {
  pdcc::hold_launch();
  pdcc::retry_launch(record, kernel, once...);
}

// What a site hands to its group's flush: `launch(batch)`, the aggregated kernel on the batch through the
// launch budget (cudaErrorLaunchPendingCountExceeded when it has no launch left), and `direct(record)`, one
// record's launch_record.
template <typename Kernel, typename... Once>
__device__ auto aggregated_launch(Kernel kernel, Once... once) {
  return [=](const auto& batch) {
    return pdcc::launched([&] { kernel<<<batch.blocks, batch.threads>>>(batch, once...); })
               ? cudaSuccess : cudaErrorLaunchPendingCountExceeded;
  };
}

template <typename Kernel, typename Fallback, typename... Once>
__device__ auto direct_launch(Kernel kernel, Fallback fallback, Once... once) {
  return [=](const auto& record) { pdcc::launch_record(record, kernel, fallback, once...); };
}
#endif  // PDCC_RT_NO_DEVICE_RUNTIME

#ifndef PDCC_RT_NO_DEVICE_RUNTIME
// --- consolidation of recursive kernels (seed 003) -------------------------------------------------
// A kernel that launches itself with `#pragma dp consldt(...)` on that launch runs level by level. Level 0
// is the grid the program launched; instead of launching, a thread appends its work item (a Record: the
// launch's arguments that vary, its grid and block) to the WorkQueue of the next level; when the last
// block of a level is done, it tail-launches (cudaStreamTailLaunch) the consumer of the next level, whose
// threads run the child's body for every item: a thread per item (items of one thread) or a block per
// item, looping over the item's grid and block. A tail launch starts once its grid and all that grid's
// children are done and holds no pending launch of the levels before, so the recursion may go as deep as
// it likes (no device synchronization anywhere). The queue of a level is one of two, by the level's
// parity: level L runs the items of queue L & 1 and appends to queue (L + 1) & 1; its last block empties
// queue L & 1 for level L + 1 to append to. A level keeps what the buffer clause asks for, CAP items per
// group of the launches it runs, at most half of the queue's memory; an item past that is launched
// directly, through the launch budget, as a grid of the same level, leaving an empty item (a grid of no
// blocks) in its slot, or, when the budget is spent, is left in its slot for the next level to run. What
// those grids append goes to the same queue while its memory lasts (they never launch in turn before it
// is full), and the next level's consumer, which starts after every grid of this level, strides over all
// of it.

enum Granularity : unsigned { kWarpGroups, kBlockGroups, kGridGroup };

// Where a grid of a consolidated kernel stands: level `index` runs the items of queue index & 1 (none at
// level 0) and appends to queue (index + 1) & 1; the launches it runs have `groups` groups, which give each
// queue its capacity for the level (~0: as many items as the queue holds), past which items are launched
// directly. Its first `blocks` blocks run it: a grid that goes on in place with a narrower level lets the
// blocks it no longer needs leave (next_level), and the consumers stride over `blocks`, not gridDim.
struct Level {
  unsigned index;
  unsigned long long groups;
  bool may_wait;  // the grid running it is small enough to wait for its own blocks (decided by who launched it)
  unsigned blocks;
};

// (x, y, z) of a linear index that may pass 2^32 (blocks of a large item's grid).
__device__ __forceinline__ uint3 unflatten_wide(unsigned long long index, dim3 extent) {
  const unsigned long long plane = (unsigned long long)extent.x * extent.y;
  return make_uint3((unsigned)(index % extent.x), (unsigned)(index / extent.x % extent.y), (unsigned)(index / plane));
}

// Thread k of an item's launch, its grid x block threads in the hardware's order: `item(level, block,
// thread, grid, blockDim, the child's arguments...)`, the child's body. (Index: the type k is divided in.)
template <typename Index, typename Record, typename Item, typename... Once>
__device__ __forceinline__ void run_thread(const Level& level, const Record& r, Index k, Item item, const Once&... once) {
  const unsigned threads = record_threads(r);
  const uint3 block = unflatten_wide(k / threads, r.grid), thread = unflatten((unsigned)(k % threads), r.block);
  pdcc::call_with_arguments([&](const auto&... arguments) { item(level, block, thread, r.grid, r.block, arguments...); },
                            r, once...);
}

// Threads `first`, `first + stride`, ... of the first `count` of an item's launch.
template <typename Record, typename Item, typename... Once>
__device__ __forceinline__ void run_item(const Level& level, const Record& r, unsigned long long count, unsigned first,
                                         unsigned stride, Item item, const Once&... once) {
  for (unsigned long long k = first; k < count; k += stride) pdcc::run_thread(level, r, k, item, once...);
}

template <typename Record>
__device__ __forceinline__ unsigned long long record_total(const Record& r) {
  return (unsigned long long)r.grid.x * r.grid.y * r.grid.z * record_threads(r);
}

// The threads of a launch the consumer runs when the child opens by turning away the threads past an x
// bound: pdcc writes `child__pdcc_live(threads, arguments...)`, which leaves in `threads` those before the
// bound (pdcc::threads_before): the others would return at once. `trim(threads)` calls it with the
// launch's arguments.
template <typename Trim>
__device__ __forceinline__ unsigned long long guarded_threads(dim3 grid, dim3 block, Trim trim) {
  unsigned long long threads = (unsigned long long)grid.x * grid.y * grid.z * block.x * block.y * block.z;
  // the guard turns away rows in x: one row here; a launch of no threads reads nothing
  if (threads != 0ull && (grid.y | grid.z | block.y | block.z) == 1u) trim(threads);
  return threads;
}

// How many of the x indices 0, 1, ..., threads - 1 `turned_away(i)` (the child's guard with its own index
// type and comparison, its bound evaluated once) lets through. The comparison turns away more indices as they
// grow, so the first one it turns away is found by bisection. A launch of more than 2^31 - 1 threads in x,
// whose index may wrap, is run whole.
template <typename TurnedAway>
__device__ unsigned long long threads_before(unsigned long long threads, TurnedAway turned_away) {
  if (threads == 0ull || threads > 0x7fffffffull || !turned_away(threads - 1ull)) return threads;
  if (turned_away(0ull)) return 0ull;
  unsigned through = 0u, away = (unsigned)threads - 1u;  // (32 bits: fewer registers where appends inline it)
  while (away - through > 1u) {
    const unsigned middle = through + (away - through) / 2u;
    if (turned_away(middle)) away = middle; else through = middle;
  }
  return away;
}

// A level's items run by consumer blocks packed together: each block takes `per_block` items at a time
// (items_per_block), reads how many threads each one runs (`live`, counted at the append), and its threads
// run those of them all, one after another in one prefix sum, so that items of a few threads fill the
// block's warps. (A level with no more items than blocks skips the scan: a block per item, its live threads
// only, measured faster on narrow levels, bench/probes/packed_items.) An item of more than kPackedThreads
// threads is run by the whole block after the others. The items' threads need not run together: only
// kernels whose threads neither synchronise nor share are consolidated so.
constexpr unsigned kPackedThreads = 1u << 21;  // (times up to 1024 items: the prefix sum fits 32 bits)

__device__ __forceinline__ unsigned long long items_per_block(unsigned long long items, unsigned long long blocks,
                                                               unsigned threads) {
  const unsigned long long share = (items + blocks - 1ull) / blocks;
  return share < 1ull ? 1ull : share < threads ? share : threads;
}

template <typename Record, typename Item, typename... Once>
__device__ void run_packed(const Level& level, const Record* run, const unsigned long long* live,
                           unsigned long long stored, Item item, const Once&... once) {
  __shared__ unsigned ends[1024], scratch[33], alone[32];  // ends: inclusive prefix sum of the items' threads
  const unsigned me = threadIdx.x, threads = blockDim.x;
  const unsigned long long per_block = items_per_block(stored, level.blocks, threads);
  for (unsigned long long first = blockIdx.x * per_block; first < stored; first += level.blocks * per_block) {
    const unsigned count = (unsigned)(stored - first < per_block ? stored - first : per_block);
    const unsigned long long mine = me < count ? live[first + me] : 0ull;
    const bool big = mine > kPackedThreads;
    const unsigned lanes_big = __ballot_sync(warp_lanes(), big);
    if ((me & 31u) == 0u) alone[me >> 5] = lanes_big;
    unsigned total;
    const unsigned end = block_inclusive_scan(big ? 0u : (unsigned)mine, scratch, &total);
    if (me < count) ends[me] = end;
    const bool any_big = __syncthreads_or(big);  // and every end written
    for (unsigned k = me; k < total; k += threads) {
      const unsigned i = find_record(ends, count, k);
      pdcc::run_thread(level, run[first + i], k - (i ? ends[i - 1] : 0u), item, once...);
    }
    for (unsigned i = 0; any_big && i < count; ++i)
      if (alone[i >> 5] >> (i & 31u) & 1u)
        pdcc::run_item(level, run[first + i], live[first + i], me, threads, item, once...);
    __syncthreads();  // before the next items' ends
  }
}

// A grid of one item, launched on its own (counted by the caller): `kernel<<<grid, block>>>(level, arguments...)`, retried with
// doubling back-off while the pending-launch pool drains; past kLaunchRetryLimitNs per wait __trap()
// stops the program loudly rather than losing work.
template <typename Kernel, typename... Arguments>
__device__ void launch_item(Kernel kernel, const Level& level, dim3 grid, dim3 block, const Arguments&... arguments) {
  (void)cudaGetLastError();
  kernel<<<grid, block>>>(level, arguments...);
  for (unsigned wait = 64; cudaGetLastError() != cudaSuccess; wait *= 2) {
    if (wait > kLaunchRetryLimitNs) __trap();
    __nanosleep(wait);
    kernel<<<grid, block>>>(level, arguments...);
  }
}

// What a consolidated kernel's last block hands to level_done: `launch(blocks, threads, level)`, the
// consumer of the next level as a tail launch, returning the launch's cudaGetLastError().
template <typename Kernel, typename... Once>
__device__ auto level_launch(Kernel kernel, Once... once) {
  return [=](unsigned blocks, unsigned threads, const Level& level) {
    kernel<<<blocks, threads, 0, cudaStreamTailLaunch>>>(level, once...);
    return cudaGetLastError();
  };
}

constexpr unsigned long long kMaxGridBlocks = 0x7fffffffull;  // gridDim.x

// Blocks a consumer grid may have and still wait for one another at a level's end: one per SM, which the
// GPU always holds at once (a grid that waits with more could keep its last blocks from ever starting).
// (Asked by one thread, the one that launches the grid: every block of the grid gets the same answer in
// its Level. When the device runtime cannot tell, 1.)
static __device__ unsigned resident_consumer_blocks;
__device__ inline unsigned resident_blocks() {
  unsigned sms = *(volatile unsigned*)&resident_consumer_blocks;
  if (sms == 0u) {
    int device = 0, count = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || count <= 0)
      return 1u;  // not cached: asked again next time
    sms = (unsigned)count;
    resident_consumer_blocks = sms;
  }
  return sms;
}

// A consumer grid waits for its last block at most this long (ns) before its waiting blocks give up and
// leave, the level after then tail-launched: the barrier can then not hang when other grids keep some of
// its blocks from starting, and a level that slow makes a tail launch's ~14 us nothing.
constexpr unsigned long long kLevelWaitNs = 200000ull;

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One consolidated kernel's device memory: two queues of items (a zero-initialised __device__ variable;
// two recursions of the same kernel must not run at once). `Bytes` in all, half per queue. A level may
// append `PerGroup` items (buffer's CAP; 0: as many as a queue holds) per group (G: warp, block or grid)
// of the launches it runs: of its items' grids, or of the grid the program launched at level 0.
// `ThreadPerItem`: a consumer thread runs a whole item, else a consumer block does. `AsLaunched`: the
// consumer's blocks have the items' block size, and an item is stored once per block of its grid (with
// that block's index), so each consumer block runs one block of an item, its thread t as thread t: a
// kernel whose threads synchronise, share memory or talk within their warps runs as it was launched.
// `Packed`: the items' guard turns threads away, and the consumer runs them packed (run_level_packed), in
// as many blocks as their threads that get past it fill (append_packed counts them); else a block per item,
// in a block per item.
template <typename Record, unsigned long long Bytes, unsigned G, unsigned long long PerGroup, bool ThreadPerItem,
          bool AsLaunched = false, bool Packed = false>
struct WorkQueue {
  static constexpr unsigned long long kItems =  // per level
      Bytes / 2ull / (sizeof(Record) + (AsLaunched ? 4ull : 0ull) + (Packed ? 8ull : 0ull));
  static_assert(kItems > 0, "the work queue cannot hold one item per level: raise its PDCC_POOL_BYTES");

  unsigned long long count[2];   // items appended to each queue; those past its capacity were launched directly
  unsigned long long groups[2];  // the warps or blocks of those items' grids (grid groups: one per item, the count)
  unsigned long long direct[2];  // items of each queue launched as grids of their own
  unsigned long long passing[2]; // Packed: their threads past the guard (the items within the buffer)
  unsigned blocks_done;          // blocks of the running level that are done
  unsigned barrier;              // the in-place barrier: its round (bits 1..), and bit 0 when waiters gave up
  bool stays;                    // whether the grid goes on in place, decided in the round before
  Level continued;               // and with which level
  alignas(128) unsigned char storage[2][kItems * sizeof(Record)];
  unsigned block_of[2][AsLaunched ? kItems : 1ull];  // AsLaunched: the block of its item's grid a slot runs
  unsigned long long live_of[2][Packed ? kItems : 1ull];  // Packed: a slot's threads that get past the guard

  __device__ Record* items(unsigned parity) { return reinterpret_cast<Record*>(storage[parity]); }
  // The items of queue `parity` a consumer runs: those appended, as far as the queue holds them.
  __device__ unsigned long long stored(unsigned parity) const { return count[parity] < kItems ? count[parity] : kItems; }

  // The groups of one launch of the kernel.
  __device__ static unsigned long long groups_of(dim3 grid, dim3 block) {
    const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    return G == kGridGroup ? 1ull : G == kBlockGroups ? blocks : blocks * ((block.x * block.y * block.z + 31u) / 32u);
  }

  // Items a level may append when the launches it runs have `groups` groups.
  __device__ static unsigned long long capacity(unsigned long long groups) {
    return PerGroup && groups < kItems / PerGroup ? PerGroup * groups : kItems;
  }

  // A count that 32 lanes may sum in 32 bits, capped at 2^26 (these counts size buffers and grids; they
  // never decide what runs).
  __device__ static unsigned summable(unsigned long long count) {
    return count < (1ull << 26) ? (unsigned)count : 1u << 26;
  }

  // Level 0: the grid the program launched (called in its threads).
  __device__ static Level first_level() { return {0u, groups_of(gridDim, blockDim), false, grid_blocks()}; }

  // At the site, in place of the launch `direct<<<grid, block>>>(level, arguments...)`: the item goes to
  // the next level's queue, or, when that is full, is launched directly. Warp and block groups take
  // their slots with one atomic for the lanes that append together.
  template <typename Kernel, typename... Arguments>
  __device__ void append(const Level& level, Kernel direct, dim3 grid, dim3 block, const Arguments&... arguments) {
    static_assert(!Packed, "a queue of guarded items is appended to with append_packed");
    append_item(level, direct, grid, block, 0ull, arguments...);
  }

  // Packed: the same, counting the item's threads that get past its guard (`trim`, child__pdcc_live,
  // evaluated here rather than by the consumer: any moment after the launch is one the launched grid allows),
  // kept with the item and summed over the level, whose consumer grid they size (blocks_wanted).
  template <typename Kernel, typename Trim, typename... Arguments>
  __device__ void append_packed(const Level& level, Kernel direct, Trim trim, dim3 grid, dim3 block,
                                const Arguments&... arguments) {
    static_assert(Packed, "only a queue of guarded items counts their threads");
    const unsigned long long live =
        guarded_threads(grid, block, [&](unsigned long long& threads) { trim(threads, arguments...); });
    append_item(level, direct, grid, block, live, arguments...);
  }

  // (Both:) an item that runs `live` threads (Packed: counted with its slot; else unused).
  template <typename Kernel, typename... Arguments>
  __device__ void append_item(const Level& level, Kernel direct, dim3 grid, dim3 block, unsigned long long live,
                              const Arguments&... arguments) {
    if (AsLaunched) {
      append_blocks(level, direct, grid, block, arguments...);
      return;
    }
    const unsigned parity = (level.index + 1u) & 1u;
    const unsigned lanes = __activemask(), leader = __ffs(lanes) - 1u, lane = linear_thread() & 31u;
    unsigned long long slot;
    if (G == kGridGroup) {
      slot = atomicAdd(&count[parity], 1ull);
    } else {
      const unsigned long long mine = groups_of(grid, block);
      const unsigned together = __reduce_add_sync(lanes, summable(mine));
      unsigned long long first = 0ull;
      if (lane == leader) {
        first = atomicAdd(&count[parity], (unsigned long long)__popc(lanes));
        atomicAdd(&groups[parity], (unsigned long long)together);
      }
      slot = __shfl_sync(lanes, first, leader) + __popc(lanes & ((1u << lane) - 1u));
    }
    // Packed: the live threads of the items within the level's buffer, one atomic for the lanes that append
    // together (the few past it are left out: the sum only sizes the next grid, whose loops run them all)
    if (Packed) {
      const unsigned together = __reduce_add_sync(lanes, slot < capacity(level.groups) ? summable(live) : 0u);
      if (lane == leader) atomicAdd(&passing[parity], (unsigned long long)together);
    }
    if (slot < capacity(level.groups)) {
      ::new (items(parity) + slot) Record(grid, block, arguments...);
      if (Packed) live_of[parity][slot] = live;
      return;
    }
    // Past the level's buffer: this item runs as a grid of its own, whose appends use the queue's memory,
    // through the launch budget. When the budget is spent it stays in the queue's memory instead (the next
    // level's consumer runs every item stored), so no launch waits in the device runtime for the pending
    // pool; only when the queue's memory is full too is it launched whatever the budget says, and retried.
    const Level own = {level.index, ~0ull, false, 0u};  // (a grid of one item runs no consumer loop)
    if (slot < kItems) {
      const bool launched = pdcc::launched([&] { direct<<<grid, block>>>(own, arguments...); });
      if (launched) atomicAdd(&this->direct[parity], 1ull);
      ::new (items(parity) + slot) Record(launched ? dim3(0u, 0u, 0u) : grid, block, arguments...);
      if (Packed) live_of[parity][slot] = launched ? 0ull : live;
      return;
    }
    atomicAdd(&this->direct[parity], 1ull);
    pdcc::hold_launch();
    pdcc::launch_item(direct, own, grid, block, arguments...);
  }

  // AsLaunched: the item takes a slot per block of its grid, one atomic for them all, and each slot holds
  // the item with the block it runs. An item of more than kStoredBlocks blocks is worth a launch of its
  // own and gets one while the budget lasts. An item past the level's buffer is launched directly (through
  // the budget) and its slots are left empty (no blocks), or, when the budget is spent, stored all the same
  // while the queue's memory lasts; past that it is launched whatever the budget says, retried.
  static constexpr unsigned long long kStoredBlocks = 64ull;
  template <typename Kernel, typename... Arguments>
  __device__ void append_blocks(const Level& level, Kernel direct, dim3 grid, dim3 block, const Arguments&... arguments) {
    const unsigned parity = (level.index + 1u) & 1u;
    const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    const Level own = {level.index, ~0ull, false, 0u};  // (a grid of one item runs no consumer loop)
    if (blocks > kStoredBlocks && pdcc::launched([&] { direct<<<grid, block>>>(own, arguments...); })) {
      atomicAdd(&this->direct[parity], 1ull);
      return;
    }
    const unsigned long long slot = atomicAdd(&count[parity], blocks);
    atomicAdd(&groups[parity], groups_of(grid, block));
    bool stored = slot + blocks <= capacity(level.groups);
    if (!stored && slot + blocks <= kItems) {
      stored = !pdcc::launched([&] { direct<<<grid, block>>>(own, arguments...); });
      if (!stored) atomicAdd(&this->direct[parity], 1ull);
    }
    for (unsigned long long b = 0; b < blocks && slot + b < kItems; ++b) {
      ::new (items(parity) + slot + b) Record(stored ? grid : dim3(0u, 0u, 0u), block, arguments...);
      block_of[parity][slot + b] = (unsigned)b;
    }
    if (stored || slot + blocks <= kItems) return;
    atomicAdd(&this->direct[parity], 1ull);
    pdcc::hold_launch();
    pdcc::launch_item(direct, own, grid, block, arguments...);
  }

  // The consumer of a level: every item of its queue through `item` (the child's body), `once...` the
  // arguments the items share. A consumer thread runs a whole item, or a consumer block does (as launched:
  // one block of it).
  template <typename Item, typename... Once>
  __device__ void run_level(const Level& level, Item item, const Once&... once) {
    const unsigned parity = level.index & 1u;
    const unsigned long long stored = this->stored(parity);
    const Record* run = items(parity);
    if (ThreadPerItem) {
      for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < stored;
           i += (unsigned long long)level.blocks * blockDim.x)
        pdcc::run_item(level, run[i], record_total(run[i]), 0u, 1u, item, once...);
    } else if (AsLaunched) {
      for (unsigned long long i = blockIdx.x; i < stored; i += level.blocks) {
        const Record& r = run[i];
        if (r.grid.x * r.grid.y * r.grid.z == 0u) continue;  // launched directly: the slot is empty
        if (record_threads(r) != blockDim.x) __trap();  // pdcc launches the consumer with the items' block size
        const uint3 block = unflatten_wide(block_of[parity][i], r.grid), thread = unflatten(threadIdx.x, r.block);
        pdcc::call_with_arguments(
            [&](const auto&... arguments) { item(level, block, thread, r.grid, r.block, arguments...); }, r, once...);
        __syncthreads();  // the block's next slot reuses this one's shared memory
      }
    } else {
      for (unsigned long long i = blockIdx.x; i < stored; i += level.blocks)
        pdcc::run_item(level, run[i], record_total(run[i]), threadIdx.x, blockDim.x, item, once...);
    }
  }

  // The consumer of a level whose items' guard turns threads away (their live threads counted at the
  // append): blocks run their live threads packed (run_packed). Only for such items: for the others a block
  // per item is as good, and the packed loop's registers made ptxas spill in mandelbrot's consumer (23%
  // slower on an H100).
  template <typename Item, typename... Once>
  __device__ void run_level_packed(const Level& level, Item item, const Once&... once) {
    static_assert(Packed && !ThreadPerItem && !AsLaunched, "only a queue of guarded items runs packed");
    const unsigned parity = level.index & 1u;
    const unsigned long long stored = this->stored(parity);
    const Record* run = items(parity);
    if (items_per_block(stored, level.blocks, blockDim.x) == 1ull) {  // a narrow level: a block per item
      for (unsigned long long i = blockIdx.x; i < stored; i += level.blocks)
        pdcc::run_item(level, run[i], live_of[parity][i], threadIdx.x, blockDim.x, item, once...);
    } else {
      pdcc::run_packed(level, run, live_of[parity], stored, item, once...);
    }
  }

  // The next level's share of this queue, once the level `index` is over: the items appended to it, the
  // groups of their launches, and the consumer blocks they want (`threads` threads each).
  __device__ unsigned long long appended(unsigned index) const {
    return *(volatile const unsigned long long*)&count[(index + 1u) & 1u];
  }
  __device__ unsigned long long launches(unsigned index) const {  // (AsLaunched: appended counts blocks)
    return G == kGridGroup && !AsLaunched ? appended(index) : *(volatile const unsigned long long*)&groups[(index + 1u) & 1u];
  }
  __device__ unsigned long long launched(unsigned index) const {
    return *(volatile const unsigned long long*)&direct[(index + 1u) & 1u];
  }
  __device__ unsigned long long blocks_wanted(unsigned index, unsigned threads) const {
    const unsigned long long stored = appended(index) < kItems ? appended(index) : kItems;
    if (ThreadPerItem) return (stored + threads - 1u) / threads;
    if (!Packed || stored == 0ull) return stored;
    // blocks that the items' live threads fill once, or that take every item in one pass when most have
    // none (at most one per item)
    const unsigned long long live = *(volatile const unsigned long long*)&passing[(index + 1u) & 1u];
    const unsigned long long filled = (live + threads - 1u) / threads, passes = (stored + threads - 1u) / threads;
    const unsigned long long wanted = filled > passes ? filled : passes;
    return wanted < stored ? wanted : stored;
  }
  // Empties the queue level `index` ran: it takes the level after next.
  __device__ void level_ran(unsigned index) {
    count[index & 1u] = groups[index & 1u] = direct[index & 1u] = passing[index & 1u] = 0ull;
  }

  // The end of a level, in every thread of its grid: the last block to finish empties the queue the level
  // ran and, when the level appended anything, starts the next with `blocks` blocks (0: enough for its
  // items) of `threads` threads. `others`: the queues of the other kernels of a mutual recursion, whose
  // levels run in the same grids (one consumer runs every queue's items of a level), so the level is over
  // for all of them at once. A failed tail launch is retried with back-off; past kLaunchRetryLimitNs per
  // wait __trap() stops the program rather than losing work.

  // Level 0, the grid the program launched (the user's kernel: no shared memory of pdcc's in it): its last
  // block tail-launches the consumer of level 1 when level 0 appended anything.
  template <typename Launch, typename... Others>
  __device__ void level_done(const Level& level, unsigned threads, unsigned blocks, Launch launch, Others&... others) {
    __syncthreads();
    if (linear_thread() != 0u) return;
    __threadfence();
    if (atomicAdd(&blocks_done, 1u) != grid_blocks() - 1u) return;
    __threadfence();  // acquire: the appends of every other block of the level
    const Next next = plan_next(level, threads, blocks, false, others...);
    if (next.any) launch_next(next, threads, launch);
  }

  // A consumer grid: true when it goes on with the next level itself (`level` is then that level), false
  // when it is over (the recursion ended, or the next level was tail-launched). A grid of at most one
  // block per SM (`level.may_wait`, decided where it was launched) waits for its last block at a barrier
  // and goes on in place when the next level wants no more blocks than ran this one and launched no grid of
  // its own (the blocks it does not want leave; one left alone needs no barrier): a narrow level then costs
  // a barrier (~3 us on an H200) instead of a tail launch (~14 us),
  // bench/probes/level_chaining.cu. Else the next level is tail-launched: a tail launch starts once this
  // grid and all its children are done, so grids launched directly are waited for too. A block that has
  // waited kLevelWaitNs gives up the round (bit 0 of `barrier`) and leaves; the last block then
  // tail-launches the next level instead.
  template <typename Launch, typename... Others>
  __device__ bool next_level(Level& level, unsigned threads, unsigned blocks, Launch launch, Others&... others) {
    if (!level.may_wait) {
      level_done(level, threads, blocks, launch, others...);
      return false;
    }
    __syncthreads();
    if (level.blocks == 1u) return next_level_alone(level, threads, blocks, launch, others...);
    bool stays_here = false;
    if (linear_thread() == 0u) {
      const unsigned round = *(volatile unsigned*)&barrier;  // before arriving: it cannot move before that
      __threadfence();
      if (atomicAdd(&blocks_done, 1u) == level.blocks - 1u) {
        __threadfence();  // acquire: the appends of every other block of the level
        const Next next = plan_next(level, threads, blocks, (round & 1u) == 0u, others...);
        if (next.here) {
          continued = next.level;
          stays = true;
          __threadfence();  // release: the level, and every append, to the blocks that waited
          stays_here = atomicCAS(&barrier, round, round + 2u) == round;
        }
        if (!stays_here) {  // over, launched, or given up by a waiting block while this one decided
          stays = false;
          if (next.any) launch_next(next, threads, launch);
          __threadfence();
          atomicExch(&barrier, (round & ~1u) + 2u);  // the next round, open; the waiters leave
        }
      } else if ((round & 1u) == 0u) {
        const unsigned long long since = global_ns();
        unsigned now;
        for (unsigned wait = 32; (now = *(volatile unsigned*)&barrier) == round; wait = wait < 256u ? wait * 2u : wait) {
          if (global_ns() - since > kLevelWaitNs && atomicCAS(&barrier, round, round | 1u) == round) {
            now = round | 1u;  // given up: this block leaves
            break;
          }
          __nanosleep(wait);
        }
        __threadfence();  // acquire: the level the last block chose, and every block's appends
        // The round closed (not given up) when `barrier` has moved past it. A block held up here long enough
        // may see a later round given up (round + 3): that is not this round's, whose `stays` still holds
        // (the next level cannot end without this block).
        stays_here = (now >> 1) != (round >> 1) && *(volatile bool*)&stays;
      }
    }
    // The block learns it from its first thread at the barrier (no shared memory of pdcc's: the items' own
    // may take all there is), and leaves when the next level needs fewer blocks than this one.
    if (!__syncthreads_or(stays_here)) return false;
    return continue_with(level);
  }

  // The level the grid goes on with (`continued`, written before the barrier this block has passed), true
  // when this block runs it: a narrower level's blocks are its first ones, the others leave. (A leaving block
  // held up may read a later level's `continued`; it leaves all the same, since a grid's levels never want
  // more blocks than it still runs.)
  __device__ bool continue_with(Level& level) const {
    level = Level{*(volatile const unsigned*)&continued.index, *(volatile const unsigned long long*)&continued.groups,
                  true, *(volatile const unsigned*)&continued.blocks};
    return blockIdx.x < level.blocks;
  }

  // next_level in a grid of one block, or whose other blocks have left (after its barrier): no other block
  // to count, wait for or tell, and every append of the level made by its own threads, which the barrier
  // makes visible to its first thread, so no fence, atomic or round of the in-place barrier (on a deep,
  // narrow recursion most levels run so).
  template <typename Launch, typename... Others>
  __device__ bool next_level_alone(Level& level, unsigned threads, unsigned blocks, Launch launch, Others&... others) {
    bool stays_here = false;
    if (linear_thread() == 0u) {
      const Next next = plan_next(level, threads, blocks, true, others...);
      if (next.here) continued = next.level;
      else if (next.any) launch_next(next, threads, launch);
      stays_here = next.here;
    }
    if (!__syncthreads_or(stays_here)) return false;
    return continue_with(level);
  }

  // What follows a level: whether anything does, its Level, the blocks it wants, and whether the grid that
  // ran this one goes on with it (`may_stay`: it may, when it fits).
  struct Next {
    bool any;
    bool here;
    Level level;
    unsigned blocks;
  };

  // In the last block of a level to finish (its first thread, which has seen every block's appends): the
  // bookkeeping and what follows. The recursion is over when the level appended nothing and launched no grid
  // of its own (an item launched directly may append to the next level while this one ends: the next
  // level's consumer starts after it).
  template <typename... Others>
  __device__ Next plan_next(const Level& level, unsigned threads, unsigned blocks, bool may_stay, Others&... others) {
    blocks_done = 0u;
    const unsigned long long direct_all = (launched(level.index) + ... + others.launched(level.index));
    level_ran(level.index);
    (others.level_ran(level.index), ...);
    const unsigned long long appended_all = (appended(level.index) + ... + others.appended(level.index));
    const unsigned long long launches_all = (launches(level.index) + ... + others.launches(level.index));
    // Enough blocks for the largest queue's items stored so far (blocks_wanted: packed items by their live
    // threads; the consumer runs each queue with all its blocks); grids this level launched directly may
    // still append, and the consumer's loops stride over those too.
    unsigned long long wanted = blocks_wanted(level.index, threads);
    ((wanted = others.blocks_wanted(level.index, threads) > wanted ? others.blocks_wanted(level.index, threads) : wanted),
     ...);
    if (blocks) wanted = blocks;
    wanted = wanted < 1ull ? 1ull : wanted < kMaxGridBlocks ? wanted : kMaxGridBlocks;
    const bool any = appended_all != 0ull || direct_all != 0ull;
    const bool here = any && may_stay && level.may_wait && direct_all == 0ull && wanted <= level.blocks;
    return {any, here, {level.index + 1u, launches_all, here || wanted <= resident_blocks(), (unsigned)wanted},
            (unsigned)wanted};
  }

  // The consumer of the next level as a tail launch, retried.
  template <typename Launch>
  __device__ void launch_next(const Next& next, unsigned threads, Launch launch) {
    (void)cudaGetLastError();
    for (unsigned wait = 64; launch(next.blocks, threads, next.level) != cudaSuccess; wait *= 2) {
      if (wait > kLaunchRetryLimitNs) __trap();
      __nanosleep(wait);
    }
  }
};
#endif  // PDCC_RT_NO_DEVICE_RUNTIME

}  // namespace pdcc
