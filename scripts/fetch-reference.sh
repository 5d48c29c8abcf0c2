#!/usr/bin/env bash
# Reference material the tests read and the project does not ship (the operators' CRDs and examples, the
# Helm charts, the upstream corpus, the specification): a copy of each item whose bytes match the sums
# pinned in tests/reference_material/manifest.toml, in ~/.cache/percona-mysql-k8s/reference (or
# $PERCONA_REFERENCE_CACHE). Each comes from the cache, a mirror ($PERCONA_REFERENCE_DIR), ../shared/reference/
# beside the clone, or the network (pinned raw.githubusercontent.com URLs at fixed commits), in that order.
#
#   scripts/fetch-reference.sh                 every item (a mirror-only one no mirror holds is reported, exit 0)
#   scripts/fetch-reference.sh --require-all   ... and fail when anything stays missing (CI; also PERCONA_REFERENCE_REQUIRED=1)
#   scripts/fetch-reference.sh --path charts/pxc-operator-1.20.0.tgz   fetch one item and print its verified path
#   scripts/fetch-reference.sh --list          the items, their URLs and sums
#
# Standard library only: runs with any Python 3.11+ (PYTHON, default python3), before the project's venv exists.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON_BIN=${PYTHON:-python3}
if ! "$PYTHON_BIN" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1; then
  echo "error: $PYTHON_BIN is missing or older than 3.11: install Python 3.11 or newer or set PYTHON=/path/to/python3.11" >&2
  exit 1
fi
PYTHONPATH="$ROOT/tests" exec "$PYTHON_BIN" -m reference_material "$@"
