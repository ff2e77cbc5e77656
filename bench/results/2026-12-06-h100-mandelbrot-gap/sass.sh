set -u
F="-arch=sm_90 -O3 -I samples/common -I samples/mandelbrot -I .exp"
nvcc $F -rdc=true .exp/mandelbrot_dp.cu -o /tmp/pd -lcudadevrt
nvcc $F samples/mandelbrot/mandelbrot_flat.cu -o /tmp/fl
cuobjdump -sass /tmp/pd > $OUT/pd.sass 2>&1
cuobjdump -sass /tmp/fl > $OUT/fl.sass 2>&1
cuobjdump -res-usage /tmp/pd 2>&1 | grep -i "function\|REG" | head -20 > $OUT/pd.res
cuobjdump -res-usage /tmp/fl 2>&1 | grep -i "function\|REG" | head -20 > $OUT/fl.res
cat $OUT/pd.res $OUT/fl.res | cut -c1-200
for p in 64 512 2048; do for v in fl pd; do echo "$v 8192 dwell $p: $(/tmp/$v --size 8192 --param $p --reps 5 | python3 -c 'import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["median_ms"], d["correct"])')"; done; done
