#!/usr/bin/env bash
# How many blocks a consolidated recursion's consumer should run with (issue 11): the recursive samples built
# by this tree's pdcc with the consumer's blocks fixed by the knob (-DPDCC_BLOCKS_<site>=B; 0, pdcc's default,
# sizes each level from its items), each input timed by every build in turn, median of 5 per run.
# A deep, narrow recursion (descendants 2^18 nodes, 15,474 levels) pays a tail launch whenever a level wants
# more blocks than the grid still runs; a fixed count never changes its grid's width.
# bash bench/probes/consumer_blocks/run.sh OUTDIR   (BLOCKS="0 1 2 4 16" by default; carry .whl)
set -u
out=${1:?usage: run.sh OUTDIR}
source "$(dirname "$0")/../common.sh"
mkdir -p /tmp/cb "$out"
blocks=${BLOCKS:-0 1 2 4 16}
declare -A site=([descendants]=descend_0 [traversal]=visit_0)
for s in descendants traversal; do
  for b in $blocks; do
    pdcc_from "$PWD" -q -arch=sm_90 -O3 -I samples/common -DPDCC_BLOCKS_${site[$s]}=$b samples/$s/${s}_dp.cu -o /tmp/cb/$s-$b \
      >"$out/build-$s-$b.log" 2>&1 || echo "$s blocks $b: build failed (build-$s-$b.log)" &
  done
done
wait
inputs=(
  "descendants|--size 262144 --param 1" "descendants|--size 1048576 --param 0" "descendants|--size 4096 --param 0"
  "traversal|--param 1200" "traversal|--size 262144 --param 16" "traversal|--size 1024 --param 8"
)
for entry in "${inputs[@]}"; do
  s=${entry%%|*}; args=${entry#*|}
  for b in $blocks; do
    [ -x /tmp/cb/$s-$b ] || continue
    r=$(timeout 60 /tmp/cb/$s-$b $args --reps 5 2>&1 | tail -1)
    echo "$s|$args|$b|$r" >>"$out/blocks.log"
    python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(f'{sys.argv[2]:12s} {sys.argv[3]:24s} blocks {sys.argv[4]:>3s} {d[\"median_ms\"]:9.3f} ms correct={d[\"correct\"]}')" \
      "$r" "$s" "$args" "$b" 2>/dev/null || echo "$s $args blocks $b: failed: ${r:0:300}"
  done
done
