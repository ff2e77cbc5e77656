// Probe: pdcc's meld of merge.cu (one counted loop over the trip number), one counter update written as a select.
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
      const int step = front ? 1 : -1;
      if (front) i += step; else j += step;
    } else {
      merged[k] = front ? y : x;
      if (front) ++j; else --i;
    }
  }
}

int main(int argc, char** argv) {
  return merge::run(argc, argv, "counted2", [](const int* in, int* out, long long n, int run) {
    const long long threads = n / run;
    merge_runs<<<(unsigned)((threads + 255) / 256), 256>>>(in, out, n, run);
  });
}
