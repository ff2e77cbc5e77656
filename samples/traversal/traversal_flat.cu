// Graph traversal without dynamic parallelism: breadth first, level by level from the host, one thread per
// frontier vertex looping over its neighbours, one atomic per claimed vertex to queue it.
// Build: nvcc -arch=sm_90 -O3 -I samples/common samples/traversal/traversal_flat.cu
#include "traversal.cuh"

__global__ void expand(const int* row_ptr, const int* col, int* parent, int* depth, const int* frontier, int size,
                       int next_depth, int* next, int* next_size) {
  const int v = graph::thread_vertex(frontier, size);
  if (v < 0) return;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    const int u = col[e];
    if (traversal::claim(u, v, parent)) {
      depth[u] = next_depth;
      graph::enqueue(u, next, next_size);
    }
  }
}

int main(int argc, char** argv) {
  traversal::Problem p(argc, argv);
  const sample::DeviceCsr& g = p.d;
  graph::Frontier f(p.g.n);
  return p.measure("flat", [&] {
    f.start(graph::kSource);
    // The host needs each level's size to size the next launch: one small copy per level.
    for (int level = 0; f.size > 0; ++level) {
      expand<<<graph::blocks_for(f.size, 256), 256>>>(g.row_ptr, g.col, p.parent, p.depth, f.cur, f.size, level + 1,
                                                      f.next, f.next_size);
      f.advance();
    }
  });
}
