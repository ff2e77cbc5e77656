// Declarations inside the branches move to the top of the melded block; a name one side declares and
// the other uses for an outer variable gets a new name; registers stored apart keep their own stores.
__device__ float weight(float x) { return x * 0.5f; }

__global__ void blend(const float *a, const float *b, float *out, int n)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float scale = 2.0f;
  float lo = 0.0f, hi = 0.0f;
#pragma meld
  if (t % 2 == 0) {
    float v = a[t] * scale;
    float scale = weight(v);
    lo = v + scale;
    out[t] = lo;
  } else {
    float v = b[t] * scale;
    hi = v - 1.0f;
    out[t] = hi * scale;
  }
  out[t + n] = lo + hi;
}
