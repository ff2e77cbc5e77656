// Shared harness of the control-flow melding samples (samples/meld_*/), on top of samples/common/sample.cuh.
//
// Each meld sample is a real program in two sources: `<name>.cu`, written as a CUDA programmer writes it,
// whose divergent if/else carries `#pragma meld` (the input to pdcc; nvcc builds it as the "original"), and
// `<name>_hand.cu`, the same program melded by hand at source level the way a DARM-style meld does it (the
// reference for what pdcc should reach). Both include the sample's header `<name>.cuh`, which holds the
// input generator (fixed seed, size from the command line), the CPU checker and the host side.
//
// Every program generates its input, runs the timed work once as a warm-up and `--reps` times (CUDA events,
// median), checks the last output against the CPU and prints one JSON line last, which bench/run.py and
// tests/test_meld_samples.py read:
//   {"sample": "bitonic", "variant": "annotated", "input": "keys-16777216-tile-1024", "median_ms": 1.25,
//    "times_ms": [...], "correct": true, "checked": true, "detail": "...", "bytes": 123456,
//    "checksum": "89abcdef01234567", "dtype": "i32"}
// It exits 1 when the output is wrong. Options besides those of sample.cuh (--size --seed --reps --param):
//   --no-check     skip the CPU reference ("correct": null, exit 0): for profiling runs under Nsight Compute
//   --dump FILE    write the output's raw bytes (dtype as in the result line) to FILE, to compare two builds
// "checksum" is FNV-1a (64 bits) over the output's bytes: two builds with the same checksum wrote the same
// output.
#pragma once

#include "sample.cuh"

namespace meld {

struct Options {
  sample::Options base;   // --size --seed --reps --param (--input is accepted and unused)
  bool check = true;
  std::string dump;
};

inline Options parse_options(int argc, char** argv) {
  Options o;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-check") {
      o.check = false;
    } else if (a == "--dump") {
      if (i + 1 >= argc) { std::fprintf(stderr, "missing value after --dump\n"); std::exit(64); }
      o.dump = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  o.base = sample::parse_options((int)rest.size(), rest.data());
  return o;
}

inline unsigned long long fnv1a(const void* data, size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  unsigned long long h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

// splitmix64's finaliser: a commutative hash of a multiset is the sum of mix(x) over its elements.
inline unsigned long long mix(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A CPU reference that costs seconds (an iterated stencil on a large image), cached on disk when
// PDCC_SAMPLE_CACHE names a folder (the benchmark runs three builds on the same input). `key` must name
// the sample, a version of its reference code and every parameter of the input. A file of the wrong size
// is rebuilt; a new one is written under a private name and renamed, so concurrent runs never see half a file.
template <typename T, typename Build>
std::vector<T> cached_reference(const std::string& key, size_t count, Build build) {
  const char* dir = std::getenv("PDCC_SAMPLE_CACHE");
  if (dir == nullptr || *dir == 0) return build();
  const std::string path = std::string(dir) + "/meld-" + key + ".ref";
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    std::vector<T> v(count);
    std::fseek(f, 0, SEEK_END);
    const long long size = std::ftell(f);
    std::rewind(f);
    const bool ok = size == (long long)(count * sizeof(T)) && std::fread(v.data(), sizeof(T), count, f) == count;
    std::fclose(f);
    if (ok) return v;
  }
  std::vector<T> v = build();
  const std::string partial = path + ".part" + std::to_string((long long)getpid());
  if (FILE* f = std::fopen(partial.c_str(), "wb")) {
    bool ok = std::fwrite(v.data(), sizeof(T), v.size(), f) == v.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(partial.c_str(), path.c_str()) != 0) std::remove(partial.c_str());
  }
  return v;
}

// Prints the result line (after writing the dump, if asked) and returns the exit status: 1 when the output
// was checked and is wrong, else 0. `detail` must not contain quotes or backslashes.
inline int finish(const char* sample, const char* variant, const std::string& input, const std::vector<double>& times,
                  const Options& o, bool correct, const std::string& detail, double bytes_moved, const void* output,
                  size_t output_bytes, const char* dtype) {
  if (!o.dump.empty()) {
    FILE* f = std::fopen(o.dump.c_str(), "wb");
    const bool ok = f != nullptr && std::fwrite(output, 1, output_bytes, f) == output_bytes;
    if (f == nullptr || std::fclose(f) != 0 || !ok) {
      std::fprintf(stderr, "%s: cannot write %s\n", sample, o.dump.c_str());
      return 2;
    }
  }
  std::printf("{\"sample\": \"%s\", \"variant\": \"%s\", \"input\": \"%s\", \"median_ms\": %.6f, \"times_ms\": [",
              sample, variant, input.c_str(), sample::median(times));
  for (size_t i = 0; i < times.size(); ++i) std::printf("%s%.6f", i ? ", " : "", times[i]);
  std::printf("], \"correct\": %s, \"checked\": %s, \"detail\": \"%s\", \"bytes\": %.0f, \"checksum\": \"%016llx\", "
              "\"dtype\": \"%s\"}\n",
              o.check ? (correct ? "true" : "false") : "null", o.check ? "true" : "false",
              o.check ? detail.c_str() : "not checked (--no-check)", bytes_moved, fnv1a(output, output_bytes), dtype);
  std::fflush(stdout);
  return o.check && !correct ? 1 : 0;
}

}  // namespace meld
