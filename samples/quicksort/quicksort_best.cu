// Quicksort's best version is not a quicksort: an LSD radix sort of the 32-bit keys, CUB's
// DeviceRadixSort (Merrill and Grimshaw's onesweep/decoupled look-back scans), which is what thrust::sort
// runs for arithmetic keys; here with its temporary storage allocated once, outside the timed runs, and the
// keys ping-ponged through a DoubleBuffer instead of copied back.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/quicksort/quicksort_best.cu
#include <cub/device/device_radix_sort.cuh>

#include "quicksort.cuh"

int main(int argc, char** argv) {
  quicksort::Problem p(argc, argv);
  const quicksort::Device& d = p.d;

  size_t temp_bytes = 0;
  cub::DoubleBuffer<unsigned> keys(d.keys, d.buf);
  CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, d.n));
  void* temp = nullptr;
  CUDA_CHECK(cudaMalloc(&temp, std::max<size_t>(1, temp_bytes)));

  int code = p.measure("best", [&] {
    cub::DoubleBuffer<unsigned> run(d.keys, d.buf);
    CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, run, d.n));
    p.result = run.Current();  // the same buffer every run: the pass count depends only on the key width
  });
  CUDA_CHECK(cudaFree(temp));
  return code;
}
