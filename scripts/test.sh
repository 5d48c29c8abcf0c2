#!/usr/bin/env bash
# The whole test suite: creates the environment if needed, checks the layer contracts, runs pytest.
# Extra arguments go to pytest (e.g. scripts/test.sh tests/core -q).
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
lint-imports --config pyproject.toml
python -m pytest "$@"
