// An SRAD-style stencil: the boundary rows take their neighbours from an else-if chain.
__global__ void neighbours(const float *c, float *dn, float *ds, int w, int h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= h)
    return;
  int idx = i * w;
  float n, s;
#pragma meld
  if (i == 0) {
    n = c[idx];
    s = c[idx + w];
  } else if (i == h - 1) {
    n = c[idx - w];
    s = c[idx];
  } else {
    n = c[idx - w];
    s = c[idx + w];
  }
  dn[i] = n - c[idx];
  ds[i] = s - c[idx];
}
