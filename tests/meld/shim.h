// Host C++ shim for CUDA device code: lets g++ compile the meld differential tests' device functions
// (tests/test_meld_differential.py) as ordinary host functions. One thread at a time: the driver sets
// threadIdx/blockIdx before each call, so per-thread semantics is all that is compared. Barriers and
// warp intrinsics are single-thread stand-ins; they only appear in branches pdcc must leave as written.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#define __device__
#define __global__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __constant__ static
#define __launch_bounds__(...)
// __restrict__ is a g++ keyword already.

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline uint3 threadIdx = {0, 0, 0};
inline uint3 blockIdx = {0, 0, 0};
inline dim3 blockDim = dim3(1, 1, 1);
inline dim3 gridDim = dim3(1, 1, 1);
constexpr int warpSize = 32;

inline void __syncthreads() {}
inline void __syncwarp(unsigned = 0xffffffffu) {}
inline void __threadfence() {}
inline void __threadfence_block() {}

template <typename T> inline T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <typename T> inline T __shfl_down_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <typename T> inline T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
inline unsigned __ballot_sync(unsigned, int p) { return p ? 1u : 0u; }
inline int __any_sync(unsigned, int p) { return p != 0; }
inline int __all_sync(unsigned, int p) { return p != 0; }
inline unsigned __activemask() { return 1u; }

template <typename T> inline T atomicAdd(T* p, T v) { T old = *p; *p = old + v; return old; }
template <typename T> inline T atomicSub(T* p, T v) { T old = *p; *p = old - v; return old; }
template <typename T> inline T atomicExch(T* p, T v) { T old = *p; *p = v; return old; }
template <typename T> inline T atomicMax(T* p, T v) { T old = *p; *p = old < v ? v : old; return old; }
template <typename T> inline T atomicMin(T* p, T v) { T old = *p; *p = v < old ? v : old; return old; }
template <typename T> inline T atomicOr(T* p, T v) { T old = *p; *p = old | v; return old; }
template <typename T> inline T atomicAnd(T* p, T v) { T old = *p; *p = old & v; return old; }
template <typename T> inline T atomicXor(T* p, T v) { T old = *p; *p = old ^ v; return old; }
template <typename T> inline T atomicCAS(T* p, T cmp, T v) { T old = *p; *p = old == cmp ? v : old; return old; }

// CUDA's min/max overloads (not std::min: mixed argument types follow CUDA's promotions).
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a < b ? b : a; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a < b ? b : a; }
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }

inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, sizeof u); return u; }
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, sizeof f); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, sizeof i); return i; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, sizeof f); return f; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
inline int __ffs(unsigned x) { return __builtin_ffs(static_cast<int>(x)); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
template <typename T> inline T __ldg(const T* p) { return *p; }
