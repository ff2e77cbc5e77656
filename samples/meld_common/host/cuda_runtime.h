// A host stand-in for <cuda_runtime.h>: the meld samples compiled as plain C++ (g++ -std=c++20) run their
// kernels on the CPU, one block after another, each CUDA thread a fiber. Per-thread semantics only (no warps): enough to check a sample's kernels, its hand-melded
// version and pdcc's melded output against the same CPU checker on a machine without a GPU
// (tests/test_meld_samples.py). The sources' launches `k<<<grid, block[, shared]>>>(args)` are rewritten to
// `host_launch(k, grid, block, shared, args)` and `extern __shared__ T name[];` to a pointer into the
// block's dynamic shared memory (host_dynamic_shared()) by the test before compiling.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <ucontext.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __constant__

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// Every thread of a block is a fiber (ucontext) on the calling thread: the block's fibers run in turn,
// each up to its next __syncthreads or its end, round after round, so a barrier holds every thread until
// all the others (that have not returned) reach it. Deterministic, and fast enough for blocks of 1024.
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

struct HostFiber {
  ucontext_t context;
  uint3 index;
  bool done;
};
inline ucontext_t host_scheduler;
inline HostFiber* host_current = nullptr;
inline void (*host_body)(void*) = nullptr;
inline void* host_body_data = nullptr;
inline std::vector<unsigned char> host_shared_bytes;

inline void __syncthreads() { swapcontext(&host_current->context, &host_scheduler); }
inline void* host_dynamic_shared() { return host_shared_bytes.data(); }
inline void host_fiber_entry() {
  host_body(host_body_data);
  host_current->done = true;  // returns to uc_link, the scheduler
}

template <typename Kernel, typename... Args>
void host_launch(Kernel kernel, dim3 grid, dim3 block, size_t shared, Args... args) {
  constexpr size_t kStack = 256 * 1024;
  gridDim = grid;
  blockDim = block;
  const unsigned threads = block.x * block.y * block.z;
  host_shared_bytes.assign(shared + 16, 0);
  auto call = [&] { kernel(args...); };
  host_body = [](void* data) { (*static_cast<decltype(call)*>(data))(); };
  host_body_data = &call;
  std::vector<HostFiber> fibers(threads);
  std::unique_ptr<char[]> stacks(new char[kStack * threads]);
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx = {bx, by, bz};
        for (unsigned t = 0; t < threads; ++t) {
          HostFiber& f = fibers[t];
          f.index = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
          f.done = false;
          getcontext(&f.context);
          f.context.uc_stack.ss_sp = stacks.get() + kStack * t;
          f.context.uc_stack.ss_size = kStack;
          f.context.uc_link = &host_scheduler;
          makecontext(&f.context, host_fiber_entry, 0);
        }
        for (bool waiting = true; waiting;) {
          waiting = false;
          for (HostFiber& f : fibers) {
            if (f.done) continue;
            host_current = &f;
            threadIdx = f.index;
            swapcontext(&host_scheduler, &f.context);
            waiting |= !f.done;
          }
        }
        host_current = nullptr;
      }
}

typedef int cudaError_t;
constexpr cudaError_t cudaSuccess = 0;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyHostToHost };
inline const char* cudaGetErrorName(cudaError_t) { return "cudaErrorHost"; }
inline const char* cudaGetErrorString(cudaError_t) { return "host stand-in error"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

template <typename T>
cudaError_t cudaMalloc(T** pointer, size_t bytes) {
  *pointer = static_cast<T*>(std::calloc(bytes ? bytes : 1, 1));
  return *pointer ? cudaSuccess : 2;
}
inline cudaError_t cudaFree(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* to, const void* from, size_t bytes, cudaMemcpyKind) {
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void* to, int value, size_t bytes) {
  std::memset(to, value, bytes);
  return cudaSuccess;
}
template <typename T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* from, size_t bytes) {
  std::memcpy(&symbol, from, bytes);
  return cudaSuccess;
}

typedef std::chrono::steady_clock::time_point* cudaEvent_t;
inline cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new std::chrono::steady_clock::time_point();
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event) {
  *event = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  *ms = std::chrono::duration<float, std::milli>(*stop - *start).count();
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
