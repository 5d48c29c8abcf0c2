#!/usr/bin/env bash
# The real-engine tier: the stack program under a real Pulumi CLI (with the Python language host and the
# kubernetes and random providers), against a real control plane whose pods are really scheduled.
#
#   scripts/engine.sh ensure-built   pulumi (yours from PATH, else built once by ../shared/tools/pulumi-engine
#                                    into ~/.cache/pulumi-engine, ~16 min on 2 cores), the control plane with
#                                    kube-scheduler (~/.cache/k8s-control-plane, ~10 min once), kwok v0.8.0 and
#                                    helm v3.19.2 (yours from PATH, else go install into ~/.cache/go-tools/bin)
#   scripts/engine.sh ensure-go-tools  kwok and helm alone (what the unit suite's chart tests need)
#   scripts/engine.sh up             (builds what is missing, then) start etcd + kube-apiserver +
#                                    kube-controller-manager on this tier's own ports, kube-scheduler and kwok;
#                                    writes $ENGINE_TIER_HOME/kubeconfig
#   scripts/engine.sh down           stop them, by the PIDs `up` recorded
#   scripts/engine.sh run-tier [pytest args]
#                                    ensure-built + up + pytest -m engine tests/engine, and always down afterwards
#
# The control plane is the API-server tier's (the same binaries and the same tool), started from a copy of the
# tool whose three loopback ports are this tier's (ENGINE_ETCD_PORT, ENGINE_ETCD_PEER_PORT, ENGINE_APISERVER_PORT;
# default 22379, 22380, 26443) with its data under ENGINE_TIER_HOME (default ~/.cache/percona-mysql-engine-tier):
# both tiers can run at the same time on one machine without touching each other's etcd or certificates.
# kwok is the kubelet stand-in: it manages every Node (--manage-all-nodes) and moves the pods the real scheduler
# placed through the stages of its own module source (kustomize/stage/: node-initialize, pod-ready, pod-complete,
# pod-delete), read from the Go module cache at run time; the pods a Percona operator owns through a StatefulSet
# (mysqld, the proxies) go Running but stay unready, as no mysqld answers their probes (scripts/kwok_config.py). Its
# kubelet endpoint (TLS, 127.0.0.1:ENGINE_KWOK_PORT, default 26450) serves pod logs, which the PXC operator reads.
#
# Without a `pulumi` on PATH and without the engine tool, or without the control-plane tool, every command
# prints why and exits 0 (the tier is then skipped), or fails under CI=true, as scripts/apiserver.sh does.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
K8S_BIN_HOME=${K8S_HOME:-$HOME/.cache/k8s-control-plane}   # the binaries, shared with the API-server tier
TOOL=${K8S_CONTROL_PLANE_TOOL:-$ROOT/../shared/tools/k8s-control-plane}
ENGINE_TOOL=${PULUMI_ENGINE_TOOL:-$ROOT/../shared/tools/pulumi-engine/pulumi-engine}
STATE=${ENGINE_TIER_HOME:-$HOME/.cache/percona-mysql-engine-tier}
CONTROL_PLANE=$STATE/control-plane   # the K8S_HOME of this tier's control plane: bin/ links to the shared binaries
ETCD_PORT=${ENGINE_ETCD_PORT:-22379}
ETCD_PEER_PORT=${ENGINE_ETCD_PEER_PORT:-22380}
APISERVER_PORT=${ENGINE_APISERVER_PORT:-26443}
KWOK_PORT=${ENGINE_KWOK_PORT:-26450}   # kwok's kubelet endpoint (pod logs), on every Node's InternalIP 127.0.0.1
KWOK_VERSION=v0.8.0
HELM_VERSION=v3.19.2  # the tier resolves a release a crash left half-installed with Helm, as a user does
GO_TOOLS_BIN=${GO_TOOLS_BIN:-$HOME/.cache/go-tools/bin}
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler)

say() { printf 'engine tier: %s\n' "$*"; }

# A missing prerequisite skips the tier on a user's machine (exit 0), and fails it under CI (CI=true or 1): CI runs
# every tier it names.
missing_prerequisite() {
  case "${CI:-}" in
    true | 1) echo "engine tier: FAILED - $1 (CI=$CI: the tier must run)" >&2; exit 1 ;;
    *) say "SKIPPED - $1"; exit 0 ;;
  esac
}

have_tools() {
  if [ ! -x "$TOOL" ]; then
    missing_prerequisite "no control-plane tool at $TOOL (set K8S_CONTROL_PLANE_TOOL); the tier needs a real API server"
  fi
  if ! command -v pulumi >/dev/null 2>&1 && [ ! -x "$ENGINE_TOOL" ]; then
    missing_prerequisite "no pulumi on PATH and no engine tool at $ENGINE_TOOL (set PULUMI_ENGINE_TOOL, or install the Pulumi CLI)"
  fi
}

elapsed() { echo "$(((SECONDS - $1) / 60)) min $(((SECONDS - $1) % 60)) s"; }

# ---------------------------------------------------------------------------------------------------------
# builds (cached outside the clone)

USER_PULUMI=$(command -v pulumi || true)   # decided before the built engine's PATH is added

ensure_pulumi() {
  if [ -n "$USER_PULUMI" ]; then
    say "using your pulumi: $USER_PULUMI ($("$USER_PULUMI" version 2>/dev/null || echo '?'))"
    return 0
  fi
  local start=$SECONDS
  # the tool skips what it has built already and prints each build's time
  "$ENGINE_TOOL" build
  say "pulumi engine ready in $(elapsed "$start") (~/.cache/pulumi-engine; a cold build is ~16 min on 2 cores)"
}

use_pulumi() {  # PATH, PULUMI_HOME and offline plugin settings of the built engine, unless pulumi is the user's
  if [ -n "$USER_PULUMI" ]; then return 0; fi
  eval "$("$ENGINE_TOOL" env)"
}

control_plane_built() {
  local b
  for b in "${BINARIES[@]}"; do [ -x "$K8S_BIN_HOME/bin/$b" ] || return 1; done
}

ensure_control_plane() {
  if control_plane_built; then
    say "control plane binaries cached in $K8S_BIN_HOME/bin"
    return 0
  fi
  say "building etcd, kube-apiserver, kube-controller-manager and kube-scheduler into $K8S_BIN_HOME/bin (about 10 minutes on 2 cores, once)"
  local start=$SECONDS
  K8S_HOME=$K8S_BIN_HOME "$TOOL" build
  say "built in $(elapsed "$start")"
  control_plane_built || { echo "build finished but binaries are missing from $K8S_BIN_HOME/bin" >&2; return 1; }
}

go_tool() {  # go_tool <name>: the binary on PATH or in GO_TOOLS_BIN, or nothing
  if [ -x "$GO_TOOLS_BIN/$1" ]; then echo "$GO_TOOLS_BIN/$1"; else command -v "$1" || true; fi
}

ensure_go_tool() {  # ensure_go_tool <name> <module path of its main package>@<version>
  if [ -n "$(go_tool "$1")" ]; then
    say "$1: $(go_tool "$1")"
    return 0
  fi
  command -v go >/dev/null 2>&1 || { echo "$1 is missing and there is no go to build it (go install $2)" >&2; return 1; }
  local start=$SECONDS
  mkdir -p "$GO_TOOLS_BIN"
  GOBIN=$GO_TOOLS_BIN go install "$2"
  say "$1 built in $(elapsed "$start") into $GO_TOOLS_BIN"
}

ensure_built() {
  ensure_pulumi
  ensure_control_plane
  ensure_go_tool kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  ensure_go_tool helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
}

# ---------------------------------------------------------------------------------------------------------
# up / down

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The control-plane tool with this tier's ports: its three port numbers replaced, each checked to be there
# first, so a change of the tool fails here instead of starting a control plane on the API-server tier's ports.
tool_copy() {
  local copy=$STATE/k8s-control-plane original replacement
  mkdir -p "$STATE"
  cp "$TOOL" "$copy.new"
  for pair in "12379:$ETCD_PORT" "12380:$ETCD_PEER_PORT" "16443:$APISERVER_PORT"; do
    original=${pair%%:*} replacement=${pair#*:}
    grep -q "127.0.0.1:$original" "$copy.new" || { echo "$TOOL no longer uses port $original: update scripts/engine.sh" >&2; return 1; }
    sed -i "s/127\.0\.0\.1:$original\b/127.0.0.1:$replacement/g; s/--secure-port=$original\b/--secure-port=$replacement/g" "$copy.new"
    ! grep -qE "(:|=)$original\b" "$copy.new" || { echo "port $original is still in $copy.new" >&2; return 1; }
  done
  # the API server reaches a Node's kubelet (kwok: pod logs) at its InternalIP, 127.0.0.1, not at its name
  grep -q -- '--service-cluster-ip-range=10.96.0.0/16 ' "$copy.new" || { echo "$TOOL no longer sets --service-cluster-ip-range: update scripts/engine.sh" >&2; return 1; }
  sed -i 's|--service-cluster-ip-range=10.96.0.0/16 |--service-cluster-ip-range=10.96.0.0/16 --kubelet-preferred-address-types=InternalIP |' "$copy.new"
  chmod +x "$copy.new" && mv "$copy.new" "$copy"
  echo "$copy"
}

kwok_config() {  # kwok's --config: its own stages (the operators' database pods kept unready) and the logs rule
  local dir out=$STATE/kwok-config.yaml
  dir=$(cd "$STATE" && GOFLAGS= go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  [ -d "$dir/kustomize/stage" ] || { echo "kwok $KWOK_VERSION has no kustomize/stage in $dir" >&2; return 1; }
  : > "$STATE/container.log"
  python3 "$ROOT/scripts/kwok_config.py" "$dir/kustomize/stage" "$STATE/container.log" > "$out"
  echo "$out"
}

kwok_certificate() {  # the TLS pair of kwok's kubelet endpoint (the API server fetches pod logs from it)
  [ -f "$STATE/kwok.crt" ] && [ -f "$STATE/kwok.key" ] && return 0
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=kwok -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$STATE/kwok.key" -out "$STATE/kwok.crt" 2>/dev/null
}

pid_running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pid() {  # stop_pid <pidfile>: TERM, up to 30 s, then KILL
  local file=$1 pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  rm -f "$file"
}

running() {
  local p
  for p in scheduler kwok; do pid_running "$STATE/$p.pid" && return 0; done
  for p in etcd apiserver controller-manager; do pid_running "$CONTROL_PLANE/$p.pid" && return 0; done
  return 1
}

up() {
  if running; then
    echo "this tier's control plane is already running (see $STATE/*.pid and $CONTROL_PLANE/*.pid); stop it with '$0 down' first" >&2
    return 1
  fi
  local port
  for port in "$ETCD_PORT" "$ETCD_PEER_PORT" "$APISERVER_PORT" "$KWOK_PORT"; do
    if port_taken "$port"; then
      echo "port $port on 127.0.0.1 is in use: set ENGINE_ETCD_PORT / ENGINE_ETCD_PEER_PORT / ENGINE_APISERVER_PORT / ENGINE_KWOK_PORT" >&2
      return 1
    fi
  done
  local tool config kubeconfig=$CONTROL_PLANE/kubeconfig
  tool=$(tool_copy)
  config=$(kwok_config)
  kwok_certificate
  mkdir -p "$CONTROL_PLANE"
  ln -sfn "$K8S_BIN_HOME/bin" "$CONTROL_PLANE/bin"
  K8S_HOME=$CONTROL_PLANE "$tool" up
  nohup "$K8S_BIN_HOME/bin/kube-scheduler" --kubeconfig="$kubeconfig" --leader-elect=false --secure-port=0 \
    > "$STATE/scheduler.log" 2>&1 & echo $! > "$STATE/scheduler.pid"
  nohup "$(go_tool kwok)" --kubeconfig="$kubeconfig" --manage-all-nodes=true --config="$config" \
    --node-ip=127.0.0.1 --node-port="$KWOK_PORT" --server-address="127.0.0.1:$KWOK_PORT" \
    --tls-cert-file="$STATE/kwok.crt" --tls-private-key-file="$STATE/kwok.key" \
    > "$STATE/kwok.log" 2>&1 & echo $! > "$STATE/kwok.pid"
  sleep 2
  pid_running "$STATE/scheduler.pid" || { echo "kube-scheduler exited; see $STATE/scheduler.log" >&2; tail -5 "$STATE/scheduler.log" >&2; return 1; }
  pid_running "$STATE/kwok.pid" || { echo "kwok exited; see $STATE/kwok.log" >&2; tail -5 "$STATE/kwok.log" >&2; return 1; }
  cp "$kubeconfig" "$STATE/kubeconfig"
  say "ready: $STATE/kubeconfig (API server 127.0.0.1:$APISERVER_PORT, kube-scheduler, kwok)"
}

down() {
  stop_pid "$STATE/kwok.pid"
  stop_pid "$STATE/scheduler.pid"
  if [ -x "$STATE/k8s-control-plane" ]; then K8S_HOME=$CONTROL_PLANE "$STATE/k8s-control-plane" down; fi
  rm -f "$STATE/kubeconfig"
}

case "${1:-}" in
  ensure-built) have_tools; ensure_built ;;
  ensure-go-tools)  # kwok and helm only (the unit suite's chart tests render with helm: .ci/run builds them first)
    ensure_go_tool kwok "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
    ensure_go_tool helm "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" ;;
  up) have_tools; ensure_built; up ;;
  down) have_tools; down ;;
  run-tier)
    shift
    have_tools
    tier_start=$SECONDS
    ensure_built
    say "builds ready in $(elapsed "$tier_start")"
    use_pulumi
    if running; then up; fi  # refuses, and leaves a control plane this run did not start alone
    trap down EXIT  # set before starting: a half-started control plane is stopped too
    up
    PROJECT_ENV=dev source "$ROOT/scripts/env.sh"  # the project's virtual environment with the test tools
    export PATH="$GO_TOOLS_BIN:$PATH"  # helm, for the tests
    tests_start=$SECONDS status=0
    # every pulumi command's output stays in $STATE/pytest (outside the clone) until the next run
    ENGINE_KUBECONFIG="$STATE/kubeconfig" ENGINE_TIER_REQUIRED=1 \
      python -m pytest -m engine tests/engine -rA --basetemp="$STATE/pytest" "$@" || status=$?
    say "tests took $(elapsed "$tests_start"); the whole tier $(elapsed "$tier_start") (builds included); logs in $STATE/pytest"
    exit "$status"
    ;;
  *) echo "usage: $0 ensure-built|ensure-go-tools|up|down|run-tier [pytest args]" >&2; exit 2 ;;
esac
