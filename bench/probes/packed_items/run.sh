#!/usr/bin/env bash
# Consolidated items run packed (issue 11): the recursive samples whose children open with a guard (tree,
# traversal, descendants; mandelbrot and quicksort run their items as launched) built by two pdccs, each
# input timed by both in turn, ROUNDS rounds, median of 5 per run:
#   before  the pdcc in OLD (a copy of an earlier commit's pragmadp/ and grammar/)
#   after   this tree's pdcc
# bash bench/probes/packed_items/run.sh OUTDIR [OLD]   (OLD defaults to .old; carry it and .whl with the device
# tool)
set -u
out=${1:?usage: run.sh OUTDIR [OLD]}; old=${2:-.old}
source "$(dirname "$0")/../common.sh"
mkdir -p /tmp/pk "$out"
F="-arch=sm_90 -O3 -I samples/common"
build() {  # build VARIANT SAMPLE PDCC-PACKAGE-PARENT [nvcc flags]   (`python3 -m` would put ./pragmadp first)
  local variant=$1 sample=$2 head=$3; shift 3
  pdcc_from "$head" -q $F "$@" samples/$sample/${sample}_dp.cu -o /tmp/pk/$variant-$sample \
    >"$out/build-$variant-$sample.log" 2>&1 || echo "$variant $sample: build failed (build-$variant-$sample.log)"
}
samples="tree traversal descendants mandelbrot quicksort"
for s in $samples; do
  build before $s "$old" &
  build after $s "$PWD" &
done
wait
inputs=(
  "tree|"
  "traversal|--size 1024 --param 8" "traversal|--size 262144 --param 16" "traversal|--param 1200"
  "descendants|--size 4096 --param 0" "descendants|--size 1048576 --param 0" "descendants|--size 262144 --param 1"
  "mandelbrot|--size 1024" "mandelbrot|--size 8192"
  "quicksort|--size 1048576 --param 2048" "quicksort|--size 16777216 --param 256"
)
variants="before after"
for round in ${ROUNDS:-1}; do
  for entry in "${inputs[@]}"; do
    s=${entry%%|*}; args=${entry#*|}
    for v in $variants; do
      [ -x /tmp/pk/$v-$s ] || continue
      r=$(timeout 60 /tmp/pk/$v-$s $args --reps 5 2>&1 | tail -1)
      echo "$s|$args|$round|$v|$r" >>"$out/packed.log"
      python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(f'{sys.argv[2]:12s} {sys.argv[3]:28s} r{sys.argv[4]} {sys.argv[5]:9s} {d[\"median_ms\"]:9.3f} ms correct={d[\"correct\"]}')" \
        "$r" "$s" "$args" "$round" "$v" 2>/dev/null || echo "$s $args r$round $v: failed: ${r:0:300}"
    done
  done
done
