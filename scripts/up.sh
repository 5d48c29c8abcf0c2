#!/usr/bin/env bash
# The main job: environment, prerequisites, a local state backend, then `pulumi up` on the kind stack.
# STACK=gke scripts/up.sh brings up another stack the same way (cloud credentials needed).
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
STACK=${STACK:-kind}

missing=0
need() {  # need <command> <what to install>
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "missing: $1 - $2" >&2
    missing=1
  fi
}
need pulumi "the Pulumi CLI: https://www.pulumi.com/docs/iac/download-install/ (curl -fsSL https://get.pulumi.com | sh)"
if [ "$STACK" = kind ]; then
  need kind "kind: https://kind.sigs.k8s.io/docs/user/quick-start/#installation"
  need docker "Docker Engine: https://docs.docker.com/engine/install/"
  if command -v docker >/dev/null 2>&1 && ! docker info >/dev/null 2>&1; then
    echo "missing: a running Docker engine - 'docker info' failed; start Docker (kind runs its nodes as containers)" >&2
    missing=1
  fi
fi
if [ "$missing" = 1 ]; then
  echo "Install what is missing and run scripts/up.sh again." >&2
  echo "Meanwhile, 'python -m percona_mysql_k8s.policies.check --stack $STACK' shows what the stack would create, checked by the policy pack." >&2
  exit 1
fi

# A local state backend: no Pulumi Cloud account needed. Secrets are encrypted with a passphrase.
export PULUMI_BACKEND_URL=${PULUMI_BACKEND_URL:-"file://$ROOT/.pulumi-state"}
mkdir -p "$ROOT/.pulumi-state"
export PULUMI_CONFIG_PASSPHRASE=${PULUMI_CONFIG_PASSPHRASE-}
pulumi stack select "$STACK" --create --non-interactive
pulumi up --stack "$STACK" --yes --non-interactive
