"""The rules sizing decides by construction (part of the catalogue, core.rules): K Kubernetes capacity,
M the memory split, F flow control, G Galera. Each rule carries its thresholds."""

from __future__ import annotations

from .calibration import PER_ACTIVE_CONNECTION_RSS, SAFETY_FACTOR, THREAD_RESIDENT_BYTES
from .connection_cost import SESSION_BYTES_PER_CONNECTION
from .rule_model import (
    INT32_MAX,
    INT64_MAX,
    MAX_APPLIER_TPS_PER_WORKER,
    MAX_BROWNOUT_SECONDS,
    MAX_REPLICA_PARALLEL_WORKERS,
    MAX_WSREP_APPLIER_THREADS,
    MYSQLD_MAX_CONNECTIONS,
    Level,
    Rule,
    Threshold,
)

M, A = Level.MANDATORY, Level.ADVISORY

# F5's apply rate, from source 002 (sysbench oltp_read_write --skip_trx=on --rate=400 with 32 applier
# threads ran without flow control). sysbench counts events; each event of oltp_read_write runs one
# index update, one non-index update, one delete and one insert, each autocommitted with --skip_trx=on.
SEED_002_EVENTS_PER_SECOND = 400
OLTP_READ_WRITE_WRITES_PER_EVENT = 4
SEED_002_APPLIER_THREADS = 32

SIZING_RULES = (
    # K. Kubernetes capacity
    Rule(
        "K1",
        "Size against allocatable",
        "Size against node allocatable, never capacity: usable = capacity - kube/system reserved - "
        "eviction threshold - DaemonSet requests.",
        M,
        ("000",),
    ),
    Rule(
        "K2",
        "Memory limit = request",
        "Every database container has a memory limit, and its memory request equals its limit "
        "(no swap: over memory.max the kernel OOMKills).",
        M,
        ("000",),
    ),
    # Mandatory since the docs promise Guaranteed pods (issue 39). Source 002 saw pods without a CPU limit borrow a
    # node's idle CPU; on a pool dedicated to one member per node, sized from allocatable (K1), what is left to
    # borrow is the node's own reservations and the DaemonSets' slack, and the limit buys the OOM protection below.
    Rule(
        "K3",
        "CPU limit = request (Guaranteed QoS)",
        "Every container of the database, proxy and orchestrator pods as the operators render them (mysqld, the "
        "proxies, every sidecar and init container) requests the CPU sizing computes and has a CPU limit equal to "
        "it; with K2's memory this makes every such pod Guaranteed, the QoS class the docs promise, and the rule's "
        "verdict is the API server's status.qosClass. Why the limit: the kubelet gives every process of a "
        "Guaranteed pod an OOM score adjustment of -997, of a Burstable one 1000 - 1000 x its memory request / the "
        "node's memory (about 130 for the gke stack's mysqld, 56630Mi of 64Gi), so under node memory pressure the kernel kills "
        "a Burstable mysqld before the node's agents (kubernetes pkg/kubelet/qos/policy.go); and only a Guaranteed "
        "pod gets exclusive cores from the static CPU manager. What it costs: the idle CPU a pod without a limit "
        "may borrow (source 002), which on a dedicated pool sized from allocatable (K1) is the node's reservations "
        "and the DaemonSets' unused requests.",
        M,
        ("002",),
    ),
    Rule(
        "K4",
        "Dedicated pools",
        "mysqld and proxy pods run only on the database pool (node selector + toleration of its "
        "taint); the monitoring server and load generators only on the monitoring pool; nothing "
        "else tolerates the database taint.",
        M,
        ("002", "004"),
    ),
    Rule(
        "K5",
        "Pods fit the pool",
        "On every pool, per node, the requests of the pods placed there (one database pod per node "
        "under the operators' required anti-affinity) plus DaemonSets fit the allocatable.",
        M,
        ("000", "INTERFACES"),
    ),
    Rule(
        "K6",
        "Probes never shorter than operator defaults",
        "Probe timeouts are never shorter than the operator defaults; under load a slow but healthy pod must not be killed.",
        A,
        ("000", "002"),
    ),
    Rule(
        "K7",
        "A zone's loss leaves a majority",
        "A production cluster keeps a majority of its members when any one zone is lost: no zone may hold more than "
        "(n - 1) // 2 of its n members (1 of 3, 2 of 5, 3 of 7), and no zone a majority of its proxy pods. What a "
        "zone can hold is read as kube-scheduler places pods, at worst (nodes arriving zone by zone, preferred "
        "affinities and ScheduleAnyway spreads promising nothing): a required anti-affinity on the hostname keeps "
        "one member per node, on the zone one per zone; a DoNotSchedule spread on the zone with maxSkew s lets a "
        "zone hold s more than the emptiest, counting an empty zone only while fewer zones than minDomains have "
        "nodes. Two zones never keep a majority (one holds ceil(n/2)); three do (ceil(n/3) <= (n - 1) // 2). A "
        "custom resource or chart alone is judged on three zones with nodes to spare, a stack on its pools' zones.",
        M,
        ("SCHEDULER", "INTERFACES"),
    ),
    # M. Memory split
    Rule(
        "M1",
        "Modeled peak fits the limit",
        "Modeled peak <= container memory limit: buffer pool (rounded up to chunk x instances), log "
        "buffer, connections by what they cost (every admitted connection's session, and the buffers and "
        "threads of the statements that can run at once), temporary tables, fixed server overhead, "
        "a page-cache reserve, and for group replication the M4-M5 terms.",
        M,
        ("000",),
        (
            Threshold(
                "fixed_server_overhead_bytes",
                300 * 1024**2,
                "Fixed mysqld overhead (performance schema, dictionary, table caches): ~300 MB "
                "measured on a 16-core node (source 000).",
                "integer",
                0,
                INT64_MAX,
            ),
            # At most half the limit: a larger reserve would leave the buffer pool less than the page cache.
            Threshold(
                "page_cache_reserve_fraction",
                0.05,
                "Share of the mysqld limit kept for page cache that counts against memory.max "
                "(binary and relay logs, active file pages; source 000 on working set size).",
                "number",
                0,
                0.5,
            ),
            Threshold(
                "buffer_pool_descriptor_bytes",
                512,
                "Bytes InnoDB allocates per 16 KiB buffer-pool page for its block descriptor, on top "
                "of innodb_buffer_pool_size (buf_chunk_init reserves pages x sizeof(buf_block_t) per "
                "chunk, storage/innobase/buf/buf0buf.cc); a bound on sizeof(buf_block_t) of 64-bit "
                "release builds: 3.1% of the pool.",
                "integer",
                0,
                16 * 1024,
            ),
            Threshold(
                "performance_schema_fixed_bytes",
                128 * 1024**2,
                "performance_schema memory that does not grow with connections (the _history_long "
                "tables, digests, global summaries); source 000's ~300 MB excludes it "
                "(it filters memory/performance% out).",
                "integer",
                0,
                INT64_MAX,
            ),
            Threshold(
                "performance_schema_bytes_per_connection",
                384 * 1024,
                "performance_schema memory per connected thread (per-thread summaries over every "
                "instrument class, error summaries, the statement stack and the 10-row histories); "
                "allocated as threads connect and never freed, so charged for max_connections.",
                "integer",
                0,
                INT64_MAX,
            ),
            Threshold(
                "session_bytes_per_connection",
                SESSION_BYTES_PER_CONNECTION,
                "What an admitted connection's session holds beside its network buffers and binary log "
                "caches (the THD, its hashes, diagnostics area and digest buffer, InnoDB's transaction "
                "object): twice the ~31 KB MariaDB 10.6 documents for a new connection (MariaDB KB, "
                "Connection Memory Usage), rounded up.",
                "integer",
                0,
                2**30,
            ),
            Threshold(
                "thread_resident_bytes",
                THREAD_RESIDENT_BYTES,
                f"What a thread keeps resident, running or blocked (the stack pages it touched, its malloc arena, "
                f"its statement memory roots; thread_stack is reserved address space, touched on demand): "
                f"calibrated on the Galera tier, {PER_ACTIVE_CONNECTION_RSS.value_bytes // 1024} KiB resident per "
                f"running connection x {SAFETY_FACTOR} less its session and buffers (core/calibration.py). Charged "
                f"per thread: every connection without the thread pool, every thread the pool can create with it.",
                "integer",
                0,
                2**30,
            ),
            Threshold(
                "allocator_fragmentation_fraction",
                0.10,
                "Share of the heap-allocated terms (everything but the buffer pool and the gcache, "
                "which are mmapped) kept for allocator fragmentation: glibc malloc keeps freed "
                "memory in per-thread arenas, so RSS exceeds the bytes mysqld has in use.",
                "number",
                0,
                0.5,
            ),
        ),
    ),
    Rule(
        "M2",
        "No bare-metal rule of thumb",
        "The buffer pool is what is left of the container limit after every other term; the "
        "operators' auto-tuning (PXC 75% / PS 50% of the limit) is replaced by an explicit value.",
        M,
        ("000", "INTERFACES"),
    ),
    Rule(
        "M3",
        "Sidecars budgeted separately",
        "PMM client, log collector, backup sidecar and proxies each have their own request = limit.",
        M,
        ("000", "004"),
    ),
    Rule(
        "M4",
        "XCom message cache reserved",
        "group_replication_message_cache_size (default 1 GiB, minimum 128 MiB) plus ~50 MB of structures is reserved.",
        M,
        ("000", "001"),
        (
            Threshold(
                "xcom_structures_bytes",
                50 * 1024**2,
                "XCom structures beside the message cache (source 000).",
                "integer",
                0,
                INT64_MAX,
            ),
        ),
    ),
    Rule(
        "M5",
        "Certification info reserved",
        "Group replication certification info grows while a member lags and is bounded only by "
        "bounding the apply queue; reserve for it (GR uses 9-11% more memory than PXC).",
        M,
        ("000",),
        (
            Threshold(
                "certification_gc_period_seconds",
                60,
                "Period of group replication's stable-set broadcast, after which certification info "
                "is garbage-collected (Certifier_broadcast_thread::BROADCAST_GTID_EXECUTED_PERIOD, "
                "plugin/group_replication/include/certifier.h).",
                "number",
                1,
                86_400,
            ),
            Threshold(
                "certification_bytes_per_transaction",
                4096,
                "Certification info per certified transaction: ~48 write-set items (~80 bytes each, a "
                "map node with its hashed key) and the snapshot GTID set; TPC-C's new-order writes "
                "~23 rows.",
                "integer",
                1,
                INT32_MAX,
            ),
            Threshold(
                "certification_min_bytes",
                128 * 1024**2,
                "Floor of the certification reserve: source 000 measured 92 MB steady.",
                "integer",
                0,
                INT64_MAX,
            ),
            Threshold(
                "certification_max_bytes",
                1536 * 1024**2,
                "Cap of the certification reserve: source 000 measured 1.4 GB while the queue ran under "
                "the default 25,000 threshold, 50 times the strict bound.",
                "integer",
                0,
                INT64_MAX,
            ),
        ),
    ),
    Rule(
        "M6",
        "Derive max_connections",
        "connections = 0 means: derive max_connections from what connections cost: what the proxies deliver at "
        "the limits the operators ship, idle connections charged their session (Percona's thread pool gives "
        "no thread to an idle connection), work buffers charged to the statements the cores run at once "
        "(thread_pool_size x (1 + thread_pool_oversubscribe)), and every thread the pool may create charged its "
        "resident memory: its cap admits one per connection and one listener per group, so blocked statements "
        "never starve a login; fewer only where the buffer pool would keep less than "
        "derived_min_buffer_pool_share of the mysqld limit, or less than its floor on the member budget.",
        A,
        ("000",),
        (
            Threshold(
                "min_buffer_pool_fraction_pxc",
                0.5,
                "Smallest share of the member's memory budget left to the buffer pool when "
                "deriving connections (PXC; the floor of the peer calculator, mysqloperatorcalculator).",
                "number",
                0,
                1,
                exclusive_maximum=True,
            ),
            Threshold(
                "min_buffer_pool_fraction_gr",
                0.4,
                "Same for group replication, which reserves the M4/M5 terms.",
                "number",
                0,
                1,
                exclusive_maximum=True,
            ),
            Threshold(
                "derived_min_buffer_pool_share",
                0.7,
                "Smallest share of the mysqld limit the buffer pool keeps when connections are derived: what the "
                "proxies open at their shipped limits is lowered to keep it, wherever the fewest connections "
                "keep it (the PXC operator's own auto-tuning gives the pool 75% of the container).",
                "number",
                0,
                1,
                exclusive_maximum=True,
            ),
            # The most: mysqld's 100,000 less one client for each of up to 7 proxy pods (T1).
            Threshold(
                "min_connections",
                20,
                "Connections mysqld keeps for its own users beside the proxies' clients (operator, "
                "probes, monitor, proxy checks, PMM, backup and replication users need some).",
                "integer",
                1,
                MYSQLD_MAX_CONNECTIONS - 7,
            ),
        ),
    ),
    # F. Flow control
    Rule("F1", "GR flow control on", "group_replication_flow_control_mode is QUOTA; DISABLED is rejected.", M, ("000",)),
    Rule(
        "F2",
        "GR applier threshold bounded",
        "group_replication_flow_control_applier_threshold <= max_applier_threshold (the server "
        "default 25000 is rejected; 500 is a good strict value).",
        M,
        ("000", "003"),
        (
            Threshold(
                "max_applier_threshold",
                1000,
                "Largest accepted applier/certifier threshold (transactions).",
                "integer",
                1,
                INT32_MAX,
            ),
            Threshold(
                "strict_applier_threshold",
                500,
                "The strict value sizing chooses when the brownout budget allows it.",
                "integer",
                1,
                INT32_MAX,
            ),
        ),
    ),
    Rule(
        "F3",
        "GR certifier threshold bounded",
        "group_replication_flow_control_certifier_threshold <= max_applier_threshold and equal to the applier threshold.",
        M,
        ("000",),
    ),
    Rule(
        "F4",
        "Aggressive quota",
        "group_replication_flow_control_min_quota = 0, hold_percent = 100, release_percent = 5; period stays 1 s.",
        A,
        ("000",),
    ),
    Rule(
        "F5",
        "Failover brownout bounded",
        "Worst-case write outage after failover ~ queue bound / apply rate must not exceed max_failover_brownout_seconds.",
        M,
        ("000",),
        (
            Threshold(
                "max_failover_brownout_seconds",
                30,
                "Longest accepted estimated write outage after a failover (seconds); at most a day, beyond "
                "which it bounds nothing.",
                "number",
                0,
                MAX_BROWNOUT_SECONDS,
                exclusive_minimum=True,
            ),
            Threshold(
                "applier_tps_per_worker",
                SEED_002_EVENTS_PER_SECOND * OLTP_READ_WRITE_WRITES_PER_EVENT / SEED_002_APPLIER_THREADS,
                "Assumed apply rate per applier thread (transactions/s): source 002 ran sysbench "
                "oltp_read_write --skip_trx=on at --rate=400 events/s without flow control with 32 "
                "applier threads; each event autocommits 4 writes (index update, non-index update, "
                "delete, insert), so 400 x 4 / 32 = 50. At most a million: no applier thread commits more "
                "transactions a second.",
                "number",
                0.001,
                MAX_APPLIER_TPS_PER_WORKER,
            ),
            Threshold(
                "applier_scaling_max_workers",
                SEED_002_APPLIER_THREADS,
                "Appliers beyond this count add no assumed apply rate: source 002 measured 32, and "
                "parallel apply is not linear beyond what was measured.",
                "integer",
                1,
                1024,
            ),
            Threshold(
                "primary_to_applier_rate_ratio",
                5,
                "How much faster than a secondary applies the primary may commit while flow control "
                "has not yet reacted (source 000: 'write, say, 10,000 transactions per second, while the "
                "secondary is only applying 2,000'); the group replication queue overshoots its "
                "threshold by (ratio - 1) x apply rate x flow-control period.",
                "number",
                1,
                1000,
            ),
        ),
    ),
    Rule(
        "F6",
        "Parallel appliers per core",
        "replica_parallel_workers ~ 2.5 per CPU core of the mysqld container (14000m -> 35); more is "
        "rejected. No effect on PXC, which uses wsrep_applier_threads.",
        M,
        ("000", "002"),
        (
            Threshold(
                "replica_workers_per_core",
                2.5,
                "Parallel applier workers per mysqld core; at most 1024, replica_parallel_workers' whole range "
                "(0..1024) on one core.",
                "number",
                0.001,
                MAX_REPLICA_PARALLEL_WORKERS,
            ),
        ),
    ),
    Rule(
        "F7",
        "Consistency per session",
        "A global group_replication_consistency of AFTER or BEFORE_AND_AFTER costs ~75% of throughput; use it per session.",
        A,
        ("000",),
    ),
    Rule(
        "G1",
        "Galera fc_limit bounded",
        "gcs.fc_limit <= max_fc_limit (the effective limit scales with sqrt(cluster size)); raising "
        "it was the worst configuration measured and lengthens failover.",
        M,
        ("002",),
        (Threshold("max_fc_limit", 100, "Largest accepted gcs.fc_limit (the PXC default).", "integer", 1, INT32_MAX),),
    ),
    Rule("G2", "Galera fc_factor in (0, 1]", "gcs.fc_factor is in (0, 1].", M, ("002",)),
    Rule(
        "G3",
        "Galera applier threads from cores",
        "wsrep_applier_threads is set from the cores (default 2 is too low; 64 was best on 16 vCPU).",
        A,
        ("002",),
        (
            Threshold(
                "galera_applier_threads_per_core",
                4,
                "wsrep_applier_threads per mysqld core (source 002: 64 best on 16 vCPU); at most 512, "
                "wsrep_applier_threads' whole range (1..512) on one core.",
                "number",
                0.001,
                MAX_WSREP_APPLIER_THREADS,
            ),
            Threshold(
                "max_flow_control_paused_fraction",
                0.25,
                "Largest share of a grading window a live Galera member may spend paused by flow control "
                "(percona-mysql-grade, from wsrep_flow_control_paused_ns). Source 002's cluster with 2 applier "
                "threads was paused 'virtually all the time' and gave half the throughput 4 threads gave; a "
                "quarter flags a member halfway there.",
                "number",
                0,
                1,
                exclusive_minimum=True,
            ),
        ),
    ),
    Rule("G4", "wsrep_sync_wait", "wsrep_sync_wait = 1 is enough to avoid stale reads.", A, ("000",)),
)
