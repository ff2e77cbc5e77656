#!/usr/bin/env bash
# One record pool per file, held by whoever reads records (issue 13 item 2: "a 64 MiB static pool per
# aggregated site ... share one pool"), to measure against the per-site pools on the GPU box before it lands.
# shared_pool.patch is 70adc8e + 458bf14 (reverted on main in the commit after them: that session had no
# device time left), rebased onto b811704; its CPU tests, goldens and launchability after device link (read
# from the cubin) passed on CI at 70adc8e. This script applies it to a copy of this tree in /tmp/shared_pool.
#   bash bench/probes/shared_pool.sh OUTDIR ab       bench/run.py --configs-from the 80f38e8 results on spmv,
#                                                   bfs and sssp (the inputs the tail-launched pool of 6f47504
#                                                   slowed), per-site / shared / per-site / shared in one
#                                                   command; then, patched, the runtime check under memcheck,
#                                                   racecheck and synccheck and shapes.cu (which checks that
#                                                   every hold was given back): ab.md, logs.tgz (~8 minutes)
#   bash bench/probes/shared_pool.sh OUTDIR checks   bench/gpu_box.sh checks in the patched tree (~9 minutes)
# It lands (patch -p1 <bench/probes/shared_pool.patch, this probe removed) if every check passes and no
# aggregation-alone variant is slower than with per-site pools beyond the two rounds' spread. A known cost
# to watch: the bytes come back only when no grid of the file holds the pool, so grids that always overlap
# (several streams) fill it and launch their records directly.
set -uo pipefail
out=${1:?usage: bench/probes/shared_pool.sh OUTDIR ab|checks}
mode=${2:?usage: bench/probes/shared_pool.sh OUTDIR ab|checks}
cd "$(dirname "$0")/../.."
repo=$PWD
shared=/tmp/shared_pool
mkdir -p "$out"
rm -rf $shared && mkdir -p $shared
tar -c --exclude=./.whl --exclude=./.data --exclude=./.git --exclude=./.venv --exclude=./.probe . | tar -x -C $shared
ln -s $repo/.whl $shared/.whl && ln -s $repo/.data $shared/.data
(cd $shared && patch -s -p1 <bench/probes/shared_pool.patch) || { echo "shared_pool: the patch does not apply"; exit 1; }
if [ "$mode" = checks ]; then
  cd $shared && exec bash bench/gpu_box.sh "$out" checks
fi
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/pdcc-site .whl/*.whl
export PDCC_DATA=$repo/.data PYTHONUNBUFFERED=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
reference=$repo/bench/results/2026-12-02-h200-best-baselines/results.json
logs=/tmp/shared_pool_logs
mkdir -p $logs
for round in 1 2; do
  for tree in per-site shared; do
    dir=$repo; [ $tree = shared ] && dir=$shared
    (cd $dir && PYTHONPATH=/tmp/pdcc-site:$dir timeout 200 python3 bench/run.py --out /tmp/b-$tree-$round \
        --samples spmv bfs sssp --configs-from $reference >$logs/bench-$tree-$round.log 2>&1)
    echo "$tree, round $round: exit $? at $SECONDS s"
    cp /tmp/b-$tree-$round/results.json $logs/results-$tree-$round.json 2>/dev/null
  done
done
cd $shared
export PYTHONPATH=/tmp/pdcc-site:$shared
nvcc -arch=sm_90 -lineinfo -I pragmadp/runtime tests/cuda/runtime_check.cu -o /tmp/runtime_check
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 /tmp/runtime_check >$logs/runtime-$tool.log 2>&1
  echo "runtime check, $tool: exit $? ($(tail -1 $logs/runtime-$tool.log))"
done
for clauses in "consldt(warp)" "consldt(block) buffer(pool, 3)" "consldt(multiblock(3))" \
               "threshold(32) coarsen(2) consldt(grid)"; do
  sed "s/#pragma dp CLAUSES/#pragma dp $clauses/" tests/cuda/shapes.cu >/tmp/shapes.cu
  python3 -m pragmadp -arch=sm_90 -O3 -q -I tests/cuda /tmp/shapes.cu -o /tmp/shapes \
    || { echo "shapes, $clauses: does not build"; continue; }
  timeout 60 /tmp/shapes 3000 4 >/tmp/shapes.log 2>&1
  echo "shapes, $clauses, 3000 x 4: exit $? ($(tail -1 /tmp/shapes.log))"
  timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/shapes 300 4 >/tmp/shapes-memcheck.log 2>&1
  echo "  memcheck, 300 x 4: exit $? ($(tail -1 /tmp/shapes-memcheck.log))"
done
tar -czf "$out/logs.tgz" -C $logs .
python3 - $logs "$out/ab.md" <<'PY'
import json, pathlib, sys
logs, table = pathlib.Path(sys.argv[1]), sys.argv[2]
times: dict[tuple[str, str, str], dict[str, list[str]]] = {}
for path in sorted(logs.glob("results-*.json")):
    tree = path.stem.split("-", 1)[1].rsplit("-", 1)[0]
    for run in json.loads(path.read_text())["runs"]:
        shown = f"{run['median_ms']:.3f}" if run.get("median_ms") else "-"
        if run.get("status") != "ok":
            shown += f" {run.get('status')}"
        times.setdefault((run["sample"], run["input"], run["variant"]), {}).setdefault(tree, []).append(shown)
lines = ["| sample | input | variant | per-site pools, rounds 1 and 2 (ms) | one shared pool (ms) |",
         "| --- | --- | --- | ---: | ---: |"]
for (sample, input_, variant), trees in times.items():
    lines.append(f"| {sample} | {input_} | {variant} | {', '.join(trees.get('per-site', []))} | "
                 f"{', '.join(trees.get('shared', []))} |")
pathlib.Path(table).write_text("\n".join(lines) + "\n")
print("\n".join(lines))
PY
