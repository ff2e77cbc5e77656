// The device runtime (pragmadp/runtime/pdcc_rt.cuh) on its own, without dynamic parallelism, so that
// compute-sanitizer's racecheck and synccheck (which cannot follow device-side launches) see every
// shared-memory access of the scans and group counters that pdcc's aggregated parents use.
// Prints "runtime ok" and exits 0, or names the first wrong value and exits 1.
//   nvcc -arch=sm_90 -I pragmadp/runtime tests/cuda/runtime_check.cu -o runtime_check
#include <algorithm>
#include <cstdio>
#include <vector>

#include "pdcc_rt.cuh"

struct Record {
  int payload;
  dim3 pdcc_grid;
  dim3 pdcc_block;
};

constexpr unsigned kCoarsen = 3;

// Record i of block b: a grid of ((i * 7 + b) % 11) x 1 x (1 + i % 2) blocks of (32 + i % 5 * 32) threads.
__host__ __device__ Record make_record(unsigned block, unsigned i) {
  return Record{(int)i, dim3((i * 7u + block) % 11u, 1u, 1u + i % 2u), dim3(32u + i % 5u * 32u)};
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

// multiblock groups: the first block of each group takes its storage, every thread appends, and the
// last block to finish counts the records (which must be every thread's of the group) and frees the slot.
__global__ void group_check(pdcc::GroupSlot* slots, pdcc::Pool* pool, unsigned char* storage,
                            unsigned long long storage_bytes, unsigned per_group, unsigned* counted) {
  __shared__ pdcc::GroupSlot* slot;
  __shared__ int last;
  const unsigned group = pdcc::linear_block() / per_group;
  if (pdcc::linear_thread() == 0) {
    const unsigned groups = (gridDim.x + per_group - 1) / per_group;
    const unsigned capacity = pdcc::records_that_fit((unsigned long long)per_group * blockDim.x, storage_bytes,
                                                     groups, 1u, sizeof(unsigned));
    slot = pdcc::join_group(slots, group, *pool, storage, storage_bytes, capacity, sizeof(unsigned));
  }
  __syncthreads();
  const unsigned at = atomicAdd(&slot->count, 1u);
  if (at < slot->capacity) reinterpret_cast<unsigned*>(slot->records)[at] = pdcc::linear_block();
  __threadfence();
  __syncthreads();
  if (pdcc::linear_thread() == 0) {
    const unsigned members = min(per_group, gridDim.x - group * per_group);
    last = atomicAdd(&slot->blocks_done, 1u) == members - 1u;
  }
  __syncthreads();
  if (last && pdcc::linear_thread() == 0) {
    __threadfence();
    unsigned sum = 0;
    const unsigned n = min(*(volatile unsigned*)&slot->count, slot->capacity);
    for (unsigned i = 0; i < n; ++i) sum += reinterpret_cast<unsigned*>(slot->records)[i] / per_group == group;
    counted[group] = sum;
    slot->records = nullptr;
    slot->count = slot->blocks_done = 0;
    __threadfence();
    atomicExch(&slot->state, 0);
  }
  if (pdcc::linear_thread() == 0) pdcc::pool_block_done(*pool);
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
      unsigned n = (r.pdcc_grid.x + kCoarsen - 1) / kCoarsen * r.pdcc_grid.y * r.pdcc_grid.z;
      sum += n;
      owner.insert(owner.end(), n, i);
      most = std::max(most, r.pdcc_block.x);
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
        want += (r.pdcc_grid.x + kCoarsen - 1) / kCoarsen * r.pdcc_grid.y * r.pdcc_grid.z;
        widest_want = std::max(widest_want, r.pdcc_block.x);
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

static int check_groups(unsigned blocks, unsigned per_group, unsigned long long storage_bytes) {
  const unsigned groups = (blocks + per_group - 1) / per_group;
  pdcc::GroupSlot* slots;
  pdcc::Pool* pool;
  unsigned char* storage;
  unsigned* counted;
  CHECK(cudaMalloc(&slots, sizeof(pdcc::GroupSlot) * groups));
  CHECK(cudaMemset(slots, 0, sizeof(pdcc::GroupSlot) * groups));
  CHECK(cudaMalloc(&pool, sizeof(pdcc::Pool)));
  CHECK(cudaMemset(pool, 0, sizeof(pdcc::Pool)));
  CHECK(cudaMalloc(&storage, storage_bytes));
  CHECK(cudaMalloc(&counted, sizeof(unsigned) * groups));
  for (int round = 0; round < 3; ++round) {  // slots and pool are reused by the next launch
    CHECK(cudaMemset(counted, 0xff, sizeof(unsigned) * groups));
    group_check<<<blocks, 64>>>(slots, pool, storage, storage_bytes, per_group, counted);
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> h(groups);
    CHECK(cudaMemcpy(h.data(), counted, sizeof(unsigned) * groups, cudaMemcpyDeviceToHost));
    // Every thread appends one record; a group keeps what its fair share of the storage holds.
    const unsigned long long chunk = storage_bytes / groups, share = chunk > 128 ? (chunk - 128) / 8 : 0;
    for (unsigned g = 0; g < groups; ++g) {
      const unsigned members = (unsigned)std::min<unsigned long long>(std::min(per_group, blocks - g * per_group) * 64u,
                                                                      std::min<unsigned long long>(per_group * 64u, share));
      if (h[g] != members) {
        std::printf("groups of %u: round %d group %u kept %u records, want %u\n", per_group, round, g, h[g], members);
        return 1;
      }
    }
  }
  cudaFree(slots); cudaFree(pool); cudaFree(storage); cudaFree(counted);
  return 0;
}

int main() {
  const dim3 shapes[] = {dim3(256), dim3(100), dim3(16, 12), dim3(8, 4, 3), dim3(1024), dim3(1)};
  for (const dim3& shape : shapes)
    if (check_scans(dim3(5, 3), shape)) return 1;
  if (check_groups(96, 8, 1 << 20) || check_groups(100, 7, 1 << 20) || check_groups(33, 64, 1 << 20) ||
      check_groups(96, 8, 4096) || check_groups(200, 1, 16384))  // storage too small: the fair share caps each group
    return 1;
  std::printf("runtime ok\n");
  return 0;
}
