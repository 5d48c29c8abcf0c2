"""Shell scripts the database layer's Jobs run, as plain strings (pure; tests read them).

No password ever appears in a script, a command line or a Job's env ``value``: they arrive through
``secretKeyRef`` env vars and are written into mode-0600 option files (``mysql --defaults-extra-file``,
``sysbench --config-file``) so ``ps`` inside the pod never shows them (S1). The data set's ``--tables`` and
``--table-size`` go on each sysbench command line: the config file cannot set an oltp script's options (sysbench
registers them after reading it, with their defaults; src/sysbench.c ``parse_test_arguments``, issue 498).
"""

from __future__ import annotations

from percona_mysql_k8s.core.benchmark import Benchmark

SYSBENCH_USER = "sbtest"
SYSBENCH_DATABASE = "sbtest"
SYSBENCH_LUA = "/usr/share/sysbench/oltp_read_write.lua"
RESULTS_DIR = "/results"
# TLS is on in every cluster (S2); MySQL 8.4's caching_sha2_password needs it for password logins.
# Clients verify the server certificate against the operator's CA (issue 11): both operators keep it in
# the ``<cluster>-ssl`` Secret under ``ca.crt`` (sslSecretName's default, INTERFACES §2.1, §3.1), which
# the sysbench Job mounts at CA_FILE. VERIFY_CA, not VERIFY_IDENTITY: the clients connect through the
# proxy Service's name, which the operators' certificates need not list. sysbench 1.1 reads
# --mysql-ssl=VERIFY_CA and --mysql-ssl-ca (drv_mysql.c ssl_mode_names), the mysql client ssl-mode/ssl-ca.
SSL_MODE = "VERIFY_CA"
CA_DIR = "/etc/mysql-ca"
CA_FILE = f"{CA_DIR}/ca.crt"
SUMMARY_HEADER = "threads,tps,qps,p95_latency_ms,errors_per_s,reconnects_per_s"
INTERVAL_HEADER = "threads,second,tps,qps,p95_latency_ms,errors_per_s,reconnects_per_s"
# B3: per-second reports, a latency histogram, the 95th percentile, errors ignored (a benchmark
# measures through failover and conflicts instead of aborting), no server-side prepared statements.
B3_RUN_FLAGS = ("--report-interval=1", "--histogram", "--percentile=95", "--mysql-ignore-errors=all", "--db-ps-mode=disable")


# Env: PMM_URL, PMM_ADMIN_PASSWORD (secretKeyRef), CREDENTIALS_NAME / CLUSTER_NAMESPACE (the cluster's
# Secret), CREDENTIALS_FIELD (the key to write: pmmservertoken), SERVICE_ACCOUNT (PMM's, to create).
PMM_TOKEN = r"""set -eu
tmp=${TMPDIR:-/tmp}
export HOME="$tmp"
umask 077
auth="admin:${PMM_ADMIN_PASSWORD}"
api() {  # METHOD PATH [JSON]
  if [ $# -ge 3 ]; then
    curl -sk --max-time 30 -u "$auth" -H 'Content-Type: application/json' -X "$1" -d "$3" "${PMM_URL}$2"
  else
    curl -sk --max-time 30 -u "$auth" -X "$1" "${PMM_URL}$2"
  fi
}

echo "waiting for ${PMM_URL}/v1/readyz"
until [ "$(curl -sk -o /dev/null -w '%{http_code}' --max-time 10 "${PMM_URL}/v1/readyz" || true)" = "200" ]; do
  sleep 10
done

# A token already in the Secret that still authenticates is kept: nothing restarts for nothing.
current=$(kubectl get secret "$CREDENTIALS_NAME" -n "$CLUSTER_NAMESPACE" -o "jsonpath={.data.${CREDENTIALS_FIELD}}" | base64 -d 2>/dev/null || true)
if [ -n "$current" ]; then
  code=$(curl -sk -o /dev/null -w '%{http_code}' --max-time 30 -H "Authorization: Bearer ${current}" "${PMM_URL}/graph/api/user" || true)
  if [ "$code" = "200" ]; then
    echo "the token in ${CREDENTIALS_NAME} still authenticates; nothing to do"
    exit 0
  fi
fi

# PMM 3: a Grafana service account with the Admin role, and a token for it (INTERFACES §5).
account=$(api POST /graph/api/serviceaccounts "{\"name\":\"${SERVICE_ACCOUNT}\",\"role\":\"Admin\"}")
id=$(printf '%s' "$account" | jq -r '.id // empty')
if [ -z "$id" ]; then
  id=$(api GET "/graph/api/serviceaccounts/search?query=${SERVICE_ACCOUNT}" \
    | jq -r --arg name "$SERVICE_ACCOUNT" '.serviceAccounts[]? | select(.name == $name) | .id' | head -n 1)
fi
if [ -z "$id" ]; then
  echo "could not create or find the PMM service account ${SERVICE_ACCOUNT}" >&2
  exit 1
fi
token=$(api POST "/graph/api/serviceaccounts/${id}/tokens" "{\"name\":\"${SERVICE_ACCOUNT}-$(date +%s)\"}" | jq -r '.key // empty')
if [ -z "$token" ]; then
  echo "PMM returned no token for service account ${id}" >&2
  exit 1
fi

# Only this key is written; the operator mirrors it into internal-<cluster> and (re)starts the
# pmm-client containers.
printf '%s' "$token" | base64 | tr -d '\n' > "$tmp/token.b64"
jq -cn --arg key "$CREDENTIALS_FIELD" --rawfile value "$tmp/token.b64" '{data: {($key): $value}}' > "$tmp/patch.json"
kubectl patch secret "$CREDENTIALS_NAME" -n "$CLUSTER_NAMESPACE" --type merge --patch-file "$tmp/patch.json"
echo "wrote ${CREDENTIALS_FIELD} into ${CLUSTER_NAMESPACE}/${CREDENTIALS_NAME}"
"""


_CLIENT_FILES = r"""set -euo pipefail
tmp=${TMPDIR:-/tmp}
umask 077
cat > "$tmp/sysbench.cfg" <<EOF
db-driver=mysql
mysql-host=${MYSQL_HOST}
mysql-port=${MYSQL_PORT}
mysql-user=${SYSBENCH_USER}
mysql-password=${SYSBENCH_PASSWORD}
mysql-db=${SYSBENCH_DATABASE}
mysql-ssl=${SSL_MODE}
mysql-ssl-ca=${SSL_CA}
EOF
cat > "$tmp/sbtest.cnf" <<EOF
[client]
host=${MYSQL_HOST}
port=${MYSQL_PORT}
user=${SYSBENCH_USER}
password=${SYSBENCH_PASSWORD}
ssl-mode=${SSL_MODE}
ssl-ca=${SSL_CA}
connect-timeout=10
EOF
if [ -n "${ROOT_PASSWORD:-}" ]; then
cat > "$tmp/root.cnf" <<EOF
[client]
host=${MYSQL_HOST}
port=${MYSQL_PORT}
user=root
password=${ROOT_PASSWORD}
ssl-mode=${SSL_MODE}
ssl-ca=${SSL_CA}
connect-timeout=10
EOF
fi
retry() {  # SECONDS COMMAND...: until it succeeds or the time is up
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then return 1; fi
    sleep 5
  done
}
"""


# Until the benchmark user can use its schema through MYSQL_HOST (after its own "waiting until" line).
_BENCHMARK_USER_READY = r"""retry 900 mysql --defaults-extra-file="$tmp/sbtest.cnf" -e 'SELECT 1' "${SYSBENCH_DATABASE}" >/dev/null
echo "schema and user ready"
"""


# The one-shot setup Job, the only pod that holds root's password: the schema and the dedicated user.
USER_SETUP = (
    _CLIENT_FILES
    + r"""
echo "waiting for the writer endpoint ${MYSQL_HOST}:${MYSQL_PORT}"
retry 900 mysql --defaults-extra-file="$tmp/root.cnf" -e 'SELECT 1' >/dev/null
# single quotes doubled for the SQL literal (the generated passwords are alphanumeric anyway)
sql_password=${SYSBENCH_PASSWORD//\'/\'\'}
mysql --defaults-extra-file="$tmp/root.cnf" <<SQL
CREATE DATABASE IF NOT EXISTS \`${SYSBENCH_DATABASE}\`;
CREATE USER IF NOT EXISTS '${SYSBENCH_USER}'@'%' IDENTIFIED BY '${sql_password}';
ALTER USER '${SYSBENCH_USER}'@'%' IDENTIFIED BY '${sql_password}';
GRANT ALL PRIVILEGES ON \`${SYSBENCH_DATABASE}\`.* TO '${SYSBENCH_USER}'@'%';
SQL
# ProxySQL learns new users from the operator's periodic sync: wait until the user gets through.
echo "waiting until ${SYSBENCH_USER} can log in through ${MYSQL_HOST}"
"""
    + _BENCHMARK_USER_READY
)


# The benchmark pod's first phase, as the benchmark user only (no root in that pod): the user created by
# USER_SETUP reaches its schema through the writer endpoint.
SCHEMA = (
    _CLIENT_FILES
    + r"""
echo "waiting until ${SYSBENCH_USER} can use ${SYSBENCH_DATABASE} through ${MYSQL_HOST}:${MYSQL_PORT}"
"""
    + _BENCHMARK_USER_READY
)


PREPARE = (
    _CLIENT_FILES
    + r"""
echo "B4: ${TABLES} tables x ${TABLE_SIZE} rows (${DATA_DESCRIPTION})"
sysbench "$SYSBENCH_LUA" --config-file="$tmp/sysbench.cfg" --tables="$TABLES" --table-size="$TABLE_SIZE" cleanup
sysbench "$SYSBENCH_LUA" --config-file="$tmp/sysbench.cfg" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$PREPARE_THREADS" prepare
"""
)


WARMUP = (
    _CLIENT_FILES
    + r"""
echo "B2: warming up the buffer pool"
sysbench "$SYSBENCH_LUA" --config-file="$tmp/sysbench.cfg" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$PREPARE_THREADS" prewarm \
  || echo "prewarm is not supported by this sysbench; the timed warm-up follows"
if [ "$WARMUP_SECONDS" -gt 0 ]; then
  sysbench "$SYSBENCH_LUA" --config-file="$tmp/sysbench.cfg" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$WARMUP_THREADS" --time="$WARMUP_SECONDS" \
    __B3_FLAGS__ run
fi
""".replace("__B3_FLAGS__", " ".join(B3_RUN_FLAGS))
)


LADDER = (
    _CLIENT_FILES
    + r"""
mkdir -p "$RESULTS_DIR"
# the publisher container waits for this file: the ladder's exit status, whatever happens
trap 'echo "$?" > "$RESULTS_DIR/done"' EXIT
echo "__SUMMARY_HEADER__" > "$RESULTS_DIR/summary.csv"
rate_flag=""
if [ "$RATE" -gt 0 ]; then rate_flag="--rate=$RATE"; fi
for threads in $THREADS; do
  echo "B3: ${threads} threads for ${DURATION_SECONDS}s after ${STEP_WARMUP_SECONDS}s at that concurrency"
  sysbench "$SYSBENCH_LUA" --config-file="$tmp/sysbench.cfg" --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$threads" --time="$DURATION_SECONDS" \
    --warmup-time="$STEP_WARMUP_SECONDS" $rate_flag __B3_FLAGS__ run | tee "$RESULTS_DIR/run-${threads}.log"
  # per-second lines: [ 1s ] thds: 16 tps: 1.00 qps: 2.00 (r/w/o: ...) lat (ms,95%): 3.00 err/s: 0.00 reconn/s: 0.00
  awk -v t="$threads" 'BEGIN { print "__INTERVAL_HEADER__" }
    /^\[ *[0-9]+s *\]/ {
      sec = $0; sub(/^\[ */, "", sec); sub(/s.*/, "", sec)
      tps = qps = p = err = rec = ""
      for (i = 1; i < NF; i++) {
        if ($i == "tps:") tps = $(i + 1)
        else if ($i == "qps:") qps = $(i + 1)
        else if ($i ~ /^\(ms,/) p = $(i + 1)
        else if ($i == "err/s:") err = $(i + 1)
        else if ($i == "reconn/s:") rec = $(i + 1)
      }
      print t "," sec "," tps "," qps "," p "," err "," rec
    }' "$RESULTS_DIR/run-${threads}.log" > "$RESULTS_DIR/intervals-${threads}.csv"
  # the run's summary: transactions/queries per second, the 95th percentile, ignored errors, reconnects
  awk -v t="$threads" '
    /transactions:/ { v = $3; gsub(/[()]/, "", v); tps = v }
    /queries:/ && !/queries performed/ { v = $3; gsub(/[()]/, "", v); qps = v }
    /ignored errors:/ { v = $4; gsub(/[()]/, "", v); err = v }
    /reconnects:/ { v = $3; gsub(/[()]/, "", v); rec = v }
    /95th percentile:/ { p = $3 }
    END { print t "," tps "," qps "," p "," err "," rec }' "$RESULTS_DIR/run-${threads}.log" >> "$RESULTS_DIR/summary.csv"
done
cat "$RESULTS_DIR/summary.csv"
""".replace("__SUMMARY_HEADER__", SUMMARY_HEADER)
    .replace("__INTERVAL_HEADER__", INTERVAL_HEADER)
    .replace("__B3_FLAGS__", " ".join(B3_RUN_FLAGS))
)


PUBLISH = r"""set -eu
export HOME=${TMPDIR:-/tmp}
echo "waiting for the ladder"
until [ -f "$RESULTS_DIR/done" ]; do sleep 5; done
code=$(cat "$RESULTS_DIR/done")
if [ "$code" = "0" ]; then status=complete; else status="failed (exit $code): partial results"; fi
[ -f "$RESULTS_DIR/summary.csv" ] || echo "__SUMMARY_HEADER__" > "$RESULTS_DIR/summary.csv"
set -- --from-file=summary.csv="$RESULTS_DIR/summary.csv"
# A ConfigMap holds at most 1 MiB: the per-second series go in when they fit (they are in the Job's log anyway).
total=$(cat "$RESULTS_DIR"/*.csv | wc -c)
if [ "$total" -lt 900000 ]; then
  for file in "$RESULTS_DIR"/intervals-*.csv; do
    set -- "$@" --from-file="$(basename "$file")=$file"
  done
fi
kubectl create configmap "$CONFIGMAP" -n "$NAMESPACE" "$@" \
  --from-literal=finished="$(date -u +%Y-%m-%dT%H:%M:%SZ)" --from-literal=run="$RUN_ID" \
  --from-literal=status="$status" --dry-run=client -o yaml \
  | kubectl apply --server-side --field-manager=sysbench-results --force-conflicts -f -
cat "$RESULTS_DIR/summary.csv"
""".replace("__SUMMARY_HEADER__", SUMMARY_HEADER)


# As the benchmark user (its grant on the schema includes DROP); the user itself stays, owning nothing:
# dropping it needs CREATE USER, which only root has, and root is not in this pod.
CLEANUP_STEPS = r"""
echo "dropping the benchmark schema"
sysbench "$SYSBENCH_LUA" --config-file="$tmp/sysbench.cfg" --tables="$TABLES" --table-size="$TABLE_SIZE" cleanup
mysql --defaults-extra-file="$tmp/sbtest.cnf" -e "DROP DATABASE IF EXISTS \`${SYSBENCH_DATABASE}\`;"
"""
CLEANUP = _CLIENT_FILES + CLEANUP_STEPS
# The ladder container, with the optional cleanup after the last step.
LADDER_AND_CLEANUP = LADDER + CLEANUP_STEPS


def sysbench_env(benchmark: Benchmark) -> dict[str, str]:
    """Plain (non-secret) environment shared by the sysbench phases."""
    data = benchmark.dataset
    return {
        "SYSBENCH_USER": SYSBENCH_USER,
        "SYSBENCH_DATABASE": SYSBENCH_DATABASE,
        "SYSBENCH_LUA": SYSBENCH_LUA,
        "SSL_MODE": SSL_MODE,
        "SSL_CA": CA_FILE,
        "TABLES": str(data.tables),
        "TABLE_SIZE": str(data.table_size),
        "PREPARE_THREADS": str(benchmark.prepare_threads),
        # a requested data set must not mention the buffer pool: the Job would change with the database (R5)
        "DATA_DESCRIPTION": (
            f"~{data.data_bytes / 2**30:.1f} GiB as requested by sysbenchDataSize"
            if data.requested
            else f"~{data.data_bytes / 2**30:.1f} GiB, {data.ratio:g}x the buffer pool: {data.bound}-bound"
        ),
        "WARMUP_SECONDS": str(benchmark.ladder.warmup_seconds),
        "WARMUP_THREADS": str(benchmark.ladder.warmup_threads),
        "THREADS": " ".join(str(t) for t in benchmark.ladder.threads),
        "DURATION_SECONDS": str(benchmark.ladder.duration_seconds),
        "STEP_WARMUP_SECONDS": str(benchmark.ladder.step_warmup_seconds),
        "RATE": str(benchmark.ladder.rate),
        "RESULTS_DIR": RESULTS_DIR,
    }
