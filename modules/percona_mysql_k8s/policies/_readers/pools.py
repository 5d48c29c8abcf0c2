"""Node pools of GKE and EKS as one shape: machine type, labels, taints and how many nodes (K4, K5).

``gcp:container/nodePool:NodePool`` (nodeConfig.machineType/labels/taints, nodeCount or autoscaling,
nodeLocations), ``aws:eks/nodeGroup:NodeGroup`` and ``eks:index:ManagedNodeGroup`` (instanceTypes,
labels, taints, scalingConfig). Cloud taint effects (NO_SCHEDULE) are mapped to Kubernetes' (NoSchedule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from percona_mysql_k8s.core.pools import Taint

from .values import MISSING, Malformed, as_int, as_list, as_map, as_str, at, describe, join

GKE_POOL, EKS_NODE_GROUP, EKS_MANAGED = "gcp:container/nodePool:NodePool", "aws:eks/nodeGroup:NodeGroup", "eks:index:ManagedNodeGroup"
POOL_TYPES = (GKE_POOL, EKS_NODE_GROUP, EKS_MANAGED)
_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule", "NO_EXECUTE": "NoExecute"}
_ZONE = re.compile(r"^[a-z]+-[a-z]+\d+-[a-z]$")


@dataclass(frozen=True)
class NodePool:
    type: str
    name: str
    provider: str  # gke | eks
    machine_type: str | None
    labels: dict
    taints: tuple[Taint, ...]
    max_nodes: int | None  # None when it cannot be told (regional pool without nodeLocations)
    labels_path: str
    taints_path: str
    machine_path: str


def _taints(items: list, path: str) -> tuple[Taint, ...]:
    taints = []
    for index, item in enumerate(items):
        item = as_map(item, f"{path}[{index}]")
        effect = as_str(item.get("effect", MISSING), f"{path}[{index}].effect", "NoSchedule")
        taints.append(Taint(str(item.get("key", "")), str(item.get("value", "") or ""), _EFFECTS.get(effect, effect)))
    return tuple(taints)


def _labels(value, path: str) -> dict:
    labels = as_map(value, path)
    for key, item in labels.items():
        if not isinstance(item, str):
            raise Malformed(join(path, key), f"is {describe(item)}, not a label value")
    return labels


def pool_view(resource_type: str, props: dict, name: str = "") -> NodePool | None:
    if resource_type == GKE_POOL:
        config = as_map(at(props, "nodeConfig"), "nodeConfig")
        machine = as_str(config.get("machineType", MISSING), "nodeConfig.machineType")
        per_zone = as_int(at(props, "nodeCount"), "nodeCount") or as_int(at(props, "initialNodeCount"), "initialNodeCount")
        autoscaling = as_map(at(props, "autoscaling"), "autoscaling")
        total = as_int(autoscaling.get("totalMaxNodeCount", MISSING), "autoscaling.totalMaxNodeCount")
        per_zone = as_int(autoscaling.get("maxNodeCount", MISSING), "autoscaling.maxNodeCount", per_zone)
        zones = as_list(at(props, "nodeLocations"), "nodeLocations")
        location = as_str(at(props, "location"), "location", "") or ""
        if total:
            max_nodes = total
        elif per_zone is None:
            max_nodes = None
        elif zones:
            max_nodes = per_zone * len(zones)
        elif _ZONE.match(location):
            max_nodes = per_zone
        else:
            max_nodes = None  # a regional pool: nodeCount is per zone of the cluster, which is not here
        return NodePool(resource_type, name, "gke", machine, _labels(config.get("labels", MISSING), "nodeConfig.labels"),
                        _taints(as_list(config.get("taints", MISSING), "nodeConfig.taints"), "nodeConfig.taints"),
                        max_nodes, "nodeConfig.labels", "nodeConfig.taints", "nodeConfig.machineType")
    if resource_type in (EKS_NODE_GROUP, EKS_MANAGED):
        types = as_list(at(props, "instanceTypes"), "instanceTypes")
        machine = types[0] if types and isinstance(types[0], str) else None
        scaling = as_map(at(props, "scalingConfig"), "scalingConfig")
        max_nodes = as_int(scaling.get("maxSize", MISSING), "scalingConfig.maxSize",
                           as_int(scaling.get("desiredSize", MISSING), "scalingConfig.desiredSize"))
        return NodePool(resource_type, name, "eks", machine, _labels(at(props, "labels"), "labels"),
                        _taints(as_list(at(props, "taints"), "taints"), "taints"), max_nodes, "labels", "taints", "instanceTypes")
    return None
