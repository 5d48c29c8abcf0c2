#!/usr/bin/env bash
# The real Percona operators, built from the source kit and cached outside the clone.
#
#   scripts/operators.sh ensure-built   verify the kit's SHA256SUMS, then build the PXC operator (1.20.0) and the PS
#                                       operator (v1.2.0) into $OPERATORS_HOME/bin (default ~/.cache/percona-operators);
#                                       skips a binary already built from the same archive (its checksum is stamped)
#   scripts/operators.sh paths          print PXC_OPERATOR, PS_OPERATOR, PXC_OPERATOR_SRC, PS_OPERATOR_SRC as
#                                       export lines (eval "$(scripts/operators.sh paths)")
#
# The kit is ../shared/tools/percona-operators (set PERCONA_OPERATORS_KIT): the Go module proxy does not serve the
# operators' own modules, so their sources come from there; their dependencies come from the module proxy. Measured on
# two cores with a cold module cache: PXC about 6.5 min, PS about 5 min; a rebuild of the same source takes seconds.
#
# A missing kit, a checksum that does not match or a failed build stops the script with one line naming what failed
# (exit 1; the build's log is kept in $OPERATORS_HOME/logs).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KIT=${PERCONA_OPERATORS_KIT:-$ROOT/../shared/tools/percona-operators}
HOME_DIR=${OPERATORS_HOME:-$HOME/.cache/percona-operators}
# name  archive (in the kit)  binary
OPERATORS=(
  "pxc percona-xtradb-cluster-operator-b3b0b10a7.tar.xz pxc-operator"
  "ps percona-server-mysql-operator-v1.2.0.tar.xz ps-operator"
)

fail() { echo "operators: $*" >&2; exit 1; }
say() { echo "operators: $*"; }

verify_kit() {
  [ -f "$KIT/SHA256SUMS" ] || fail "no operator kit at $KIT (SHA256SUMS missing; set PERCONA_OPERATORS_KIT)"
  local line sum archive
  for line in "${OPERATORS[@]}"; do
    read -r _ archive _ <<< "$line"
    sum=$(awk -v f="$archive" '$2 == f { print $1 }' "$KIT/SHA256SUMS")
    [ -n "$sum" ] || fail "$KIT/SHA256SUMS lists no $archive"
    [ -f "$KIT/$archive" ] || fail "$KIT/$archive is missing"
    [ "$(sha256sum "$KIT/$archive" | cut -d' ' -f1)" = "$sum" ] || fail "checksum mismatch: $KIT/$archive is not the archive SHA256SUMS names"
  done
}

archive_sum() { awk -v f="$1" '$2 == f { print $1 }' "$KIT/SHA256SUMS"; }

build_one() {  # build_one <name> <archive> <binary>
  local name=$1 archive=$2 binary=$3 sum src stamp log start=$SECONDS
  sum=$(archive_sum "$archive")
  src=$HOME_DIR/src/${archive%.tar.xz}
  stamp=$HOME_DIR/bin/$binary.sha256
  if [ -x "$HOME_DIR/bin/$binary" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ]; then
    say "$binary cached ($HOME_DIR/bin/$binary)"
    return 0
  fi
  mkdir -p "$HOME_DIR/src" "$HOME_DIR/bin" "$HOME_DIR/logs"
  log=$HOME_DIR/logs/$binary.log
  rm -rf "$src" "$src.partial"
  mkdir -p "$src.partial"
  tar -xJf "$KIT/$archive" -C "$src.partial" || fail "unpacking $archive failed"
  mv "$src.partial/${archive%.tar.xz}" "$src" && rmdir "$src.partial"
  say "building $binary from $archive (log: $log)"
  (cd "$src" && GOFLAGS=-mod=mod go build -o "$HOME_DIR/bin/$binary.new" ./cmd/manager) > "$log" 2>&1 ||
    fail "building $binary ($name operator) failed: $(tail -n 1 "$log") (whole log: $log)"
  mv "$HOME_DIR/bin/$binary.new" "$HOME_DIR/bin/$binary"
  echo "$sum" > "$stamp"
  say "$binary built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
}

ensure_built() {
  command -v go >/dev/null 2>&1 || fail "go is missing: the operators build with the Go toolchain (https://go.dev/dl/)"
  verify_kit
  local line
  for line in "${OPERATORS[@]}"; do
    # shellcheck disable=SC2086
    build_one $line
  done
}

paths() {
  local line name archive binary upper
  for line in "${OPERATORS[@]}"; do
    read -r name archive binary <<< "$line"
    upper=$(echo "$name" | tr '[:lower:]' '[:upper:]')
    echo "export ${upper}_OPERATOR=$HOME_DIR/bin/$binary ${upper}_OPERATOR_SRC=$HOME_DIR/src/${archive%.tar.xz}"
  done
}

case "${1:-}" in
  ensure-built) ensure_built ;;
  paths) paths ;;
  *) echo "usage: scripts/operators.sh ensure-built|paths" >&2; exit 2 ;;
esac
