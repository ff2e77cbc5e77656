// Merging pairs of sorted runs with two threads per pair: the even thread merges from the front and writes
// the `run` smallest keys, the odd thread merges from the back and writes the `run` largest, so the two
// threads of a pair each do half of the merge with no search for a split point. The two sides of the
// direction branch are the same loop walking in opposite directions; they diverge in every warp.
// Build: nvcc -arch=sm_90 -O3 -diag-suppress 20199 -I samples/common -I samples/meld_common samples/meld_merge/merge.cu
#include "merge.cuh"

// Merges runs in[2p*run, (2p+1)*run) and in[(2p+1)*run, (2p+2)*run) into out[2p*run, (2p+2)*run), stably.
__global__ void merge_runs(const int* in, int* out, long long n, int run) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long base = t / 2 * 2 * run;
  if (base >= n) return;
  const int* a = in + base;
  const int* b = a + run;
  int* merged = out + base;

  #pragma meld
  if (t % 2 == 0) {
    // the front half, smallest first; on a tie a's key goes first
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
    // the back half, largest first; on a tie b's key goes last
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
  return merge::run(argc, argv, "annotated", [](const int* in, int* out, long long n, int run) {
    const long long threads = n / run;  // two per pair of runs
    merge_runs<<<(unsigned)((threads + 255) / 256), 256>>>(in, out, n, run);
  });
}
