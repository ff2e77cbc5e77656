// The other half of aggregate.cu: warp, block and multiblock(K) groups behind a threshold and with
// coarsening, and a grid group without either; a 2-D child grid, and a 3-D parent grid whose blocks
// are 2-D (a partial last warp); a parent's `unsigned` values for the child's `int` parameters, one of
// them `const` (records are built without narrowing and stored by copy construction).
__global__ void scale_rows(float* out, const float* in, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * in[i];
}

__global__ void tile(float* out, const int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) out[y * width + x] += 1.0f;
}

__global__ void warp_groups(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int n = end[row] - begin[row];
#pragma dp threshold(64) coarsen(2) consldt(warp)
  scale_rows<<<(n + 127) / 128, 128>>>(out + begin[row], in + begin[row], 0.5f, n);
}

__global__ void block_groups(float* out, const float* in, const int* begin, const int* end, int rows) {
  int row = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x * blockDim.x * blockDim.y
            + blockIdx.x * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int n = end[row] - begin[row];
#pragma dp threshold(128) coarsen(4) consldt(block) agg_threshold(2)
  scale_rows<<<(n + 255) / 256, 256>>>(out + begin[row], in + begin[row], 2.0f, n);
}

__global__ void multiblock_groups(float* out, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  unsigned w = widths[k], h = heights[k];
#pragma dp threshold(256) coarsen(8) consldt(multiblock(16))
  tile<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(out + k * 4096, w, h);
}

__global__ void grid_group(float* out, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
#pragma dp consldt(grid)
  tile<<<dim3((widths[k] + 15) / 16, (heights[k] + 15) / 16), dim3(16, 16)>>>(out + k * 4096, widths[k], heights[k]);
}
