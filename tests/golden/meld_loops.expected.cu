#line 1 "meld_loops.cu"
// An LU-perimeter-style kernel (Rodinia lud_perimeter): two loop nests over shared memory split on the
// thread index.
#define BS 16
__global__ void perimeter(float *m, int offset, int size)
{
  __shared__ float dia[BS * BS], row[BS * BS], col[BS * BS];
  int idx, i, j;
  for (i = threadIdx.x; i < BS * BS; i += blockDim.x) {
    dia[i] = m[offset + i / BS * size + i % BS];
    row[i] = m[offset + i / BS * size + BS + i % BS];
    col[i] = m[offset + (BS + i / BS) * size + i % BS];
  }
  __syncthreads();
// pdcc: #pragma meld
  { // meld site perimeter_0: profitability 0.37, 6 of 9 statements melded, 8 selects
    const bool pdcc_then = threadIdx.x < BS;
    if (pdcc_then) {
      idx = threadIdx.x;
    } else {
      idx = threadIdx.x - BS;
    }
    float *const row_or_col = pdcc_then ? row : col;
    float *const dia_or_col = pdcc_then ? dia : col;
    float *const row_or_dia = pdcc_then ? row : dia;
    for (i = pdcc_then ? 1 : 0; i < BS; i++) {
      for (j = 0; j < i; j++) {
        const int i_or_idx = pdcc_then ? i : idx;
        const int idx_or_i = pdcc_then ? idx : i;
        row_or_col[i_or_idx * BS + idx_or_i] -= dia_or_col[i_or_idx * BS + j] * row_or_dia[j * BS + idx_or_i];
      }
      if (!pdcc_then) {
        col[idx * BS + i] /= dia[i * BS + i];
      }
    }
  }
#line 28 "meld_loops.cu"
  __syncthreads();
  for (i = threadIdx.x; i < BS * BS; i += blockDim.x) {
    m[offset + i / BS * size + BS + i % BS] = row[i];
    m[offset + (BS + i / BS) * size + i % BS] = col[i];
  }
}
