// Runs every function of a generated translation unit for every thread of a small grid, on the same
// inputs (a fixed seed given as argv[1]), and prints one line per function:
//   name|ret:...|RU:...|RF:...|A:...|B:...|F:...|G:...
// values in hex; a float is printed as its bits, or "nan" for any NaN (a NaN's sign and payload can
// depend on whether g++ folded the operation at compile time, which is not what is being tested).
#include <cstdio>
#include <cstdlib>
#include <cmath>

#include "shim.h"
#include "harness.h"

static unsigned state;
static unsigned next_random() {  // xorshift32: the same inputs in every binary, for a given seed
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

static void put_u(const char* tag, const unsigned* v, unsigned n) {
  std::printf("|%s:", tag);
  for (unsigned i = 0; i < n; ++i) std::printf(i ? ",%x" : "%x", v[i]);
}

static void put_f(const char* tag, const float* v, unsigned n) {
  std::printf("|%s:", tag);
  for (unsigned i = 0; i < n; ++i) {
    if (i) std::printf(",");
    if (std::isnan(v[i])) std::printf("nan");
    else std::printf("%x", __float_as_uint(v[i]));
  }
}

int main(int argc, char** argv) {
  state = argc > 1 ? static_cast<unsigned>(std::strtoul(argv[1], nullptr, 10)) | 1u : 1u;
  unsigned A0[MELD_N], B0[MELD_N], IN[MELD_N];
  float F0[MELD_N], G0[MELD_N];
  for (unsigned i = 0; i < MELD_N; ++i) {  // half small values, so comparisons with constants go both ways
    A0[i] = next_random() % 2 ? next_random() % 100 : next_random();
    B0[i] = next_random() % 2 ? next_random() % 100 : next_random();
    IN[i] = next_random() % 2 ? next_random() % 100 : next_random();
    F0[i] = static_cast<float>(static_cast<int>(next_random() % 2001) - 1000) / 125.0f;
    G0[i] = static_cast<float>(static_cast<int>(next_random() % 2001) - 1000) / 125.0f;
  }
  const unsigned n = 5u + next_random() % 8;
  const float x = 1.25f;
  unsigned A[MELD_N], B[MELD_N], RU[MELD_THREADS * MELD_SLOTS], ret[MELD_THREADS];
  float F[MELD_N], G[MELD_N], RF[MELD_THREADS * MELD_SLOTS];
  blockDim = dim3(MELD_BLOCK);
  gridDim = dim3(MELD_GRID);
  for (unsigned e = 0; e < meld_table_size; ++e) {
    const MeldEntry& entry = meld_table[e];
    std::memcpy(A, A0, sizeof A);
    std::memcpy(B, B0, sizeof B);
    std::memcpy(F, F0, sizeof F);
    std::memcpy(G, G0, sizeof G);
    std::memset(RU, 0, sizeof RU);
    std::memset(RF, 0, sizeof RF);
    std::memset(ret, 0, sizeof ret);
    for (unsigned b = 0; b < MELD_GRID; ++b) {
      for (unsigned t = 0; t < MELD_BLOCK; ++t) {
        blockIdx = {b, 0, 0};
        threadIdx = {t, 0, 0};
        if (entry.device) ret[b * MELD_BLOCK + t] = entry.device(A, B, F, G, IN, RU, RF, n, x);
        else entry.global(A, B, F, G, IN, RU, RF, n, x);
      }
    }
    std::printf("%s", entry.name);
    put_u("ret", ret, MELD_THREADS);
    put_u("RU", RU, MELD_THREADS * MELD_SLOTS);
    put_f("RF", RF, MELD_THREADS * MELD_SLOTS);
    put_u("A", A, MELD_N);
    put_u("B", B, MELD_N);
    put_f("F", F, MELD_N);
    put_f("G", G, MELD_N);
    std::printf("\n");
  }
  return 0;
}
