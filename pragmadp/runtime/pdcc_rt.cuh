// pdcc's device runtime: the group protocol of aggregated sites (seed 000 §V, KLAP), which every
// aggregated site instantiates with its record type: a SitePool (record storage, multi-block group
// slots), a group in shared memory (WarpGroups, BlockGroup, MultiBlockGroup: open, append, flush), the
// Batch an aggregated grid gets and AggregatedBlock, what each of its blocks runs. pdcc puts this
// directory on nvcc's include path when a file needs it; it has no host code and allocates nothing by
// itself. tests/cuda/runtime_check.cu drives these classes as generated code does.
#pragma once

#include <cuda_runtime.h>

#include <new>

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

// (x, y, z) of a linear index in a box of the given extent, x fastest (the hardware's order).
__device__ __forceinline__ uint3 unflatten(unsigned index, dim3 extent) {
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

// Blocks of one record's (coarsened) child grid and its threads per block.
template <typename Record>
__device__ __forceinline__ unsigned record_blocks(const Record& r, unsigned coarsen) {
  return (r.pdcc_grid.x + coarsen - 1) / coarsen * r.pdcc_grid.y * r.pdcc_grid.z;
}

template <typename Record>
__device__ __forceinline__ unsigned record_threads(const Record& r) {
  return r.pdcc_block.x * r.pdcc_block.y * r.pdcc_block.z;
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

// The same for a whole block (every thread of the block calls it); scratch holds 33 unsigned.
template <typename Record>
__device__ unsigned block_scan_records(const Record* records, unsigned* ends, unsigned count, unsigned coarsen,
                                       unsigned* scratch, unsigned* max_threads) {
  const unsigned me = linear_thread(), threads = block_threads(), lane = me & 31u, warp = me >> 5;
  const unsigned warps = (threads + 31u) / 32u, mask = warp_lanes();
  unsigned carry = 0, widest = 0;
  for (unsigned start = 0; start < count; start += threads) {
    const unsigned i = start + me;
    const unsigned blocks = i < count ? record_blocks(records[i], coarsen) : 0u;
    if (i < count && record_threads(records[i]) > widest) widest = record_threads(records[i]);
    unsigned sum = warp_inclusive_scan(blocks, mask);
    if (lane == 31u - __clz(mask)) scratch[warp] = sum;
    __syncthreads();
    if (warp == 0) {  // warp 0 may be partial in a block of fewer than 32 threads
      const unsigned total = lane < warps ? scratch[lane] : 0u;
      const unsigned scanned = warp_inclusive_scan(total, mask);
      if (lane < warps) scratch[lane] = scanned - total;  // exclusive: what the warps before add
      if (lane == warps - 1u) scratch[32] = scanned;
    }
    __syncthreads();
    sum += scratch[warp] + carry;
    if (i < count) ends[i] = sum;
    carry += scratch[32];
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
      while (atomicAdd(&slot->state, 0) != 2) {
      }
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
};

constexpr unsigned kRetryLimitNs = 1u << 18;  // about 0.5 ms of waiting in all before the one-by-one fallback

// The group's leader launches the batch (`launch(batch)` returns the launch's cudaGetLastError()). A
// failed launch (pending-launch pool full?) is retried with doubling back-off while launches drain; at
// last each record goes on its own through `direct(record)`, so no work is lost. Stale errors are
// cleared first (else a launch that worked would look failed and run twice); runtime_check.cu, whose
// "launch" launches nothing, defines PDCC_RT_NO_DEVICE_RUNTIME to build without -rdc, as
// compute-sanitizer's racecheck and synccheck need.
template <typename Record, typename Launch, typename Direct>
__device__ void launch_batch(const Batch<Record>& batch, Launch& launch, Direct& direct) {
#ifndef PDCC_RT_NO_DEVICE_RUNTIME
  (void)cudaGetLastError();
#endif
  for (unsigned wait = 64; launch(batch) != cudaSuccess; wait *= 2) {
    if (wait > kRetryLimitNs) {
      for (unsigned i = 0; i < batch.count; ++i) direct(batch.records[i]);
      break;
    }
    __nanosleep(wait);
  }
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
    __threadfence();  // visible to the child grid another thread of the group launches
    return true;
  }

  // Every group launches its records as one grid, or one by one when fewer than `few`; then the block
  // is done with the pool. After the aggregated launch no thread waits for the launching one.
  template <typename Record, typename Site, typename Launch, typename Direct>
  __device__ void flush(Site& site, unsigned coarsen, unsigned few, Launch launch, Direct direct) {
    const unsigned mask = PerWarp ? warp_lanes() : 0u, lane = linear_thread() & 31u, g = group();
    if (PerWarp) __syncwarp(mask); else __syncthreads();
    Record* records = reinterpret_cast<Record*>(chunk) + g * capacity;
    unsigned* ends = reinterpret_cast<unsigned*>(reinterpret_cast<Record*>(chunk) + groups() * capacity) + g * capacity;
    const unsigned n = chunk ? min(count[g], capacity) : 0u;
    if (n >= few) {
      unsigned widest = 0;
      const unsigned total = PerWarp ? warp_scan_records(records, ends, n, coarsen, mask, &widest)
                                     : block_scan_records(records, ends, n, coarsen, scratch, &widest);
      if ((PerWarp ? lane : linear_thread()) == 0u) launch_batch(Batch<Record>{records, ends, n, total, widest}, launch, direct);
    } else {  // too few records to be worth a group launch
      const unsigned stride = PerWarp ? __popc(mask) : block_threads();
      for (unsigned i = PerWarp ? lane : linear_thread(); i < n; i += stride) direct(records[i]);
    }
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
    __threadfence();  // visible to the block that launches for the group
    return true;
  }

  // The last block of the group launches its records as one grid (or one by one when fewer than `few`)
  // and releases the slot; then the block is done with the pool.
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
      if (n >= few) {
        unsigned widest = 0;
        const unsigned total = block_scan_records(records, ends, n, coarsen, scratch, &widest);
        if (linear_thread() == 0u) {
          launch_batch(Batch<Record>{records, ends, n, total, widest}, launch, direct);
          group->release();
        }
      } else {  // too few records to be worth a group launch
        for (unsigned i = linear_thread(); i < n; i += block_threads()) direct(records[i]);
        __syncthreads();  // every thread is done with the records
        if (linear_thread() == 0u) group->release();
      }
    }
    if (linear_thread() == 0u) site.block_done();
  }
};

// One block of an aggregated grid: its record (found by binary search over the scanned block counts),
// the first original block it runs (it strides over the record's coarsened grid in x) and its thread.
template <typename Record>
struct AggregatedBlock {
  Record record;
  uint3 block;
  uint3 thread;
  unsigned stride;
  bool idle;  // the record's blocks are smaller than the aggregated grid's: nothing to do
};

template <typename Record>
__device__ AggregatedBlock<Record> aggregated_block(const Batch<Record>& batch, unsigned coarsen, unsigned block_index,
                                                    unsigned thread_index) {
  const unsigned r = find_record(batch.ends, batch.count, block_index);
  const Record& record = batch.records[r];
  const unsigned stride = (record.pdcc_grid.x + coarsen - 1) / coarsen;
  return {record, unflatten(block_index - (r ? batch.ends[r - 1] : 0u), dim3(stride, record.pdcc_grid.y, record.pdcc_grid.z)),
          unflatten(thread_index, record.pdcc_block), stride, thread_index >= record_threads(record)};
}

}  // namespace pdcc
