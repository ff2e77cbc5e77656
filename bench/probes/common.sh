# Sourced by the probes (bench/probes/*/run.sh): the repository root as the working directory, and pdcc's
# dependencies from the wheels carried in .whl/ (the device box has none of them and no network).
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/pdcc-site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/pdcc-site
fi

# pdcc_from DIR ARGS...: pdcc as the package DIR/pragmadp has it (`python3 -m pragmadp` would take ./pragmadp).
pdcc_from() {
  local head=$1
  shift
  python3 -c 'import sys; sys.path.insert(0, sys.argv.pop(1)); from pragmadp.cli import main; raise SystemExit(main())' \
    "$head" "$@"
}
