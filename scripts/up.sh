#!/usr/bin/env bash
# The main job: prerequisites first (nothing is installed until they are all there), then the runtime
# environment, a local state backend, and `pulumi up` on the kind stack.
#
#   scripts/up.sh                 pulumi up on the kind stack
#   STACK=gke scripts/up.sh       another stack of stacks/ (cloud credentials needed)
#   scripts/up.sh --offline       no Pulumi CLI, kind or Docker needed: creates .venv with the runtime
#                                 requirements, runs the stack program with every provider mocked, lists
#                                 what it would create and checks it with the policy pack
#   scripts/up.sh --destroy       pulumi destroy of the same stack, with the same state and settings
#
# The Pulumi commands go through scripts/stack.sh, which never writes the tracked stacks/Pulumi.<stack>.yaml.
#
# State: PULUMI_BACKEND_URL if set, else a local backend in .pulumi-state/. Secrets in a local backend
# are encrypted with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE when you set one; if you
# set neither, a random passphrase is generated once into .pulumi-state/passphrase (keep that file: the
# stack's secrets cannot be decrypted without it). scripts/stack.sh does both.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STACK=${STACK:-kind}
OFFLINE=0 ACTION=up
case "${1:-}" in
  "") ;;
  --offline) OFFLINE=1 ;;
  --destroy) ACTION=destroy ;;
  *) echo "usage: [STACK=<stack>] $0 [--offline | --destroy]" >&2; exit 2 ;;
esac

# --- the stack: one of stacks/Pulumi.<stack>.yaml ----------------------------------------------------
STACK_FILE="$ROOT/stacks/Pulumi.$STACK.yaml"
if ! [[ "$STACK" =~ ^[A-Za-z0-9_.-]+$ ]] || [ ! -f "$STACK_FILE" ]; then
  valid=$(cd "$ROOT/stacks" && ls Pulumi.*.yaml | sed -E 's/^Pulumi\.(.*)\.yaml$/\1/' | paste -sd' ' -)
  echo "error: STACK=$STACK: no stacks/Pulumi.$STACK.yaml; valid stacks: $valid" >&2
  exit 2
fi
# The cluster target the stack deploys to (Pulumi.yaml's default is kind).
TARGET=$(sed -nE 's/^[[:space:]]*[A-Za-z0-9_.-]+:target:[[:space:]]*"?([a-z]+)"?.*$/\1/p' "$STACK_FILE" | head -n1)
TARGET=${TARGET:-kind}

# --- prerequisites, all checked before anything is installed ------------------------------------------
PYTHON_BIN=${PYTHON:-python3}
if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON_BIN="$ROOT/.venv/bin/python"; fi  # an existing venv decides
missing=()
need() {  # need <command> <how to get it>
  if ! command -v "$1" >/dev/null 2>&1; then
    missing+=("$1: $2")
  fi
}
if ! command -v "$PYTHON_BIN" >/dev/null 2>&1 \
    || ! "$PYTHON_BIN" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1; then
  missing+=("Python 3.11 or newer ($PYTHON_BIN): https://www.python.org/downloads/ (or set PYTHON=/path/to/python3.11)")
fi
if [ "$OFFLINE" = 0 ]; then
  need pulumi "the Pulumi CLI: https://www.pulumi.com/docs/iac/download-install/ (curl -fsSL https://get.pulumi.com | sh)"
  if [ "$TARGET" = kind ] && [ "$ACTION" = up ]; then
    need kind "kind: https://kind.sigs.k8s.io/docs/user/quick-start/#installation"
    need docker "Docker Engine: https://docs.docker.com/engine/install/ (kind runs its nodes as containers)"
    if command -v docker >/dev/null 2>&1 && ! docker info >/dev/null 2>&1; then
      missing+=("a running Docker engine: 'docker info' failed; start Docker (or give this user access to its socket)")
    fi
  fi
  # The clusters' kubeconfigs authenticate through these (clusters/gke.py, pulumi-eks's `aws eks get-token`).
  if [ "$TARGET" = gke ]; then
    need gke-gcloud-auth-plugin "gcloud components install gke-gcloud-auth-plugin (https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin)"
  fi
  if [ "$TARGET" = eks ]; then
    need aws "the AWS CLI: https://docs.aws.amazon.com/cli/latest/userguide/getting-started-install.html"
  fi
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "Missing (nothing was installed):" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  if [ "$OFFLINE" = 0 ]; then
    offline_command="scripts/up.sh --offline"
    if [ "$STACK" != kind ]; then offline_command="STACK=$STACK $offline_command"; fi
    echo "Install what is missing and run scripts/up.sh again. Meanwhile, with Python 3.11+ only:" >&2
    echo "  $offline_command" >&2
    echo "creates .venv with the runtime requirements, runs the stack program with every provider mocked, lists the" >&2
    echo "resources it would create (type, name, CPU/memory of the database containers, storage) and checks them" >&2
    echo "with the policy pack." >&2
  fi
  exit 1
fi

# --- the runtime environment (requirements.txt + the library, editable) --------------------------------
PROJECT_ENV=runtime
source "$ROOT/scripts/env.sh"

if [ "$OFFLINE" = 1 ]; then
  host=()
  if [ "$TARGET" = kind ]; then
    # The kind stack sizes each node as kindHostShare of the machine running it (K1). Offline, judge it
    # for the workstation it is written for (8 CPUs / 32 GiB), not for whatever runs this check;
    # KIND_HOST_CPU / KIND_HOST_MEMORY name another machine.
    host=(--set "kindHostCpu=${KIND_HOST_CPU:-8}" --set "kindHostMemory=${KIND_HOST_MEMORY:-32Gi}")
    echo "offline: the kind stack as on a ${KIND_HOST_CPU:-8}-CPU / ${KIND_HOST_MEMORY:-32Gi} machine (KIND_HOST_CPU, KIND_HOST_MEMORY)" >&2
  elif [ "$TARGET" = existing ]; then
    # The existing stack reads its cluster's Nodes at preview/up; offline it plans from one declared node.
    host=(--set existingNodeSource=config --set "existingNodeCpu=${EXISTING_NODE_CPU:-7910m}"
          --set "existingNodeMemory=${EXISTING_NODE_MEMORY:-28Gi}"
          --set "existingNodeZones=${EXISTING_NODE_ZONES:-us-east-1a,us-east-1b,us-east-1c}")
    echo "offline: the existing stack planned on ${EXISTING_NODE_CPU:-7910m} / ${EXISTING_NODE_MEMORY:-28Gi} nodes over ${EXISTING_NODE_ZONES:-us-east-1a,us-east-1b,us-east-1c} (EXISTING_NODE_CPU, EXISTING_NODE_MEMORY, EXISTING_NODE_ZONES), not read from a cluster" >&2
  fi
  exec python -m percona_mysql_k8s.cli.check --stack "$STACK" "${host[@]}"
fi

# --- the stack (scripts/stack.sh: a local state in .pulumi-state/ unless PULUMI_BACKEND_URL is set; the tracked
# stack file is never written), then pulumi up or destroy ---------------------------------------------------
echo "your own commands on this stack: scripts/stack.sh $STACK <preview|up|refresh|destroy|config ...>" >&2
exec bash "$ROOT/scripts/stack.sh" "$STACK" "$ACTION" --yes --non-interactive
