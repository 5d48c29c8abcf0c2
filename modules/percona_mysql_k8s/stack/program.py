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
    for note in settings.sizing.notes:
        pulumi.log.info(note, parent)
    for note in settings.notes:  # what the kind fit gave up on this machine: said loudly, it changes the stack
        pulumi.log.warn(note, parent)
    database = settings.database
    persistent = not database.ephemeral
    plan = settings.monitoring

    def opts() -> pulumi.ResourceOptions | None:
        return pulumi.ResourceOptions(parent=parent) if parent is not None else None

    # 1. where (the kind target checks for kind and Docker on this machine before creating anything)
    target = build_cluster(settings.cluster, opts())

    # 2. the operator (and the namespace it watches)
    operator = None
    namespace_ready: list[pulumi.Resource] = []
    if settings.install_operator:
        if settings.create_namespace:  # false: it exists already (createNamespace)
            namespace = create_namespace(database.namespace, target, protect=persistent, opts=opts())
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
            opts(),
        )

    # 3. PMM
    pmm = _pmm(settings, target, namespace_ready, pmm_token, opts())

    # 4. the database cluster, fenced by its NetworkPolicies before its pods exist (R6)
    fences: list[pulumi.Resource] = []
    if settings.network is not None:
        fences = NetworkPolicies(
            f"{database.name}-network",
            NetworkPoliciesArgs(
                spec=database,
                target=target,
                clients=settings.network,
                pmm_server=isinstance(pmm, PmmServer),
                operator_installed=operator is not None,
                depends_on=namespace_ready,
            ),
            opts(),
        ).ready
    elif persistent:
        pulumi.log.warn("R6: networkPolicies is false: the database pods accept traffic from any pod in the cluster", parent)
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
        opts(),
    )
    assert cluster.sizing == settings.sizing  # the engine's answer, computed once at validation

    # 5. sysbench
    bench = None
    if settings.sysbench is not None:
        run = settings.sysbench
        bench = Sysbench(
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
            opts(),
        )
    return Deployment(settings, target, cluster, pmm, backups, bench)


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
        opts=pulumi.ResourceOptions(parent=parent) if parent is not None else None,
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
        exported["backups"] = {
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
    if isinstance(pmm, PmmServer):
        exported["pmm"] = {
            "url": pmm.url,
            "adminSecret": "pmm-secret",
            "namespace": pmm.namespace,
            "open": f"kubectl -n {pmm.namespace} port-forward svc/monitoring-service 8443:443",
        }
    elif isinstance(pmm, ExternalPmm):
        exported["pmm"] = {"host": pmm.host}
    if bench is not None:
        data = bench.plan.dataset
        exported["sysbench"] = {
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
        }
    return exported
