#!/usr/bin/env bash
# Why an inlined serial version hangs (issue 13; bench/results/2026-12-02-h200-runtime-costs/,
# bench/results/2026-12-02-h200-inline-serial/): builds tests/cuda/shapes.cu with CLAUSES (default
# threshold(32)) several ways from pdcc's emitted source, by one nvcc line, and runs each RUNS times (default
# 10) at 300 x 4 and 3000 x 4 parents (a run still going after TIMEOUT_S, default 20, has hung):
#   noinline   as pdcc writes it (the serial version __noinline__)
#   inline     the same source without __noinline__
#   split      inline, and the runtime's pdcc::launched (the one function every launch pdcc makes goes
#              through: the budget, cudaGetLastError, the launch) __noinline__ instead: the serial loop and
#              the device runtime's calls in different functions
#   nanosleep  out of line, with __nanosleep(32) in the serial loop (count_1d's only)
#   unroll4    out of line, `#pragma unroll 4` on the serial version's innermost loop (over threadIdx.x)
#   rolled     pdcc's form without any `#pragma unroll` line (its serial loops before 6ae651a)
# The hypothesis from the SASS: inlined, lanes in the serial loop and lanes in the device runtime's calls
# share the parent's convergence barriers, so the warp waits for itself. A hang of `inline` at 300 x 4 (where
# the budget never refuses) rules out a timing effect; `split` not hanging where `inline` does says the
# hazard needs the serial loop and the launch in one function. On the first hung run of `inline`, cuda-gdb
# prints the warp's lanes and program counters (gdb.txt); `cuobjdump -sass` of each binary is kept.
# With SPMV=1 it then times samples/spmv (median of 5, ROUNDS rounds) for each variant and each SPMV_CASES
# entry, "clauses|arguments" separated by ';' (default threshold(128) and threshold(128) coarsen(4) on the
# power-law input), the cost issue 13 asks about.
#   VARIANTS="noinline inline split" RUNS=10 [NO_GDB=1] [SPMV=1] bash bench/probes/inline_serial.sh OUTDIR
set -u
out=${1:?usage: bench/probes/inline_serial.sh OUTDIR}
cd "$(dirname "$0")/../.."
mkdir -p "$out/src"
if [ -d .whl ] && [ ! -d /tmp/pdcc-site ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/pdcc-site .whl/*.whl >/dev/null 2>&1
fi
[ -d /tmp/pdcc-site ] && export PYTHONPATH=/tmp/pdcc-site:$PWD
variants=${VARIANTS:-noinline inline split nanosleep}
build=/tmp/inline_serial

# emit SRC with CLAUSES into $build/NAME/noinline, then derive the other variants from that source
derive() {  # derive NAME SRC KERNEL-FILE
  local name=$1 src=$2 file=$3
  mkdir -p $build/$name/noinline $build/$name/inline $build/$name/split $build/$name/nanosleep $build/$name/unroll4 \
    $build/$name/rolled
  python3 -m pragmadp --emit $build/$name/noinline -arch=sm_90 -O3 -q -I tests/cuda -I samples/common "$src" \
    -o $build/$name/noinline/prog || { echo "inline_serial: pdcc failed on $src"; return 1; }
  sed 's/static __device__ __noinline__ void \(\w*__pdcc_serial\)/static __device__ void \1/' \
    $build/$name/noinline/$file >$build/$name/inline/$file
  ! grep -q '__noinline__ void \w*__pdcc_serial' $build/$name/inline/$file \
    || { echo "inline_serial: the inline edit left a __noinline__"; return 1; }
  cp $build/$name/inline/$file $build/$name/split/$file
  sed 's/^__device__ bool launched(Launch launch) {$/__device__ __noinline__ bool launched(Launch launch) {/' \
    $build/$name/noinline/pdcc_rt.cuh >$build/$name/split/pdcc_rt.cuh
  grep -q '__noinline__ bool launched' $build/$name/split/pdcc_rt.cuh \
    || { echo "inline_serial: the split edit matched nothing"; return 1; }
  cp $build/$name/noinline/pdcc_rt.cuh $build/$name/inline/
  sed 's/^\(    count_1d__pdcc_thread(.*n);\)$/    { \1 __nanosleep(32); }/' $build/$name/noinline/$file \
    >$build/$name/nanosleep/$file
  cp $build/$name/noinline/pdcc_rt.cuh $build/$name/nanosleep/
  sed 's/^\( *\)for (unsigned int pdcc_tx = 0;/\1#pragma unroll 4\n&/' $build/$name/noinline/$file >$build/$name/unroll4/$file
  grep -q '#pragma unroll 4' $build/$name/unroll4/$file || { echo "inline_serial: the unroll4 edit matched nothing"; return 1; }
  cp $build/$name/noinline/pdcc_rt.cuh $build/$name/unroll4/
  grep -v '^ *#pragma unroll' $build/$name/noinline/$file >$build/$name/rolled/$file
  cp $build/$name/noinline/pdcc_rt.cuh $build/$name/rolled/
  for variant in $variants; do  # every variant by the same nvcc line, from pdcc's emitted source
    nvcc -arch=sm_90 -rdc=true -O3 -lineinfo -I tests/cuda -I samples/common -I samples/spmv -I $build/$name/$variant \
      $build/$name/$variant/$file -o $build/$name/$variant/prog -lcudadevrt || echo "inline_serial: $name $variant does not build"
    if command -v cuobjdump >/dev/null; then
      cuobjdump -sass $build/$name/$variant/prog >"$out/$name-$variant.sass" 2>&1
      # the yield points of the serial versions: where the warp may switch to its other lanes mid-loop
      awk -v what="$name $variant" '/Function :/ { serial = ($3 ~ /pdcc_serial/) }
        serial && /YIELD|NANOSLEEP|WARPSYNC/ { n++ } END { print what ": yield points in serial versions: " n + 0 }' \
        "$out/$name-$variant.sass" | tee -a "$out/yields.txt"
    fi
  done
  return 0
}

sed "s/#pragma dp CLAUSES/#pragma dp ${CLAUSES:-threshold(32)}/" tests/cuda/shapes.cu >"$out/src/shapes.cu"
derive shapes "$out/src/shapes.cu" shapes.cu || exit 1
for variant in $variants; do
  for args in "300 4" "3000 4"; do
    ok=0 hung=0 failed=0
    for _ in $(seq ${RUNS:-10}); do
      $build/shapes/$variant/prog $args >$build/shapes/$variant/run.txt 2>&1 &
      pid=$!
      for _ in $(seq $((${TIMEOUT_S:-20} * 10))); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
      if kill -0 $pid 2>/dev/null; then
        hung=$((hung + 1))
        if [ "$variant" = inline ] && [ -z "${NO_GDB:-}" ] && [ ! -s "$out/gdb.txt" ] && command -v cuda-gdb >/dev/null; then
          timeout 120 cuda-gdb -batch -p $pid -ex 'info cuda kernels' -ex 'info cuda warps' -ex 'info cuda lanes' \
            -ex 'bt' >"$out/gdb.txt" 2>&1
        fi
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
      elif wait $pid; then
        ok=$((ok + 1))
      else
        failed=$((failed + 1))
        { echo "$variant $args:"; tail -2 $build/shapes/$variant/run.txt; } >>"$out/failures.txt"
      fi
    done
    echo "shapes ${CLAUSES:-threshold(32)} $variant $args: ok $ok hung $hung failed $failed"
  done
done | tee "$out/summary.txt"

[ "${SPMV:-0}" = 1 ] || exit 0
# SPMV_CASES: "clauses|program arguments" entries separated by ';' (default: two threshold builds, power-law input)
IFS=';' read -ra cases <<<"${SPMV_CASES:-threshold(128)|;threshold(128) coarsen(4)|}"
for case in "${cases[@]}"; do
  clauses=${case%%|*} args=${case#*|}
  name=spmv-$(echo "$clauses $args" | tr -c 'a-z0-9' '-' | cut -c1-60)
  mkdir -p "$out/src/$name"
  sed "s/#pragma dp threshold(128)/#pragma dp $clauses/" samples/spmv/spmv_dp.cu >"$out/src/$name/spmv_dp.cu"
  cp samples/spmv/*.cuh "$out/src/$name/"
  derive $name "$out/src/$name/spmv_dp.cu" spmv_dp.cu || continue
  for round in ${ROUNDS:-1 2}; do
    for variant in $variants; do
      r=$(timeout 60 $build/$name/$variant/prog --reps 5 $args 2>&1 | tail -1)
      python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(f'spmv {sys.argv[2]:28s} r{sys.argv[3]} {sys.argv[4]:9s} {d[\"median_ms\"]:8.3f} ms correct={d[\"correct\"]}')" \
        "$r" "$clauses $args" "$round" "$variant" 2>/dev/null || echo "spmv $clauses $args r$round $variant: failed: $r"
    done
  done
done | tee -a "$out/summary.txt"
