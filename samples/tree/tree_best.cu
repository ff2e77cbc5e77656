// Tree traversal, the flat version a user would pick: level by level from the host, a group of G lanes
// per frontier node (G = the fan-out rounded up to a power of two, at most a warp), so siblings are read
// and written by neighbouring lanes, and one atomic per warp and round reserves the queue slots.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/tree/tree_best.cu
#include "tree.cuh"

namespace {

constexpr int kBlock = 256;
constexpr unsigned kFullMask = 0xffffffffu;

__global__ void expand_groups(const int* child_ptr, const int* children, const int* value, int* depth,
                              int* path_sum, const int* frontier, int count, int group_size, int* next,
                              int* next_count) {
  long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  long long item = tid / group_size;
  int sub = (int)(tid % group_size);
  int begin = 0, end = 0, d = 0, s = 0;
  if (item < count) {  // no early return: every lane must take part in the ballots below
    int v = frontier[item];
    begin = child_ptr[v];
    end = child_ptr[v + 1];
    d = depth[v] + 1;
    s = path_sum[v];
  }
  // All lanes loop as often as the warp's busiest group, so the ballots line up.
  int rounds = __reduce_max_sync(kFullMask, (end - begin + group_size - 1) / group_size);
  for (int r = 0; r < rounds; ++r) {
    int k = begin + r * group_size + sub;
    int c = -1;
    bool queue = false;
    if (k < end) {
      c = children[k];
      depth[c] = d;
      path_sum[c] = s + value[c];
      queue = child_ptr[c + 1] > child_ptr[c];
    }
    unsigned mask = __ballot_sync(kFullMask, queue);
    if (mask == 0) continue;  // warp-uniform
    int leader = __ffs(mask) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(next_count, __popc(mask));
    base = __shfl_sync(kFullMask, base, leader);
    if (queue) next[base + __popc(mask & ((1u << lane) - 1))] = c;
  }
}

}  // namespace

int main(int argc, char** argv) {
  tree::Problem p(argc, argv);
  const tree::Device& d = p.d;

  int group_size = 1;
  while (group_size < p.t.max_fanout && group_size < 32) group_size *= 2;

  p.measure_levels("best", [&](const int* frontier, int count, int* next, int* next_count) {
    long long blocks = ((long long)count * group_size + kBlock - 1) / kBlock;
    expand_groups<<<(unsigned)blocks, kBlock>>>(d.child_ptr, d.children, d.value, d.depth, d.path_sum, frontier,
                                                count, group_size, next, next_count);
  });
  return 0;
}
