#line 1 "meld_declarations.cu"
// Declarations inside the branches move to the top of the melded block; a name one side declares and
// the other uses for an outer variable gets a new name; registers stored apart keep their own stores.
__device__ float weight(float x) { return x * 0.5f; }

__global__ void blend(const float *a, const float *b, float *out, int n)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float scale = 2.0f;
  float lo = 0.0f, hi = 0.0f;
// pdcc: #pragma meld
  { // meld site blend_0: profitability 0.47, 4 of 7 statements melded, 2 selects
    const bool pdcc_then = t % 2 == 0;
    float scale_then{};
    const float *const a_or_b = pdcc_then ? a : b;
    float v = a_or_b[t] * scale;
    if (pdcc_then) {
      scale_then = weight(v);
      lo = v + scale_then;
    } else {
      hi = v - 1.0f;
    }
    const float lo_or_product = pdcc_then ? lo : hi * scale;
    out[t] = lo_or_product;
  }
#line 21 "meld_declarations.cu"
  out[t + n] = lo + hi;
}
