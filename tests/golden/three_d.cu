// A 3-D child: the serial version loops over every block and thread in x, y and z.
__global__ void voxel_child(float* v, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz)
    v[(z * ny + y) * nx + x] = gridDim.x * blockDim.x;
}

__global__ void volume_parent(float* v, int nx, int ny, int nz) {
  dim3 block(8, 8, 4);
#pragma dp threshold(512)
  voxel_child<<<dim3((nx + 7) / 8, (ny + 7) / 8, (nz + 3) / 4), block>>>(v, nx, ny, nz);
}
