// Probe: pdcc's counted meld of merge.cu versioned at the site instead of at the loop: from
// PDCC_MELD_MIN_TRIPS trips the whole melded block (its hoisted declarations too), below that the user's
// if/else exactly as written. (pdcc at 0752495 versions the loop only, so its short-run path runs the two
// loops after the hoisted, melded declarations: 0.97x at runs of 64 on an H100.)
#include "merge.cuh"

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
  if (run >= PDCC_MELD_MIN_TRIPS_merge_runs_0) {
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
  } else if (t % 2 == 0) {
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

int main(int argc, char** argv) {
  return merge::run(argc, argv, "site-versioned", [](const int* in, int* out, long long n, int run) {
    const long long threads = n / run;  // two per pair of runs
    merge_runs<<<(unsigned)((threads + 255) / 256), 256>>>(in, out, n, run);
  });
}
