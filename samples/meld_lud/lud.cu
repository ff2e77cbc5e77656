// LU decomposition (Rodinia lud), the perimeter kernel: for the diagonal block at (offset, offset), block
// bx of the grid solves the row block to the right of it (U = L_diag^-1 A) and the column block below it
// (L = A U_diag^-1), both at distance bx + 1. Its 2 x BLOCK_SIZE threads split on threadIdx.x < BLOCK_SIZE:
// the first half works on the row block, the second half on the column block, in three phases (load,
// solve, store) of two loop nests each. With BLOCK_SIZE 16 both halves share every warp, so each phase
// runs both nests one after the other.
// Build: nvcc -arch=sm_90 -O3 -diag-suppress 20199 -I samples/common -I samples/meld_common samples/meld_lud/lud.cu
#include "lud.cuh"

__global__ void lud_perimeter(float* m, int matrix_dim, int offset) {
  __shared__ float dia[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_row[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float peri_col[BLOCK_SIZE][BLOCK_SIZE];
  int i, j, array_offset;
  int idx;

  #pragma meld
  if (threadIdx.x < BLOCK_SIZE) {
    idx = threadIdx.x;
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE / 2; i++) {
      dia[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = offset * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      peri_row[i][idx] = m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = threadIdx.x - BLOCK_SIZE;
    array_offset = (offset + BLOCK_SIZE / 2) * matrix_dim + offset;
    for (i = BLOCK_SIZE / 2; i < BLOCK_SIZE; i++) {
      dia[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
    array_offset = (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      peri_col[i][idx] = m[array_offset + idx];
      array_offset += matrix_dim;
    }
  }
  __syncthreads();

  #pragma meld
  if (threadIdx.x < BLOCK_SIZE) {  // the row block: forward substitution with the unit lower triangle
    idx = threadIdx.x;
    for (i = 1; i < BLOCK_SIZE; i++) {
      for (j = 0; j < i; j++) peri_row[i][idx] -= dia[i][j] * peri_row[j][idx];
    }
  } else {  // the column block: solve against the upper triangle, row idx of the block
    idx = threadIdx.x - BLOCK_SIZE;
    for (i = 0; i < BLOCK_SIZE; i++) {
      for (j = 0; j < i; j++) peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];
      peri_col[idx][i] /= dia[i][i];
    }
  }
  __syncthreads();

  #pragma meld
  if (threadIdx.x < BLOCK_SIZE) {
    idx = threadIdx.x;
    array_offset = (offset + 1) * matrix_dim + offset;  // row 0 of the row block is unchanged
    for (i = 1; i < BLOCK_SIZE; i++) {
      m[array_offset + (blockIdx.x + 1) * BLOCK_SIZE + idx] = peri_row[i][idx];
      array_offset += matrix_dim;
    }
  } else {
    idx = threadIdx.x - BLOCK_SIZE;
    array_offset = (offset + (blockIdx.x + 1) * BLOCK_SIZE) * matrix_dim + offset;
    for (i = 0; i < BLOCK_SIZE; i++) {
      m[array_offset + idx] = peri_col[i][idx];
      array_offset += matrix_dim;
    }
  }
}

int main(int argc, char** argv) {
  return lud::run(argc, argv, "annotated", [](float* m, int n, int offset, int blocks) {
    lud_perimeter<<<blocks, 2 * BLOCK_SIZE>>>(m, n, offset);
  });
}
