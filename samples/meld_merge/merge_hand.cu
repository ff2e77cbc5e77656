// Merging pairs of sorted runs with two threads per pair, melded by hand: merge.cu with its direction
// branch melded the way a DARM-style meld does it at source level. The two loops are isomorphic regions
// with the same trip count: melded, every part that differs (the start of i, j and k, the loop test, the
// step, the comparison, the value stored) becomes a select on the branch condition; the loads and the
// store have the same addresses on both sides (a[i], b[j], merged[k]) and are done once; the updates of
// different counters (++i beside --j) do not align and stay guarded by the condition.
// Build: nvcc -arch=sm_90 -O3 -I samples/common -I samples/meld_common samples/meld_merge/merge_hand.cu
#include "merge.cuh"

__global__ void merge_runs(const int* in, int* out, long long n, int run) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long base = t / 2 * 2 * run;
  if (base >= n) return;
  const int* a = in + base;
  const int* b = a + run;
  int* merged = out + base;

  // melded `if (t % 2 == 0) {front half} else {back half}`
  const bool front = t % 2 == 0;
  int i = front ? 0 : run - 1, j = front ? 0 : run - 1;
  for (int k = front ? 0 : 2 * run - 1; front ? k < run : k >= run; k += front ? 1 : -1) {
    int x = a[i], y = b[j];
    if (front ? x <= y : y >= x) {
      merged[k] = front ? x : y;
      if (front) ++i; else --j;
    } else {
      merged[k] = front ? y : x;
      if (front) ++j; else --i;
    }
  }
}

int main(int argc, char** argv) {
  return merge::run(argc, argv, "hand", [](const int* in, int* out, long long n, int run) {
    const long long threads = n / run;  // two per pair of runs
    merge_runs<<<(unsigned)((threads + 255) / 256), 256>>>(in, out, n, run);
  });
}
