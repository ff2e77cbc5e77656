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
#pragma meld
  if (threadIdx.x < BS) {
    idx = threadIdx.x;
    for (i = 1; i < BS; i++)
      for (j = 0; j < i; j++)
        row[i * BS + idx] -= dia[i * BS + j] * row[j * BS + idx];
  } else {
    idx = threadIdx.x - BS;
    for (i = 0; i < BS; i++) {
      for (j = 0; j < i; j++)
        col[idx * BS + i] -= col[idx * BS + j] * dia[j * BS + i];
      col[idx * BS + i] /= dia[i * BS + i];
    }
  }
  __syncthreads();
  for (i = threadIdx.x; i < BS * BS; i += blockDim.x) {
    m[offset + i / BS * size + BS + i % BS] = row[i];
    m[offset + (BS + i / BS) * size + i % BS] = col[i];
  }
}
