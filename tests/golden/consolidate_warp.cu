// Consolidation at warp granularity without other clauses: a recursive binary split (quicksort's shape)
// whose two launches of one thread each make it a thread per item; the work item is every argument
// that varies (lo, hi); the partition in a device function of the file takes its arguments by value.
__device__ int partition(float* data, int lo, int hi) {
  float pivot = data[hi];
  int store = lo;
  for (int k = lo; k < hi; ++k)
    if (data[k] < pivot) {
      float t = data[k]; data[k] = data[store]; data[store] = t;
      ++store;
    }
  float t = data[hi]; data[hi] = data[store]; data[store] = t;
  return store;
}

__global__ void split(float* data, int lo, int hi, int cutoff) {
  if (hi - lo < cutoff) {
    for (int k = lo + 1; k <= hi; ++k)  // a simple sort below the cutoff
      for (int j = k; j > lo && data[j - 1] > data[j]; --j) {
        float t = data[j]; data[j] = data[j - 1]; data[j - 1] = t;
      }
    return;
  }
  int p = partition(data, lo, hi);
  #pragma dp consldt(warp)
  split<<<1, 1>>>(data, lo, p - 1, cutoff);
  #pragma dp consldt(warp)
  split<<<1, 1>>>(data, p + 1, hi, cutoff);
}
