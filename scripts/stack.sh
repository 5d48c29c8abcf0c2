#!/usr/bin/env bash
# One Pulumi command on a stack of stacks/, without ever writing into the tracked stack file:
#
#   scripts/stack.sh <stack> <pulumi command> [args...]     e.g. scripts/stack.sh kind destroy --yes
#
# For commands that read the stack's config (preview, up, refresh, destroy, import, watch, logs); `config` edits the
# tracked file itself, which is where the stack's settings are.
#
# `pulumi stack init` (and `stack select --create`, and later commands that find no salt) writes the stack's
# encryption salt into stacks/Pulumi.<stack>.yaml and re-serializes the file (comments, quoting): a clone whose
# tracked files change when it is used. Here the stack is created from a scratch copy of Pulumi.yaml, and the command
# runs with --config-file on an untracked copy, .pulumi-state/stacks/Pulumi.<stack>.yaml: the tracked file as it is
# (your settings: edit it) plus the salt this machine's stack keeps (.pulumi-state/stacks/Pulumi.<stack>.salt).
# Without a salt in that copy the CLI takes the stack's secrets manager from its state
# (PULUMI_FALLBACK_TO_STATE_SECRETS_MANAGER) rather than making a new one.
#
# State: PULUMI_BACKEND_URL if set (pulumi login works too), else a local backend in .pulumi-state/ (created).
# Secrets in a local backend are encrypted with PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE when you
# set one; if you set neither, a random passphrase is generated once into .pulumi-state/passphrase (keep it).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "$#" -lt 2 ]; then
  echo "usage: $0 <stack> <pulumi command> [args...]   (e.g. $0 kind preview)" >&2
  exit 2
fi
STACK=$1
shift
STACK_FILE="$ROOT/stacks/Pulumi.$STACK.yaml"
if ! [[ "$STACK" =~ ^[A-Za-z0-9_.-]+$ ]] || [ ! -f "$STACK_FILE" ]; then
  valid=$(cd "$ROOT/stacks" && ls Pulumi.*.yaml | sed -E 's/^Pulumi\.(.*)\.yaml$/\1/' | paste -sd' ' -)
  echo "error: stack $STACK: no stacks/Pulumi.$STACK.yaml; valid stacks: $valid" >&2
  exit 2
fi
command -v pulumi >/dev/null 2>&1 || { echo "error: no pulumi on PATH: https://www.pulumi.com/docs/iac/download-install/" >&2; exit 1; }

# --- state backend and passphrase ----------------------------------------------------------------------
mkdir -p "$ROOT/.pulumi-state"
if [ -z "${PULUMI_BACKEND_URL:-}" ]; then
  export PULUMI_BACKEND_URL="file://$ROOT/.pulumi-state"
  if [ -z "${PULUMI_CONFIG_PASSPHRASE+set}" ] && [ -z "${PULUMI_CONFIG_PASSPHRASE_FILE:-}" ]; then
    passphrase_file="$ROOT/.pulumi-state/passphrase"
    if [ ! -s "$passphrase_file" ]; then
      (umask 077 && python3 -c 'import secrets; print(secrets.token_urlsafe(32))' > "$passphrase_file")
      echo "generated the passphrase of the local state's secrets: $passphrase_file (keep it; .pulumi-state/ is git-ignored)" >&2
    fi
    export PULUMI_CONFIG_PASSPHRASE_FILE="$passphrase_file"
    echo "state: $PULUMI_BACKEND_URL, secrets encrypted with the passphrase in $passphrase_file" >&2
  elif [ -n "${PULUMI_CONFIG_PASSPHRASE+set}" ] && [ -z "$PULUMI_CONFIG_PASSPHRASE" ]; then
    echo "warning: PULUMI_CONFIG_PASSPHRASE is set but empty: the stack's secrets (database passwords, the PMM token) are stored unprotected in .pulumi-state" >&2
  fi
fi

# --- the stack, created without touching stacks/ -------------------------------------------------------
CONFIG_DIR="$ROOT/.pulumi-state/stacks"
RUN_CONFIG="$CONFIG_DIR/Pulumi.$STACK.yaml" SALT="$CONFIG_DIR/Pulumi.$STACK.salt"
mkdir -p "$CONFIG_DIR"
if ! pulumi stack select "$STACK" --non-interactive >/dev/null 2>&1; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cp "$ROOT/Pulumi.yaml" "$scratch/"
  mkdir -p "$scratch/stacks"
  pulumi -C "$scratch" stack init "$STACK" --non-interactive >&2
  # a passphrase backend writes the salt into the scratch stack file; a backend with its own keys writes none
  if grep '^encryptionsalt:' "$scratch/stacks/Pulumi.$STACK.yaml" > "$SALT" 2>/dev/null; then :; else rm -f "$SALT"; fi
  pulumi stack select "$STACK" --non-interactive
fi
# a salt the CLI wrote into the run's copy (the fallback) is kept for the next command
if [ ! -s "$SALT" ] && [ -f "$RUN_CONFIG" ] && grep -q '^encryptionsalt:' "$RUN_CONFIG"; then
  grep '^encryptionsalt:' "$RUN_CONFIG" > "$SALT"
fi
cp "$STACK_FILE" "$RUN_CONFIG"
if ! grep -q '^encryptionsalt:' "$STACK_FILE" && [ -s "$SALT" ]; then cat "$SALT" >> "$RUN_CONFIG"; fi
export PULUMI_FALLBACK_TO_STATE_SECRETS_MANAGER=true
echo "stack $STACK: settings from stacks/Pulumi.$STACK.yaml, run from .pulumi-state/stacks/Pulumi.$STACK.yaml ($PULUMI_BACKEND_URL)" >&2
command_name=$1
shift
if [ "$command_name" = config ]; then
  # the stack's settings are the tracked file: `config set` edits it there, as you asked (a secret brings the
  # stack's salt into it, since the value is encrypted with the stack's key)
  exec pulumi config --stack "$STACK" --config-file "$STACK_FILE" "$@"
fi
exec pulumi "$command_name" --stack "$STACK" --config-file "$RUN_CONFIG" "$@"
