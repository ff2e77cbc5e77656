#line 1 "meld_counted_loops.cu"
// A two-ended merge (samples/meld_merge): the even thread merges a pair of sorted runs from the front, the
// odd one from the back. The two loops walk in opposite directions with the same trip count, so they meld
// into one counted loop over the trip number, each side's counter derived from it.
#line 1 "meld_counted_loops.cu"
#ifndef PDCC_MELD_MIN_TRIPS_merge_runs_0
#define PDCC_MELD_MIN_TRIPS_merge_runs_0 256
#endif
__global__ void merge_runs(const int* in, int* out, long long n, int run) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long base = t / 2 * 2 * run;
  if (base >= n) return;
  const int* a = in + base;
  const int* b = a + run;
  int* merged = out + base;

  // pdcc: #pragma meld
  { // meld site merge_runs_0: profitability 0.47, 12 of 20 statements melded, 3 selects
    const bool pdcc_then = t % 2 == 0;
    int i{};
    int j{};
    if (pdcc_then) {
      i = 0;
      j = 0;
    } else {
      i = run - 1;
      j = run - 1;
    }
    if (run >= PDCC_MELD_MIN_TRIPS_merge_runs_0) {
      for (int k_step = 0; k_step < run; ++k_step) {
        const int k = pdcc_then ? k_step : 2 * run - 1 - k_step;
        int x = a[i];
        int y = b[j];
        if (x <= y) {
          const int x_or_y = pdcc_then ? x : y;
          merged[k] = x_or_y;
          if (pdcc_then) {
            ++i;
          } else {
            --j;
          }
        } else {
          const int y_or_x = pdcc_then ? y : x;
          merged[k] = y_or_x;
          if (pdcc_then) {
            ++j;
          } else {
            --i;
          }
        }
      }
    } else if (pdcc_then) {
      for (int k = 0; k < run; ++k) {
        int x = a[i];
        int y = b[j];
        if (x <= y) {
          merged[k] = x;
          ++i;
        } else {
          merged[k] = y;
          ++j;
        }
      }
    } else {
      for (int k = 2 * run - 1; k >= run; --k) {
        int x = a[i];
        int y = b[j];
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
#line 38 "meld_counted_loops.cu"
}
