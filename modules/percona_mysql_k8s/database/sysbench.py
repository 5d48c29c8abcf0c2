"""sysbench against the writer endpoint, from the monitoring pool (B1-B4, T3).

First a one-shot setup Job, ``<cluster>-sysbench-user``, the only pod that holds root's password: it
creates the ``sbtest`` schema and a dedicated ``sbtest`` user (its password generated, in the
``<cluster>-sysbench`` Secret) and waits until that user gets through the proxy (ProxySQL syncs users
periodically). Then the benchmark, one Job, ``<cluster>-sysbench``, that connects only as ``sbtest``
(no root password in its env or volumes) and whose phases Kubernetes runs in order:

1. init container ``schema``: waits until ``sbtest`` reaches its schema through the writer endpoint.
2. init container ``prepare``: tables and rows sized against the buffer pool and the profile (B4).
3. init container ``warmup``: ``prewarm`` and a timed run (B2), when ``warmup_seconds`` > 0.
4. container ``ladder``: the thread ladder with B3's flags, each step after a short unmeasured
   ``--warmup-time`` at its own concurrency; then, optionally, drops the schema and the user.
5. container ``publish``: waits for the ladder, then writes each step's TPS, QPS and p95 latency as CSV
   into the ``<cluster>-sysbench-results`` ConfigMap.

Phases as ordered containers of one pod, not one Job each: the order is enforced by Kubernetes (not by
Pulumi waiting on each Job), and at most one sysbench pod ever exists, so the monitoring node's fit is
provable from the manifests alone (K5): the pod requests the largest phase, not their sum.

Pulumi cannot read what a Job printed at ``up`` time without a dynamic provider, so the stack outputs
*where* the results are (the ConfigMap) rather than the numbers. Pulumi creates that ConfigMap empty
and ignores changes to its ``data``; the Job fills ``data`` with its own field manager.

On an ephemeral stack the pod template carries a run id (a hash of the custom resource and the benchmark
plan): when either changes, Pulumi replaces the Job and the benchmark runs again against the new
configuration. On a production stack a run happens only on an explicit request (R5): the Job is named
after ``run_request``, its data set is exactly what was asked, and nothing in it follows the database's
sizing, so it runs once per request and a change of the database never reruns it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.core import benchmark as bench
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.sidecars import ContainerSize
from percona_mysql_k8s.plan.database import scripts, versions
from percona_mysql_k8s.plan.database.pods import labels, pool_scheduling, resources, restricted_security
from percona_mysql_k8s.plan.database.sources import mirror_images
from percona_mysql_k8s.plan.database.spec import DatabaseSpec

from .cluster import DatabaseCluster
from .common import child_options, generated_password

RUN_REQUEST_ANNOTATION = "percona-mysql/run-request"
PHASES = ("schema", "prepare", "warmup", "ladder", "cleanup")  # in the order they run


@dataclass(frozen=True)
class SysbenchArgs:
    cluster: DatabaseCluster
    target: ClusterTarget
    threads: Sequence[int] = (1, 4, 16, 64, 256, 1024)
    duration_seconds: int = 600
    warmup_seconds: int = 300
    rate: int = 0
    cleanup: bool = False
    # A production run's explicit request (R5): the Job is named after it and runs once; its data set is
    # exactly ``max_data_bytes``. None (ephemeral stacks): the run follows the database and reruns on change.
    run_request: str | None = None
    max_data_bytes: int | None = None
    resources: ContainerSize | None = None  # None: the monitoring plan's share
    helper_resources: ContainerSize = monitoring.HELPER
    depends_on: Sequence[pulumi.Resource] = field(default=())
    image_registry: str = ""  # a mirror of Docker Hub for the sysbench and helper images (database.sources)


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
        requested_data_bytes=args.max_data_bytes if args.run_request else None,
    )


def run_id(cluster: DatabaseCluster, plan: bench.Benchmark) -> str:
    payload = json.dumps({"cr": cluster.manifest["spec"], "plan": repr(plan)}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


class Sysbench(pulumi.ComponentResource):
    def __init__(self, name: str, args: SysbenchArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("Sysbench"), name, None, renamed("Sysbench", opts))
        cluster, target = args.cluster, args.target
        spec, provider, pool = cluster.spec, target.provider, target.monitoring_pool
        self.plan = plan_for(cluster, args)
        size = args.resources or monitoring.plan(pool.node, operator=True, pmm_server=True, sysbench=True).sysbench
        # an explicit request names the run; otherwise a hash of the database and the plan, so an ephemeral
        # stack's Job is replaced (and reruns) whenever either changes
        self.run_id = args.run_request or run_id(cluster, self.plan)
        job_name = f"{spec.name}-sysbench-{args.run_request}" if args.run_request else f"{spec.name}-sysbench"
        self.cluster_name = spec.name
        self.cluster_secret = spec.secret_name  # root's password for the setup Job
        self.namespace = namespace = spec.namespace
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
        self._results_access(name, spec, provider, common_labels, after)

        env = self._env(cluster)
        # The user and its schema, as root, in a pod of its own: the benchmark pod never sees root's password.
        # It reruns with the benchmark (same run id in its template), so a replaced database gets its user back.
        # Not the CR's declarative spec.users[]: the PS 1.2.0 CRD has no such field (it came with PS 1.3.0), and
        # Percona's PXC docs call it a technical preview not recommended for production
        # (docs.percona.com/percona-operator-for-mysql/pxc/users.html); one mechanism for both engines.
        setup_timeout = bench.timeout_seconds(self.plan, "schema")
        self.user_job = k8s.batch.v1.Job(
            f"{name}-user-job",
            metadata={
                "name": f"{job_name}-user",
                "namespace": namespace,
                "labels": common_labels,
                **({"annotations": {RUN_REQUEST_ANNOTATION: args.run_request}} if args.run_request else {}),
            },
            spec=self.user_job_spec(env, args.helper_resources, pool, timeout=setup_timeout),
            opts=child_options(
                self,
                provider,
                [self.secret, *after],
                delete_before_replace=True,
                custom_timeouts=pulumi.CustomTimeouts(create=f"{setup_timeout}s", update=f"{setup_timeout}s"),
            ),
        )
        phases = ["schema", "prepare"] + (["warmup"] if self.plan.ladder.warmup_seconds > 0 else []) + ["ladder"]
        if args.cleanup:
            phases.append("cleanup")
        timeout = sum(bench.timeout_seconds(self.plan, phase) for phase in phases)
        self.job = k8s.batch.v1.Job(
            f"{name}-job",
            metadata={
                "name": job_name,
                "namespace": namespace,
                "labels": common_labels,
                # R5: the pack accepts a load generator on a production stack only as an explicit request
                **({"annotations": {RUN_REQUEST_ANNOTATION: args.run_request}} if args.run_request else {}),
            },
            spec=mirror_images(
                self.job_spec(env, size, args.helper_resources, pool, cleanup=args.cleanup, timeout=timeout), args.image_registry
            ),
            opts=child_options(
                self,
                provider,
                [self.secret, self.results, self.role_binding, self.user_job, *after],
                delete_before_replace=True,
                custom_timeouts=pulumi.CustomTimeouts(create=f"{timeout}s", update=f"{timeout}s"),
            ),
        )
        previous: list[pulumi.Resource] = [self.job]
        self.ready: list[pulumi.Resource] = previous
        self.register_outputs({"resultsConfigMap": self.results_name, "runId": self.run_id})

    def _results_access(
        self, name: str, spec: DatabaseSpec, provider: k8s.Provider, common_labels: dict[str, str], after: list[pulumi.Resource]
    ) -> None:
        """The ConfigMap the run writes its figures to, and the one right the run's pod has: patch that ConfigMap."""
        namespace = spec.namespace
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
            rules=[
                {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [self.results_name], "verbs": ["get", "patch"]}
            ],
            opts=child_options(self, provider, after),
        )
        self.role_binding = k8s.rbac.v1.RoleBinding(
            f"{name}-rolebinding",
            metadata={"name": f"{spec.name}-sysbench", "namespace": namespace, "labels": common_labels},
            role_ref={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": f"{spec.name}-sysbench"},
            subjects=[{"kind": "ServiceAccount", "name": f"{spec.name}-sysbench", "namespace": namespace}],
            opts=child_options(self, provider, [self.role, self.service_account]),
        )

    @staticmethod
    def read_command(namespace: str, name: str | None = None) -> str:
        target = name or "<this ConfigMap>"
        return f"kubectl -n {namespace} get configmap {target} -o jsonpath='{{.data.summary\\.csv}}'"

    def _env(self, cluster: DatabaseCluster) -> list[dict]:
        writer = cluster.writer
        plain = {"MYSQL_HOST": writer.host, "MYSQL_PORT": str(writer.port), **scripts.sysbench_env(self.plan)}
        return [{"name": key, "value": value} for key, value in plain.items()] + [
            {
                "name": "SYSBENCH_PASSWORD",
                "valueFrom": {"secretKeyRef": {"name": f"{cluster.spec.name}-sysbench", "key": "password"}},
            },
        ]

    def _ca(self) -> tuple[dict, dict]:
        """(volume, mount) of the operator's CA, ``<cluster>-ssl`` key ``ca.crt`` only: every MySQL client of
        both Jobs verifies the server against it (scripts.SSL_MODE). A certificate, not a credential."""
        volume = {
            "name": "mysql-ca",
            "secret": {"secretName": f"{self.cluster_name}-ssl", "items": [{"key": "ca.crt", "path": "ca.crt"}]},
        }
        return volume, {"name": "mysql-ca", "mountPath": scripts.CA_DIR, "readOnly": True}

    def _job(self, component: str, timeout: int, pool, account: dict, pod: dict) -> dict:
        """A Job of this run: one retry, a deadline, pods labelled with the run, restricted, on the monitoring
        pool (B1, K4: its selector, and no toleration of the database taint); ``account`` is how the pods hold
        (or do not hold) a ServiceAccount token, ``pod`` their volumes and containers."""
        return {
            "backoffLimit": 1,
            "activeDeadlineSeconds": timeout,
            "template": {
                "metadata": {
                    "labels": labels("sysbench", self.cluster_name, {"app.kubernetes.io/component": component}),
                    "annotations": {"percona-mysql/run": self.run_id},
                },
                "spec": {
                    "restartPolicy": "Never",
                    **account,
                    "securityContext": restricted_security()[0],
                    **pool_scheduling(pool),
                    **pod,
                },
            },
        }

    def user_job_spec(self, env: list[dict], helper: ContainerSize, pool, *, timeout: int) -> dict:
        """The setup Job: root's password (from the cluster's Secret) and the benchmark user's, nothing else."""
        _, container_security = restricted_security()
        root = [{"name": "ROOT_PASSWORD", "valueFrom": {"secretKeyRef": {"name": self.cluster_secret, "key": "root"}}}]
        ca_volume, ca_mount = self._ca()
        user = {
            "name": "user",
            "image": versions.SYSBENCH_IMAGE,  # its mysql client
            "command": ["bash", "-c", scripts.USER_SETUP],
            "env": env + root,
            "resources": resources(helper),
            "securityContext": container_security,
            "volumeMounts": [ca_mount],
        }
        # it talks to MySQL only, never to the API server
        account = {"automountServiceAccountToken": False}
        return self._job("benchmark-setup", timeout, pool, account, {"volumes": [ca_volume], "containers": [user]})

    def job_spec(self, env: list[dict], size: ContainerSize, helper: ContainerSize, pool, *, cleanup: bool, timeout: int) -> dict:
        _, container_security = restricted_security()
        mount = [{"name": "results", "mountPath": scripts.RESULTS_DIR}]
        ca_volume, ca = self._ca()
        ca_mount = [ca]

        def sysbench(phase: str, script: str) -> dict:
            return {
                "name": phase,
                "image": versions.SYSBENCH_IMAGE,
                "command": ["bash", "-c", script],
                "env": env,  # the benchmark user's password only: root stays in the setup Job
                "resources": resources(size),
                "securityContext": container_security,
                "volumeMounts": mount + ca_mount,
            }

        init = [sysbench("schema", scripts.SCHEMA), sysbench("prepare", scripts.PREPARE)]
        if self.plan.ladder.warmup_seconds > 0:
            init.append(sysbench("warmup", scripts.WARMUP))
        ladder = sysbench("ladder", scripts.LADDER_AND_CLEANUP if cleanup else scripts.LADDER)
        publish = {
            "name": "publish",
            "image": versions.KUBECTL_IMAGE,
            "command": ["/bin/sh", "-c", scripts.PUBLISH],
            "env": [
                {"name": "CONFIGMAP", "value": self.results_name},
                {"name": "NAMESPACE", "value": self.namespace},
                {"name": "RESULTS_DIR", "value": scripts.RESULTS_DIR},
                {"name": "RUN_ID", "value": self.run_id},
            ],
            "resources": resources(helper),
            "securityContext": container_security,
            "volumeMounts": mount,
        }
        volumes = [{"name": "results", "emptyDir": {}}, ca_volume]
        pod = {"volumes": volumes, "initContainers": init, "containers": [ladder, publish]}
        return self._job("load-generator", timeout, pool, {"serviceAccountName": f"{self.cluster_name}-sysbench"}, pod)
