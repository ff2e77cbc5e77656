#line 1 "meld_replicate.cu"
// Region replication: the then side's statement melds into the nested if of the else side.
__global__ void replicate(int *out, const int *in, int n)
{
  int t = threadIdx.x;
  int x = 0;
// pdcc: #pragma meld
  { // meld site replicate_0: profitability 0.34, 2 of 3 statements melded, 2 selects
    const bool pdcc_then = t % 3 == 0;
    if (pdcc_then || in[t] > n) {
      const int k7_or_k5 = pdcc_then ? 7 : 5;
      const int k3_or_k1 = pdcc_then ? 3 : 1;
      x = in[t] * k7_or_k5 + k3_or_k1;
    }
  }
#line 14 "meld_replicate.cu"
  out[t] = x;
}
