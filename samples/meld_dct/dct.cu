// Quantisation of 8x8 DCT blocks (the quantisation kernel of the CUDA samples' dct8x8): each thread rounds
// one coefficient to a multiple of its quantisation step, half away from zero, by working on the magnitude:
// a diamond on the coefficient's sign whose two sides are a few integer operations each. The sign is random,
// so the branch diverges in every warp; but both sides are short, and ptxas predicates such a diamond
// itself, so melding it is expected to change little (about 1.0x): the kernel is bound by memory.
// Build: nvcc -arch=sm_90 -O3 -diag-suppress 20199 -I samples/common -I samples/meld_common samples/meld_dct/dct.cu
#include "dct.cuh"

using dct::kBlock;
using dct::kQuant;

__global__ void quantize_blocks(short* coefficients, int stride) {
  const int x = blockIdx.x * kBlock + threadIdx.x, y = blockIdx.y * kBlock + threadIdx.y;
  short coefficient = coefficients[y * stride + x];
  const short quant = kQuant[threadIdx.y * kBlock + threadIdx.x];

  #pragma meld
  if (coefficient < 0) {
    coefficient = -coefficient;
    coefficient += quant >> 1;
    coefficient /= quant;
    coefficient = -coefficient;
  } else {
    coefficient += quant >> 1;
    coefficient /= quant;
  }
  coefficients[y * stride + x] = coefficient * quant;
}

int main(int argc, char** argv) {
  return dct::run(argc, argv, "annotated", [](short* coefficients, int side) {
    quantize_blocks<<<dim3(side / kBlock, side / kBlock), dim3(kBlock, kBlock)>>>(coefficients, side);
  });
}
