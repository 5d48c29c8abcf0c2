"""Node pools of GKE, EKS and kind as one shape: machine type, node count and what their nodes carry (K4, K5).

``gcp:container/nodePool:NodePool`` (name, nodeConfig.machineType/labels/taints/spot/preemptible,
nodeCount or autoscaling, location/nodeLocations), ``aws:eks/nodeGroup:NodeGroup`` and
``eks:index:ManagedNodeGroup`` (nodeGroupName, instanceTypes, capacityType, amiType, labels, taints,
scalingConfig), a GKE ``gcp:container/cluster:Cluster``'s default pool and inline ``nodePools``, and
the workers of a kind config run by ``command:local:Command``. The labels and
taints the nodes carry, including the ones the provider adds itself, come from
:mod:`percona_mysql_k8s.core.scheduling`: the same reader the components place their pods with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from percona_mysql_k8s.core.allocatable import NodeBudget
from percona_mysql_k8s.core.scheduling import (
    PoolNodes,
    eks_pool_nodes,
    gke_pool_nodes,
    kind_config_pools,
    kubernetes_effect,
)

from .deferred import KnownOnRead, deferred
from .values import MISSING, Malformed, NotKnown, as_bool, as_int, as_list, as_map, as_str, at, describe, join, known

GKE_POOL, EKS_NODE_GROUP, EKS_MANAGED = (
    "gcp:container/nodePool:NodePool",
    "aws:eks/nodeGroup:NodeGroup",
    "eks:index:ManagedNodeGroup",
)
KIND_COMMAND = "command:local:Command"
GKE_CLUSTER = "gcp:container/cluster:Cluster"
# GKE names a cluster's default pool "default-pool" and makes it of e2-medium machines unless
# nodeConfig.machineType says otherwise (https://cloud.google.com/kubernetes-engine/docs/concepts/node-pools,
# https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/NodeConfig: "defaults to e2-medium").
GKE_DEFAULT_POOL, GKE_DEFAULT_MACHINE = "default-pool", "e2-medium"
POOL_TYPES = (GKE_POOL, EKS_NODE_GROUP, EKS_MANAGED)
_ZONE = re.compile(r"^[a-z]+-[a-z]+\d+-[a-z]$")


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (values.KnownOnRead)
class NodePool(KnownOnRead):
    """A pool; at preview its nodes (labels, taints) are Pending while one of them is unknown, and its name is a
    placeholder while unknown (an auto-named pool's own nodepool label is then none, as before)."""

    type: str
    name: str
    provider: str  # gke | eks | kind
    machine_type: str | None
    nodes: PoolNodes
    max_nodes: int | None  # None when it cannot be told (regional pool without nodeLocations)
    labels_path: str
    taints_path: str
    machine_path: str
    # Nodes read from a cluster (node_pools.py): the budget of the smallest node as its kubelet reports it, in
    # place of a catalog machine type's (K1)
    budget: NodeBudget | None = None

    @property
    def labels(self):
        return self.nodes.labels

    @property
    def taints(self):
        return self.nodes.taints


def _taints(items: list, path: str) -> list[dict]:
    taints = []
    for index, item in enumerate(items):
        item = as_map(item, f"{path}[{index}]")
        effect = as_str(item.get("effect", MISSING), f"{path}[{index}].effect", "NoSchedule")
        if kubernetes_effect(effect) is None:
            raise Malformed(f"{path}[{index}].effect", f"is {effect!r}, not NO_SCHEDULE, PREFER_NO_SCHEDULE or NO_EXECUTE")
        key = known(item.get("key", ""), f"{path}[{index}].key")
        value = known(item.get("value", ""), f"{path}[{index}].value")
        taints.append({"key": str(key), "value": str(value or ""), "effect": effect})
    return taints


def _labels(value, path: str) -> dict:
    labels = as_map(value, path)
    for key, item in labels.items():
        if not isinstance(known(item, join(path, key)), str):
            raise Malformed(join(path, key), f"is {describe(item)}, not a label value")
    return labels


def _name(props: dict, key: str) -> str | None:
    """The pool's own name (the provider's nodepool label), or None when auto-named or unknown at preview."""
    try:
        return as_str(at(props, key), key)
    except NotKnown:
        return None


def _own_name(props: dict, key: str) -> str | None:
    """The pool's own name, None when absent (auto-named: no nodepool label is known); NotKnown when it is
    given but unknown at preview (its nodepool label is then unknown too)."""
    return as_str(at(props, key), key)


def _shown_name(props: dict, key: str, fallback: str) -> str:
    """The pool's name for messages: its own, the resource's when auto-named, a placeholder while unknown."""
    try:
        return as_str(at(props, key), key) or fallback
    except NotKnown as error:
        return error.placeholder()


def _gke(props: dict, name: str, default_machine: str | None = None) -> NodePool:
    config = deferred(lambda: as_map(at(props, "nodeConfig"), "nodeConfig"))
    machine = deferred(
        lambda: as_str(known(config, "nodeConfig").get("machineType", MISSING), "nodeConfig.machineType", default_machine)
    )
    zones = deferred(lambda: [str(known(zone, "nodeLocations")) for zone in as_list(at(props, "nodeLocations"), "nodeLocations")])
    location = deferred(lambda: as_str(at(props, "location"), "location", "") or "")

    def max_nodes() -> int | None:
        # node pools are no custom resources: their counts keep the reading they had (as_int ``text``)
        per_zone = as_int(at(props, "nodeCount"), "nodeCount", text=True) or as_int(
            at(props, "initialNodeCount"), "initialNodeCount", text=True
        )
        autoscaling = as_map(at(props, "autoscaling"), "autoscaling")
        total = as_int(autoscaling.get("totalMaxNodeCount", MISSING), "autoscaling.totalMaxNodeCount", text=True)
        per_zone = as_int(autoscaling.get("maxNodeCount", MISSING), "autoscaling.maxNodeCount", per_zone, text=True)
        if total:
            return total
        if per_zone is None:
            return None
        if known(zones, "nodeLocations"):
            return per_zone * len(zones)
        if _ZONE.match(known(location, "location")):
            return per_zone
        return None  # a regional pool: nodeCount is per zone of the cluster, which is not here

    def nodes():
        given = known(config, "nodeConfig")
        return gke_pool_nodes(
            name=_own_name(props, "name"),
            machine_type=known(machine, "nodeConfig.machineType"),
            labels=_labels(given.get("labels", MISSING), "nodeConfig.labels"),
            taints=_taints(as_list(given.get("taints", MISSING), "nodeConfig.taints"), "nodeConfig.taints"),
            location=known(location, "location"),
            node_locations=known(zones, "nodeLocations"),
            spot=bool(as_bool(given.get("spot", MISSING), "nodeConfig.spot", False)),
            preemptible=bool(as_bool(given.get("preemptible", MISSING), "nodeConfig.preemptible", False)),
        )

    return NodePool(
        GKE_POOL,
        _shown_name(props, "name", name),
        "gke",
        machine,
        deferred(nodes),
        deferred(max_nodes),
        "nodeConfig.labels",
        "nodeConfig.taints",
        "nodeConfig.machineType",
    )


def _eks(resource_type: str, props: dict, name: str) -> NodePool:
    types = deferred(lambda: as_list(at(props, "instanceTypes"), "instanceTypes"))

    def machine() -> str | None:
        found = known(types, "instanceTypes")
        return known(found[0], "instanceTypes[0]") if found and isinstance(known(found[0], "instanceTypes[0]"), str) else None

    def max_nodes() -> int | None:
        scaling = as_map(at(props, "scalingConfig"), "scalingConfig")
        return as_int(
            scaling.get("maxSize", MISSING),
            "scalingConfig.maxSize",
            as_int(scaling.get("desiredSize", MISSING), "scalingConfig.desiredSize", text=True),
            text=True,
        )

    def nodes():
        found = known(types, "instanceTypes")
        return eks_pool_nodes(
            name=_own_name(props, "nodeGroupName"),
            instance_types=[
                known(t, f"instanceTypes[{i}]") for i, t in enumerate(found) if isinstance(known(t, f"instanceTypes[{i}]"), str)
            ],
            labels=_labels(at(props, "labels"), "labels"),
            taints=_taints(as_list(at(props, "taints"), "taints"), "taints"),
            capacity_type=as_str(at(props, "capacityType"), "capacityType"),
            ami_type=as_str(at(props, "amiType"), "amiType"),
        )

    shown = _shown_name(props, "nodeGroupName", name)
    return NodePool(
        resource_type, shown, "eks", deferred(machine), deferred(nodes), deferred(max_nodes), "labels", "taints", "instanceTypes"
    )


def _patch_taints(patches, path: str) -> list[dict]:
    """``nodeRegistration.taints`` of the kubeadm Init/JoinConfiguration patches of one kind node."""
    import yaml  # only kind configs need it

    taints = []
    for index, patch in enumerate(as_list(patches, path)):
        try:
            documents = list(yaml.safe_load_all(patch)) if isinstance(patch, str) else [patch]
        except yaml.YAMLError as error:
            raise Malformed(f"{path}[{index}]", f"is not readable YAML ({error})") from None
        for document in documents:
            if isinstance(document, dict) and document.get("kind") in ("InitConfiguration", "JoinConfiguration"):
                registration = as_map(document.get("nodeRegistration", MISSING), f"{path}[{index}].nodeRegistration")
                taints += _taints(
                    as_list(registration.get("taints", MISSING), f"{path}[{index}].nodeRegistration.taints"),
                    f"{path}[{index}].nodeRegistration.taints",
                )
    return taints


def _kind(props: dict, name: str) -> list[NodePool]:
    """The pools of a kind config given to ``kind create cluster --config=-`` on stdin (none otherwise)."""
    import yaml  # only kind configs need it

    create, stdin = at(props, "create"), at(props, "stdin")
    if not (isinstance(create, str) and "kind create cluster" in create and isinstance(stdin, str)):
        return []
    try:
        config = yaml.safe_load(stdin)
    except yaml.YAMLError as error:
        raise Malformed("stdin", f"is not a readable kind config ({error})") from None
    if not isinstance(config, dict) or config.get("kind") != "Cluster":
        return []
    nodes = []
    for index, node in enumerate(as_list(config.get("nodes", MISSING), "stdin.nodes") or [{"role": "control-plane"}]):
        node = as_map(node, f"stdin.nodes[{index}]")
        nodes.append(
            (
                str(node.get("role", "control-plane")),
                _labels(node.get("labels", MISSING), f"stdin.nodes[{index}].labels"),
                _patch_taints(node.get("kubeadmConfigPatches", MISSING), f"stdin.nodes[{index}].kubeadmConfigPatches"),
            )
        )
    return [
        NodePool(
            KIND_COMMAND,
            f"{name}/{pool.name}",
            "kind",
            None,
            pool,
            count,
            "stdin.nodes[].labels",
            "stdin.nodes[].kubeadmConfigPatches",
            "stdin.nodes[].image",
        )
        for pool, count in kind_config_pools(nodes)
    ]


def _gke_cluster(props: dict, name: str) -> list[NodePool]:
    """The pools a GKE Cluster declares itself: its default pool (unless removed, or Autopilot) and
    the inline ``nodePools``; their zones are the cluster's."""
    if as_bool(at(props, "enableAutopilot"), "enableAutopilot", False):
        return []  # Autopilot provisions nodes per pod: no pool to place against
    where = {"location": at(props, "location"), "nodeLocations": at(props, "nodeLocations")}
    pools = []
    if not as_bool(at(props, "removeDefaultNodePool"), "removeDefaultNodePool", False):
        default = {
            **where,
            "name": GKE_DEFAULT_POOL,
            "nodeConfig": at(props, "nodeConfig"),
            "initialNodeCount": at(props, "initialNodeCount"),
        }
        pools.append(
            _gke({k: v for k, v in default.items() if v is not MISSING}, f"{name}/{GKE_DEFAULT_POOL}", GKE_DEFAULT_MACHINE)
        )
    for index, inline in enumerate(as_list(at(props, "nodePools"), "nodePools")):
        path = f"nodePools[{index}]"
        inline = as_map(inline, path)
        try:
            pools.append(
                _gke({**{k: v for k, v in where.items() if v is not MISSING}, **inline}, f"{name}/{path}", GKE_DEFAULT_MACHINE)
            )
        except Malformed as error:
            raise Malformed(f"{path}.{error.path}", error.problem) from None
    return pools


def pool_views(resource_type: str, props: dict, name: str = "") -> list[NodePool]:
    """Every pool a resource declares (a kind cluster declares several)."""
    if resource_type == KIND_COMMAND:
        return _kind(props, name)
    if resource_type == GKE_CLUSTER:
        return _gke_cluster(props, name)
    pool = pool_view(resource_type, props, name)
    return [pool] if pool is not None else []


def pool_view(resource_type: str, props: dict, name: str = "") -> NodePool | None:
    if resource_type == GKE_POOL:
        return _gke(props, name)
    if resource_type in (EKS_NODE_GROUP, EKS_MANAGED):
        return _eks(resource_type, props, name)
    return None
