// How long does one level of a chain of device launches take, by the stream it is launched into? (issue 11)
// A consolidated recursion's last block starts the next level: a tail launch (pdcc today) starts once the
// launching grid is done; a fire-and-forget or default-stream launch starts at once, but its parent stays
// pending until it ends, so such chains are bounded by the pending-launch pool (REFERENCE.md: 2,049 levels).
// Each kernel below is one block of `threads` threads whose thread 0 launches the next level.
// Prints one JSON line per (stream, levels, threads): median of 7 timed runs after a warm-up, µs per level.
// Build: nvcc -arch=sm_90 -O3 -rdc=true bench/probes/launch_chain.cu -o launch_chain -lcudadevrt
#include <algorithm>
#include <cstdio>
#include <vector>

enum Stream { kTail, kFireAndForget, kDefault };

__global__ void chain(unsigned* visits, int level, int levels, int stream) {
  atomicAdd(visits, 1u);
  if (threadIdx.x != 0 || level + 1 >= levels) return;
  if (stream == kTail) chain<<<1, blockDim.x, 0, cudaStreamTailLaunch>>>(visits, level + 1, levels, stream);
  else if (stream == kFireAndForget) chain<<<1, blockDim.x, 0, cudaStreamFireAndForget>>>(visits, level + 1, levels, stream);
  else chain<<<1, blockDim.x>>>(visits, level + 1, levels, stream);
}

int main() {
  unsigned* visits;
  cudaMalloc(&visits, sizeof(unsigned));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const char* names[] = {"tail", "fire_and_forget", "default"};
  for (int threads : {32, 256}) {
    for (int levels : {8, 16, 32, 64, 512}) {
      for (int stream = kTail; stream <= kDefault; ++stream) {
        std::vector<float> ms;
        bool ok = true;
        for (int run = 0; run < 8; ++run) {
          cudaMemset(visits, 0, sizeof(unsigned));
          cudaEventRecord(start);
          chain<<<1, threads>>>(visits, 0, levels, stream);
          cudaEventRecord(stop);
          cudaError_t e = cudaEventSynchronize(stop);
          unsigned seen = 0;
          cudaMemcpy(&seen, visits, sizeof(unsigned), cudaMemcpyDeviceToHost);
          ok = ok && e == cudaSuccess && seen == (unsigned)(levels * threads);
          float t = 0;
          cudaEventElapsedTime(&t, start, stop);
          if (run > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        std::printf("{\"stream\": \"%s\", \"levels\": %d, \"threads\": %d, \"median_ms\": %.4f, \"us_per_level\": %.2f, "
                    "\"correct\": %s}\n", names[stream], levels, threads, ms[3], ms[3] * 1000.0 / levels,
                    ok ? "true" : "false");
      }
    }
  }
  return 0;
}
