// Region replication: the then side's statement melds into the nested if of the else side.
__global__ void replicate(int *out, const int *in, int n)
{
  int t = threadIdx.x;
  int x = 0;
#pragma meld
  if (t % 3 == 0) {
    x = in[t] * 7 + 3;
  } else {
    if (in[t] > n) {
      x = in[t] * 5 + 1;
    }
  }
  out[t] = x;
}
