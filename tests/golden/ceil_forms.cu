// Every ceiling-division form of seed 000 §III-D, one parent each.
#include <cmath>

__global__ void add_one(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1;
}

// (a) (N - 1)/b + 1
__global__ void form_a(int* out, const int* len) {
  int n = len[threadIdx.x];
#pragma dp threshold(64)
  add_one<<<(n - 1) / 128 + 1, 128>>>(out, n);
}

// (b) (N + b - 1)/b
__global__ void form_b(int* out, const int* len) {
  int n = len[threadIdx.x];
#pragma dp threshold(64)
  add_one<<<(n + 128 - 1) / 128, 128>>>(out, n);
}

// (c) N/b + (N%b == 0 ? 0 : 1)
__global__ void form_c(int* out, const int* len) {
  int n = len[threadIdx.x];
#pragma dp threshold(64)
  add_one<<<n / 128 + ((n % 128 == 0) ? 0 : 1), 128>>>(out, n);
}

// (d) ceil((float)N/b)
__global__ void form_d(int* out, const int* len) {
  int n = len[threadIdx.x];
#pragma dp threshold(64)
  add_one<<<(int)ceil((float)n / 128), 128>>>(out, n);
}

// (e) ceil(N/(float)b)
__global__ void form_e(int* out, const int* len, int block) {
  int n = len[threadIdx.x];
#pragma dp threshold(64)
  add_one<<<ceil(n / (float)block), block>>>(out, n);
}

// N is an expression of several terms: it is evaluated again for the comparison
__global__ void form_terms(int* out, const int* begin, const int* end) {
  int row = threadIdx.x;
#pragma dp threshold(64)
  add_one<<<(end[row] - begin[row] + 127) / 128, 128>>>(out + begin[row], end[row] - begin[row]);
}

// no ceiling division: grid x block
__global__ void no_division(int* out, int blocks) {
#pragma dp threshold(64)
  add_one<<<blocks, 32>>>(out, blocks * 32);
}
