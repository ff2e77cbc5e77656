# pragmadp / pdcc. Two commands do everything on a fresh machine:
#   make demo   set up, then run pdcc on the bundled SpMV sample (transform, report, nvcc; run it on a GPU)
#   make test   set up, then type-check pragmadp/ with mypy and run the test suite (GPU tests are skipped
#               without a GPU)
#
# On a machine without network access (the GPU box), carry wheels of the dependencies in a folder and
# name it: `make bench WHEELS=.whl` installs them into build/site instead of making a venv from the index.

PYTHON ?= python3
VENV ?= .venv
BUILD ?= build
ARCH ?= sm_90

ifdef WHEELS
export PYTHONPATH := $(CURDIR)/$(BUILD)/site:$(CURDIR)
PY := $(PYTHON)
PDCC := $(PYTHON) -m pragmadp
SETUP := $(BUILD)/site/.installed
# The carried wheels are what pdcc and its tests run on; mypy is among them only if someone carried it.
TYPECHECK := if $(PY) -c 'import mypy' 2>/dev/null; then $(PY) -m mypy pragmadp; \
	else echo "note: mypy is not installed here (WHEELS=$(WHEELS)): the type check is skipped"; fi
else
PY := $(VENV)/bin/python
PDCC := $(VENV)/bin/pdcc
SETUP := $(VENV)/.installed
TYPECHECK := $(PY) -m mypy pragmadp
endif

.PHONY: setup demo test test-gpu bench bench-aggregation bench-recursion bench-meld bench-merge bench-check clean

setup: $(SETUP)

$(BUILD)/site/.installed:
	$(PYTHON) -m pip install -q --no-index --no-deps --no-compile --target $(BUILD)/site $(WHEELS)/*.whl
	touch $@

$(VENV)/.installed: setup.cfg setup.py pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	$(VENV)/bin/python -m pip install -q -e '.[test]'
	touch $@

demo: $(SETUP)
	mkdir -p $(BUILD)/demo
	$(PDCC) -arch=$(ARCH) -O3 -I samples/common --emit $(BUILD)/demo --report $(BUILD)/demo/report.md \
	    samples/spmv/spmv_dp.cu -o $(BUILD)/demo/spmv_pdcc
	@echo "transformed source: $(BUILD)/demo/spmv_dp.cu   report: $(BUILD)/demo/report.md"
	@if nvidia-smi -L >/dev/null 2>&1; then \
	    $(BUILD)/demo/spmv_pdcc --size 200000; \
	else echo "no GPU here: built $(BUILD)/demo/spmv_pdcc, not running it"; fi

# mypy first (configured in setup.cfg's [mypy]): a type error fails `make test` before the suite runs.
test: $(SETUP)
	$(TYPECHECK)
	$(PY) -m pytest -q

test-gpu: $(SETUP)
	$(PY) -m pytest -q -m gpu

# The whole suite, as three parts that each fit in one 10-minute command of a lent GPU (the aggregation and
# recursion parts get BENCH_BUDGET_S seconds from their start, builds included; past them no tuning,
# profile or input starts, what has started finishes, and results.md says what was cut), then one table,
# JSON and plot of them in $(BUILD)/bench. On such a GPU run the parts one by
# one, bring their build/bench-*/results.json back, and `make bench-merge` anywhere (no GPU needed):
#   bench-aggregation  the samples without a recursion: every configuration, each input tuned, profiled
#   bench-recursion    the recursive samples (consolidation), profiled
#   bench-meld         the control-flow melding samples: original, pdcc and hand builds of samples/meld_*,
#                      Nsight Compute's counts beside the times (about 4 minutes on an H200)
BENCH_BUDGET_S ?= 360
BENCH_PARTS := $(BUILD)/bench-aggregation/results.json $(BUILD)/bench-recursion/results.json \
	$(BUILD)/bench-meld/results.json

# (one part at a time, even under make -j: parts running together would time each other)
.NOTPARALLEL: bench
bench: bench-aggregation bench-recursion bench-meld
	$(MAKE) bench-merge

bench-aggregation: $(SETUP)
	$(PY) bench/run.py --out $(BUILD)/bench-aggregation --only aggregation --tune --profile-dp \
	    --budget-s $(BENCH_BUDGET_S) $(BENCH_ARGS)

bench-recursion: $(SETUP)
	$(PY) bench/run.py --out $(BUILD)/bench-recursion --only recursion --profile-dp --budget-s $(BENCH_BUDGET_S) $(BENCH_ARGS)

bench-meld: $(SETUP)
	$(PY) bench/run.py --out $(BUILD)/bench-meld --only meld $(BENCH_ARGS)

bench-merge: $(SETUP)
	$(if $(wildcard $(BENCH_PARTS)),$(PY) bench/run.py --merge $(wildcard $(BENCH_PARTS)) --out $(BUILD)/bench,\
	    @echo "bench-merge: no results.json in $(BUILD)/bench-{aggregation,recursion,meld}/: run those parts first"; exit 1)

# A change against recorded results in minutes: per input the plain and aggregation-only variants and
# the fastest configuration recorded in BASELINE; writes $(BUILD)/bench-check/comparison.md.
BASELINE ?= bench/results/2026-11-30-h200.json
bench-check: $(SETUP)
	$(PY) bench/run.py --out $(BUILD)/bench-check --configs-from $(BASELINE) $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) .pytest_cache .mypy_cache
