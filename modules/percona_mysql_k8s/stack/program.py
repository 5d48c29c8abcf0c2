"""What the stack program deploys, from validated settings: used by stacks/__main__.py and by the package's
components (percona_mysql_k8s.stack.components), so a Python stack and a TypeScript or YAML program that adds
the package deploy the same resources.

1. Cluster target (GKE, EKS, kind or an existing cluster) with a database and a monitoring pool.
2. Namespace, CRDs and the Percona operator (unless ``installOperator: false``).
3. PMM server on the monitoring pool (unless ``installPmm: false``), or an existing one.
4. NetworkPolicies around the database pods and proxies (unless ``networkPolicies: false``, R6); the backup
   storage (gke: a GCS bucket and a service account scoped to it; eks: an S3 bucket, KMS key and an IAM user
   scoped to them; kind/existing: the S3-compatible endpoint in config; unless ``backup: false``, R1-R4); then
   the database cluster with every size from the sizing engine, its proxy, backups and point-in-time recovery.
5. The sysbench Job on the monitoring pool (unless ``sysbenchEnabled: false``).
6. The admission server on the monitoring pool and its webhook (when ``admission`` is set; docs/admission.md).

:func:`outputs` is what the stack exports, and the components' outputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi

from percona_mysql_k8s.clusters import build_cluster
from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.core.backup import BackupPlan
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
from percona_mysql_k8s.plan.database.manifests import sizing_summary
from percona_mysql_k8s.plan.database.spec import DatabaseSpec

from .settings import StackSettings


@dataclass(frozen=True)
class Deployment:
    settings: StackSettings
    target: ClusterTarget
    cluster: DatabaseCluster
    pmm: PmmServer | ExternalPmm | None
    backups: BackupPlan | None
    bench: Sysbench | None


def deploy(
    settings: StackSettings, *, pmm_token: pulumi.Input[str] | None = None, parent: pulumi.Resource | None = None
) -> Deployment:
    """Register everything ``settings`` decided. ``pmm_token``: the existing PMM server's token (a secret; when
    pmmServerHost names one); ``parent``: the component the resources belong to (None: the stack)."""
    for pool in (settings.cluster.database_pool, settings.cluster.monitoring_pool):
        pulumi.log.info(pool.describe(), parent)
    for note in settings.sizing.notes:
        pulumi.log.info(note, parent)
    for note in settings.notes:  # what the kind fit gave up on this machine: said loudly, it changes the stack
        pulumi.log.warn(note, parent)
    for note in settings.placement.notes:  # zones that cannot keep a majority, on a stack that accepts it (K7)
        pulumi.log.warn(note, parent)
    for note in settings.placement.remarks:  # the kind target: one machine (K7)
        pulumi.log.info(note, parent)
    database = settings.database
    plan = settings.monitoring

    # 1. where (the kind target checks for kind and Docker on this machine before creating anything)
    target = build_cluster(settings.cluster, _options(parent))

    # 2. the operator (and the namespace it watches)
    operator, namespace_ready = _operator(settings, target, parent)

    # 3. PMM
    pmm = _pmm(settings, target, namespace_ready, pmm_token, _options(parent))

    # 4. the database cluster, fenced by its NetworkPolicies before its pods exist (R6)
    fences = _network_policies(settings, target, pmm, operator, namespace_ready, parent)
    backups, backup_ready = _backups(settings, target, namespace_ready, parent)
    cluster = DatabaseCluster(
        database.name,
        DatabaseClusterArgs(
            spec=database,
            target=target,
            operator=operator,
            pmm=pmm if database.pmm_enabled else None,
            helper_resources=plan.helper,
            depends_on=[*namespace_ready, *fences],
            image_registry=settings.sources.image_registry,
            backup=backups,
            backup_ready=backup_ready,
        ),
        _options(parent),
    )
    assert cluster.sizing == settings.sizing  # the engine's answer, computed once at validation

    # 5. sysbench
    bench = _sysbench(settings, target, cluster, parent)

    # 6. the pack's rules at admission (admission), once the operator's CRDs are there
    if settings.admission is not None:
        from percona_mysql_k8s.database import AdmissionServer, AdmissionServerArgs

        AdmissionServer(
            f"{database.name}-admission",
            AdmissionServerArgs(settings=settings.admission, target=target, depends_on=[operator] if operator else []),
            _options(parent),
        )
    return Deployment(settings, target, cluster, pmm, backups, bench)


def _options(parent: pulumi.Resource | None) -> pulumi.ResourceOptions | None:
    return pulumi.ResourceOptions(parent=parent) if parent is not None else None


def _operator(
    settings: StackSettings, target: ClusterTarget, parent: pulumi.Resource | None
) -> tuple[PerconaOperator | None, list[pulumi.Resource]]:
    """The operator (installOperator) and the namespace it watches (createNamespace); the namespace is what
    everything else in it waits for."""
    database = settings.database
    persistent = not database.ephemeral
    operator = None
    namespace_ready: list[pulumi.Resource] = []
    if settings.install_operator:
        if settings.create_namespace:  # false: it exists already (createNamespace)
            namespace = create_namespace(database.namespace, target, protect=persistent, opts=_options(parent))
            namespace_ready = [namespace]
        operator = PerconaOperator(
            f"{database.name}-operator",
            OperatorArgs(
                engine=database.engine,
                namespace=database.namespace,
                target=target,
                depends_on=namespace_ready,
                chart=settings.sources.operator_chart,
                crds=settings.sources.operator_crds,
                image_registry=settings.sources.image_registry,
                protect=persistent,
            ),
            _options(parent),
        )
    return operator, namespace_ready


def _network_policies(
    settings: StackSettings,
    target: ClusterTarget,
    pmm: PmmServer | ExternalPmm | None,
    operator: PerconaOperator | None,
    namespace_ready: list[pulumi.Resource],
    parent: pulumi.Resource | None,
) -> list[pulumi.Resource]:
    """The NetworkPolicies that fence the database before its pods exist (R6); what the cluster waits for."""
    database = settings.database
    if settings.network is not None:
        return NetworkPolicies(
            f"{database.name}-network",
            NetworkPoliciesArgs(
                spec=database,
                target=target,
                clients=settings.network,
                pmm_server=isinstance(pmm, PmmServer),
                operator_installed=operator is not None,
                depends_on=namespace_ready,
            ),
            _options(parent),
        ).ready
    if not database.ephemeral:
        pulumi.log.warn("R6: networkPolicies is false: the database pods accept traffic from any pod in the cluster", parent)
    return []


def _sysbench(
    settings: StackSettings, target: ClusterTarget, cluster: DatabaseCluster, parent: pulumi.Resource | None
) -> Sysbench | None:
    """The benchmark Job against the cluster (sysbench), or none."""
    if settings.sysbench is None:
        return None
    database = settings.database
    plan = settings.monitoring
    run = settings.sysbench
    return Sysbench(
        f"{database.name}-sysbench",
        SysbenchArgs(
            cluster=cluster,
            target=target,
            threads=run.threads,
            duration_seconds=run.duration_seconds,
            warmup_seconds=run.warmup_seconds,
            rate=run.rate,
            cleanup=run.cleanup,
            run_request=run.run_request,
            max_data_bytes=run.max_data_bytes,
            resources=plan.sysbench,
            helper_resources=plan.helper,
            image_registry=settings.sources.image_registry,
        ),
        _options(parent),
    )


def _pmm(
    settings: StackSettings,
    target: ClusterTarget,
    namespace_ready: list[pulumi.Resource],
    token: pulumi.Input[str] | None,
    opts: pulumi.ResourceOptions | None,
) -> PmmServer | ExternalPmm | None:
    """The PMM server on the monitoring pool (installPmm), the existing one pmmServerHost names, or none."""
    database = settings.database
    if settings.pmm.install:
        return PmmServer(
            f"{database.name}-pmm",
            PmmServerArgs(
                namespace=database.namespace,
                target=target,
                resources=settings.monitoring.pmm_server,
                storage_class=database.storage_class,
                storage_size=settings.pmm.storage_size,
                protect=not database.ephemeral,
                depends_on=namespace_ready,
                chart=settings.sources.pmm_chart,
                image_registry=settings.sources.image_registry,
            ),
            opts,
        )
    if settings.pmm.enabled:
        if token is None:
            raise ValueError("pmmServerHost names an existing PMM server: its token (pmmServerToken) is required")
        return ExternalPmm(host=settings.pmm.server_host, token=token)
    return None


def _backups(
    settings: StackSettings, target: ClusterTarget, namespace_ready: list[pulumi.Resource], parent: pulumi.Resource | None
) -> tuple[BackupPlan | None, list[pulumi.Resource]]:
    """Storage outside the cluster, the schedule and PITR (R1-R4): on gke/eks the bucket and its identity are made."""
    database = settings.database
    persistent = not database.ephemeral
    if settings.backup is None:
        if persistent:
            pulumi.log.warn(
                "R1: backup is false: this production database has no backups and no point-in-time recovery "
                "(the policy pack rejects it)",
                parent,
            )
        else:
            pulumi.log.info(
                "backups are off on this ephemeral stack (R1-R4 exempt; docs/backups.md shows a MinIO endpoint)", parent
            )
        return None, []
    backups = settings.backup.plan
    if not settings.backup.provisioned:
        return backups, []
    return provision_backup_storage(
        f"{database.name}-backups",
        backups,
        namespace=database.namespace,
        cluster_name=database.name,
        engine=database.engine,
        target=target,
        kms_key=settings.backup.kms_key,
        protect=persistent,
        depends_on=namespace_ready,
        opts=_options(parent),
    )


def outputs(deployment: Deployment) -> dict[str, Any]:
    """The stack's outputs (its components' too): where the database is, how it was sized, where its backups,
    PMM and benchmark results are, and the cluster's kubeconfig (a secret) when the stack made the cluster."""
    settings, cluster, backups, pmm, bench = (
        deployment.settings,
        deployment.cluster,
        deployment.backups,
        deployment.pmm,
        deployment.bench,
    )
    database = settings.database
    plan = settings.monitoring
    exported: dict[str, Any] = {"target": {"kind": settings.cluster.target, "cluster": settings.cluster.cluster_name}}
    if deployment.target.kubeconfig is not None:  # the cluster this stack made (existing: the user's own kubeconfig)
        # a secret: `pulumi stack output kubeconfig --show-secrets > kubeconfig`; it authenticates through the
        # cloud's exec credential plugin (gke-gcloud-auth-plugin, aws eks get-token), never with a token of its own
        exported["kubeconfig"] = pulumi.Output.secret(deployment.target.kubeconfig)
    exported["database"] = {
        "name": database.name,
        "namespace": database.namespace,
        "engine": database.engine,
        "members": database.cluster_size,
        "proxy": database.proxy,
        "crVersion": database.release.cr_version,
        "writerEndpoint": f"{cluster.writer.host}:{cluster.writer.port}",
        "secret": database.secret_name,
        "storageSize": database.storage_size,  # read back by the next deployment: volumes only grow (S4)
    }
    exported["sizing"] = sizing_summary(settings.sizing, settings.placement)
    if backups is not None:
        exported["backups"] = _backup_outputs(backups, database)
    exported["monitoringPool"] = {
        part: {"cpu": format_cpu(size.cpu_millicores), "memory": format_memory(size.memory_bytes)}
        for part, size in (
            ("operator", plan.operator),
            ("pmmServer", plan.pmm_server),
            ("sysbench", plan.sysbench),
            ("helperJobs", plan.helper),
            ("backupJob", plan.backup_job),
            ("pitrCollector", plan.pitr_collector),
        )
        if size is not None
    }
    if pmm is not None:
        exported["pmm"] = _pmm_outputs(pmm)
    if bench is not None:
        exported["sysbench"] = _sysbench_outputs(bench, database)
    return exported


def _backup_outputs(backups: BackupPlan, database: DatabaseSpec) -> dict[str, Any]:
    """Where the backups go, how often and how long they are kept, and the commands that list and restore them."""
    return {
        "storage": backups.storage.kind,
        "bucket": backups.storage.bucket,
        "endpoint": backups.storage.endpoint_url,
        "schedule": backups.schedule.text,
        "keep": backups.keep,
        "retentionDays": backups.retention_days,
        "pitr": backups.pitr,
        "pitrUploadSeconds": backups.pitr_upload_seconds if backups.pitr else None,
        "list": f"kubectl -n {database.namespace} get {'pxc-backup' if database.engine == 'pxc' else 'ps-backup'}",
        # a named backup from the list, optionally replayed to a point in time (docs/backups.md)
        "restore": (
            f"percona-mysql-restore --engine {database.engine} --cluster {database.name} "
            f"--namespace {database.namespace} --backup <name> [--time 'YYYY-MM-DD hh:mm:ss'] --apply"
        ),
    }


def _pmm_outputs(pmm: PmmServer | ExternalPmm) -> dict[str, Any]:
    """Where PMM is: the server this stack installed (and how to open it) or the existing one's host."""
    if isinstance(pmm, PmmServer):
        return {
            "url": pmm.url,
            "adminSecret": "pmm-secret",
            "namespace": pmm.namespace,
            "open": f"kubectl -n {pmm.namespace} port-forward svc/monitoring-service 8443:443",
        }
    return {"host": pmm.host}


def _sysbench_outputs(bench: Sysbench, database: DatabaseSpec) -> dict[str, Any]:
    """Where the benchmark's results are (Pulumi cannot read a Job's output at `up` time: a ConfigMap) and what it ran."""
    data = bench.plan.dataset
    return {
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
    }
