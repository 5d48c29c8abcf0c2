#!/usr/bin/env bash
# The whole test suite: creates the environment if needed (requirements-dev.txt: the runtime plus the
# test and lint tools), checks the layer contracts, the lint and the format (ruff), that the change repeats
# no code of modules/ (scripts/check-duplicates.sh, where the duplicates command exists), runs pytest.
# Extra arguments go to pytest (e.g. scripts/test.sh tests/core -q).
PROJECT_ENV=dev
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
lint-imports --config pyproject.toml
ruff check --quiet .  # lint (pyproject.toml [tool.ruff])
ruff format --check --quiet .  # format: `ruff format .` rewrites what it refuses
bash "$ROOT/scripts/check-duplicates.sh"
python -m pytest "$@"
