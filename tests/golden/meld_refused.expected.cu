#line 1 "meld_refused.cu"
// Every branch here stays as written, each with its reason.
__global__ void refused(int *out, float *g, int n)
{
  __shared__ float tile[64];
  int t = threadIdx.x;
// pdcc: #pragma meld
  if (t < n) { out[t] = 1; __syncthreads(); } else { out[t] = 2; }
// pdcc: #pragma meld
  if (n > 4) { out[t] = 1; } else { out[t] = 2; }
// pdcc: #pragma meld
  if (t & 1) { atomicAdd(out, 1); } else { out[0] += 1; }
// pdcc: #pragma meld
  if (t & 2) { out[t] = __shfl_sync(0xffffffffu, t, 0); } else { out[t] = t; }
// pdcc: #pragma meld threshold(0.45)
  if (t & 4) { out[t] = t * 3; out[t + 1] = 7; } else { out[t] = t * 5; g[t] = 1.0f; }
// pdcc: #pragma meld
  if (t & 8) { tile[t % 64] = g[t]; } else { g[t] = 2.0f; }
  g[t + n] = tile[(t + 1) % 64];
  for (int k = 0; k < n; k++) {
// pdcc: #pragma meld
    if (t & 16) { out[k] = t; break; } else { out[k] = -t; }
  }
}
