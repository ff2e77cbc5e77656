// A recursion whose threads cooperate: each block reverses a tile of 32 floats through shared memory, with
// a barrier between the loads and the stores, and launches itself on the next tile. Every launch gives the
// same block size (kTile), so pdcc consolidates it with consumer blocks of that size, each running one
// block of an item as it was launched.
constexpr int kTile = 32;

__global__ void reverse_tiles(float* data, int n) {
  __shared__ float tile[kTile];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[kTile - 1 - threadIdx.x];
  if (n > kTile) {
    #pragma dp consldt(block)
    reverse_tiles<<<1, kTile>>>(data + kTile, n - kTile);
  }
}
