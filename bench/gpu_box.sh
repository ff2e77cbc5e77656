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
echo "== compute-sanitizer on the thresholded SpMV sample"
python3 -m pragmadp -arch=sm_90 -O3 -q -lineinfo -I samples/common samples/spmv/spmv_dp.cu -o /tmp/spmv_pdcc
compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/spmv_pdcc --size 20000 --reps 1 >>"$out/sanitizer.log" 2>&1
echo "memcheck exit $?" | tee -a "$out/sanitizer.log"
# racecheck does not follow dynamic parallelism (it says so); the all-serial build has no child grids to miss.
python3 -m pragmadp -arch=sm_90 -O3 -q -lineinfo -DPDCC_THRESHOLD_spmv_rows_0=2147483647 -I samples/common \
  samples/spmv/spmv_dp.cu -o /tmp/spmv_serial
compute-sanitizer --tool racecheck --error-exitcode 9 /tmp/spmv_serial --size 20000 --reps 1 >>"$out/sanitizer.log" 2>&1
echo "racecheck (all serial) exit $?" | tee -a "$out/sanitizer.log"
echo "== benchmark"
python3 bench/run.py --out "$out/bench" "$@" 2>&1 | tee "$out/bench.log" | tail -120
