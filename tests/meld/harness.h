// What the generated translation units and the driver (driver.cpp) agree on: the arrays every generated
// function receives, their sizes, the launch shape, and the table of functions.
#pragma once

constexpr unsigned MELD_N = 64;        // elements of A, B, F, G, IN (generated indices are masked with & 63u)
constexpr unsigned MELD_BLOCK = 16;    // blockDim.x
constexpr unsigned MELD_GRID = 2;      // gridDim.x
constexpr unsigned MELD_THREADS = MELD_BLOCK * MELD_GRID;
constexpr unsigned MELD_SLOTS = 8;     // RU[tid * 8 + k], RF[tid * 8 + k]: each thread's final variables

typedef unsigned (*MeldDeviceFn)(unsigned*, unsigned*, float*, float*, const unsigned*, unsigned*, float*,
                                  unsigned, float);
typedef void (*MeldGlobalFn)(unsigned*, unsigned*, float*, float*, const unsigned*, unsigned*, float*,
                             unsigned, float);

struct MeldEntry {
  const char* name;
  MeldDeviceFn device;   // a __device__ function returning a value, or
  MeldGlobalFn global;   // a __global__ one (called as a plain function, one thread at a time)
};

extern "C" const MeldEntry meld_table[];
extern "C" const unsigned meld_table_size;
