# Sourced by the other scripts: the project's virtual environment in .venv, created and kept in step
# with the requirements (re-installed when a file changes), plus the library itself, editable.
#
#   PROJECT_ENV=runtime  requirements.txt only: what `pulumi up` and the offline check need (scripts/up.sh)
#   PROJECT_ENV=dev      requirements-dev.txt: the runtime plus pytest, ruff, import-linter, matplotlib...
#                        (the default; scripts/test.sh)
# PYTHON names the interpreter that creates the venv (default python3; 3.11 or newer).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$ROOT/.venv"
PROJECT_ENV=${PROJECT_ENV:-dev}
PYTHON_BIN=${PYTHON:-python3}

case "$PROJECT_ENV" in
  runtime) REQUIREMENTS=(requirements.txt) ;;
  dev) REQUIREMENTS=(requirements-dev.txt requirements.txt) ;;  # the first includes the second (-r)
  *) echo "error: PROJECT_ENV must be runtime or dev, got '$PROJECT_ENV'" >&2; exit 2 ;;
esac

# python_ok <interpreter>: Python 3.11 or newer (pyproject.toml: requires-python >= 3.11).
python_ok() {
  "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1
}

if [ ! -x "$VENV/bin/python" ]; then
  if ! command -v "$PYTHON_BIN" >/dev/null 2>&1 || ! python_ok "$PYTHON_BIN"; then
    echo "error: $PYTHON_BIN is missing or older than 3.11: install Python 3.11 or newer (https://www.python.org/downloads/) or set PYTHON=/path/to/python3.11" >&2
    exit 1
  fi
  echo "creating the virtual environment in $VENV"
  "$PYTHON_BIN" -m venv "$VENV"
fi

# One stamp per requirements file, holding the hash of what was installed from it. A dev install
# covers the runtime too, so it writes both stamps.
requirements_hash() {  # requirements_hash <file>...
  (cd "$ROOT" && cat "$@") | sha256sum | cut -d' ' -f1
}
stamp_of() { echo "$VENV/.$1.sha256"; }
installed() {  # installed <file>...: the stamp of the first file matches the current content of them all
  [ "$(cat "$(stamp_of "$1")" 2>/dev/null)" = "$(requirements_hash "$@")" ]
}
if ! installed "${REQUIREMENTS[@]}"; then
  echo "installing ${REQUIREMENTS[0]} into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  # pip resolves the paths inside a requirements file from its working directory: run it from the root
  (cd "$ROOT" && "$VENV/bin/python" -m pip install --quiet -r "${REQUIREMENTS[0]}")
  requirements_hash "${REQUIREMENTS[@]}" > "$(stamp_of "${REQUIREMENTS[0]}")"
  if [ "$PROJECT_ENV" = dev ]; then requirements_hash requirements.txt > "$(stamp_of requirements.txt)"; fi
fi

# The library itself, editable: the stack program, the pack and the tests import percona_mysql_k8s from
# this clone's modules/ exactly as an installed package (the Pulumi language host puts nothing else on
# sys.path). Reinstalled when the venv's copy points at another clone.
if ! "$VENV/bin/python" -c "import pathlib, sys, percona_mysql_k8s as p; sys.exit(0 if pathlib.Path(p.__file__).resolve().is_relative_to(pathlib.Path(sys.argv[1]).resolve()) else 1)" "$ROOT/modules" >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install --quiet --no-deps -e "$ROOT"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
