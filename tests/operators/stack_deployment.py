"""One stack case on the tier's control plane: its Nodes, its Secrets and custom resource, and what the operator makes.

:func:`deploy` is what ``pulumi up`` of the stack leaves for the operator, minus the parts the tier does not run:
the Nodes of the stack's pools (kwok), the stack's Secrets (with the PMM token its token Job would have written)
and its custom resource, applied server-side; then it waits for the operator's StatefulSets, gives every claim its
volume, creates the members past the first (operator_cluster.stand_in_members) and waits until kube-scheduler has
placed every pod and kwok runs it. Stack cases run one after another: the Nodes of the cases before are cordoned,
so a pod can only land on its own stack's Nodes (every stack selects its database pool by the same label).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from operator_cluster import TierNode, cordon, create_nodes, pool_nodes, provide_volumes, stand_in_members, wait_for
from operator_inputs import StackCase, custom_resource, with_pmm_token

PLURALS = {"PerconaXtraDBCluster": ("pxc.percona.com", "v1", "perconaxtradbclusters"),
           "PerconaServerMySQL": ("ps.percona.com", "v1", "perconaservermysqls")}  # fmt: skip
RENDER_TIMEOUT = 120.0


@dataclass
class Deployment:
    case: StackCase
    settings: Any  # StackSettings: the sizing and the pools
    objects: list[dict[str, Any]]  # what was applied: the Secrets and the custom resource
    nodes: list[TierNode]
    statefulsets: list[str]  # the StatefulSets the operator renders here
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def cr(self) -> dict[str, Any]:
        return custom_resource(self.objects)

    @property
    def name(self) -> str:
        return self.cr["metadata"]["name"]

    @property
    def namespace(self) -> str:
        return self.case.namespace

    @property
    def plural(self) -> tuple[str, str, str]:
        return PLURALS[self.cr["kind"]]

    def node_names(self, pool: str | None = None) -> list[str]:
        return [node.name for node in self.nodes if pool is None or node.pool == pool]


def expected_statefulsets(cr: dict[str, Any]) -> list[str]:
    """What the operator renders with its pods kept unready: PXC the pxc StatefulSet and the enabled proxy's; PS only
    the mysql StatefulSet (its HAProxy and Router wait for mysql-0 to be Ready, pkg/controller/ps/controller.go
    reconcileHAProxy / reconcileMySQLRouter: docs/operators.md)."""
    name, spec = cr["metadata"]["name"], cr["spec"]
    if cr["kind"] == "PerconaServerMySQL":
        return [f"{name}-mysql"]
    proxies = [proxy for proxy in ("haproxy", "proxysql") if (spec.get(proxy) or {}).get("enabled")]
    return [f"{name}-pxc", *(f"{name}-{proxy}" for proxy in proxies)]


def user_made_secrets(case: StackCase, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The Secrets the custom resource names and the stack leaves to its user (stacks/Pulumi.existing.yaml: the backup
    credentials, ``backupCredentialsSecret``), as ``kubectl create secret generic`` would make them."""
    made = {body["metadata"]["name"] for body in objects if body["kind"] == "Secret"}
    storages = ((custom_resource(objects)["spec"].get("backup") or {}).get("storages")) or {}
    wanted = {(storage.get("s3") or {}).get("credentialsSecret") for storage in storages.values()} - made - {None}
    return [
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": name, "namespace": case.namespace},
            "stringData": {"AWS_ACCESS_KEY_ID": "operator-tier", "AWS_SECRET_ACCESS_KEY": "operator-tier"},
        }
        for name in sorted(wanted)
    ]


def apply_case(tier, case: StackCase, extra: dict[str, Any] | None = None) -> tuple[Any, list[dict[str, Any]]]:
    """Apply the stack's Secrets and custom resource (with ``extra`` stack config); the settings and objects."""
    settings = case.settings(extra)
    objects = with_pmm_token(case.objects(extra), case.id)
    objects = user_made_secrets(case, objects) + objects
    for body in sorted(objects, key=lambda b: b["kind"] != "Secret"):  # the Secrets first, as the stack orders them
        tier.apply(body)
    return settings, objects


def deploy(tier, case: StackCase) -> Deployment:
    core = tier.core
    start = time.monotonic()
    for earlier in tier.deployed.values():
        cordon(core, earlier.node_names())
    settings = case.settings()
    nodes = pool_nodes(case.id, settings)
    create_nodes(core, nodes, case.id)
    timings = {"nodes": time.monotonic() - start}
    settings, objects = apply_case(tier, case)
    timings["applied"] = time.monotonic() - start
    cr = custom_resource(objects)
    names = expected_statefulsets(cr)
    deployment = Deployment(case, settings, objects, nodes, names, timings)
    wait_for(
        f"{case.id}: the operator renders {names}",
        lambda: tier.assert_operators_healthy() or all(_statefulset(tier, case.namespace, name) for name in names),
        timeout=RENDER_TIMEOUT,
    )
    timings["render"] = time.monotonic() - start
    _populate(tier, deployment)
    timings["placed"] = time.monotonic() - start
    print(f"{case.id}: Nodes, render, every member placed after " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))
    tier.deployed[case.id] = deployment
    return deployment


def _statefulset(tier, namespace: str, name: str):
    from kubernetes.client.rest import ApiException

    try:
        return tier.apps.read_namespaced_stateful_set(name, namespace)
    except ApiException as error:
        if error.status == 404:
            return None
        raise


def _populate(tier, deployment: Deployment) -> None:
    """Volumes for every claim, the members past the first, until every member of every StatefulSet runs."""
    core, namespace = tier.core, deployment.namespace

    def every_member_runs() -> bool:
        tier.assert_operators_healthy()
        provide_volumes(core, namespace)
        wanted = 0
        for name in deployment.statefulsets:
            sts = _statefulset(tier, namespace, name)
            wanted += sts.spec.replicas or 0
            if _controller_caught_up(sts):
                stand_in_members(core, tier.api, sts)
        pods = [p for p in core.list_namespaced_pod(namespace).items if _owned_by_a_statefulset(p)]
        return len(pods) == wanted and all(p.spec.node_name and p.status.phase == "Running" for p in pods)

    wait_for(f"{deployment.case.id}: every member placed and running", every_member_runs, timeout=RENDER_TIMEOUT, interval=1.0)


def _controller_caught_up(sts) -> bool:
    """The StatefulSet controller has made member 0 and written the revision members carry: members made before
    that would carry another revision, which both operators read as a pending update of the set (PS
    pkg/controller/ps/upgrade.go stsChanged, "run smart update")."""
    status = sts.status
    return bool(
        status
        and status.update_revision
        and (status.replicas or 0) >= 1
        and status.observed_generation == sts.metadata.generation
    )


def _owned_by_a_statefulset(pod) -> bool:
    return any(ref.kind == "StatefulSet" for ref in pod.metadata.owner_references or [])


def resize(tier, deployment: Deployment, extra: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    """The stack config changed by ``extra``, applied as ``pulumi up`` would: the same objects, new sizes."""
    return apply_case(tier, deployment.case, extra)


def live_cr(tier, deployment: Deployment) -> dict[str, Any]:
    group, version, plural = deployment.plural
    return tier.custom.get_namespaced_custom_object(group, version, deployment.namespace, plural, deployment.name)


def cordon_all(tier) -> None:
    for deployment in tier.deployed.values():
        cordon(tier.core, deployment.node_names())
