// An LU-perimeter-style kernel: two loop nests split on the thread index.
#define BS 16
__global__ void perimeter(float *m, float *row, float *col, int offset, int size)
{
  int idx, i, j;
#pragma meld
  if (threadIdx.x < BS) {
    idx = threadIdx.x;
    for (i = 1; i < BS; i++)
      for (j = 0; j < i; j++)
        row[i * BS + idx] -= m[offset + i * size + j] * row[j * BS + idx];
  } else {
    idx = threadIdx.x - BS;
    for (i = 0; i < BS; i++) {
      for (j = 0; j < i; j++)
        col[idx * BS + i] -= col[idx * BS + j] * m[offset + j * size + i];
      col[idx * BS + i] /= m[offset + i * size + i];
    }
  }
}
