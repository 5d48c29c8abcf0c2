#!/usr/bin/env bash
# The API-server tier's control plane: a real etcd + kube-apiserver + kube-controller-manager on loopback,
# built once by ../shared/tools/k8s-control-plane and cached outside the clone.
#
#   scripts/apiserver.sh ensure-built  build the binaries unless $K8S_HOME/bin already has them (~10 min on 2 cores, once)
#   scripts/apiserver.sh up            start the control plane; writes $K8S_HOME/kubeconfig and $K8S_HOME/*.pid
#   scripts/apiserver.sh down          stop it, by the PIDs `up` recorded
#   scripts/apiserver.sh run-tier [pytest args]
#                                      ensure-built + kubectl (found or built) + up + pytest -m apiserver, and always
#                                      down afterwards
#
# K8S_HOME defaults to ~/.cache/k8s-control-plane; K8S_CONTROL_PLANE_TOOL to ../shared/tools/k8s-control-plane
# next to the clone. Without the tool, every command prints why and exits 0 (the tier is then skipped), or fails
# under CI=true.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export K8S_HOME=${K8S_HOME:-$HOME/.cache/k8s-control-plane}
TOOL=${K8S_CONTROL_PLANE_TOOL:-$ROOT/../shared/tools/k8s-control-plane}
BINARIES=(etcd kube-apiserver kube-controller-manager)

have_tool() {
  if [ ! -x "$TOOL" ]; then
    missing_prerequisite "no control-plane tool at $TOOL (set K8S_CONTROL_PLANE_TOOL); the tier needs a real API server"
  fi
}

# A missing prerequisite skips the tier on a user's machine (exit 0), and fails it under CI (CI=true or 1): CI runs
# every tier it names.
missing_prerequisite() {
  case "${CI:-}" in
    true | 1) echo "apiserver tier: FAILED - $1 (CI=$CI: the tier must run)" >&2; exit 1 ;;
    *) echo "apiserver tier: SKIPPED - $1"; exit 0 ;;
  esac
}

built() {
  local b
  for b in "${BINARIES[@]}"; do [ -x "$K8S_HOME/bin/$b" ] || return 1; done
}

ensure_built() {
  if built; then
    echo "control plane binaries cached in $K8S_HOME/bin"
    return 0
  fi
  echo "building etcd, kube-apiserver and kube-controller-manager into $K8S_HOME/bin (Go module proxy; about 10 minutes on 2 cores, once)"
  local start=$SECONDS
  "$TOOL" build
  echo "built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
  built || { echo "build finished but binaries are missing from $K8S_HOME/bin" >&2; return 1; }
}

# kubectl, for the admission tests (the API server calls the webhook; kubectl prints its refusals and warnings as a
# user sees them): KUBECTL if set, else $K8S_HOME/bin/kubectl, else the one on PATH, else built once into
# $K8S_HOME/bin from k8s.io/kubectl at the control plane's minor version (Go module proxy; a few minutes on 2 cores).
KUBECTL_MODULE_VERSION=${KUBECTL_MODULE_VERSION:-0.36.3}
ensure_kubectl() {
  if [ -n "${KUBECTL:-}" ] && [ -x "$KUBECTL" ]; then return 0; fi
  if [ -x "$K8S_HOME/bin/kubectl" ]; then KUBECTL=$K8S_HOME/bin/kubectl; export KUBECTL; return 0; fi
  if command -v kubectl >/dev/null 2>&1; then KUBECTL=$(command -v kubectl); export KUBECTL; return 0; fi
  command -v go >/dev/null 2>&1 || missing_prerequisite "no kubectl on PATH and no Go to build it (the admission tests run kubectl)"
  echo "building kubectl (k8s.io/kubectl v$KUBECTL_MODULE_VERSION) into $K8S_HOME/bin"
  local build start=$SECONDS
  build=$(mktemp -d)
  printf 'module local/kubectlbuild\n\ngo 1.26\n' > "$build/go.mod"
  printf 'package main\n\nimport (\n\t"os"\n\n\t"k8s.io/component-base/cli"\n\t"k8s.io/kubectl/pkg/cmd"\n)\n\nfunc main() { os.Exit(cli.Run(cmd.NewDefaultKubectlCommand())) }\n' > "$build/main.go"
  (cd "$build" && go get "k8s.io/kubectl@v$KUBECTL_MODULE_VERSION" "k8s.io/component-base@v$KUBECTL_MODULE_VERSION" >/dev/null \
    && go mod tidy >/dev/null && go build -o "$K8S_HOME/bin/kubectl" .)
  rm -rf "$build"
  echo "built kubectl in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
  KUBECTL=$K8S_HOME/bin/kubectl
  export KUBECTL
}

running() {
  local p
  for p in etcd apiserver controller-manager; do
    [ -f "$K8S_HOME/$p.pid" ] && kill -0 "$(cat "$K8S_HOME/$p.pid")" 2>/dev/null && return 0
  done
  return 1
}

up() {
  if running; then
    echo "a control plane from $K8S_HOME is already running (see $K8S_HOME/*.pid); stop it with '$0 down' first" >&2
    return 1
  fi
  "$TOOL" up
}

down() {
  "$TOOL" down
}

case "${1:-}" in
  ensure-built) have_tool; ensure_built ;;
  up) have_tool; up ;;
  down) have_tool; down ;;
  run-tier)
    shift
    have_tool
    ensure_built
    ensure_kubectl
    if running; then up; fi  # refuses, and leaves a control plane this run did not start alone
    trap down EXIT  # set before starting: a half-started control plane is stopped too
    "$TOOL" up
    PROJECT_ENV=dev source "$ROOT/scripts/env.sh"  # the project's virtual environment with the test tools (requirements-dev.txt)
    K8S_APISERVER_KUBECONFIG="$K8S_HOME/kubeconfig" K8S_APISERVER_REQUIRED=1 \
      python -m pytest -m apiserver tests/apiserver -rA "$@"
    ;;
  *) echo "usage: $0 ensure-built|up|down|run-tier [pytest args]" >&2; exit 2 ;;
esac
