#!/usr/bin/env bash
# bash bench/probes/meld_merge/run.sh OUT: original, hand (select-stepped loop) and counted melds of merge
set -u
out=${1:?}; cd "$(dirname "$0")/../../.."
I="-I samples/common -I samples/meld_common -I samples/meld_merge"
F="-arch=sm_90 -O3 -diag-suppress 20199"
mkdir -p /tmp/mm
nvcc $F $I samples/meld_merge/merge.cu -o /tmp/mm/original &
nvcc $F $I samples/meld_merge/merge_hand.cu -o /tmp/mm/hand &
nvcc $F $I bench/probes/meld_merge/merge_counted.cu -o /tmp/mm/counted &
nvcc $F $I bench/probes/meld_merge/merge_counted2.cu -o /tmp/mm/counted2 &
nvcc $F $I bench/probes/meld_merge/merge_pdcc.cu -o /tmp/mm/pdcc &
wait
for run in 16 64 512 2048; do
  for round in ${ROUNDS:-1}; do
    for v in original hand ${EXTRA:-} pdcc; do
      r=$(/tmp/mm/$v --size 16777216 --param $run --reps 5 | tail -1)
      echo "run=$run round=$round $v $r" >>$out/merge.log
      python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(f'run={$run:5d} r$round {\"$v\":9s} {d[\"median_ms\"]:8.3f} ms correct={d[\"correct\"]}')" "$r"
    done
  done
done
