"""The stack program: Percona MySQL on Kubernetes, sized from the nodes, monitored and benchmarked.

1. Read every config key and validate the whole stack (percona_mysql_k8s.stack.settings): a bad value stops the
   program with one line naming the key and the rule, before any resource is registered. So does a protected
   stack's change of engine, cluster name or namespace (S4, percona_mysql_k8s.stack.identity).
2. Cluster target (GKE, EKS, kind or an existing cluster) with a database and a monitoring pool.
3. Namespace, CRDs and the Percona operator (unless ``installOperator: false``).
4. PMM server on the monitoring pool (unless ``installPmm: false``).
5. NetworkPolicies around the database pods and proxies (unless ``networkPolicies: false``, R6); the
   backup storage (gke: a GCS bucket and a service account scoped to it; eks: an S3 bucket, KMS key and an IAM
   user scoped to them; each key only in a Kubernetes Secret; kind/existing: the S3-compatible endpoint in
   config; unless ``backup: false``, R1-R4); then the database
   cluster: passwords, Secret, PMM token, the custom resource with every size from the sizing engine, its
   proxy, its backup schedule and point-in-time recovery.
6. the sysbench Job on the monitoring pool: schema, prepare, warm-up, thread ladder (unless
   ``sysbenchEnabled: false``).

See docs/database.md.
"""

from __future__ import annotations

import pulumi
from percona_mysql_k8s.clusters import build_cluster
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import format_cpu, format_memory
from percona_mysql_k8s.database import (
    DatabaseCluster,
    DatabaseClusterArgs,
    ExternalPmm,
    NetworkPolicies,
    NetworkPoliciesArgs,
    OperatorArgs,
    PerconaOperator,
    PmmServer,
    PmmServerArgs,
    Sysbench,
    SysbenchArgs,
    create_namespace,
)
from percona_mysql_k8s.database.backup_storage import provision_backup_storage
from percona_mysql_k8s.database.manifests import sizing_summary
from percona_mysql_k8s.stack.identity import check_identity, own_previous_outputs
from percona_mysql_k8s.stack.settings import PMM_TOKEN_KEY, all_keys, check_config_keys, stack_settings_from_config
from pulumi.runtime import config as runtime_config

config = pulumi.Config()
# every config key the engine handed over, and which of them it holds encrypted
engine_config = {key: runtime_config.get_config(key)
                 for key in set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())}
secret_keys = {key for key in engine_config if runtime_config.is_config_secret(key)} | set(runtime_config.get_config_secret_keys_env())
try:
    check_config_keys(engine_config, project=pulumi.get_project(), secret_keys=secret_keys)
    raw = {key: value for key in all_keys() if (value := config.get(key)) is not None}
    # read without Config.get, which would log the secret's use in plain text
    token_set = bool(runtime_config.get_config(f"{pulumi.get_project()}:{PMM_TOKEN_KEY}"))
    settings = stack_settings_from_config(raw, pmm_token_set=token_set)
except InputError as error:
    raise pulumi.RunError(f"stack config: {error}") from error

for note in settings.sizing.notes:
    pulumi.log.info(note)
for note in settings.notes:  # what the kind fit gave up on this machine: said loudly, it changes the stack
    pulumi.log.warn(note)

database = settings.database
persistent = not database.ephemeral
plan = settings.monitoring

# S4: on a protected stack, a new engine, cluster name or namespace would replace the database; stop here,
# before anything is registered, if the config changed one since the last deployment
try:
    check_identity(own_previous_outputs().get("database") if persistent else None,
                   {"engine": database.engine, "name": database.name, "namespace": database.namespace,
                    "storageSize": database.storage_size},
                   ephemeral=database.ephemeral)
except InputError as error:
    raise pulumi.RunError(f"stack config: {error}") from error

# 2. where
try:  # the kind target checks for kind and Docker on this machine before creating anything
    target = build_cluster(settings.cluster)
except InputError as error:
    raise pulumi.RunError(f"stack config: {error}") from error

# 3. the operator (and the namespace it watches)
operator = None
namespace_ready: list[pulumi.Resource] = []
if settings.install_operator:
    if settings.create_namespace:  # false: it exists already (createNamespace)
        namespace = create_namespace(database.namespace, target, protect=persistent)
        namespace_ready = [namespace]
    operator = PerconaOperator(
        f"{database.name}-operator",
        OperatorArgs(engine=database.engine, namespace=database.namespace, target=target, depends_on=namespace_ready,
                     chart=settings.sources.operator_chart, crds=settings.sources.operator_crds,
                     image_registry=settings.sources.image_registry, protect=persistent),
    )

# 4. PMM
pmm: PmmServer | ExternalPmm | None = None
if settings.pmm.install:
    pmm = PmmServer(
        f"{database.name}-pmm",
        PmmServerArgs(
            namespace=database.namespace,
            target=target,
            resources=plan.pmm_server,
            storage_class=database.storage_class,
            storage_size=settings.pmm.storage_size,
            protect=persistent,
            depends_on=namespace_ready,
            chart=settings.sources.pmm_chart,
            image_registry=settings.sources.image_registry,
        ),
    )
elif settings.pmm.enabled:
    pmm = ExternalPmm(host=settings.pmm.server_host, token=config.require_secret(PMM_TOKEN_KEY))

# 5. the database cluster, fenced by its NetworkPolicies before its pods exist (R6)
fences: list[pulumi.Resource] = []
if settings.network is not None:
    fences = NetworkPolicies(
        f"{database.name}-network",
        NetworkPoliciesArgs(spec=database, target=target, clients=settings.network,
                            pmm_server=isinstance(pmm, PmmServer), operator_installed=operator is not None,
                            depends_on=namespace_ready),
    ).ready
elif not database.ephemeral:
    pulumi.log.warn("R6: networkPolicies is false: the database pods accept traffic from any pod in the cluster")
# backups: storage outside the cluster, the schedule and PITR (R1-R4)
backups = None
backup_ready: list[pulumi.Resource] = []
if settings.backup is not None:
    backups = settings.backup.plan
    if settings.backup.provisioned:  # gke, eks: the bucket and its identity are part of the stack
        backups, backup_ready = provision_backup_storage(
            f"{database.name}-backups", backups, namespace=database.namespace, cluster_name=database.name,
            engine=database.engine, target=target, kms_key=settings.backup.kms_key, protect=persistent,
            depends_on=namespace_ready)
elif persistent:
    pulumi.log.warn("R1: backup is false: this production database has no backups and no point-in-time recovery "
                    "(the policy pack rejects it)")
else:
    pulumi.log.info("backups are off on this ephemeral stack (R1-R4 exempt; docs/backups.md shows a MinIO endpoint)")
cluster = DatabaseCluster(
    database.name,
    DatabaseClusterArgs(spec=database, target=target, operator=operator, pmm=pmm if database.pmm_enabled else None,
                        helper_resources=plan.helper, depends_on=[*namespace_ready, *fences],
                        image_registry=settings.sources.image_registry, backup=backups, backup_ready=backup_ready),
)
assert cluster.sizing == settings.sizing  # the engine's answer, computed once at validation

# 6. sysbench
bench = None
if settings.sysbench is not None:
    bench = Sysbench(
        f"{database.name}-sysbench",
        SysbenchArgs(
            cluster=cluster,
            target=target,
            threads=settings.sysbench.threads,
            duration_seconds=settings.sysbench.duration_seconds,
            warmup_seconds=settings.sysbench.warmup_seconds,
            rate=settings.sysbench.rate,
            cleanup=settings.sysbench.cleanup,
            run_request=settings.sysbench.run_request,
            max_data_bytes=settings.sysbench.max_data_bytes,
            resources=plan.sysbench,
            helper_resources=plan.helper,
            image_registry=settings.sources.image_registry,
        ),
    )

# outputs
pulumi.export("target", {"kind": settings.cluster.target, "cluster": settings.cluster.cluster_name})
pulumi.export("database", {
    "name": database.name,
    "namespace": database.namespace,
    "engine": database.engine,
    "members": database.cluster_size,
    "proxy": database.proxy,
    "crVersion": database.release.cr_version,
    "writerEndpoint": f"{cluster.writer.host}:{cluster.writer.port}",
    "secret": database.secret_name,
    "storageSize": database.storage_size,  # read back by the next deployment: volumes only grow (S4)
})
pulumi.export("sizing", sizing_summary(settings.sizing, settings.placement))
if backups is not None:
    pulumi.export("backups", {
        "storage": backups.storage.kind,
        "bucket": backups.storage.bucket,
        "endpoint": backups.storage.endpoint_url,
        "schedule": backups.schedule,
        "keep": backups.keep,
        "retentionDays": backups.retention_days,
        "pitr": backups.pitr,
        "pitrUploadSeconds": backups.pitr_upload_seconds if backups.pitr else None,
        "list": f"kubectl -n {database.namespace} get {'pxc-backup' if database.engine == 'pxc' else 'ps-backup'}",
        # a named backup from the list, optionally replayed to a point in time (docs/backups.md)
        "restore": (f"percona-mysql-restore --engine {database.engine} --cluster {database.name} "
                    f"--namespace {database.namespace} --backup <name> [--time 'YYYY-MM-DD hh:mm:ss'] --apply"),
    })
pulumi.export("monitoringPool", {
    part: {"cpu": format_cpu(size.cpu_millicores), "memory": format_memory(size.memory_bytes)}
    for part, size in (("operator", plan.operator), ("pmmServer", plan.pmm_server), ("sysbench", plan.sysbench),
                       ("helperJobs", plan.helper), ("backupJob", plan.backup_job), ("pitrCollector", plan.pitr_collector))
    if size is not None
})
if isinstance(pmm, PmmServer):
    pulumi.export("pmm", {"url": pmm.url, "adminSecret": "pmm-secret", "namespace": pmm.namespace,
                          "open": f"kubectl -n {pmm.namespace} port-forward svc/monitoring-service 8443:443"})
elif isinstance(pmm, ExternalPmm):
    pulumi.export("pmm", {"host": pmm.host})
if bench is not None:
    data = bench.plan.dataset
    pulumi.export("sysbench", {
        # Pulumi cannot read a Job's output at `up` time: the results are in this ConfigMap.
        "resultsConfigMap": bench.results_name,
        "namespace": database.namespace,
        "read": Sysbench.read_command(database.namespace, bench.results_name),
        "tables": data.tables,
        "tableSize": data.table_size,
        "dataGiB": round(data.data_bytes / 2**30, 1),
        "bound": data.bound,
        "threads": list(bench.plan.ladder.threads),
        "secondsPerStep": bench.plan.ladder.duration_seconds,
        "runId": bench.run_id,
    })
