#!/usr/bin/env bash
# The HAProxy oracle of the suite (tests/core/test_haproxy_oracle.py): Debian's haproxy package.
#   scripts/haproxy-oracle.sh install   apt-get install haproxy when the command is missing (root or sudo)
# The tests start haproxy themselves, on unix sockets in a temporary directory, and stop what they start.
set -euo pipefail

installed() { command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; }

install() {
  if installed; then
    echo "haproxy oracle: $(PATH="$PATH:/usr/sbin" haproxy -v | head -n 1)"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || { echo "haproxy oracle: no apt-get here: install haproxy with your package manager" >&2; return 1; }
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "haproxy oracle: installing needs root or sudo" >&2; return 1; }
    sudo=(sudo -n)
  fi
  echo "haproxy oracle: installing haproxy (apt)"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy >/dev/null
  installed || { echo "haproxy oracle: still missing after the install" >&2; return 1; }
}

case "${1:-}" in
  install) install ;;
  *) echo "usage: $0 install" >&2; exit 2 ;;
esac
