// Probe: merge.cu's direction branch melded into ONE counted loop (loop normalisation before melding):
// the two loops have the same trip count (run), so the melded loop counts s = 0 .. run-1 and each side's
// own counter is derived from s (k = front ? s : 2*run-1-s). nvcc sees a counted loop again.
#include "merge.cuh"

__global__ void merge_runs(const int* in, int* out, long long n, int run) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long base = t / 2 * 2 * run;
  if (base >= n) return;
  const int* a = in + base;
  const int* b = a + run;
  int* merged = out + base;
  const bool front = t % 2 == 0;
  int i = front ? 0 : run - 1, j = front ? 0 : run - 1;
  for (int s = 0; s < run; ++s) {
    const int k = front ? s : 2 * run - 1 - s;
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
  return merge::run(argc, argv, "counted", [](const int* in, int* out, long long n, int run) {
    const long long threads = n / run;
    merge_runs<<<(unsigned)((threads + 255) / 256), 256>>>(in, out, n, run);
  });
}
