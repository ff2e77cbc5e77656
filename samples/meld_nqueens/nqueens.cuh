// N-Queens by backtracking with a per-thread stack: the input (the board's first rows, placed on the CPU,
// in a random order), the CPU checker and the host side shared by nqueens.cu (annotated with `#pragma meld`)
// and nqueens_hand.cu.
//
// The CPU places queens on the first `prefix` rows of an n x n board in every way no two attack each other;
// each such prefix is one thread's work: count the ways to complete it (in the style of the GPGPU-Sim
// benchmark NQU, written anew). A prefix is three bit masks over the columns: the columns taken, and the
// columns attacked along the two diagonals in the next row. The prefixes are shuffled with the seed, so
// which threads share a warp (and how they diverge) changes with it.
//
// The checker: the counts must add up to the number of solutions of the n-queens problem (OEIS A000170,
// n <= 18), and kSampled prefixes chosen at random must have exactly the count the CPU finds for them.
#pragma once

#include "meld.cuh"

namespace nqueens {

constexpr int kThreads = 128;  // threads per block (the shared-memory stacks are sized for it)
constexpr int kMaxRows = 16;   // rows a thread searches: n - prefix
constexpr int kSampled = 256;  // prefixes the CPU counts itself

struct Input {
  int n = 0, prefix = 0;
  std::vector<unsigned> cols, left, right;  // one entry per prefix
  std::string name;
  int prefixes() const { return (int)cols.size(); }
  int rows() const { return n - prefix; }
};

// Every placement of queens on the first `rows` rows; left/right: the columns the diagonals attack in the
// next row (left moves towards the high bits, right towards the low bits).
inline void place(int n, int rows, int row, unsigned cols, unsigned left, unsigned right, Input& in) {
  const unsigned all = (1u << n) - 1;
  if (row == rows) {
    in.cols.push_back(cols);
    in.left.push_back(left);
    in.right.push_back(right);
    return;
  }
  for (unsigned free = all & ~(cols | left | right); free != 0; free &= free - 1) {
    const unsigned bit = free & (0u - free);
    place(n, rows, row + 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >> 1, in);
  }
}

// --size n (default 14, 4..18), --param prefix rows (default 5 for n >= 14, else 4), --seed.
inline Input make_input(const sample::Options& o) {
  Input in;
  in.n = o.size > 0 ? (int)o.size : 14;
  in.prefix = o.param > 0 ? (int)o.param : (in.n >= 14 ? 5 : 4);
  if (in.n < 4 || in.n > 18 || in.prefix < 1 || in.prefix >= in.n || in.n - in.prefix > kMaxRows) {
    std::fprintf(stderr, "nqueens: n from 4 to 18, prefix rows from 1 to n - 1, at most %d rows left\n", kMaxRows);
    std::exit(64);
  }
  place(in.n, in.prefix, 0, 0, 0, 0, in);
  sample::Rng rng(o.seed);
  for (int i = in.prefixes() - 1; i > 0; --i) {  // Fisher-Yates
    const int j = (int)rng.below(i + 1);
    std::swap(in.cols[i], in.cols[j]);
    std::swap(in.left[i], in.left[j]);
    std::swap(in.right[i], in.right[j]);
  }
  in.name = "n-" + std::to_string(in.n) + "-prefix-" + std::to_string(in.prefix) + "-seed-" + std::to_string(o.seed);
  return in;
}

// The completions of one prefix, recursively on the CPU.
inline unsigned long long complete(unsigned all, int rows, unsigned cols, unsigned left, unsigned right) {
  if (rows == 0) return 1;
  unsigned long long count = 0;
  for (unsigned free = all & ~(cols | left | right); free != 0; free &= free - 1) {
    const unsigned bit = free & (0u - free);
    count += complete(all, rows - 1, cols | bit, ((left | bit) << 1) & all, (right | bit) >> 1);
  }
  return count;
}

inline bool check(const Input& in, const std::vector<unsigned>& counts, std::string& detail) {
  static const unsigned long long kSolutions[19] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
                                                    2279184, 14772512, 95815104, 666090624};
  unsigned long long total = 0;
  for (unsigned c : counts) total += c;
  sample::Rng rng(0x5eed);
  const unsigned all = (1u << in.n) - 1;
  int wrong = 0, sampled = std::min(kSampled, in.prefixes());
  for (int s = 0; s < sampled; ++s) {
    const int p = sampled == in.prefixes() ? s : (int)rng.below(in.prefixes());
    wrong += complete(all, in.rows(), in.cols[p], in.left[p], in.right[p]) != counts[p];
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "%d prefixes, %llu solutions (expected %llu), %d of %d sampled prefixes wrong",
                in.prefixes(), total, kSolutions[in.n], wrong, sampled);
  detail = buf;
  return total == kSolutions[in.n] && wrong == 0;
}

// Times search(n, rows, cols, left, right, prefixes, counts) (counts cleared before each run), checks
// the last output and prints the result line; returns the exit status.
template <typename Search>
int run(int argc, char** argv, const char* variant, Search search) {
  const meld::Options o = meld::parse_options(argc, argv);
  const Input in = make_input(o.base);
  const size_t bytes = sizeof(unsigned) * in.prefixes();
  unsigned *cols = nullptr, *left = nullptr, *right = nullptr, *counts = nullptr;
  CUDA_CHECK(cudaMalloc(&cols, bytes));
  CUDA_CHECK(cudaMalloc(&left, bytes));
  CUDA_CHECK(cudaMalloc(&right, bytes));
  CUDA_CHECK(cudaMalloc(&counts, bytes));
  CUDA_CHECK(cudaMemcpy(cols, in.cols.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(left, in.left.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(right, in.right.data(), bytes, cudaMemcpyHostToDevice));
  const std::vector<double> times = sample::time_runs(
      o.base.reps, [&] { CUDA_CHECK(cudaMemset(counts, 0xFF, bytes)); },
      [&] { search(in.n, in.rows(), cols, left, right, in.prefixes(), counts); });
  std::vector<unsigned> out(in.prefixes());
  CUDA_CHECK(cudaMemcpy(out.data(), counts, bytes, cudaMemcpyDeviceToHost));
  sample::free_all(cols, left, right, counts);
  std::string detail;
  const bool ok = o.check && check(in, out, detail);
  return meld::finish("nqueens", variant, in.name, times, o, ok, detail, 4.0 * (double)bytes, out.data(), bytes, "u32");
}

}  // namespace nqueens
