// SpMV, the version a user would pick: cuSPARSE's generic SpMV on the CSR matrix. Handle, descriptors
// and work buffer are set up once, outside the timed runs.
#include <cusparse.h>

#include "spmv.cuh"

#define CUSPARSE_CHECK(call)                                                                            \
  do {                                                                                                  \
    cusparseStatus_t st_ = (call);                                                                      \
    if (st_ != CUSPARSE_STATUS_SUCCESS) {                                                               \
      std::fprintf(stderr, "%s:%d: cuSPARSE error %s\n", __FILE__, __LINE__, cusparseGetErrorString(st_)); \
      std::exit(2);                                                                                     \
    }                                                                                                   \
  } while (0)

int main(int argc, char** argv) {
  spmv::Problem p(sample::parse_options(argc, argv));
  cusparseHandle_t handle;
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vx, vy;
  CUSPARSE_CHECK(cusparseCreate(&handle));
  CUSPARSE_CHECK(cusparseCreateCsr(&mat, p.a.n, p.a.n, p.a.nnz(), p.d.row_ptr, p.d.col, p.d.val, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&vx, p.a.n, p.dx, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&vy, p.a.n, p.dy, CUDA_R_32F));
  const float alpha = 1.0f, beta = 0.0f;  // beta 0: y is overwritten, its NaN poison never read
  size_t buffer_size = 0;
  CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy,
                                         CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &buffer_size));
  void* buffer = nullptr;
  CUDA_CHECK(cudaMalloc(&buffer, std::max<size_t>(buffer_size, 1)));

  p.measure("best", [&] {
    CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mat, vx, &beta, vy, CUDA_R_32F,
                                CUSPARSE_SPMV_ALG_DEFAULT, buffer));
  });

  CUDA_CHECK(cudaFree(buffer));
  CUSPARSE_CHECK(cusparseDestroyDnVec(vy));
  CUSPARSE_CHECK(cusparseDestroyDnVec(vx));
  CUSPARSE_CHECK(cusparseDestroySpMat(mat));
  CUSPARSE_CHECK(cusparseDestroy(handle));
  return 0;
}
