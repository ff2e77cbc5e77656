// A two-ended merge (samples/meld_merge): the even thread merges a pair of sorted runs from the front, the
// odd one from the back. The two loops walk in opposite directions with the same trip count, so they meld
// into one counted loop over the trip number, each side's counter derived from it.
__global__ void merge_runs(const int* in, int* out, long long n, int run) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long base = t / 2 * 2 * run;
  if (base >= n) return;
  const int* a = in + base;
  const int* b = a + run;
  int* merged = out + base;

  #pragma meld
  if (t % 2 == 0) {
    int i = 0, j = 0;
    for (int k = 0; k < run; ++k) {
      int x = a[i], y = b[j];
      if (x <= y) {
        merged[k] = x;
        ++i;
      } else {
        merged[k] = y;
        ++j;
      }
    }
  } else {
    int i = run - 1, j = run - 1;
    for (int k = 2 * run - 1; k >= run; --k) {
      int x = a[i], y = b[j];
      if (y >= x) {
        merged[k] = y;
        --j;
      } else {
        merged[k] = x;
        --i;
      }
    }
  }
}
