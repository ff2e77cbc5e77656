// Merging sorted runs, two threads per pair of runs: the input (random keys in sorted runs), the CPU
// checker and the host side shared by merge.cu (annotated with `#pragma meld`) and merge_hand.cu.
//
// The input holds n keys in sorted runs of `run` keys. The program merges them in kPasses passes
// (ping-pong between two buffers), each merging every pair of neighbouring runs into one run of twice the
// length, so the output holds sorted runs of run * 2^kPasses keys. The checker needs no sort: every output
// run must be ascending and hold the same multiset of keys as the input runs it came from.
#pragma once

#include "meld.cuh"

namespace merge {

constexpr int kPasses = 3;

struct Input {
  std::vector<int> keys;
  int run = 0;
  std::string name;
  long long n() const { return (long long)keys.size(); }
  long long merged_run() const { return (long long)run << kPasses; }
};

// --size keys (default 2^24), --param keys per input run (default 64), --seed. The keys are random and each
// run is sorted on the CPU.
inline Input make_input(const sample::Options& o) {
  const long long n = o.size > 0 ? o.size : 1LL << 24;
  const long long run = o.param > 0 ? (long long)o.param : 64;
  if (run < 1 || run > (1 << 20) || n % (run << kPasses) != 0 || n > (1LL << 28)) {
    std::fprintf(stderr, "merge: --size (at most 2^28) must be a multiple of --param x %d\n", 1 << kPasses);
    std::exit(64);
  }
  Input in;
  in.run = (int)run;
  in.keys.resize(n);
  sample::Rng rng(o.seed);
  for (int& key : in.keys) key = (int)(unsigned)(rng.next() >> 32);
  for (long long start = 0; start < n; start += run) std::sort(in.keys.begin() + start, in.keys.begin() + start + run);
  in.name = "keys-" + std::to_string(n) + "-runs-" + std::to_string(run);
  return in;
}

inline bool check(const Input& in, const std::vector<int>& out, std::string& detail) {
  const long long length = in.merged_run();
  long long unsorted = 0, changed = 0;
  for (long long start = 0; start < in.n(); start += length) {
    unsigned long long sum_in = 0, sum_out = 0, hash_in = 0, hash_out = 0;
    bool ascending = true;
    for (long long i = start; i < start + length; ++i) {
      sum_in += (unsigned)in.keys[i];
      sum_out += (unsigned)out[i];
      hash_in += meld::mix((unsigned)in.keys[i]);
      hash_out += meld::mix((unsigned)out[i]);
      if (i > start && out[i - 1] > out[i]) ascending = false;
    }
    unsorted += !ascending;
    changed += sum_in != sum_out || hash_in != hash_out;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%lld merged runs of %lld keys: %lld not ascending, %lld not a permutation of the input",
                in.n() / length, length, unsorted, changed);
  detail = buf;
  return unsorted == 0 && changed == 0;
}

// Times kPasses calls of pass(in, out, n, run) (run doubling, buffers swapping) from a fresh copy of the
// input each time, checks the last output and prints the result line; returns the exit status.
template <typename Pass>
int run(int argc, char** argv, const char* variant, Pass pass) {
  const meld::Options o = meld::parse_options(argc, argv);
  const Input in = make_input(o.base);
  const size_t bytes = sizeof(int) * in.keys.size();
  int *pristine = nullptr, *a = nullptr, *b = nullptr;
  CUDA_CHECK(cudaMalloc(&pristine, bytes));
  CUDA_CHECK(cudaMalloc(&a, bytes));
  CUDA_CHECK(cudaMalloc(&b, bytes));
  CUDA_CHECK(cudaMemcpy(pristine, in.keys.data(), bytes, cudaMemcpyHostToDevice));
  int* result = nullptr;
  const std::vector<double> times = sample::time_runs(
      o.base.reps, [&] { CUDA_CHECK(cudaMemcpy(a, pristine, bytes, cudaMemcpyDeviceToDevice)); },
      [&] {
        int *from = a, *to = b;
        for (int p = 0, length = in.run; p < kPasses; ++p, length *= 2) {
          pass(from, to, in.n(), length);
          std::swap(from, to);
        }
        result = from;
      });
  std::vector<int> out(in.keys.size());
  CUDA_CHECK(cudaMemcpy(out.data(), result, bytes, cudaMemcpyDeviceToHost));
  sample::free_all(pristine, a, b);
  std::string detail;
  const bool ok = o.check && check(in, out, detail);
  return meld::finish("merge", variant, in.name, times, o, ok, detail, 2.0 * kPasses * (double)bytes, out.data(),
                      bytes, "i32");
}

}  // namespace merge
