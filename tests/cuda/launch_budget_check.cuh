// For the test programs pdcc builds (shapes.cu, recursion_check.cu): after a run, every launch pdcc counted
// gave back its launch of the launch budget (pdcc_rt.cuh, which pdcc includes first where it counts launches).
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
