#!/usr/bin/env bash
# Why an inlined serial version hangs (issue 13; bench/results/2026-12-02-h200-runtime-costs/): builds
# tests/cuda/shapes.cu with threshold(32) three ways and runs each 10 times at 300 x 4 and 3000 x 4 parents
# (20 s each), on the GPU box (wheels in .whl/, as bench/gpu_box.sh takes them):
#   noinline   as pdcc writes it (the serial version __noinline__)
#   inline     the same source without __noinline__
#   nanosleep  out of line, with __nanosleep(32) in the serial loop
# The hypothesis from the SASS (cuobjdump of the linked parent, not done on a GPU): inlined, lanes in the
# serial loop can yield while they hold a warp-wide convergence barrier register (B0) that the launching
# lanes' calls into the device runtime or the fallback loop reuse, so the warp waits for itself. A hang of
# `inline` at 300 x 4 (where the budget never refuses) rules out a timing effect of the faster serial path;
# a hang of `nanosleep` (a yield point inside the out-of-line loop) supports the convergence hypothesis.
# (Only count_1d's serial loop gets the __nanosleep.) On the first hung run of `inline`, cuda-gdb prints
# the program counters and lanes of the warp in focus (gdb.txt), to compare with `cuobjdump -sass` of the
# binary (inline.sass): lanes at BSYNC B0 and B8, none in the driver. About 10 minutes at worst (60 runs of
# up to 20 s): give it a device command of its own.
#   bash bench/probes/inline_serial.sh OUTDIR
set -u
out=${1:?usage: bench/probes/inline_serial.sh OUTDIR}
cd "$(dirname "$0")/../.."
mkdir -p "$out/src"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/pdcc-site .whl/*.whl >/dev/null 2>&1
  export PYTHONPATH=/tmp/pdcc-site:$PWD
fi
build=/tmp/inline_serial
mkdir -p $build/noinline $build/inline $build/nanosleep
sed 's/#pragma dp CLAUSES/#pragma dp threshold(32)/' tests/cuda/shapes.cu >"$out/src/shapes.cu"
python3 -m pragmadp --emit $build/noinline -arch=sm_90 -O3 -q -I tests/cuda "$out/src/shapes.cu" -o $build/noinline/shapes \
  || { echo "inline_serial: pdcc failed"; exit 1; }
sed 's/static __device__ __noinline__ void \(count_[12]d__pdcc_serial\)/static __device__ void \1/' \
  $build/noinline/shapes.cu >$build/inline/shapes.cu
! grep -q '__noinline__ void count_[12]d__pdcc_serial' $build/inline/shapes.cu \
  || { echo "inline_serial: the inline edit left a __noinline__"; exit 1; }
sed 's/^\(    count_1d__pdcc_thread(.*n);\)$/    { \1 __nanosleep(32); }/' $build/noinline/shapes.cu >$build/nanosleep/shapes.cu
grep -q __nanosleep $build/nanosleep/shapes.cu || { echo "inline_serial: the nanosleep edit matched nothing"; exit 1; }
for variant in noinline inline nanosleep; do  # all three by the same nvcc line, from pdcc's emitted source
  nvcc -arch=sm_90 -rdc=true -O3 -lineinfo -I tests/cuda -I pragmadp/runtime $build/$variant/shapes.cu \
    -o $build/$variant/shapes -lcudadevrt || echo "inline_serial: $variant does not build"
done
command -v cuobjdump >/dev/null && cuobjdump -sass $build/inline/shapes >"$out/inline.sass" 2>&1
for variant in noinline inline nanosleep; do
  for args in "300 4" "3000 4"; do
    ok=0 hung=0 failed=0
    for _ in $(seq 10); do
      $build/$variant/shapes $args >$build/$variant/run.txt 2>&1 &
      pid=$!
      for _ in $(seq 200); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
      if kill -0 $pid 2>/dev/null; then
        hung=$((hung + 1))
        if [ "$variant" = inline ] && [ ! -s "$out/gdb.txt" ] && command -v cuda-gdb >/dev/null; then
          timeout 120 cuda-gdb -batch -p $pid -ex 'info cuda kernels' -ex 'info cuda warps' -ex 'info cuda lanes' \
            -ex 'bt' >"$out/gdb.txt" 2>&1
        fi
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
      elif wait $pid; then
        ok=$((ok + 1))
      else
        failed=$((failed + 1))
        { echo "$variant $args:"; tail -2 $build/$variant/run.txt; } >>"$out/failures.txt"
      fi
    done
    echo "$variant $args: ok $ok hung $hung failed $failed"
  done
done | tee "$out/summary.txt"
