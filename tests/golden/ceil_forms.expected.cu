#line 1 "ceil_forms.cu"
#include "pdcc_rt.cuh"  // pdcc: the device runtime
#line 1 "ceil_forms.cu"
// Every ceiling-division form of seed 000 §III-D, one parent each.
#include <cmath>

__global__ void add_one(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1;
}
#line 2 "ceil_forms.cu"

// pdcc: the body of 'add_one' for one (block, thread), built-ins passed in
static __device__ void add_one__pdcc_thread(const uint3 pdcc_blockIdx, const uint3 pdcc_threadIdx, const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, int* out, int n) {
  int i = pdcc_blockIdx.x * pdcc_blockDim.x + pdcc_threadIdx.x;
  if (i < n) out[i] += 1;
}
#line 4 "ceil_forms.cu"

// pdcc: every thread of a 'add_one' launch, one after another, in the calling thread
static __device__ __noinline__ void add_one__pdcc_serial(const dim3 pdcc_gridDim, const dim3 pdcc_blockDim, int* out, int n)
{
  for (unsigned int pdcc_bz = 0; pdcc_bz < pdcc_gridDim.z; ++pdcc_bz)
  for (unsigned int pdcc_by = 0; pdcc_by < pdcc_gridDim.y; ++pdcc_by)
  for (unsigned int pdcc_bx = 0; pdcc_bx < pdcc_gridDim.x; ++pdcc_bx)
  for (unsigned int pdcc_tz = 0; pdcc_tz < pdcc_blockDim.z; ++pdcc_tz)
  for (unsigned int pdcc_ty = 0; pdcc_ty < pdcc_blockDim.y; ++pdcc_ty) {
    #pragma unroll 4
    for (unsigned int pdcc_tx = 0; pdcc_tx < pdcc_blockDim.x; ++pdcc_tx)
      add_one__pdcc_thread(make_uint3(pdcc_bx, pdcc_by, pdcc_bz), make_uint3(pdcc_tx, pdcc_ty, pdcc_tz), pdcc_gridDim, pdcc_blockDim, out, n);
  }
}

// pdcc: 'add_one' as pdcc launches it, through the launch budget (pdcc_rt.cuh)
static __global__ void __launch_bounds__(1024) add_one__pdcc_counted(int* out, int n)
{
  pdcc::launch_started();
  add_one__pdcc_thread(blockIdx, threadIdx, gridDim, blockDim, out, n);
}
#line 8 "ceil_forms.cu"

// (a) (N - 1)/b + 1
#line 7 "ceil_forms.cu"
#ifndef PDCC_THRESHOLD_form_a_0
#define PDCC_THRESHOLD_form_a_0 64
#endif
__global__ void __launch_bounds__(1024) form_a(int* out, const int* len) {
  int n = len[threadIdx.x];
// pdcc: #pragma dp threshold(64)
  { // pdcc: site form_a_0: below PDCC_THRESHOLD_form_a_0 child threads, run 'add_one' here
    const auto pdcc_n = n;
    const dim3 pdcc_grid = ((pdcc_n - 1) / 128) + 1;
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_form_a_0) {
      if (!pdcc::launched([&] {
            add_one__pdcc_counted<<<pdcc_grid, pdcc_block>>>(out, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    } else {
      add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    }
  }
#line 14 "ceil_forms.cu"
}

// (b) (N + b - 1)/b
#line 14 "ceil_forms.cu"
#ifndef PDCC_THRESHOLD_form_b_0
#define PDCC_THRESHOLD_form_b_0 64
#endif
__global__ void __launch_bounds__(1024) form_b(int* out, const int* len) {
  int n = len[threadIdx.x];
// pdcc: #pragma dp threshold(64)
  { // pdcc: site form_b_0: below PDCC_THRESHOLD_form_b_0 child threads, run 'add_one' here
    const auto pdcc_n = n;
    const dim3 pdcc_grid = ((pdcc_n + 128) - 1) / 128;
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_form_b_0) {
      if (!pdcc::launched([&] {
            add_one__pdcc_counted<<<pdcc_grid, pdcc_block>>>(out, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    } else {
      add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    }
  }
#line 21 "ceil_forms.cu"
}

// (c) N/b + (N%b == 0 ? 0 : 1)
#line 21 "ceil_forms.cu"
#ifndef PDCC_THRESHOLD_form_c_0
#define PDCC_THRESHOLD_form_c_0 64
#endif
__global__ void __launch_bounds__(1024) form_c(int* out, const int* len) {
  int n = len[threadIdx.x];
// pdcc: #pragma dp threshold(64)
  { // pdcc: site form_c_0: below PDCC_THRESHOLD_form_c_0 child threads, run 'add_one' here
    const auto pdcc_n = n;
    const dim3 pdcc_grid = (pdcc_n / 128) + (((pdcc_n % 128) == 0) ? (0) : (1));
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_form_c_0) {
      if (!pdcc::launched([&] {
            add_one__pdcc_counted<<<pdcc_grid, pdcc_block>>>(out, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    } else {
      add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    }
  }
#line 28 "ceil_forms.cu"
}

// (d) ceil((float)N/b)
#line 28 "ceil_forms.cu"
#ifndef PDCC_THRESHOLD_form_d_0
#define PDCC_THRESHOLD_form_d_0 64
#endif
__global__ void __launch_bounds__(1024) form_d(int* out, const int* len) {
  int n = len[threadIdx.x];
// pdcc: #pragma dp threshold(64)
  { // pdcc: site form_d_0: below PDCC_THRESHOLD_form_d_0 child threads, run 'add_one' here
    const auto pdcc_n = n;
    const dim3 pdcc_grid = (int) ceil(((float) pdcc_n) / 128);
    const dim3 pdcc_block = 128;
    if (pdcc_n >= PDCC_THRESHOLD_form_d_0) {
      if (!pdcc::launched([&] {
            add_one__pdcc_counted<<<pdcc_grid, pdcc_block>>>(out, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    } else {
      add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    }
  }
#line 35 "ceil_forms.cu"
}

// (e) ceil(N/(float)b)
#line 35 "ceil_forms.cu"
#ifndef PDCC_THRESHOLD_form_e_0
#define PDCC_THRESHOLD_form_e_0 64
#endif
__global__ void __launch_bounds__(1024) form_e(int* out, const int* len, int block) {
  int n = len[threadIdx.x];
// pdcc: #pragma dp threshold(64)
  { // pdcc: site form_e_0: below PDCC_THRESHOLD_form_e_0 child threads, run 'add_one' here
    const auto pdcc_n = n;
    const dim3 pdcc_grid = ceil(pdcc_n / ((float) block));
    const dim3 pdcc_block = block;
    if ((unsigned long long)pdcc_n * pdcc_block.y * pdcc_block.z >= PDCC_THRESHOLD_form_e_0) {
      if (!pdcc::launched([&] {
            add_one__pdcc_counted<<<pdcc_grid, pdcc_block>>>(out, n); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    } else {
      add_one__pdcc_serial(pdcc_grid, pdcc_block, out, n);
    }
  }
#line 42 "ceil_forms.cu"
}

// N is an expression of several terms: it is evaluated again for the comparison
#line 42 "ceil_forms.cu"
#ifndef PDCC_THRESHOLD_form_terms_0
#define PDCC_THRESHOLD_form_terms_0 64
#endif
__global__ void __launch_bounds__(1024) form_terms(int* out, const int* begin, const int* end) {
  int row = threadIdx.x;
// pdcc: #pragma dp threshold(64)
  { // pdcc: site form_terms_0: below PDCC_THRESHOLD_form_terms_0 child threads, run 'add_one' here
    const dim3 pdcc_grid = (end[row] - begin[row] + 127) / 128;
    const dim3 pdcc_block = 128;
    if ((end[row] - begin[row]) >= PDCC_THRESHOLD_form_terms_0) {
      if (!pdcc::launched([&] {
            add_one__pdcc_counted<<<pdcc_grid, pdcc_block>>>(out + begin[row], end[row] - begin[row]); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        add_one__pdcc_serial(pdcc_grid, pdcc_block, out + begin[row], end[row] - begin[row]);
    } else {
      add_one__pdcc_serial(pdcc_grid, pdcc_block, out + begin[row], end[row] - begin[row]);
    }
  }
#line 49 "ceil_forms.cu"
}

// no ceiling division: grid x block
#line 49 "ceil_forms.cu"
#ifndef PDCC_THRESHOLD_no_division_0
#define PDCC_THRESHOLD_no_division_0 64
#endif
__global__ void __launch_bounds__(1024) no_division(int* out, int blocks) {
// pdcc: #pragma dp threshold(64)
  { // pdcc: site no_division_0: below PDCC_THRESHOLD_no_division_0 child threads, run 'add_one' here
    const dim3 pdcc_grid = blocks;
    const dim3 pdcc_block = 32;
    if ((unsigned long long)pdcc_grid.x * pdcc_block.x * pdcc_grid.y * pdcc_grid.z >= PDCC_THRESHOLD_no_division_0) {
      if (!pdcc::launched([&] {
            add_one__pdcc_counted<<<pdcc_grid, pdcc_block>>>(out, blocks * 32); // pdcc: generated
          })) // over the launch budget, or the launch failed: no work lost
        add_one__pdcc_serial(pdcc_grid, pdcc_block, out, blocks * 32);
    } else {
      add_one__pdcc_serial(pdcc_grid, pdcc_block, out, blocks * 32);
    }
  }
#line 55 "ceil_forms.cu"
}
