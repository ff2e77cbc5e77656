// A 2-D child launched with a dim3 grid of two ceiling divisions.
__global__ void tile_child(float* img, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  img[y * width + x] *= 0.5f;
}

__global__ void tile_parent(float** images, const int* widths, const int* heights, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int w = widths[k], h = heights[k];
  #pragma dp threshold(256)
  tile_child<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(images[k], w, h);
}
