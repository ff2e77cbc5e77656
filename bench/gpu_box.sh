#!/usr/bin/env bash
# Runs the GPU checks on a machine with an NVIDIA GPU and no network (the device box):
# dependencies from wheels carried in .whl/ (as `make bench WHEELS=.whl` does), data from .data/.
#   bash bench/gpu_box.sh OUTDIR [bench args...]
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
echo "== GPU tests"
python3 -m pytest -q -m gpu -rA tests/ 2>&1 | tee "$out/gpu-tests.log" | tail -15
echo "== compute-sanitizer on the SpMV sample, each transformation"
for clauses in "threshold(128)" "threshold(128) coarsen(4)" "threshold(32) consldt(warp)" "threshold(32) coarsen(2) consldt(block)" \
               "threshold(32) consldt(multiblock(8))" "threshold(32) coarsen(2) consldt(grid)"; do
  tag=$(echo "$clauses" | tr -c 'a-z0-9\n' '_')
  mkdir -p /tmp/san && sed "s/#pragma dp threshold(128)/#pragma dp $clauses/" samples/spmv/spmv_dp.cu > /tmp/san/spmv_dp.cu
  python3 -m pragmadp -arch=sm_90 -O3 -q -lineinfo -I samples/common -I samples/spmv /tmp/san/spmv_dp.cu -o /tmp/san/$tag
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 /tmp/san/$tag --size 20000 --reps 1 >>"$out/sanitizer.log" 2>&1
    echo "$tool [$clauses] exit $?" | tee -a "$out/sanitizer.log"
  done
done
[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
echo "== benchmark"
python3 bench/run.py --out "$out/bench" "$@" 2>&1 | tee "$out/bench.log" | tail -120
