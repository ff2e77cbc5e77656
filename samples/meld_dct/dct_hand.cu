// Quantisation of 8x8 DCT blocks, melded by hand: dct.cu with its sign diamond melded the way a DARM-style
// meld does it at source level. The two sides' middle statements (add half the step, divide by the step)
// are the same and align; the negations before and after, which only the negative side has, stay guarded
// by the condition (computed once).
// Build: nvcc -arch=sm_90 -O3 -I samples/common -I samples/meld_common samples/meld_dct/dct_hand.cu
#include "dct.cuh"

using dct::kBlock;
using dct::kQuant;

__global__ void quantize_blocks(short* coefficients, int stride) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y * kBlock + threadIdx.y;
  short coefficient = coefficients[y * stride + x];
  const short quant = kQuant[threadIdx.y * kBlock + threadIdx.x];

  // melded `if (coefficient < 0) {...} else {...}`
  const bool negative = coefficient < 0;
  if (negative) coefficient = -coefficient;  // unaligned: guarded
  coefficient += quant >> 1;                 // aligned
  coefficient /= quant;                      // aligned
  if (negative) coefficient = -coefficient;  // unaligned: guarded
  coefficients[y * stride + x] = coefficient * quant;
}

int main(int argc, char** argv) {
  return dct::run(argc, argv, "hand", [](short* coefficients, int side) {
    quantize_blocks<<<dim3(side / kBlock, side / kBlock), dim3(kBlock, kBlock)>>>(coefficients, side);
  });
}
