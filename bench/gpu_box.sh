#!/usr/bin/env bash
# Runs the GPU checks on a machine with an NVIDIA GPU and no network (the device box):
# dependencies from wheels carried in .whl/ (as `make bench WHEELS=.whl` does), data from .data/.
#   bash bench/gpu_box.sh OUTDIR [bench args...]     e.g. --tune --reps 3; SKIP_BENCH=1 or SKIP_CHECKS=1 for one half
# Writes OUTDIR/gpu-tests.log, OUTDIR/sanitizer.log and the benchmark results (results.md/json, ratios.png).
set -uo pipefail
out=${1:?usage: bench/gpu_box.sh OUTDIR [bench args...]}; shift
mkdir -p "$out"
cd "$(dirname "$0")/.."
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/pdcc-site .whl/*.whl \
    || { echo "cannot install the carried wheels"; exit 1; }
  export PYTHONPATH=/tmp/pdcc-site:$PWD
fi
export PDCC_DATA=${PDCC_DATA:-$PWD/.data}
nvidia-smi -L
if [ "${SKIP_CHECKS:-0}" != 1 ]; then  # SKIP_CHECKS=1: the benchmark alone (GPU time is lent by the minute)
echo "== GPU tests"
python3 -m pytest -q -m gpu -rA tests/ 2>&1 | tee "$out/gpu-tests.log" | tail -15
echo "== compute-sanitizer: memcheck on samples built by pdcc, one per transformation and granularity"
# racecheck and synccheck cannot follow device-side launches (they warn and skip the child grids), so
# they run on the runtime check, which uses the same scans and group counters without launching; racecheck
# also runs on each aggregated spmv build for the parent kernels' shared memory (the group code).
san() {  # san TOOL LABEL COMMAND...
  local tool=$1 label=$2; shift 2
  timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >>"$out/sanitizer.log" 2>&1  # 124: timed out
  local rc=$?
  echo "$tool [$label] exit $rc" | tee -a "$out/sanitizer.log"
}
mkdir -p /tmp/san
parents_to_racecheck=()
for sample in spmv bfs; do
  for clauses in "threshold(128)" "threshold(128) coarsen(4)" "threshold(32) consldt(warp)" \
                 "threshold(32) coarsen(2) consldt(block)" "threshold(32) consldt(multiblock(8))" \
                 "threshold(32) coarsen(2) consldt(grid)" "consldt(block) buffer(pool, 2)"; do
    tag=$sample-$(echo "$clauses" | tr -c 'a-z0-9\n' '_')
    sed "s/#pragma dp threshold(128)/#pragma dp $clauses/" samples/$sample/${sample}_dp.cu > /tmp/san/${sample}_dp.cu
    python3 -m pragmadp -arch=sm_90 -O3 -q -lineinfo -I samples/common -I samples/$sample /tmp/san/${sample}_dp.cu \
      -o /tmp/san/$tag || { echo "build failed: $tag"; continue; }
    # Records that overflow launch one by one; past the 2048 pending launches memcheck itself reports
    # writes inside the device runtime (the naive nvcc program too), so that case runs small.
    case $clauses in *buffer*) size=1000 ;; *) size=20000 ;; esac
    san memcheck "$sample $clauses ($size)" /tmp/san/$tag --size $size --reps 1
    case $sample:$clauses in spmv:*buffer*) ;; spmv:*consldt*) parents_to_racecheck+=("$tag") ;; esac
  done
done
for tag in ${parents_to_racecheck[@]+"${parents_to_racecheck[@]}"}; do
  # Its notice that it skips the child grids counts as one warning: the verdict is the count of errors.
  timeout 300 compute-sanitizer --tool racecheck /tmp/san/$tag --size 20000 --reps 1 >/tmp/san/race.log 2>&1
  rc=$?  # 9 with the notice alone; 124: timed out
  cat /tmp/san/race.log >>"$out/sanitizer.log"
  echo "racecheck [$tag, parent kernels] exit $rc: $(grep -o '([0-9]* errors' /tmp/san/race.log | tr -d '(' || echo 'no summary')" \
    | tee -a "$out/sanitizer.log"
done
nvcc -arch=sm_90 -lineinfo -I pragmadp/runtime tests/cuda/runtime_check.cu -o /tmp/san/runtime_check
for tool in memcheck racecheck synccheck; do san $tool "runtime check" /tmp/san/runtime_check; done
for clauses in "threshold(32) coarsen(4)" "consldt(warp)" "consldt(multiblock(3))" "consldt(block) buffer(pool, 3)"; do
  sed "s/#pragma dp CLAUSES/#pragma dp $clauses/" tests/cuda/shapes.cu > /tmp/san/shapes.cu
  python3 -m pragmadp -arch=sm_90 -O3 -q -lineinfo /tmp/san/shapes.cu -o /tmp/san/shapes \
    && san memcheck "shapes $clauses (300 x 4)" /tmp/san/shapes 300 4
done
fi
[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
echo "== benchmark"
python3 bench/run.py --out "$out/bench" "$@" 2>&1 | tee "$out/bench.log" | tail -120
