#line 1 "meld_loops.cu"
// An LU-perimeter-style kernel: two loop nests split on the thread index.
#define BS 16
__global__ void perimeter(float *m, float *row, float *col, int offset, int size)
{
  int idx, i, j;
// pdcc: #pragma meld
  { // meld site perimeter_0: profitability 0.34, 6 of 9 statements melded, 7 selects
    const bool pdcc_then = threadIdx.x < BS;
    if (pdcc_then) {
      idx = threadIdx.x;
    } else {
      idx = threadIdx.x - BS;
    }
    for (i = pdcc_then ? 1 : 0; i < BS; i++) {
      for (j = 0; j < i; j++) {
        float *const row_or_col = pdcc_then ? row : col;
        const int i_or_idx = pdcc_then ? i : idx;
        const int idx_or_i = pdcc_then ? idx : i;
        float *const m_or_col = pdcc_then ? m : col;
        const int sum_or_product = pdcc_then ? offset + i * size : idx * BS;
        float *const row_or_m = pdcc_then ? &row[j * BS + idx] : &m[offset + j * size + i];
        row_or_col[i_or_idx * BS + idx_or_i] -= m_or_col[sum_or_product + j] * *row_or_m;
      }
      if (!pdcc_then) {
        col[idx * BS + i] /= m[offset + i * size + i];
      }
    }
  }
#line 20 "meld_loops.cu"
}
