set -u
F="-arch=sm_90 -O3 -rdc=true -I samples/common -I samples/mandelbrot -I .exp"
for v in mandelbrot_dp m_lb6 m_lb8; do nvcc $F .exp/$v.cu -o /tmp/$v -lcudadevrt -Xptxas -v 2>&1 | grep -A1 "pdcc_level" | grep -E "Used|spill" | tr '\n' ' '; echo " <- $v"; done
nvcc -arch=sm_90 -O3 -I samples/common samples/mandelbrot/mandelbrot_flat.cu -o /tmp/flat
for r in 1 2; do for s in 1024 8192; do for v in flat mandelbrot_dp m_lb6 m_lb8; do
  echo "$v $s r$r $(/tmp/$v --size $s --reps 5 | python3 -c 'import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["median_ms"], d["correct"])')"
done; done; done
if command -v nsys >/dev/null; then
  for v in flat mandelbrot_dp; do
    timeout 120 nsys profile -o /tmp/p-$v --force-overwrite true /tmp/$v --size 8192 --reps 1 >/dev/null 2>&1
    timeout 120 nsys stats -q --report cuda_gpu_kern_sum --format csv /tmp/p-$v.nsys-rep 2>/dev/null | cut -c1-220 | head -12
  done
else echo "no nsys"; fi
