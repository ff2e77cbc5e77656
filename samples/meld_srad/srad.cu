// Speckle-reducing anisotropic diffusion (Rodinia srad_v2), the two stencil kernels. Each block stages its
// tile of the image and the halo around it in shared memory; then every thread takes its four neighbours
// from the tile or, on the tile's edge, from the halo: an `else if` chain on the thread's position in the
// tile (four corners, four edges, the interior) in srad_coefficients, and a shorter one (the south-east
// corner, the east and south edges, the rest) in srad_update. Every warp (two rows of a 16 x 16 tile)
// holds threads of at least three of the cases: the west edge, the east edge and the interior.
// Build: nvcc -arch=sm_90 -O3 -diag-suppress 20199 -I samples/common -I samples/meld_common samples/meld_srad/srad.cu
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
  #pragma meld
  if (ty == 0 && tx == 0) {  // north-west corner
    n = north[ty][tx] - jc;
    s = temp[ty + 1][tx] - jc;
    w = west[ty][tx] - jc;
    e = temp[ty][tx + 1] - jc;
  } else if (ty == 0 && tx == BLOCK_SIZE - 1) {  // north-east corner
    n = north[ty][tx] - jc;
    s = temp[ty + 1][tx] - jc;
    w = temp[ty][tx - 1] - jc;
    e = east[ty][tx] - jc;
  } else if (ty == BLOCK_SIZE - 1 && tx == BLOCK_SIZE - 1) {  // south-east corner
    n = temp[ty - 1][tx] - jc;
    s = south[ty][tx] - jc;
    w = temp[ty][tx - 1] - jc;
    e = east[ty][tx] - jc;
  } else if (ty == BLOCK_SIZE - 1 && tx == 0) {  // south-west corner
    n = temp[ty - 1][tx] - jc;
    s = south[ty][tx] - jc;
    w = west[ty][tx] - jc;
    e = temp[ty][tx + 1] - jc;
  } else if (ty == 0) {  // north edge
    n = north[ty][tx] - jc;
    s = temp[ty + 1][tx] - jc;
    w = temp[ty][tx - 1] - jc;
    e = temp[ty][tx + 1] - jc;
  } else if (tx == BLOCK_SIZE - 1) {  // east edge
    n = temp[ty - 1][tx] - jc;
    s = temp[ty + 1][tx] - jc;
    w = temp[ty][tx - 1] - jc;
    e = east[ty][tx] - jc;
  } else if (ty == BLOCK_SIZE - 1) {  // south edge
    n = temp[ty - 1][tx] - jc;
    s = south[ty][tx] - jc;
    w = temp[ty][tx - 1] - jc;
    e = temp[ty][tx + 1] - jc;
  } else if (tx == 0) {  // west edge
    n = temp[ty - 1][tx] - jc;
    s = temp[ty + 1][tx] - jc;
    w = west[ty][tx] - jc;
    e = temp[ty][tx + 1] - jc;
  } else {  // inside the tile
    n = temp[ty - 1][tx] - jc;
    s = temp[ty + 1][tx] - jc;
    w = temp[ty][tx - 1] - jc;
    e = temp[ty][tx + 1] - jc;
  }

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
  #pragma meld
  if (ty == BLOCK_SIZE - 1 && tx == BLOCK_SIZE - 1) {  // south-east corner
    cs = south_c[ty][tx];
    ce = east_c[ty][tx];
  } else if (tx == BLOCK_SIZE - 1) {  // east edge
    cs = c_temp[ty + 1][tx];
    ce = east_c[ty][tx];
  } else if (ty == BLOCK_SIZE - 1) {  // south edge
    cs = south_c[ty][tx];
    ce = c_temp[ty][tx + 1];
  } else {  // inside the tile
    cs = c_temp[ty + 1][tx];
    ce = c_temp[ty][tx + 1];
  }

  const float d_sum = cc * dN[index] + cs * dS[index] + cc * dW[index] + ce * dE[index];
  J[index] = J[index] + 0.25f * lambda * d_sum;
}

int main(int argc, char** argv) {
  return srad::run(argc, argv, "annotated", [](const srad::Device& d, int rows, int cols) {
    const dim3 grid(cols / BLOCK_SIZE, rows / BLOCK_SIZE), block(BLOCK_SIZE, BLOCK_SIZE);
    srad_coefficients<<<grid, block>>>(d.J, d.dN, d.dS, d.dW, d.dE, d.C, rows, cols, d.q0sqr);
    srad_update<<<grid, block>>>(d.J, d.dN, d.dS, d.dW, d.dE, d.C, rows, cols, srad::kLambda);
  });
}
