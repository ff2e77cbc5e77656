#line 1 "consolidate_missed.cu"
// Recursions pdcc leaves as written, each with a remark: post-work (the statement after the launch reads
// what the launched grids write), a self-launch without a base case, a kernel that another kernel
// launches too, and a child that synchronises its threads after a return only some of them take.
__global__ void sum_tree(const int* left, const int* right, int* sum, int node) {
  int l = left[node], r = right[node];
  if (l >= 0) {
    // pdcc: #pragma dp consldt(block)
    sum_tree<<<1, 1>>>(left, right, sum, l);
  }
  if (r >= 0) {
    // pdcc: #pragma dp consldt(block)
    sum_tree<<<1, 1>>>(left, right, sum, r);
  }
  sum[node] += (l >= 0 ? sum[l] : 0) + (r >= 0 ? sum[r] : 0);  // post-work: needs the children's sums
}

__global__ void forever(int* x, int n) {
  x[threadIdx.x] = n;
  // pdcc: #pragma dp consldt(warp)
  forever<<<1, 32>>>(x, n - 1);
}

__global__ void shared_walk(int* x, int n) {
  x[n] = 1;
  if (n > 0) {
    // pdcc: #pragma dp consldt(grid)
    shared_walk<<<1, 32>>>(x, n - 1);
  }
}

__global__ void start(int* x, int n) {
  shared_walk<<<1, 32>>>(x, n);
}

__global__ void tiled(float* data, int n) {
  __shared__ float tile[32];
  if (threadIdx.x >= n) return;
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = tile[31 - threadIdx.x];
  if (n > 32) {
    // pdcc: #pragma dp consldt(block)
    tiled<<<1, 32>>>(data + 32, n - 32);
  }
}
