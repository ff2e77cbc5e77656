// Quantisation of a plane of 8x8 DCT coefficients (the quantisation step of the CUDA samples' dct8x8,
// written anew): the input (random coefficients shaped like those of a photograph), the quantisation
// table, the CPU checker and the host side shared by dct.cu (annotated with `#pragma meld`) and dct_hand.cu.
//
// Each coefficient is rounded to a multiple of its entry of the JPEG luminance table (quality 50), half
// away from zero: |c| + q/2, divided by q (truncating), times q, with c's sign. One block of 8 x 8
// threads per 8 x 8 block of coefficients. The checker quantises every coefficient on the CPU and
// compares exactly.
#pragma once

#include "meld.cuh"

namespace dct {

constexpr int kBlock = 8;

__constant__ short kQuant[kBlock * kBlock];

// The JPEG standard's luminance quantisation table (ITU T.81, Annex K), row-major by frequency.
inline const short* quantisation_table() {
  static const short table[kBlock * kBlock] = {
      16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
      14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
      18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
      49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
  return table;
}

struct Input {
  int side = 0;  // the plane is side x side coefficients
  std::vector<short> coefficients;
  std::string name;
  size_t size() const { return (size_t)side * side; }
};

// --size side (default 8192, a multiple of 8), --seed. In each 8x8 block the DC coefficient is in [0, 2040]
// and an AC coefficient at frequency (u, v) is uniform in [-m, m] with m = 1020 / (1 + u + v): high
// frequencies are small, and the sign is random, so the branch on it splits every warp.
inline Input make_input(const sample::Options& o) {
  Input in;
  in.side = o.size > 0 ? (int)o.size : 8192;
  if (in.side < kBlock || in.side % kBlock != 0 || in.side > 32768) {
    std::fprintf(stderr, "dct: --size is a multiple of %d up to 32768\n", kBlock);
    std::exit(64);
  }
  in.coefficients.resize(in.size());
  sample::Rng rng(o.seed);
  for (int y = 0; y < in.side; ++y)
    for (int x = 0; x < in.side; ++x) {
      const int u = x % kBlock, v = y % kBlock;
      const unsigned long long r = rng.next() >> 16;
      const int magnitude = u + v == 0 ? 2040 : 1020 / (1 + u + v);
      const int value = u + v == 0 ? (int)(r % 2041) : (int)(r % (2 * magnitude + 1)) - magnitude;
      in.coefficients[(size_t)y * in.side + x] = (short)value;
    }
  in.name = "plane-" + std::to_string(in.side) + "x" + std::to_string(in.side);
  return in;
}

inline short quantise(short c, short q) {
  int magnitude = c < 0 ? -c : c;
  magnitude = (magnitude + (q >> 1)) / q;
  return (short)((c < 0 ? -magnitude : magnitude) * q);
}

inline bool check(const Input& in, const std::vector<short>& out, std::string& detail) {
  const short* table = quantisation_table();
  size_t wrong = 0, negative = 0;
  for (size_t k = 0; k < in.size(); ++k) {
    const int x = (int)(k % in.side), y = (int)(k / in.side);
    const short c = in.coefficients[k];
    wrong += out[k] != quantise(c, table[(y % kBlock) * kBlock + x % kBlock]);
    negative += c < 0;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu coefficients (%.1f%% negative), %zu wrong", in.size(),
                100.0 * (double)negative / (double)in.size(), wrong);
  detail = buf;
  return wrong == 0;
}

// Times quantise(coefficients, side) on a fresh copy of the plane each run, checks the last output and
// prints the result line; returns the exit status.
template <typename Quantise>
int run(int argc, char** argv, const char* variant, Quantise quantise_plane) {
  const meld::Options o = meld::parse_options(argc, argv);
  const Input in = make_input(o.base);
  const size_t bytes = sizeof(short) * in.size();
  CUDA_CHECK(cudaMemcpyToSymbol(kQuant, quantisation_table(), sizeof(short) * kBlock * kBlock));
  short *pristine = nullptr, *plane = nullptr;
  CUDA_CHECK(cudaMalloc(&pristine, bytes));
  CUDA_CHECK(cudaMalloc(&plane, bytes));
  CUDA_CHECK(cudaMemcpy(pristine, in.coefficients.data(), bytes, cudaMemcpyHostToDevice));
  const std::vector<double> times = sample::time_runs(
      o.base.reps, [&] { CUDA_CHECK(cudaMemcpy(plane, pristine, bytes, cudaMemcpyDeviceToDevice)); },
      [&] { quantise_plane(plane, in.side); });
  std::vector<short> out(in.size());
  CUDA_CHECK(cudaMemcpy(out.data(), plane, bytes, cudaMemcpyDeviceToHost));
  sample::free_all(pristine, plane);
  std::string detail;
  const bool ok = o.check && check(in, out, detail);
  return meld::finish("dct", variant, in.name, times, o, ok, detail, 2.0 * (double)bytes, out.data(), bytes, "i16");
}

}  // namespace dct
