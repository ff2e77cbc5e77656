"""Generated CUDA files for measuring how pdcc's time grows with the size of its input.

Each kernel family is a child with a ceiling-division grid and a parent that launches it under
`#pragma dp threshold(...)`; every fourth parent also aggregates (`consldt(block)`), and a few host
lines, comments and a `#define` per family make the file look like real code (about 98 lines a site).
"""

from __future__ import annotations

_FAMILY = """\
#define SCALE_BLOCK_{i} 128
// family {i}: a child that scales a row, a helper, and a parent that launches the child per row
__device__ float helper_{i}(float v) {{
  float r = v;
  for (int k = 0; k < 4; ++k) {{
    r = r * 0.5f + 1.0f;
  }}
  return r;
}}

__global__ void child_{i}(float* data, int n, float s) {{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {{
    data[t] = helper_{i}(data[t]) * s;
  }}
}}

__global__ void parent_{i}(float* data, const int* offsets, int rows, float s) {{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) {{
    return;
  }}
  int start = offsets[row];
  int len = offsets[row + 1] - start;
  if (len > 0) {{
    #pragma dp {clauses}
    child_{i}<<<(len + SCALE_BLOCK_{i} - 1) / SCALE_BLOCK_{i}, SCALE_BLOCK_{i}>>>(data + start, len, s);
  }}
}}
"""

_HOST = """\
void run_{i}(float* data, const int* offsets, int rows) {{
  // host code around the kernels: pdcc copies it as written
  int blocks = (rows + 255) / 256;
  for (int repeat = 0; repeat < 2; ++repeat) {{
    parent_{i}<<<blocks, 256>>>(data, offsets, rows, 1.0f + repeat);
  }}
  cudaDeviceSynchronize();
}}
"""


def generate(sites: int, filler_lines: int = 50) -> str:
    """A CUDA file with `sites` annotated launches (one per parent kernel) and `filler_lines` of
    ordinary code per family, so the file has about (48 + filler_lines) lines a site."""
    parts = []
    for i in range(sites):
        clauses = "threshold(64) consldt(block)" if i % 4 == 3 else "threshold(64)"
        parts.append(_FAMILY.format(i=i, clauses=clauses))
        parts.append(_HOST.format(i=i))
        parts.append("".join(f"static const int table_{i}_{k} = {k};  // filler\n" for k in range(filler_lines)))
    return "".join(parts)


def plain(megabytes: int) -> bytes:
    """A file of about `megabytes` MB with kernels and launches but no pdcc pragma."""
    chunk = generate(1).replace("#pragma dp", "// tuned:").encode()
    return chunk * (megabytes * 1_000_000 // len(chunk) + 1)
