"""The stack program: Percona MySQL on Kubernetes, sized from the nodes, monitored and benchmarked.

1. Read every config key and validate the whole stack (percona_mysql_k8s.stack.settings): a bad value stops the
   program with one line naming the key and the rule, before any resource is registered.
2. Cluster target (GKE, EKS, kind or an existing cluster) with a database and a monitoring pool.
3. Namespace, CRDs and the Percona operator (unless ``installOperator: false``).
4. PMM server on the monitoring pool (unless ``installPmm: false``).
5. NetworkPolicies around the database pods and proxies (unless ``networkPolicies: false``, R6), then
   the database cluster: passwords, Secret, PMM token, the custom resource with every size from the
   sizing engine, its proxy.
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
from percona_mysql_k8s.database.manifests import sizing_summary
from percona_mysql_k8s.stack.settings import PMM_TOKEN_KEY, all_keys, stack_settings_from_config

config = pulumi.Config()
raw = {key: value for key in all_keys() if (value := config.get(key)) is not None}
try:
    settings = stack_settings_from_config(raw, pmm_token_set=bool(config.get(PMM_TOKEN_KEY)))
except InputError as error:
    raise pulumi.RunError(f"stack config: {error}") from error

for note in settings.sizing.notes:
    pulumi.log.info(note)

database = settings.database
persistent = not database.ephemeral
plan = settings.monitoring

# 2. where
target = build_cluster(settings.cluster)

# 3. the operator (and the namespace it watches)
operator = None
namespace_ready: list[pulumi.Resource] = []
if settings.install_operator:
    namespace = create_namespace(database.namespace, target, protect=persistent)
    namespace_ready = [namespace]
    operator = PerconaOperator(
        f"{database.name}-operator",
        OperatorArgs(engine=database.engine, namespace=database.namespace, target=target, depends_on=namespace_ready),
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
cluster = DatabaseCluster(
    database.name,
    DatabaseClusterArgs(spec=database, target=target, operator=operator, pmm=pmm if database.pmm_enabled else None,
                        helper_resources=plan.helper, depends_on=[*namespace_ready, *fences]),
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
            resources=plan.sysbench,
            helper_resources=plan.helper,
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
})
pulumi.export("sizing", sizing_summary(settings.sizing, settings.placement))
pulumi.export("monitoringPool", {
    part: {"cpu": format_cpu(size.cpu_millicores), "memory": format_memory(size.memory_bytes)}
    for part, size in (("operator", plan.operator), ("pmmServer", plan.pmm_server), ("sysbench", plan.sysbench),
                       ("helperJobs", plan.helper))
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
