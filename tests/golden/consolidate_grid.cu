// Consolidation at grid granularity with the consumer's configuration given (threads, blocks) and a
// work item named by work(...): a recursion over intervals, a block of 32 threads per item, each level
// halving the interval; `level + 1` varies too, so it is part of the item. A value may be a macro.
#define PDCC_HALVE_BLOCKS 8

__global__ void halve(unsigned long long* visits, int begin, int end, int level) {
  if (threadIdx.x == 0) atomicAdd(visits + level, 1ull);
  int middle = begin + (end - begin) / 2;
  if (end - begin > 1 && threadIdx.x < 2) {
    int from = threadIdx.x == 0 ? begin : middle, to = threadIdx.x == 0 ? middle : end;
    #pragma dp consldt(grid) threads(64) blocks(PDCC_HALVE_BLOCKS) work(from, to)
    halve<<<1, 32>>>(visits, from, to, level + 1);
  }
}
