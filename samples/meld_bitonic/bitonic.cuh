// Bitonic sort of shared-memory tiles: the input (random 32-bit keys), the CPU checker and the host side
// shared by bitonic.cu (annotated with `#pragma meld`) and bitonic_hand.cu (melded by hand).
//
// Every block sorts one tile of `tile` consecutive keys (a power of two, 2..1024: one thread per key) in
// shared memory, ascending. The checker needs no sort: every tile of the output must be ascending and hold
// the same multiset of keys as the input tile (the sum of the keys and the sum of a 64-bit hash of each key).
#pragma once

#include "meld.cuh"

namespace bitonic {

struct Input {
  std::vector<int> keys;
  int tile = 0;
  std::string name;
  long long n() const { return (long long)keys.size(); }
};

// --size keys (default 2^24), --param keys per tile (default 1024), --seed.
inline Input make_input(const sample::Options& o) {
  const long long n = o.size > 0 ? o.size : 1LL << 24;
  const long long tile = o.param > 0 ? (long long)o.param : 1024;
  if (tile < 2 || tile > 1024 || (tile & (tile - 1)) != 0 || n % tile != 0 || n > (1LL << 28)) {
    std::fprintf(stderr, "bitonic: the tile is a power of two from 2 to 1024 and --size (at most 2^28) a multiple of it\n");
    std::exit(64);
  }
  Input in;
  in.tile = (int)tile;
  in.keys.resize(n);
  sample::Rng rng(o.seed);
  for (int& key : in.keys) key = (int)(unsigned)(rng.next() >> 32);
  in.name = "keys-" + std::to_string(n) + "-tile-" + std::to_string(tile);
  return in;
}

inline bool check(const Input& in, const std::vector<int>& out, std::string& detail) {
  long long unsorted = 0, changed = 0;
  for (long long start = 0; start < in.n(); start += in.tile) {
    unsigned long long sum_in = 0, sum_out = 0, hash_in = 0, hash_out = 0;
    bool ascending = true;
    for (long long i = start; i < start + in.tile; ++i) {
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
  std::snprintf(buf, sizeof buf, "%lld tiles of %d keys: %lld not ascending, %lld not a permutation of the input",
                in.n() / in.tile, in.tile, unsorted, changed);
  detail = buf;
  return unsorted == 0 && changed == 0;
}

// Times sort(keys, n, tile) on a fresh copy of the input each run, checks the last output and prints the
// result line; returns the exit status.
template <typename Sort>
int run(int argc, char** argv, const char* variant, Sort sort) {
  const meld::Options o = meld::parse_options(argc, argv);
  const Input in = make_input(o.base);
  const size_t bytes = sizeof(int) * in.keys.size();
  int *pristine = nullptr, *keys = nullptr;
  CUDA_CHECK(cudaMalloc(&pristine, bytes));
  CUDA_CHECK(cudaMalloc(&keys, bytes));
  CUDA_CHECK(cudaMemcpy(pristine, in.keys.data(), bytes, cudaMemcpyHostToDevice));
  const std::vector<double> times = sample::time_runs(
      o.base.reps, [&] { CUDA_CHECK(cudaMemcpy(keys, pristine, bytes, cudaMemcpyDeviceToDevice)); },
      [&] { sort(keys, in.n(), in.tile); });
  std::vector<int> out(in.keys.size());
  CUDA_CHECK(cudaMemcpy(out.data(), keys, bytes, cudaMemcpyDeviceToHost));
  sample::free_all(pristine, keys);
  std::string detail;
  const bool ok = o.check && check(in, out, detail);
  return meld::finish("bitonic", variant, in.name, times, o, ok, detail, 2.0 * (double)bytes, out.data(), bytes, "i32");
}

}  // namespace bitonic
