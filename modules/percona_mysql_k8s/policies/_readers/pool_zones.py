"""The zones a node pool's nodes are in, per zone how many at most (rule K7), from the resources of a stack.

* A GKE node pool (``gcp:container/nodePool:NodePool``): its ``nodeLocations``, or its ``location`` when that is a
  zone; ``nodeCount`` (or ``autoscaling.maxNodeCount``, ``initialNodeCount``) nodes in each, as GKE counts them per
  zone; with ``autoscaling.totalMaxNodeCount`` any zone may get them all. A regional pool without ``nodeLocations``
  is in its cluster's zones, which the pool does not say: not judged
  (https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools).
* An EKS node group (``aws:eks/nodeGroup:NodeGroup``, ``eks:index:ManagedNodeGroup``): the availability zones of
  its ``subnetIds``, read from the ``aws:ec2/subnet:Subnet`` resources it depends on (their ``availabilityZone``;
  subnets made elsewhere say nothing here: not judged); its Auto Scaling group balances ``scalingConfig.maxSize``
  nodes over them (https://docs.aws.amazon.com/autoscaling/ec2/userguide/auto-scaling-benefits.html#AutoScalingBehavior.InstanceUsage).
* A kind cluster's workers: the ``topology.kubernetes.io/zone`` label its config gives them, else none (one machine).
"""

from __future__ import annotations

import re

from percona_mysql_k8s.core.scheduling import ZONE_LABEL

from .pools import EKS_MANAGED, EKS_NODE_GROUP, GKE_POOL, KIND_COMMAND, NodePool
from .values import MISSING, as_int, as_list, as_map, as_str, at, known

SUBNET = "aws:ec2/subnet:Subnet"
_ZONE = re.compile(r"^[a-z]+-[a-z]+\d+-[a-z]$")  # a GCE zone (europe-west1-b); a region has no last letter


def _gke(props: dict) -> list[tuple[str | None, int]] | None:
    zones = [
        str(known(zone, f"nodeLocations[{i}]")) for i, zone in enumerate(as_list(at(props, "nodeLocations"), "nodeLocations"))
    ]
    if not zones:
        location = as_str(at(props, "location"), "location", "") or ""
        if not _ZONE.match(location):
            return None  # regional: the cluster's zones
        zones = [location]
    autoscaling = as_map(at(props, "autoscaling"), "autoscaling")
    total = as_int(autoscaling.get("totalMaxNodeCount", MISSING), "autoscaling.totalMaxNodeCount", text=True)
    per_zone = as_int(autoscaling.get("maxNodeCount", MISSING), "autoscaling.maxNodeCount", text=True)
    per_zone = per_zone or as_int(at(props, "nodeCount"), "nodeCount", text=True)
    per_zone = total or per_zone or as_int(at(props, "initialNodeCount"), "initialNodeCount", text=True) or 1
    return [(zone, per_zone) for zone in sorted(set(zones))]


def _eks(props: dict, depends_on: list) -> list[tuple[str | None, int]] | None:
    subnets = [resource for resource in depends_on if resource.type == SUBNET]
    if not subnets:
        return None
    zones = sorted({str(known(at(s.props, "availabilityZone"), f"{s.label} availabilityZone")) for s in subnets})
    if any(zone in ("", "None") for zone in zones):
        return None  # left to AWS to choose
    scaling = as_map(at(props, "scalingConfig"), "scalingConfig")
    most = as_int(scaling.get("maxSize", MISSING), "scalingConfig.maxSize", text=True) or 1
    return [(zone, -(-most // len(zones))) for zone in zones]


def pool_zones(resource, pool: NodePool, depends_on: list) -> list[tuple[str | None, int]] | None:
    """(zone or None, most nodes there) of ``pool``, declared by ``resource``; None when the resources do not say.
    NotKnown when a field that says it is unknown at preview."""
    if pool.type == GKE_POOL:
        return _gke(resource.props)
    if pool.type in (EKS_NODE_GROUP, EKS_MANAGED):
        return _eks(resource.props, depends_on)
    if pool.type == KIND_COMMAND:
        return [(pool.labels.get(ZONE_LABEL), pool.max_nodes or 1)]
    return None
