#!/usr/bin/env bash
# The merge sample's direction branch, melded four ways, timed on the GPU at several run lengths:
#   original  samples/meld_merge/merge.cu, as nvcc -O3 builds it
#   hand      samples/meld_merge/merge_hand.cu: one loop whose start, test and step are selects (not counted)
#   pdcc      pdcc's own meld of merge.cu: one counted loop over the trip number, each side's counter derived
#             from it, from PDCC_MELD_MIN_TRIPS_merge_runs_0 (256) trips on, below that the loops as written
#   melded    pdcc's meld with -DPDCC_MELD_MIN_TRIPS_merge_runs_0=0: the counted loop at every run length
#   counted2  merge_counted2.cu: as pdcc's, one counter update written as a select
#   site      merge_site_versioned.cu: pdcc's meld versioned at the site (below MIN_TRIPS the user's if/else)
# bash bench/probes/meld_merge/run.sh OUTDIR   (ROUNDS="1 2" for two rounds, EXTRA="counted2 melded site",
# RUNS="64 128 256 512" for other run lengths)
set -u
out=${1:?usage: run.sh OUTDIR}; cd "$(dirname "$0")/../../.."
I="-I samples/common -I samples/meld_common -I samples/meld_merge"
F="-arch=sm_90 -O3 -diag-suppress 20199"
if [ -d .whl ] && [ ! -d /tmp/pdcc-site ]; then  # pdcc's dependencies, as gpu_box.sh installs them
  python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/pdcc-site .whl/*.whl || exit 1
fi
[ -d /tmp/pdcc-site ] && export PYTHONPATH=/tmp/pdcc-site:$PWD
mkdir -p /tmp/mm "$out"
nvcc $F $I samples/meld_merge/merge.cu -o /tmp/mm/original &
nvcc $F $I samples/meld_merge/merge_hand.cu -o /tmp/mm/hand &
nvcc $F $I bench/probes/meld_merge/merge_counted2.cu -o /tmp/mm/counted2 &
nvcc $F $I bench/probes/meld_merge/merge_site_versioned.cu -o /tmp/mm/site &
python3 -m pragmadp -q $F -I samples/common -I samples/meld_common samples/meld_merge/merge.cu -o /tmp/mm/pdcc &
python3 -m pragmadp -q $F -DPDCC_MELD_MIN_TRIPS_merge_runs_0=0 -I samples/common -I samples/meld_common \
  samples/meld_merge/merge.cu -o /tmp/mm/melded &
wait
for run in ${RUNS:-16 64 512 2048}; do
  for round in ${ROUNDS:-1}; do
    for v in original hand ${EXTRA:-} pdcc; do
      [ -x /tmp/mm/$v ] || { echo "run=$run $v: not built"; continue; }
      r=$(/tmp/mm/$v --size 16777216 --param $run --reps 5 2>&1 | tail -1)
      echo "run=$run round=$round $v $r" >>"$out/merge.log"
      python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(f'run={$run:5d} r$round {\"$v\":9s} {d[\"median_ms\"]:8.3f} ms correct={d[\"correct\"]}')" "$r" 2>/dev/null \
        || echo "run=$run r$round $v: failed: $r"
    done
  done
done
