// LU decomposition (Rodinia lud), the perimeter kernel melded by hand: lud.cu with its three
// `threadIdx.x < BLOCK_SIZE` branches melded the way a DARM-style meld does it at source level. In each
// phase the two loop nests are isomorphic: melded, the loop bounds, the starting offsets and the operands
// that differ become selects on the condition (`row`), the loads and stores are done once through a
// selected address (the row block or the column block, the row side's or the column side's element of
// m), and the one statement without a partner (the column side's division by the diagonal) stays guarded.
// Build: nvcc -arch=sm_90 -O3 -I samples/common -I samples/meld_common samples/meld_lud/lud_hand.cu
#include "lud.cuh"

__global__ void lud_perimeter(float* m, int matrix_dim, int offset) {
  __shared__ float dia[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];
  int i, j, array_offset;
  int idx;
  const bool row = threadIdx.x < BLOCK_SIZE;        // the branch condition, computed once
  float(*peri)[BLOCK_SIZE] = row ? peri_row : peri_col;  // the block this thread loads and stores

  // melded load phase
  idx = row ? threadIdx.x : threadIdx.x - BLOCK_SIZE;
  array_offset = row ? offset * matrix_dim + offset : (offset + BLOCK_SIZE / 2) * matrix_dim + offset;
  for (i = row ? 0 : BLOCK_SIZE / 2; i < (row ? BLOCK_SIZE / 2 : BLOCK_SIZE); i++) {
    dia[i][idx] = m[array_offset + idx];
    array_offset += matrix_dim;
  }
  array_offset = row ? offset * matrix_dim + offset : (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
  for (i = 0; i < BLOCK_SIZE; i++) {
    peri[i][idx] = m[row ? array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx : array_offset + idx];
    array_offset += matrix_dim;
  }
  __syncthreads();

  // melded solve phase
  for (i = row ? 1 : 0; i < BLOCK_SIZE; i++) {
    float* target = row ? &peri_row[i][idx] : &peri_col[idx][i];
    for (j = 0; j < i; j++) *target -= *(row ? &dia[i][j] : &peri_col[idx][j]) * *(row ? &peri_row[j][idx] : &dia[j][i]);
    if (!row) peri_col[idx][i] /= dia[i][i];  // unaligned: the column side's alone
  }
  __syncthreads();

  // melded store phase
  array_offset = row ? (offset + 1) * matrix_dim + offset : (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
  for (i = row ? 1 : 0; i < BLOCK_SIZE; i++) {
    m[row ? array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx : array_offset + idx] = peri[i][idx];
    array_offset += matrix_dim;
  }
}

int main(int argc, char** argv) {
  return lud::run(argc, argv, "hand", [](float* m, int n, int offset, int blocks) {
    lud_perimeter<<<blocks, 2 * BLOCK_SIZE>>>(m, n, offset);
  });
}
