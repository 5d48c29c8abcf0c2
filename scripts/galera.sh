#!/usr/bin/env bash
# The Galera tier: the sizing's my.cnf on three real mariadbd (MariaDB 10.11 + Galera 4) on loopback, loaded with
# sysbench and graded with percona-mysql-grade (docs/galera.md).
#
#   scripts/galera.sh install                  install mariadb-server, mariadb-client, galera-4, sysbench, rsync and
#                                              iproute2 from the distribution (Debian/Ubuntu apt) when one is missing
#   scripts/galera.sh run-tier [pytest args]   install when missing, then pytest -m galera tests/galera; the tests
#                                              start the servers and stop them by PID, and this script stops any
#                                              that a killed run left behind, by the PIDs the tests recorded
#
# GALERA_TIER_OUT: where measured.json, the sysbench logs, the grader's output and the error logs go
# (default ~/.cache/percona-mysql-k8s/galera-tier). GALERA_TIER_TIMEOUT: seconds before the run is stopped
# (default 1500). About 5 GiB of memory and 5-10 minutes on two cores.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PACKAGES=(mariadb-server mariadb-client galera-4 sysbench rsync iproute2)
COMMANDS=(mariadbd mariadb mariadb-install-db sysbench rsync ss)
GALERA_LIBRARIES=(/usr/lib/galera/libgalera_smm.so /usr/lib/libgalera_smm.so /usr/lib/x86_64-linux-gnu/galera/libgalera_smm.so)

missing() {
  local command library
  for command in "${COMMANDS[@]}"; do
    command -v "$command" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$command" >/dev/null 2>&1 || echo "$command"
  done
  for library in "${GALERA_LIBRARIES[@]}"; do [ -f "$library" ] && return 0; done
  echo libgalera_smm.so
}

install() {
  local absent
  absent=$(missing | tr '\n' ' ')
  if [ -z "$absent" ]; then
    echo "galera tier: MariaDB, Galera 4, sysbench and rsync are installed"
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "galera tier: missing $absent and no apt-get here: install ${PACKAGES[*]} with your package manager" >&2
    return 1
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "galera tier: missing $absent; installing needs root or sudo" >&2; return 1; }
    sudo=(sudo -n)
  fi
  echo "galera tier: missing $absent; installing ${PACKAGES[*]} (apt)"
  # A machine with systemd starts the package's own server on port 3306; the tier neither uses nor stops it.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
  absent=$(missing | tr '\n' ' ')
  [ -z "$absent" ] || { echo "galera tier: still missing after the install: $absent" >&2; return 1; }
}

# stop_leftovers <workdir>: every mariadbd the tests started and did not stop (pytest killed), by its recorded PID.
# A PID is signalled only while it is still a mariadbd (a recycled PID is left alone).
stop_leftovers() {
  local ledger="$1/cluster/pids" pid
  [ -f "$ledger" ] || return 0
  while read -r pid; do
    [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mariadbd ] || continue
    echo "galera tier: stopping mariadbd $pid left by the run"
    kill -CONT "$pid" 2>/dev/null || true
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 60); do [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mariadbd ] || break; sleep 1; done
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = mariadbd ] && kill -KILL "$pid" 2>/dev/null || true
  done < "$ledger"
}

run_tier() {
  install
  local workdir started=$SECONDS
  workdir=$(mktemp -d "${TMPDIR:-/tmp}/percona-galera-tier.XXXXXX")
  chmod 755 "$workdir"  # the servers run as the mysql user when this runs as root
  # shellcheck disable=SC2064
  trap "stop_leftovers '$workdir'; rm -rf '$workdir'" EXIT
  PROJECT_ENV=dev source "$ROOT/scripts/env.sh"  # the project's venv (requirements-dev.txt: pytest, PyMySQL)
  export PATH="$PATH:/usr/sbin:/sbin"  # mariadbd lives in /usr/sbin, off a user's PATH on Debian
  local status=0
  GALERA_TIER=1 GALERA_TIER_WORKDIR="$workdir" \
    timeout --kill-after=30 "${GALERA_TIER_TIMEOUT:-1500}" python -m pytest -m galera tests/galera -rA -s "$@" || status=$?
  echo "galera tier: $(((SECONDS - started) / 60)) min $(((SECONDS - started) % 60)) s; figures in ${GALERA_TIER_OUT:-$HOME/.cache/percona-mysql-k8s/galera-tier}"
  return "$status"
}

case "${1:-}" in
  install) install ;;
  run-tier) shift; run_tier "$@" ;;
  *) echo "usage: $0 install|run-tier [pytest args]" >&2; exit 2 ;;
esac
