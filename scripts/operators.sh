#!/usr/bin/env bash
# The real Percona operators, built from the source kit and cached outside the clone.
#
#   scripts/operators.sh ensure-built   verify the kit's SHA256SUMS, then build the PXC operator (1.20.0) and the PS
#                                       operator (v1.2.0) into $OPERATORS_HOME/bin (default ~/.cache/percona-operators);
#                                       skips a binary already built from the same archive (its checksum is stamped)
#   scripts/operators.sh paths          print PXC_OPERATOR, PS_OPERATOR, PXC_OPERATOR_SRC, PS_OPERATOR_SRC as
#                                       export lines (eval "$(scripts/operators.sh paths)")
#   scripts/operators.sh run-tier [pytest args]
#                                       the operator tier (docs/operators.md): ensure-built, a control plane of its
#                                       own (scripts/engine.sh up with this tier's state dir and ports: etcd, kube-
#                                       apiserver, kube-controller-manager, kube-scheduler, kwok), then
#                                       `pytest -m operators tests/operators`, and always `down` afterwards. One PXC
#                                       operator runs per host (its webhook binds :9443): run it under
#                                       `flock /tmp/locks/pxc-operator.lock` where other jobs may run one.
#
# The tier's control plane lives in OPERATOR_TIER_HOME (default ~/.cache/percona-mysql-operator-tier) on ports
# OPERATOR_ETCD_PORT, OPERATOR_ETCD_PEER_PORT, OPERATOR_APISERVER_PORT, OPERATOR_KWOK_PORT (default 32379, 32380,
# 32443, 32450: below Linux's ephemeral port range, 32768 and up, where an outgoing connection may hold a
# port), beside the API-server and engine tiers'. A missing prerequisite (go, the kit, the control-plane
# tool) skips the tier on a workstation and fails it under CI=true or OPERATOR_TIER_REQUIRED=1.
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

# A missing prerequisite of the tier: skipped on a workstation (exit 0), failed where the tier must run.
missing_prerequisite() {
  if [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ] || [ "${OPERATOR_TIER_REQUIRED:-}" = 1 ]; then
    echo "operator tier: FAILED - $1 (CI=${CI:-} OPERATOR_TIER_REQUIRED=${OPERATOR_TIER_REQUIRED:-}: the tier must run)" >&2
    exit 1
  fi
  echo "operator tier: SKIPPED - $1"
  exit 0
}

run_tier() {
  local start=$SECONDS status=0
  command -v go >/dev/null 2>&1 || missing_prerequisite "go is missing: the operators build with the Go toolchain (https://go.dev/dl/)"
  [ -f "$KIT/SHA256SUMS" ] || missing_prerequisite "no operator kit at $KIT (set PERCONA_OPERATORS_KIT)"
  local tool=${K8S_CONTROL_PLANE_TOOL:-$ROOT/../shared/tools/k8s-control-plane}
  [ -x "$tool" ] || missing_prerequisite "no control-plane tool at $tool (set K8S_CONTROL_PLANE_TOOL)"
  ensure_built
  # this tier's own control plane, beside the others' (scripts/engine.sh, without Pulumi)
  export ENGINE_TIER_HOME=${OPERATOR_TIER_HOME:-$HOME/.cache/percona-mysql-operator-tier}
  export ENGINE_ETCD_PORT=${OPERATOR_ETCD_PORT:-32379} ENGINE_ETCD_PEER_PORT=${OPERATOR_ETCD_PEER_PORT:-32380}
  export ENGINE_APISERVER_PORT=${OPERATOR_APISERVER_PORT:-32443} ENGINE_KWOK_PORT=${OPERATOR_KWOK_PORT:-32450}
  export ENGINE_WITHOUT_PULUMI=1 ENGINE_TIER_NAME="operator tier"
  trap 'bash "$ROOT/scripts/engine.sh" down' EXIT  # set before starting: a half-started control plane is stopped too
  bash "$ROOT/scripts/engine.sh" up
  eval "$(paths)"
  export PXC_OPERATOR PS_OPERATOR PXC_OPERATOR_SRC PS_OPERATOR_SRC
  PROJECT_ENV=dev source "$ROOT/scripts/env.sh"  # the project's virtual environment with the test tools
  local tests_start=$SECONDS
  OPERATOR_TIER_KUBECONFIG="$ENGINE_TIER_HOME/kubeconfig" OPERATOR_TIER_REQUIRED=1 \
    python -m pytest -m operators tests/operators -rA --basetemp="$ENGINE_TIER_HOME/pytest" "$@" || status=$?
  say "tests took $(((SECONDS - tests_start) / 60)) min $(((SECONDS - tests_start) % 60)) s; the whole tier" \
    "$(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s; operator logs in $ENGINE_TIER_HOME/pytest"
  return "$status"
}

case "${1:-}" in
  ensure-built) ensure_built ;;
  paths) paths ;;
  run-tier) shift; run_tier "$@" ;;
  *) echo "usage: scripts/operators.sh ensure-built|paths|run-tier [pytest args]" >&2; exit 2 ;;
esac
