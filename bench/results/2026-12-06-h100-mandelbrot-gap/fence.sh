set -u
F="-arch=sm_90 -O3 -I samples/common -I samples/mandelbrot"
nvcc $F -rdc=true .exp/mandelbrot_dp.cu -o /tmp/base -lcudadevrt
nvcc $F -rdc=true .exp/nofence/mandelbrot_dp.cu -o /tmp/nofence -lcudadevrt
nvcc $F samples/mandelbrot/mandelbrot_flat.cu -o /tmp/flat
for r in 1 2; do for p in 64 512; do for v in flat base nofence; do echo "$v 8192 dwell $p r$r: $(/tmp/$v --size 8192 --param $p --reps 5 | python3 -c 'import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["median_ms"], d["correct"])')"; done; done; done
