# Sourced by the other scripts: the project's virtual environment, created and kept in step with
# requirements.txt (re-installed when the file changes).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="$ROOT/.venv"
PYTHON_BIN=${PYTHON:-python3}
if ! command -v "$PYTHON_BIN" >/dev/null 2>&1; then
  echo "error: $PYTHON_BIN not found: install Python 3.11 or newer" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "creating the virtual environment in $VENV"
  "$PYTHON_BIN" -m venv "$VENV"
fi
STAMP="$VENV/.requirements.sha256"
WANT=$(cat "$ROOT/requirements.txt" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$WANT" ]; then
  echo "installing requirements.txt into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -r "$ROOT/requirements.txt"
  echo "$WANT" > "$STAMP"
fi
# The library itself, editable: the stack program, the pack and the tests import percona_mysql_k8s from
# modules/ exactly as an installed package (the Pulumi language host puts nothing else on sys.path).
if ! "$VENV/bin/python" -c "import percona_mysql_k8s" >/dev/null 2>&1; then
  "$VENV/bin/python" -m pip install --quiet --no-deps -e "$ROOT"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
