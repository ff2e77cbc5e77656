// Speckle-reducing anisotropic diffusion (Rodinia srad_v2), the two stencil kernels melded by hand: srad.cu
// with both `else if` chains melded the way a DARM-style meld does it at source level. Every case of a chain
// assigns the same variables from loads of the same shape (a neighbour minus jc); the cases differ only in
// which shared array, and which element of it, each load reads. Melded, each variable is one load through an
// address selected on the conditions of the cases that read the halo (n reads the halo exactly where
// ty == 0, s where ty == BLOCK_SIZE - 1, w where tx == 0, e where tx == BLOCK_SIZE - 1), so all threads of a
// warp load together. (DARM melds a chain pairwise, each side a region; after its selects are simplified,
// this is what remains.)
// Build: nvcc -arch=sm_90 -O3 -I samples/common -I samples/meld_common samples/meld_srad/srad_hand.cu
#include "srad.cuh"

__global__ void srad_coefficients(const float* J, float* dN, float* dS, float* dW, float* dE, float* C, int rows, int cols,
                                  const float* q0sqr) {
  const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  const int x = bx * BLOCK_SIZE + tx, y = by * BLOCK_SIZE + ty;
  const int index = y * cols + x;
  __shared__ float temp[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float north[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float south[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float west[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float east[BLOCK_SIZE][BLOCK_SIZE];

  // the halo: the row above and below the tile, the columns left and right of it; at the image's border
  // the border row or column itself (so the difference across the border is 0)
  const int above = by == 0 ? 0 : by * BLOCK_SIZE - 1;
  const int below = by == gridDim.y - 1 ? rows - 1 : (by + 1) * BLOCK_SIZE;
  const int left = bx == 0 ? 0 : bx * BLOCK_SIZE - 1;
  const int right = bx == gridDim.x - 1 ? cols - 1 : (bx + 1) * BLOCK_SIZE;
  north[ty][tx] = J[above * cols + x];
  south[ty][tx] = J[below * cols + x];
  west[ty][tx] = J[y * cols + left];
  east[ty][tx] = J[y * cols + right];
  temp[ty][tx] = J[index];
  __syncthreads();

  const float jc = temp[ty][tx];
  float n, s, w, e;
  // melded `if (ty == 0 && tx == 0) {...} else if ... else {...}`: one load per neighbour, address selected
  n = *(ty == 0 ? &north[ty][tx] : &temp[ty - 1][tx]) - jc;
  s = *(ty == BLOCK_SIZE - 1 ? &south[ty][tx] : &temp[ty + 1][tx]) - jc;
  w = *(tx == 0 ? &west[ty][tx] : &temp[ty][tx - 1]) - jc;
  e = *(tx == BLOCK_SIZE - 1 ? &east[ty][tx] : &temp[ty][tx + 1]) - jc;

  C[index] = srad::coefficient(jc, n, s, w, e, *q0sqr);
  dN[index] = n;
  dS[index] = s;
  dW[index] = w;
  dE[index] = e;
}

__global__ void srad_update(float* J, const float* dN, const float* dS, const float* dW, const float* dE, const float* C,
                            int rows, int cols, float lambda) {
  const int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  const int x = bx * BLOCK_SIZE + tx, y = by * BLOCK_SIZE + ty;
  const int index = y * cols + x;
  __shared__ float c_temp[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float south_c[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float east_c[BLOCK_SIZE][BLOCK_SIZE];

  const int below = by == gridDim.y - 1 ? rows - 1 : (by + 1) * BLOCK_SIZE;
  const int right = bx == gridDim.x - 1 ? cols - 1 : (bx + 1) * BLOCK_SIZE;
  south_c[ty][tx] = C[below * cols + x];
  east_c[ty][tx] = C[y * cols + right];
  c_temp[ty][tx] = C[index];
  __syncthreads();

  const float cc = c_temp[ty][tx];
  float cs, ce;
  // melded `if (ty == BLOCK_SIZE - 1 && tx == BLOCK_SIZE - 1) {...} else if ... else {...}`
  cs = *(ty == BLOCK_SIZE - 1 ? &south_c[ty][tx] : &c_temp[ty + 1][tx]);
  ce = *(tx == BLOCK_SIZE - 1 ? &east_c[ty][tx] : &c_temp[ty][tx + 1]);

  const float d_sum = cc * dN[index] + cs * dS[index] + cc * dW[index] + ce * dE[index];
  J[index] = J[index] + 0.25f * lambda * d_sum;
}

int main(int argc, char** argv) {
  return srad::run(argc, argv, "hand", [](const srad::Device& d, int rows, int cols) {
    const dim3 grid(cols / BLOCK_SIZE, rows / BLOCK_SIZE), block(BLOCK_SIZE, BLOCK_SIZE);
    srad_coefficients<<<grid, block>>>(d.J, d.dN, d.dS, d.dW, d.dE, d.C, rows, cols, d.q0sqr);
    srad_update<<<grid, block>>>(d.J, d.dN, d.dS, d.dW, d.dE, d.C, rows, cols, srad::kLambda);
  });
}
