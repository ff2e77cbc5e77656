// How should the levels of a consolidated recursion follow one another on the GPU? (issue 11, item 3)
//
// pdcc chains levels with tail launches: the last block of level L tail-launches the consumer of level
// L + 1 (pdcc_rt.cuh, WorkQueue::level_done). The alternative is a persistent consumer: one grid, sized to
// stay resident on every SM, that loops over the levels and waits for the level's last item at a grid-wide
// barrier (atomics, no device synchronization). This program times both on the same recursions:
//
//   chain  one item of W threads per level, D levels (W = 1: the deep, narrow case a tail launch costs most on)
//   tree   every thread of an item of 2 threads starts one, D levels (2^(D+1) - 2 threads in all: wide levels)
//
// The tail-launched side is the annotated kernel below, built by pdcc (`#pragma dp consldt(block)`); the
// persistent side is written by hand here, with the same work per thread (one atomicAdd) and the same
// items (a block per item, its threads strided over the block). Prints one JSON line per (recursion,
// variant): median of 7 runs after a warm-up, and whether the visits matched.
// Build: pdcc -arch=sm_90 -O3 bench/probes/level_chaining.cu -o level_chaining
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

// ---- tail launches: what pdcc writes for a self-launch under consldt ------------------------------------

__global__ void chain(unsigned long long* visits, int level, int depth) {
  atomicAdd(visits, 1ull);
  if (threadIdx.x == 0 && level + 1 < depth) {
#pragma dp consldt(block)
    chain<<<1, blockDim.x>>>(visits, level + 1, depth);
  }
}

__global__ void tree(unsigned long long* visits, int level, int depth) {
  atomicAdd(visits, 1ull);
  if (level + 1 < depth) {
#pragma dp consldt(block)
    tree<<<1, 2>>>(visits, level + 1, depth);
  }
}

// ---- a persistent consumer --------------------------------------------------------------------------

constexpr unsigned kCapacity = 1u << 22;  // items per level

struct Item {
  int level;
  unsigned threads;
};

struct Persistent {
  unsigned long long count[2];
  unsigned arrived, generation;
  Item items[2][kCapacity];
};
__device__ Persistent persistent;

// Every block waits until all have arrived; the last one to arrive empties the queue the level ran (so the
// level after next can append to it) before it lets the others go.
__device__ void level_barrier(unsigned parity) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned generation = *(volatile unsigned*)&persistent.generation;
    __threadfence();
    if (atomicAdd(&persistent.arrived, 1u) == gridDim.x - 1u) {
      persistent.arrived = 0u;
      persistent.count[parity] = 0ull;
      __threadfence();
      atomicAdd(&persistent.generation, 1u);
    } else {
      for (unsigned wait = 32; *(volatile unsigned*)&persistent.generation == generation; wait = min(wait * 2u, 256u))
        __nanosleep(wait);
    }
    __threadfence();
  }
  __syncthreads();
}

__device__ void append(int level, unsigned threads) {
  const unsigned long long slot = atomicAdd(&persistent.count[(level & 1)], 1ull);
  if (slot < kCapacity) persistent.items[level & 1][slot] = Item{level, threads};
}

// kind 0: chain (thread 0 of an item starts the next, of as many threads), 1: tree (every thread starts one of 2).
__global__ void __launch_bounds__(256) run_persistent(unsigned long long* visits, int depth, int kind) {
  for (int level = 0;; ++level) {
    const unsigned parity = level & 1;
    const unsigned long long stored = min(*(volatile unsigned long long*)&persistent.count[parity], (unsigned long long)kCapacity);
    for (unsigned long long i = blockIdx.x; i < stored; i += gridDim.x) {
      const Item item = persistent.items[parity][i];
      for (unsigned t = threadIdx.x; t < item.threads; t += blockDim.x) {
        atomicAdd(visits, 1ull);
        if ((kind == 1 || t == 0) && item.level + 1 < depth) append(item.level + 1, item.threads);
      }
    }
    level_barrier(parity);
    if (*(volatile unsigned long long*)&persistent.count[parity ^ 1u] == 0ull) return;
  }
}

__global__ void seed(unsigned threads) {
  persistent.count[0] = 1ull;
  persistent.count[1] = 0ull;
  persistent.arrived = 0u;
  persistent.items[0][0] = Item{0, threads};
}

// ---- timing -------------------------------------------------------------------------------------------

template <typename Launch>
static void measure(const char* recursion, const char* variant, int depth, unsigned width, unsigned long long want,
                    unsigned long long* visits, Launch launch) {
  std::vector<float> times;
  bool ok = true;
  for (int run = 0; run < 8; ++run) {
    cudaMemset(visits, 0, sizeof *visits);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    launch();
    cudaEventRecord(stop);
    const cudaError_t error = cudaDeviceSynchronize();
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    unsigned long long got = 0;
    cudaMemcpy(&got, visits, sizeof got, cudaMemcpyDeviceToHost);
    ok = ok && error == cudaSuccess && got == want;
    if (run > 0) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const float median = times[times.size() / 2];
  std::printf("{\"recursion\": \"%s\", \"variant\": \"%s\", \"levels\": %d, \"width\": %u, \"visits\": %llu, "
              "\"median_ms\": %.4f, \"us_per_level\": %.3f, \"correct\": %s}\n",
              recursion, variant, depth, width, want, median, 1000.0f * median / depth, ok ? "true" : "false");
}

int main() {
  unsigned long long* visits;
  cudaMalloc(&visits, sizeof *visits);
  int sms = 0, per_sm = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, run_persistent, 256, 0);
  const unsigned resident = (unsigned)(sms * per_sm);  // every block resident: the barrier cannot deadlock
  struct Shape { const char* name; int kind, depth; unsigned width; };
  const Shape shapes[] = {{"chain", 0, 10000, 1}, {"chain", 0, 2000, 256}, {"chain", 0, 100, 1},
                          {"tree", 1, 12, 2}, {"tree", 1, 20, 2}};
  for (const Shape& s : shapes) {
    const unsigned long long want = s.kind == 0 ? (unsigned long long)s.depth * s.width : (2ull << s.depth) - 2ull;
    measure(s.name, "tail-launch (pdcc)", s.depth, s.width, want, visits, [&] {
      if (s.kind == 0) chain<<<1, s.width>>>(visits, 0, s.depth);
      else tree<<<1, 2>>>(visits, 0, s.depth);
    });
    for (unsigned blocks : {resident, (unsigned)sms}) {
      char name[64];
      std::snprintf(name, sizeof name, "persistent (%u blocks)", blocks);
      measure(s.name, name, s.depth, s.width, want, visits, [&] {
        seed<<<1, 1>>>(s.width);
        run_persistent<<<blocks, 256>>>(visits, s.depth, s.kind);
      });
    }
  }
  return 0;
}
