"""The rules on what is deployed around the sized members (part of the catalogue, core.rules): T topology
and proxies, B benchmarks, S safety, R recovery, C custom resources. Each rule carries its thresholds."""

from __future__ import annotations

from .rule_model import (
    MAX_POOL_NODES,
    MAX_RETENTION_DAYS,
    Level,
    Rule,
    Threshold,
)

M, A = Level.MANDATORY, Level.ADVISORY

DEPLOYMENT_RULES = (
    # T. Topology and proxies
    Rule(
        "T1",
        "Cluster size",
        "PXC 3 or 5; group replication 3, 5 or 7. Smaller only for an explicitly ephemeral stack "
        "with the operator's unsafe flag.",
        M,
        ("001", "004", "INTERFACES"),
    ),
    Rule(
        "T2",
        "Proxy choice",
        "HAProxy is the default; ProxySQL only on PXC; MySQL Router only on group replication "
        "(warned about under high concurrency); never HAProxy and ProxySQL together; at least 2 "
        "proxy pods.",
        M,
        ("004", "INTERFACES"),
        (
            Threshold(
                "min_proxy_pods",
                2,
                "Fewest proxy pods; at most 100, the most nodes a pool of this project has (proxy pods run one per node).",
                "integer",
                1,
                MAX_POOL_NODES,
            ),
        ),
    ),
    Rule(
        "T3",
        "Writes to the writer endpoint",
        "Writes go to the writer endpoint only; the HAProxy replicas endpoint is read-only.",
        M,
        ("004",),
    ),
    Rule(
        "T4",
        "Semi-sync after sync",
        "Semi-sync (PS async): wait point AFTER_SYNC only; at least 2 semi-sync replicas.",
        M,
        ("004",),
    ),
    # Advisory: breaching it costs refused connections under a storm (error 1040 from mysqld instead of a queue
    # at the proxy), not data or a pod that cannot start; the operators' own defaults breach it (3 HAProxy pods x
    # maxconn 2048 against an auto-tuned max_connections of limit / 12 MB), so a mandatory rule would reject
    # their example custom resources. Sizing keeps it by construction.
    Rule(
        "T5",
        "Proxies open no more than mysqld accepts",
        "The backend connections the proxy pods can open to one mysqld (HAProxy's global maxconn; ProxySQL's "
        "per-server max_connections in the writer and the reader hostgroup; Router's max_total_connections plus "
        "its idle connection pool), times the proxy pods, plus min_connections for mysqld's own users, do not "
        "exceed max_connections: a connection storm waits at the proxy, not in error 1040 at mysqld. Advisory: "
        "the cost of a breach is refused connections under load, and the operators' defaults breach it.",
        A,
        ("004", "INTERFACES"),
    ),
    # B. Benchmarks
    Rule(
        "B1",
        "Load generators on the monitoring pool",
        "Load generators run on the monitoring pool, never on the database pool.",
        M,
        ("002", "004"),
    ),
    Rule("B2", "Warm up", "Warm up before measured runs.", A, ("000",)),
    Rule(
        "B3",
        "sysbench reporting",
        "Report every second with --histogram, CSV stats, --mysql-ignore-errors=all, "
        "--db-ps-mode=disable; thread ladders and rate-limited runs.",
        A,
        ("000", "002", "004"),
    ),
    Rule(
        "B4",
        "Data size against the buffer pool",
        "An IO-bound profile has more data than the buffer pool, a CPU-bound one fits in it.",
        A,
        ("000",),
    ),
    # S. Safety
    Rule(
        "S1",
        "Passwords are secrets",
        "Every password is generated and kept as a Pulumi secret and a Kubernetes Secret; never in "
        "plain text in a custom resource, a chart value or stack config.",
        M,
        (),
    ),
    Rule("S2", "TLS stays on", "TLS stays on (no unsafeFlags.tls).", M, ("INTERFACES",)),
    Rule(
        "S3",
        "No public database endpoint",
        "No database Service is exposed through a public load balancer unless source ranges are set.",
        M,
        (),
    ),
    Rule(
        "S4",
        "Protect data",
        "PVC-deleting finalizers are off by default; production stacks protect database resources.",
        M,
        ("INTERFACES",),
    ),
    Rule(
        "S5",
        "PMM versions match",
        "PMM client and server major versions match (3.x uses a service-account token in pmmservertoken).",
        M,
        ("INTERFACES",),
    ),
    # R. Recovery (production stacks; ephemeral stacks are exempt)
    Rule(
        "R1",
        "Scheduled backups off the cluster",
        "A production database has scheduled backups to object storage outside the cluster (GCS, S3 "
        "or an S3-compatible endpoint), created or referenced by the stack.",
        M,
        ("INTERFACES",),
    ),
    Rule(
        "R2",
        "Point-in-time recovery",
        "Point-in-time recovery (the binlog collector / binlog server) is on wherever the operator version supports it.",
        M,
        ("INTERFACES",),
    ),
    Rule(
        "R3",
        "Backup retention window",
        "Backup retention keeps at least min_backup_retention_days (default 7) of restore points.",
        M,
        (),
        (
            Threshold(
                "min_backup_retention_days",
                7,
                "Fewest days of restore points the best backup schedule to off-cluster storage keeps, right "
                "after a run (the age of the oldest backup it keeps); at most ten years, beyond which "
                "backups are an archive, not a restore window.",
                "integer",
                1,
                MAX_RETENTION_DAYS,
            ),
        ),
    ),
    Rule(
        "R4",
        "Private, encrypted backup storage",
        "Backup storage is private and encrypted, reached through workload identity or IRSA; no static "
        "cloud keys in stack config.",
        M,
        (),
    ),
    Rule(
        "R5",
        "No benchmark on production by surprise",
        "Load generators are not part of a production stack unless a run is explicitly requested, and a request runs once.",
        A,
        ("000", "002"),
    ),
    Rule(
        "R6",
        "Database pods fenced by NetworkPolicy",
        "Database pods accept traffic only from their proxies, their own members, the operator, monitoring and backup Jobs.",
        A,
        (),
    ),
    Rule(
        "R7",
        "Data on persistent volumes",
        "A production database keeps its data on a PersistentVolumeClaim, never on emptyDir (deleted with the "
        "pod) or hostPath (left on one node, so a member rescheduled elsewhere starts empty and a node's loss "
        "loses it); and the claim is at least the data plus the binary logs mysqld keeps beside it (the sizing's "
        "data set, or the one the stack's sysbench prepare Jobs write into it, written once more into the binary "
        "log, which mysqld keeps for binlog_expire_logs_seconds).",
        M,
        ("INTERFACES",),
    ),
    # C. Custom resources. A family of its own: RULES.md (the specification) has no rule on the format itself,
    # because every other rule presumes a resource the operator receives; C1 makes that presumption a check.
    Rule(
        "C1",
        "Custom resources the API server accepts",
        "A PerconaXtraDBCluster, PerconaServerMySQL or one of their backup and restore resources validates "
        "against the pinned operator's CRD as the API server validates it: the OpenAPI schema (types, required "
        "fields, enums, patterns, formats, bounds, list keys) after pruning and defaults, the fields server-side "
        "apply refuses, and the CRD's x-kubernetes-validations (CEL) rules. A resource the API server would refuse "
        "is reported with the API server's reason, and no other rule judges it as if it were valid.",
        M,
        ("CRD", "INTERFACES"),
    ),
    Rule(
        "C2",
        "Custom resources the operator reconciles",
        "A PerconaXtraDBCluster or PerconaServerMySQL (or pxc-db/ps-db chart values) passes the pinned operator's "
        "own validation, which it runs before every reconcile (PXC 1.20.0 CheckNSetDefaults and Validate, PS v1.2.0 "
        "CheckNSetDefaults): a refusal there stops the whole reconcile, so nothing of the cluster is rendered, no "
        "pod and no backup, and `pulumi up` has created a resource that never becomes a database. Each refusal is "
        "reported with the field, the operator's own words and its source line (docs/operator-validation.md lists "
        "them); the stacks refuse a cluster name the operator would refuse at config time.",
        M,
        ("VALIDATION", "INTERFACES"),
    ),
)
