#!/usr/bin/env bash
# A change adds no repeated logic to the library: `duplicates --change` over modules/ (this workplace's
# duplicate finder; on a machine without it the check says so and passes).
# A pair sharing lines to the letter fails the check; a pair alike only in shape (names and values differ:
# dataclass field lists, keyword calls) is printed for review, since most are declarations, not logic; a
# boilerplate row is not a finding. The component shells in stack/components/ are generated from Pulumi.yaml (provider/generate.py),
# one per target, and repeat by design: Pulumi's analyzer reads a field's description only from the class's
# own source.
#   DUPLICATES_BASE=REV  what the change is measured against (default: where HEAD left origin/main or main)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if ! command -v duplicates >/dev/null 2>&1; then
  echo "duplicates check skipped: the duplicates command is not on PATH" >&2
  exit 0
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "duplicates check skipped: not a git checkout, so there is no change to measure" >&2
  exit 0
fi
base=${DUPLICATES_BASE:-}
if [ -z "$base" ]; then
  for upstream in origin/main main; do
    if base=$(git merge-base HEAD "$upstream" 2>/dev/null); then break; fi
    base=HEAD
  done
fi
report=$(duplicates --change --base "$base" --repo modules --most 200 --seconds 120)
rows=$(grep -E '^D[0-9]+ ' <<<"$report" | grep -v ' boilerplate' | grep -v 'stack/components/.*~ .*stack/components/' || true)
findings=$(grep -v ' shape' <<<"$rows" || true)
shapes=$(grep ' shape' <<<"$rows" || true)
if [ -n "$shapes" ]; then
  echo "note: the change since $base has code alike in shape to code in modules/ (one definition, if it is one piece of logic):" >&2
  echo "$shapes" >&2
fi
if grep -q '^incomplete:' <<<"$report"; then
  echo "warning: duplicates did not read everything: $(grep '^incomplete:' <<<"$report")" >&2
fi
if [ -n "$findings" ]; then
  echo "error: the change since $base repeats logic already in modules/ (duplicates --change --base $base --repo modules):" >&2
  echo "$findings" >&2
  echo "fold each pair into one definition (a helper, a table, a loop), or keep it and say why in review" >&2
  exit 1
fi
