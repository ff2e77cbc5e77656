// For the test programs pdcc builds (shapes.cu, recursion_check.cu): after a run, every launch pdcc counted
// gave back its launch of the launch budget (pdcc_rt.cuh, which pdcc includes first where it counts launches),
// and every hold on the file's record pool was given back (by the parent blocks, multi-block groups and
// aggregated grids that took them, all finished by then), so its bytes came back.
#pragma once
#include <cstdio>

inline bool launch_budget_given_back(int run) {
#ifdef PDCC_LAUNCH_BUDGET
  unsigned pending = 0;
  cudaMemcpyFromSymbol(&pending, pdcc::launches_pending, sizeof pending);
  if (pending != 0) {
    std::printf("run %d: %u launches of the launch budget never given back\n", run, pending);
    return false;
  }
#endif
  (void)run;
  return true;
}

inline bool record_pool_given_back(int run) {
#ifdef PDCC_POOL_BYTES
  unsigned long long state = 0;
  cudaMemcpyFromSymbol(&state, pdcc::record_pool<>, sizeof state);  // RecordPool::state, its first member
  if (state != 0ull) {
    std::printf("run %d: the record pool still has %llu holds and %llu bytes out\n", run,
                state >> pdcc::RecordPool<PDCC_POOL_BYTES>::kHoldShift,
                state & ((1ull << pdcc::RecordPool<PDCC_POOL_BYTES>::kHoldShift) - 1ull));
    return false;
  }
#endif
  (void)run;
  return true;
}
