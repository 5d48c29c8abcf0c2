#!/usr/bin/env bash
# The suite with every dependency at its lower bound: pyproject.toml's ranges start at the oldest releases the
# project is tested with, and this is the test. A virtualenv of its own (.venv-lower-bounds, or
# LOWER_BOUNDS_VENV) gets the library (editable, every extra and the test tools) installed against a constraints
# file pinning each direct dependency to its lower bound (scripts/lower_bounds.py writes it from pyproject.toml);
# then the layer contracts and pytest, without the tiers that run elsewhere (clean_venv: fresh installs from
# PyPI at the newest releases; apiserver, engine: their own scripts).
#
#   scripts/lower-bounds.sh            # build (or reuse) the venv, then the suite
#   scripts/lower-bounds.sh -x -q      # pytest arguments pass through
#
# The venv is rebuilt when pyproject.toml changes (a stamp of its hash). PYTHON names the interpreter (3.11+).
# .ci/run runs it after the suite; each run prints what it installed and how long the install and the tests took.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV=${LOWER_BOUNDS_VENV:-$ROOT/.venv-lower-bounds}
PYTHON_BIN=${PYTHON:-python3}
STAMP="$VENV/.pyproject.sha256"
cd "$ROOT"

started=$SECONDS
wanted=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$wanted" ]; then
  rm -rf "$VENV"
  "$PYTHON_BIN" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check packaging   # what lower_bounds.py reads pyproject with
  "$VENV/bin/python" scripts/lower_bounds.py -o "$VENV/constraints.txt"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -c "$VENV/constraints.txt" -e ".[dev]"
  echo "$wanted" > "$STAMP"
fi
# every constrained distribution is installed at exactly its lower bound, and the set is consistent
"$VENV/bin/python" - "$VENV/constraints.txt" <<'PY'
import sys
from importlib.metadata import version

wrong = []
for line in open(sys.argv[1]):
    name, _, wanted = line.strip().partition("==")
    if name and version(name) != wanted:
        wrong.append(f"{name} {version(name)} (lower bound {wanted})")
if wrong:
    sys.exit("not at the lower bound: " + ", ".join(wrong))
print("at the lower bounds:", ", ".join(line.strip() for line in open(sys.argv[1])))
PY
"$VENV/bin/python" -m pip check --disable-pip-version-check
echo "lower-bound venv ready in $((SECONDS - started)) s"

tested=$SECONDS
export PATH="$VENV/bin:$PATH"
lint-imports --config pyproject.toml
status=0
python -m pytest -m "not clean_venv and not apiserver and not engine" "$@" || status=$?
echo "lower-bound suite: $((SECONDS - tested)) s (exit $status)"
exit $status
