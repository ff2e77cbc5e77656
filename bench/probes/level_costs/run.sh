#!/usr/bin/env bash
# Where a consolidated recursion's levels spend their time (issue 11): descendants and traversal as pdcc writes
# them (`pdcc --emit`), and copies of that code with parts taken out, measurement only (the copies without the
# completion compute wrong results; the checker says so, the time is what counts):
#   base        as pdcc writes it
#   noerr       the child's own `cudaGetLastError()` after the consolidated launch replaced by cudaSuccess
#   nocomplete  descendants' `complete()` (a leaf's walk up its ancestors, the sample's post-work) left out
#   neither     both
# bash bench/probes/level_costs/run.sh OUTDIR   (carry .whl; prints one line per build and input)
set -u
out=${1:?usage: run.sh OUTDIR}
source "$(dirname "$0")/../common.sh"
mkdir -p /tmp/lv "$out"
for s in descendants traversal; do
  pdcc_from "$PWD" -q --emit /tmp/lv -arch=sm_90 -O3 -rdc=true -I samples/common samples/$s/${s}_dp.cu -E -o /dev/null || exit 1
done
sed 's/cudaGetLastError()/cudaSuccess/' /tmp/lv/descendants_dp.cu >/tmp/lv/d_noerr.cu
sed 's/descendants::complete(c, root, parent, pending, desc, height);/;/' /tmp/lv/descendants_dp.cu >/tmp/lv/d_nocomplete.cu
sed 's/cudaGetLastError()/cudaSuccess/' /tmp/lv/d_nocomplete.cu >/tmp/lv/d_neither.cu
cp /tmp/lv/descendants_dp.cu /tmp/lv/d_base.cu
cp /tmp/lv/traversal_dp.cu /tmp/lv/t_base.cu
sed 's/cudaGetLastError()/cudaSuccess/' /tmp/lv/traversal_dp.cu >/tmp/lv/t_noerr.cu
for v in d_base d_noerr d_nocomplete d_neither t_base t_noerr; do
  nvcc -arch=sm_90 -O3 -rdc=true -I samples/common -I samples/descendants -I samples/traversal -I /tmp/lv \
    /tmp/lv/$v.cu -o /tmp/lv/$v -lcudadevrt 2>"$out/build-$v.log" &
done
wait
for a in "--size 262144 --param 1" "--size 4096 --param 0" "--size 1048576 --param 0"; do
  for v in d_base d_noerr d_nocomplete d_neither; do echo "$v $a $(/tmp/lv/$v $a --reps 5 2>&1 | tail -1)"; done
done | tee "$out/levels.log"
for a in "--param 1200" "--size 262144 --param 16"; do
  for v in t_base t_noerr; do echo "$v $a $(/tmp/lv/$v $a --reps 5 2>&1 | tail -1)"; done
done | tee -a "$out/levels.log"
