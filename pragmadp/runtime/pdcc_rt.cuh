// pdcc's device runtime: the small pieces every aggregated site shares. pdcc puts this directory on
// nvcc's include path when a file needs it; it has no host code and allocates nothing by itself.
#pragma once

#include <cuda_runtime.h>

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

// A parent grid's record pool: a bump allocator over a static array, reset by the grid's last block
// (the next launch of the parent cannot start before this grid's children have finished reading it).
struct Pool {
  unsigned long long used;
  unsigned blocks_done;
};

__device__ __forceinline__ unsigned char* pool_take(Pool& pool, unsigned char* storage, unsigned long long capacity,
                                                    unsigned long long bytes) {
  bytes = (bytes + 127ull) & ~127ull;  // chunks start on their own cache lines (storage is 128-aligned)
  const unsigned long long at = atomicAdd(&pool.used, bytes);
  return at + bytes <= capacity ? storage + at : nullptr;
}

// Records per group: what the launch asks for (`wanted`), but no more than a fair share of the pool:
// the pool is cut into `chunks` (one per block, or per multi-block group), each rounded to 128 bytes by
// pool_take, and a chunk holds `groups_per_chunk` groups (the warps of a block), so that every group gets
// storage and only the excess launches directly.
__device__ __forceinline__ unsigned records_that_fit(unsigned long long wanted, unsigned long long pool_bytes,
                                                     unsigned long long chunks, unsigned long long groups_per_chunk,
                                                     unsigned long long record_bytes) {
  const unsigned long long bytes = pool_bytes / (chunks ? chunks : 1ull);
  const unsigned long long per_group = bytes > 128ull ? (bytes - 128ull) / (groups_per_chunk ? groups_per_chunk : 1ull) : 0ull;
  const unsigned long long share = per_group / (record_bytes + 4ull);
  const unsigned long long records = wanted < share ? wanted : share;
  return records < 0xffffffffull ? (unsigned)records : 0xffffffffu;
}

// Called once per parent block after its last use of the pool.
__device__ __forceinline__ void pool_block_done(Pool& pool) {
  const unsigned total = gridDim.x * gridDim.y * gridDim.z;
  __threadfence();
  if (atomicAdd(&pool.blocks_done, 1u) == total - 1u) {
    pool.used = 0;
    pool.blocks_done = 0;
    __threadfence();
  }
}

// One multi-block group's shared state (multiblock(K) and grid granularity), in a static array per
// site indexed by group. The first block of the group to start takes the group's records from the
// pool; the last block to finish launches them and clears the slot for the parent's next launch.
struct GroupSlot {
  unsigned char* records;
  unsigned capacity;
  unsigned count;
  unsigned blocks_done;
  int state;  // 0 free, 1 being set up, 2 ready
};

// The slot of this block's group, set up by whichever block of the group comes first.
__device__ __forceinline__ GroupSlot* join_group(GroupSlot* slots, unsigned group, Pool& pool, unsigned char* storage,
                                                 unsigned long long storage_bytes, unsigned capacity,
                                                 unsigned record_bytes) {
  GroupSlot* slot = &slots[group];
  if (atomicCAS(&slot->state, 0, 1) == 0) {
    slot->records = pool_take(pool, storage, storage_bytes, (unsigned long long)capacity * (record_bytes + 4u));
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

}  // namespace pdcc
