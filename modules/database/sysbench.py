"""sysbench against the writer endpoint, from the monitoring pool (B1-B4, T3).

Jobs, in order (each waits for the previous one: Pulumi awaits a Job's completion):

1. ``<cluster>-sb-schema``: as root, creates the ``sbtest`` schema and a dedicated ``sbtest`` user
   (its password generated, in the ``<cluster>-sysbench`` Secret), then waits until that user gets
   through the proxy (ProxySQL syncs users periodically).
2. ``<cluster>-sb-prepare``: tables and rows sized against the buffer pool and the profile (B4).
3. ``<cluster>-sb-warmup``: ``prewarm`` and a timed run (B2), when ``warmup_seconds`` > 0.
4. ``<cluster>-sb-ladder``: the thread ladder with B3's flags; a second container publishes each step's
   TPS, QPS and p95 latency as CSV into the ``<cluster>-sysbench-results`` ConfigMap.
5. ``<cluster>-sb-cleanup`` (optional): drops the schema and the user.

Pulumi cannot read what a Job printed at ``up`` time without a dynamic provider, so the stack outputs
*where* the results are (the ConfigMap) rather than the numbers. Pulumi creates that ConfigMap empty
and ignores changes to its ``data``; the Job fills ``data`` with its own field manager.

Every Job's pod template carries a run id (a hash of the custom resource and the benchmark plan): when
either changes, Pulumi replaces the Jobs and the benchmark runs again against the new configuration.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from modules.clusters.target import ClusterTarget
from modules.core import benchmark as bench
from modules.core import monitoring
from modules.core.sidecars import ContainerSize

from . import scripts, versions
from .cluster import DatabaseCluster, generated_password
from .common import PACKAGE, child_options, labels, pod_resources, pool_scheduling, restricted_security

PHASES = ("schema", "prepare", "warmup", "ladder", "cleanup")


@dataclass(frozen=True)
class SysbenchArgs:
    cluster: DatabaseCluster
    target: ClusterTarget
    threads: Sequence[int] = (1, 4, 16, 64, 256, 1024)
    duration_seconds: int = 600
    warmup_seconds: int = 300
    rate: int = 0
    cleanup: bool = False
    resources: ContainerSize | None = None  # None: the monitoring plan's share
    helper_resources: ContainerSize = monitoring.HELPER
    depends_on: Sequence[pulumi.Resource] = field(default=())


def plan_for(cluster: DatabaseCluster, args: SysbenchArgs) -> bench.Benchmark:
    sizing = cluster.sizing
    return bench.plan(
        buffer_pool_bytes=int(sizing.mysqld["innodb_buffer_pool_size"]),
        load=cluster.spec.load,
        max_connections=sizing.connections,
        volume_bytes=cluster.spec.storage_bytes,
        threads=args.threads,
        duration_seconds=args.duration_seconds,
        warmup_seconds=args.warmup_seconds,
        rate=args.rate,
    )


def run_id(cluster: DatabaseCluster, plan: bench.Benchmark) -> str:
    payload = json.dumps({"cr": cluster.manifest["spec"], "plan": repr(plan)}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


class Sysbench(pulumi.ComponentResource):
    def __init__(self, name: str, args: SysbenchArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(f"{PACKAGE}:Sysbench", name, None, opts)
        cluster, target = args.cluster, args.target
        spec, provider, pool = cluster.spec, target.provider, target.monitoring_pool
        self.plan = plan_for(cluster, args)
        size = args.resources or monitoring.plan(pool.node, operator=True, pmm_server=True, sysbench=True).sysbench
        self.run_id = run_id(cluster, self.plan)
        self.cluster_name = spec.name
        self.namespace = namespace = spec.namespace
        prefix = f"{spec.name}-sb"
        common_labels = labels("sysbench", spec.name)
        after = [*cluster.ready, *args.depends_on]

        self.password = generated_password(f"{name}-password", self)
        self.secret = k8s.core.v1.Secret(
            f"{name}-secret",
            metadata={"name": f"{spec.name}-sysbench", "namespace": namespace, "labels": common_labels},
            type="Opaque",
            string_data={"password": pulumi.Output.secret(self.password.result)},
            opts=child_options(self, provider, after),
        )
        self.results_name = f"{spec.name}-sysbench-results"
        self.results = k8s.core.v1.ConfigMap(
            f"{name}-results",
            metadata={
                "name": self.results_name,
                "namespace": namespace,
                "labels": common_labels,
                "annotations": {"percona-mysql/read-with": self.read_command(namespace, self.results_name)},
            },
            opts=child_options(self, provider, after, ignore_changes=["data"]),
        )
        self.service_account = k8s.core.v1.ServiceAccount(
            f"{name}-sa",
            metadata={"name": f"{spec.name}-sysbench", "namespace": namespace, "labels": common_labels},
            opts=child_options(self, provider, after),
        )
        self.role = k8s.rbac.v1.Role(
            f"{name}-role",
            metadata={"name": f"{spec.name}-sysbench", "namespace": namespace, "labels": common_labels},
            rules=[{"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [self.results_name],
                    "verbs": ["get", "patch"]}],
            opts=child_options(self, provider, after),
        )
        self.role_binding = k8s.rbac.v1.RoleBinding(
            f"{name}-rolebinding",
            metadata={"name": f"{spec.name}-sysbench", "namespace": namespace, "labels": common_labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": f"{spec.name}-sysbench"},
            subjects=[{"kind": "ServiceAccount", "name": f"{spec.name}-sysbench", "namespace": namespace}],
            opts=child_options(self, provider, [self.role, self.service_account]),
        )

        env = self._env(cluster)
        phases = [("schema", scripts.SCHEMA, True), ("prepare", scripts.PREPARE, False)]
        if self.plan.ladder.warmup_seconds > 0:
            phases.append(("warmup", scripts.WARMUP, False))
        phases.append(("ladder", scripts.LADDER, False))
        if args.cleanup:
            phases.append(("cleanup", scripts.CLEANUP, True))

        self.jobs: dict[str, k8s.batch.v1.Job] = {}
        previous: list[pulumi.Resource] = [self.secret, self.results, self.role_binding, *after]
        for phase, script, as_root in phases:
            job_spec = self.job_spec(phase, script, env, as_root, size, args.helper_resources, pool)
            timeout = bench.timeout_seconds(self.plan, phase)
            self.jobs[phase] = k8s.batch.v1.Job(
                f"{name}-{phase}",
                metadata={"name": f"{prefix}-{phase}", "namespace": namespace, "labels": {**common_labels, "percona-mysql/phase": phase}},
                spec=job_spec,
                opts=child_options(
                    self, provider, previous,
                    delete_before_replace=True,
                    custom_timeouts=pulumi.CustomTimeouts(create=f"{timeout}s", update=f"{timeout}s"),
                ),
            )
            previous = [self.jobs[phase]]
        self.ready: list[pulumi.Resource] = previous
        self.register_outputs({"resultsConfigMap": self.results_name, "runId": self.run_id})

    @staticmethod
    def read_command(namespace: str, name: str | None = None) -> str:
        target = name or "<this ConfigMap>"
        return f"kubectl -n {namespace} get configmap {target} -o jsonpath='{{.data.summary\\.csv}}'"

    def _env(self, cluster: DatabaseCluster) -> list[dict]:
        writer = cluster.writer
        plain = {"MYSQL_HOST": writer.host, "MYSQL_PORT": str(writer.port), **scripts.sysbench_env(self.plan)}
        return [{"name": key, "value": value} for key, value in plain.items()] + [
            {"name": "SYSBENCH_PASSWORD", "valueFrom": {"secretKeyRef": {"name": f"{cluster.spec.name}-sysbench", "key": "password"}}},
        ]

    def job_spec(self, phase: str, script: str, env: list[dict], as_root: bool, size: ContainerSize,
                 helper: ContainerSize, pool) -> dict:
        cluster = self.cluster_name
        pod_security, container_security = restricted_security()
        container_env = list(env)
        if as_root:
            container_env.append({"name": "ROOT_PASSWORD", "valueFrom": {"secretKeyRef": {"name": f"{cluster}-secrets", "key": "root"}}})
        sysbench = {
            "name": f"sysbench-{phase}",
            "image": versions.SYSBENCH_IMAGE,
            "command": ["bash", "-c", script],
            "env": container_env,
            "resources": pod_resources(size),
            "securityContext": container_security,
            "volumeMounts": [{"name": "results", "mountPath": scripts.RESULTS_DIR}],
        }
        pod: dict = {
            "restartPolicy": "Never",
            "securityContext": pod_security,
            # B1, K4: the monitoring pool's selector, and no toleration of the database taint
            **pool_scheduling(pool),
            "volumes": [{"name": "results", "emptyDir": {}}],
        }
        if phase == "ladder":
            pod["serviceAccountName"] = f"{cluster}-sysbench"
            pod["initContainers"] = [sysbench]
            pod["containers"] = [{
                "name": "publish",
                "image": versions.KUBECTL_IMAGE,
                "command": ["/bin/sh", "-c", scripts.PUBLISH],
                "env": [
                    {"name": "CONFIGMAP", "value": self.results_name},
                    {"name": "NAMESPACE", "value": self.namespace},
                    {"name": "RESULTS_DIR", "value": scripts.RESULTS_DIR},
                    {"name": "RUN_ID", "value": self.run_id},
                ],
                "resources": pod_resources(helper),
                "securityContext": container_security,
                "volumeMounts": [{"name": "results", "mountPath": scripts.RESULTS_DIR}],
            }]
        else:
            pod["automountServiceAccountToken"] = False
            pod["containers"] = [sysbench]
        return {
            "backoffLimit": {"schema": 4, "prepare": 2}.get(phase, 1),
            "activeDeadlineSeconds": bench.timeout_seconds(self.plan, phase),
            "template": {
                "metadata": {
                    "labels": {**labels("sysbench", cluster), "percona-mysql/phase": phase},
                    "annotations": {"percona-mysql/run": self.run_id},
                },
                "spec": pod,
            },
        }
