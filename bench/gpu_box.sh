#!/usr/bin/env bash
# Runs the GPU checks on a machine with an NVIDIA GPU and no network (the device box):
# dependencies from wheels carried in .whl/ (as `make bench WHEELS=.whl` does), data from .data/.
#   bash bench/gpu_box.sh OUTDIR checks              GPU tests, launchability after device link, compute-sanitizer
#   bash bench/gpu_box.sh OUTDIR bench [bench args]  e.g. --configs-from bench/results/2026-11-30-h200.json
#   bash bench/gpu_box.sh OUTDIR meld [bench args]   the control-flow melding samples: tests/test_meld_samples.py
#                                                     (GPU and CPU), the merge probe (bench/probes/meld_merge,
#                                                     SKIP_PROBE=1 leaves it out), then bench/run.py --only meld
#                                                     (about 5 min)
#   bash bench/gpu_box.sh OUTDIR tune                    `pdcc tune` (issue 12) on spmv and bfs, threshold +
#                                                     coarsen + block aggregation, about 4 min each: tune.tgz
#   bash bench/gpu_box.sh OUTDIR recursion [bench args] consolidated recursions (issue 11): the recursion check
#                                                     at 10 and 10,000 levels, the recursive samples' GPU tests,
#                                                     then bench/run.py on the recursive samples (add
#                                                     --profile-dp for Nsight Compute summaries of the fastest
#                                                     pdcc build and the best version of every input)
#   bash bench/gpu_box.sh OUTDIR chaining                how a consolidated recursion's levels should follow one
#                                                     another: pdcc's tail launches against a persistent consumer
#                                                     (bench/probes/level_chaining.cu): level_chaining.jsonl
# The device allows 10 minutes a command: each half stops its steps at BUDGET_S seconds (default 510) and
# still writes what it has. SKIP_TESTS=1, SKIP_LAUNCHABLE=1, SKIP_SANITIZER=1 leave a step of `checks` out
# (SKIP_TESTS=1 also the tests of `meld`; PYTEST_ARGS are added to the GPU tests' pytest). Writes to OUTDIR (few files: the device returns at most 8):
# gpu-tests.log, launchable.log, sanitizer.log, or bench.log, results.md/json, comparison.md, ratios.png, or
# meld-tests.log and merge.log (recursion-tests.log), bench.log, results.md/json; and summary.txt last, also printed.
set -uo pipefail
usage="usage: bench/gpu_box.sh OUTDIR checks|bench|meld|recursion|tune|chaining [bench args...]"
out=${1:?$usage}
mode=${2:?$usage}
shift 2
case $mode in checks|bench|meld|recursion|tune|chaining) ;; *) echo "gpu_box: the mode is checks, bench, meld, recursion, tune or chaining, not '$mode'"; exit 2 ;; esac
mkdir -p "$out"
cd "$(dirname "$0")/.."
started=$SECONDS
budget=${BUDGET_S:-510}
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
left() { echo $((budget - (SECONDS - started))); }  # seconds this half may still spend
within() {  # within COMMAND...: the command, stopped when the budget is spent (exit 124)
  local seconds; seconds=$(left)
  if [ "$seconds" -le 10 ]; then echo "gpu_box: out of time, skipped: $*"; return 124; fi
  timeout "$seconds" "$@"
}
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/pdcc-site .whl/*.whl \
    || { note "cannot install the carried wheels"; exit 1; }
  export PYTHONPATH=/tmp/pdcc-site:$PWD
fi
export PDCC_DATA=${PDCC_DATA:-$PWD/.data} PYTHONUNBUFFERED=1
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1  # the image's own pytest plugins belong to its older pytest
note "$(nvidia-smi -L | head -1); commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); mode $mode"

if [ "$mode" = checks ]; then
if [ "${SKIP_LAUNCHABLE:-0}" != 1 ]; then
  echo "== launchability after device link: every kernel of the goldens and of the samples built by pdcc"
  within python3 -m pytest -q -rA -p no:cacheprovider tests/test_launchable.py >"$out/launchable.log" 2>&1
  rc=$?
  note "launchability (exit $rc): $(tail -1 "$out/launchable.log")"
  grep -E "^(FAILED|XFAIL|XPASS|ERROR)" "$out/launchable.log" | grep -- "-gpu\]" | head -20 | tee -a "$summary"
fi
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  echo "== GPU tests"
  within python3 -m pytest -q -m gpu -rA -p no:cacheprovider tests/ --ignore=tests/test_launchable.py ${PYTEST_ARGS:-} \
    >"$out/gpu-tests.log" 2>&1
  rc=$?
  note "GPU tests (exit $rc): $(tail -1 "$out/gpu-tests.log")"
  grep -E "^(FAILED|ERROR)" "$out/gpu-tests.log" | head -20 | tee -a "$summary"
fi
if [ "${SKIP_SANITIZER:-0}" != 1 ]; then
echo "== compute-sanitizer: memcheck on samples built by pdcc, one per transformation and granularity"
# racecheck and synccheck cannot follow device-side launches (they warn and skip the child grids), so
# they run on the runtime check, which uses the same scans and group counters without launching; racecheck
# also runs on each aggregated spmv build for the parent kernels' shared memory (the group code).
san() {  # san TOOL LABEL COMMAND...
  local tool=$1 label=$2; shift 2
  local seconds; seconds=$(left); [ "$seconds" -gt 300 ] && seconds=300
  if [ "$seconds" -le 10 ]; then note "$tool [$label] skipped: out of time"; return; fi
  timeout "$seconds" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >>"$out/sanitizer.log" 2>&1
  local rc=$?  # 124: timed out
  note "$tool [$label] exit $rc"
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
      -o /tmp/san/$tag || { note "build failed: $tag"; continue; }
    # Records that overflow launch one by one; past the 2048 pending launches memcheck itself reports
    # writes inside the device runtime (the naive nvcc program too), so that case runs small.
    case $clauses in *buffer*) size=1000 ;; *) size=20000 ;; esac
    san memcheck "$sample $clauses ($size)" /tmp/san/$tag --size $size --reps 1
    case $sample:$clauses in spmv:*buffer*) ;; spmv:*consldt*) parents_to_racecheck+=("$tag") ;; esac
  done
done
for tag in ${parents_to_racecheck[@]+"${parents_to_racecheck[@]}"}; do
  # Its notice that it skips the child grids counts as one warning: the verdict is the count of errors.
  within compute-sanitizer --tool racecheck /tmp/san/$tag --size 20000 --reps 1 >/tmp/san/race.log 2>&1
  rc=$?  # 9 with the notice alone; 124: timed out
  cat /tmp/san/race.log >>"$out/sanitizer.log"
  note "racecheck [$tag, parent kernels] exit $rc: $(grep -o '([0-9]* errors' /tmp/san/race.log | tr -d '(' || echo 'no summary')"
done
nvcc -arch=sm_90 -lineinfo -I pragmadp/runtime tests/cuda/runtime_check.cu -o /tmp/san/runtime_check
for tool in memcheck racecheck synccheck; do san $tool "runtime check" /tmp/san/runtime_check; done
for clauses in "threshold(32) coarsen(4)" "consldt(warp)" "consldt(multiblock(3))" "consldt(block) buffer(pool, 3)"; do
  sed "s/#pragma dp CLAUSES/#pragma dp $clauses/" tests/cuda/shapes.cu > /tmp/san/shapes.cu
  python3 -m pragmadp -arch=sm_90 -O3 -q -lineinfo -I tests/cuda /tmp/san/shapes.cu -o /tmp/san/shapes \
    && san memcheck "shapes $clauses (300 x 4)" /tmp/san/shapes 300 4
done
fi
fi

if [ "$mode" = bench ]; then
  echo "== benchmark"
  # Its binaries, logs and inputs stay in /tmp; the tables come back.
  within python3 bench/run.py --out /tmp/pdcc-bench "$@" >"$out/bench.log" 2>&1
  rc=$?
  note "benchmark (exit $rc, 124: out of time; the tables hold every input finished): $(grep -m1 '^built' "$out/bench.log")"
  for file in results.md results.json comparison.md ratios.png; do
    [ -f /tmp/pdcc-bench/$file ] && cp /tmp/pdcc-bench/$file "$out/"
  done
  [ -f "$out/comparison.md" ] && cat "$out/comparison.md" >>"$summary"
fi
if [ "$mode" = meld ]; then
  if [ "${SKIP_TESTS:-0}" != 1 ]; then
    echo "== meld sample tests (GPU: original, pdcc and hand builds agree on random inputs; CPU: builds, verdicts)"
    within python3 -m pytest -q -rA -p no:cacheprovider tests/test_meld_samples.py >"$out/meld-tests.log" 2>&1
    rc=$?
    note "meld tests (exit $rc): $(tail -1 "$out/meld-tests.log")"
    grep -E "^(FAILED|ERROR)" "$out/meld-tests.log" | head -20 | tee -a "$summary"
  fi
  if [ "${SKIP_PROBE:-0}" != 1 ]; then
    echo "== merge melded four ways at runs of 16 to 2048 (bench/probes/meld_merge)"
    within env EXTRA="counted2 melded" bash bench/probes/meld_merge/run.sh "$out" | tee -a "$summary"
  fi
  echo "== meld benchmark"
  within python3 bench/run.py --out /tmp/pdcc-bench-meld --only meld "$@" >"$out/bench.log" 2>&1
  rc=$?
  note "meld benchmark (exit $rc, 124: out of time; the tables hold every input finished): $(grep -m1 '^built' "$out/bench.log")"
  for file in results.md results.json; do
    [ -f /tmp/pdcc-bench-meld/$file ] && cp /tmp/pdcc-bench-meld/$file "$out/"
  done
  [ -f "$out/results.md" ] && sed -n '/^### Geometric mean over the samples/,$p' "$out/results.md" >>"$summary"
fi
if [ "$mode" = recursion ]; then
  if [ "${SKIP_TESTS:-0}" != 1 ]; then
    echo "== consolidated recursions: recursion and as-launched checks (10 and 10,000 levels), recursive samples"
    within python3 -m pytest -q -m gpu -rA -p no:cacheprovider tests/test_recursive_samples.py \
      "tests/test_cuda_programs.py::test_consolidated_recursions_visit_every_item_once_at_any_depth" \
      "tests/test_cuda_programs.py::test_recursions_that_synchronise_their_blocks_run_as_launched_at_any_depth" \
      >"$out/recursion-tests.log" 2>&1
    rc=$?
    note "recursion tests (exit $rc): $(tail -1 "$out/recursion-tests.log")"
    grep -E "^(FAILED|ERROR)" "$out/recursion-tests.log" | head -20 | tee -a "$summary"
  fi
  echo "== recursive samples benchmark"
  within python3 bench/run.py --out /tmp/pdcc-bench-rec --only dp --samples tree quicksort traversal mandelbrot \
    descendants "$@" >"$out/bench.log" 2>&1
  rc=$?
  note "recursion benchmark (exit $rc, 124: out of time): $(grep -m1 '^built' "$out/bench.log")"
  for file in results.md results.json; do
    [ -f /tmp/pdcc-bench-rec/$file ] && cp /tmp/pdcc-bench-rec/$file "$out/"
  done
  grep -E "^ +(tree|quicksort|traversal|mandelbrot|descendants) " "$out/bench.log" >>"$summary"
fi
if [ "$mode" = tune ]; then
  # Each sample annotated with one configuration, built through pdcc with a JSON report, then tuned from it:
  # the sweep rebuilds with each point's -D flags (PDCC_TUNE_FLAGS) and times the sample's own result line.
  export PDCC_SAMPLE_CACHE=/tmp/pdcc-tune/cache  # each generated input made once, not once per run
  mkdir -p "$PDCC_SAMPLE_CACHE"
  for sample in spmv bfs; do
    work=/tmp/pdcc-tune/$sample
    mkdir -p "$work"
    sed "s/#pragma dp threshold(128)/#pragma dp threshold(128) coarsen(4) consldt(block)/" \
      samples/$sample/${sample}_dp.cu >"$work/${sample}_dp.cu"
    build="python3 -m pragmadp -arch=sm_90 -O3 -q -I $PWD/samples/common -I $PWD/samples/$sample $work/${sample}_dp.cu -o $work/$sample"
    $build --report "$work/report.json" || { note "tune: cannot build $sample"; continue; }
    # The baseline: the naive program, the same sample file built by nvcc without pdcc (as bench/run.py and
    # the samples' READMEs build it); the sweep gives speed-ups over it beside those over the default.
    baseline=()
    if nvcc -arch=sm_90 -O3 -rdc=true -I samples/common -I samples/$sample samples/$sample/${sample}_dp.cu \
         -o "$work/${sample}_naive" -lcudadevrt; then
      baseline=(--baseline "$work/${sample}_naive --reps 3")
    else
      note "tune: cannot build the naive $sample: tuned without a baseline"
    fi
    seconds=$(( $(left) / 2 - 30 )); [ "$seconds" -gt 270 ] && seconds=270
    within python3 -m pragmadp tune --report "$work/report.json" --build "$build" --run "$work/$sample --reps 3" \
      ${baseline[@]+"${baseline[@]}"} --budget "${seconds}s" --repeat 3 --timeout 30 --out "$out/tune-$sample" \
      >"$out/tune-$sample.log" 2>&1
    note "pdcc tune $sample (exit $?): $(grep -m1 '^best:' "$out/tune-$sample.log" | cut -c1-200)"
    grep -m1 'warning: baseline' "$out/tune-$sample.log" | cut -c1-200 | tee -a "$summary"
  done
  tar czf "$out/tune.tgz" -C "$out" $(cd "$out" && ls -d tune-* 2>/dev/null) && rm -rf "$out"/tune-*
fi
if [ "$mode" = chaining ]; then
  echo "== level chaining: tail launches (pdcc) against a persistent consumer"
  mkdir -p /tmp/chaining
  if python3 -m pragmadp -arch=sm_90 -O3 -q bench/probes/level_chaining.cu -o /tmp/chaining/level_chaining; then
    within /tmp/chaining/level_chaining >"$out/level_chaining.jsonl" 2>&1
    note "level chaining (exit $?):"
    cat "$out/level_chaining.jsonl" >>"$summary"
  else
    note "level chaining: pdcc cannot build bench/probes/level_chaining.cu"
  fi
fi
note "gpu_box $mode: $((SECONDS - started)) s"
echo "== summary"
cat "$summary"
