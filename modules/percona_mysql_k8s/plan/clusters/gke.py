"""The GKE target's plan: project, region and zones, the regional node pools spread over the zones (GKE's
``node_count`` is per zone), the release channel, network and hardening (Cloud NAT, authorized networks, KMS)."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from percona_mysql_k8s.core.allocatable import NodeBudget
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.zones import ZoneLayout

from .common import ipv4_cidrs, own_pools
from .keys import Values
from .shape import ClusterSettings, GkeSettings, ZonePlacement

GKE_RELEASE_CHANNELS = ("RAPID", "REGULAR", "STABLE", "EXTENDED")
_GCP_REGION = re.compile(r"^[a-z]+(-[a-z]+)+[0-9]+$")
_GCP_PROJECT = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]$")
# A GCE resource name (RFC 1035), or a network/subnetwork path as the GKE API accepts it.
_GCE_NAME = re.compile(
    r"^([a-z]([-a-z0-9]{0,61}[a-z0-9])?|projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/(global|regions/[a-z0-9-]+)/(networks|subnetworks)/[a-z]([-a-z0-9]{0,61}[a-z0-9])?)$"
)


def check_bounds(v: Values) -> None:
    for key in ("gkeNetwork", "gkeSubnetwork"):
        value = v.text(key)
        if value and not _GCE_NAME.fullmatch(value):
            raise InputError(
                key,
                f"{value!r} is not a GCE network name (lowercase letters, digits, hyphens; at most 63) "
                "or a projects/…/networks|subnetworks/… path",
            )


# The project ID stacks/Pulumi.gke.yaml ships so the example reads whole: judged offline, refused by a real engine
# (clusters.gke.GkeCluster) before anything is created in a project of that name.
PLACEHOLDER_PROJECT = "my-gcp-project"


def cluster_settings(
    v: Values, common: dict, counts: tuple[int, int], machines: tuple[str, str], budgets: tuple[NodeBudget, NodeBudget]
) -> ClusterSettings:
    """The GKE cluster: ``counts`` (database, monitoring nodes) become per-zone counts over gcpZones."""
    database_count, monitoring_count = counts
    gke = gke_settings(v, database_count, monitoring_count)
    totals = (gke.database_placement.total, gke.monitoring_placement.total)
    database, monitoring = own_pools(common["cluster_name"], machines, totals, budgets)
    placement = gke.database_placement  # GKE's node_count is per zone: so many nodes in each (K7)
    database = replace(database, zones=ZoneLayout((placement.nodes_per_zone,) * len(placement.zones)), zones_key="gcpZones")
    notes: tuple[str, ...] = ()
    if totals[0] != database_count:
        notes = (
            f"GKE node_count is per zone: {database_count} database nodes over {len(gke.database_placement.zones)} "
            f"zones become {gke.database_placement.nodes_per_zone} per zone = {totals[0]} nodes",
        )
    if gke.project == PLACEHOLDER_PROJECT:
        notes += (
            f"gcpProject is {PLACEHOLDER_PROJECT}, the placeholder stacks/Pulumi.gke.yaml ships: pulumi preview and up "
            "refuse it; set your project ID (pulumi config set -s gke gcpProject <project-id>)",
        )
    if not gke.master_authorized_networks and not common["ephemeral"]:
        notes += (
            "gkeMasterAuthorizedNetworks is empty: the GKE control plane accepts connections from any "
            "address (authenticated by Google IAM); list the networks that administer it",
        )
    return ClusterSettings(**common, database_pool=database, monitoring_pool=monitoring, gke=gke, notes=notes)


def spread_over_zones(node_count: int, zones: tuple[str, ...]) -> ZonePlacement:
    """At least ``node_count`` nodes, as evenly as GKE's per-zone ``node_count`` allows.

    With fewer nodes than zones the pool uses the first ``node_count`` zones, one node each; otherwise
    every zone gets ``ceil(node_count / zones)`` nodes, so 5 nodes over 3 zones become 2 per zone = 6.
    """
    used = zones[: min(node_count, len(zones))]
    return ZonePlacement(used, math.ceil(node_count / len(used)))


def gke_settings(v: Values, database_count: int, monitoring_count: int) -> GkeSettings:
    project = v.matching(
        "gcpProject",
        _GCP_PROJECT,
        "a GCP project ID (6-30 lowercase letters, digits, hyphens)",
        missing="the gke target needs the GCP project of the cluster",
    )
    region = v.matching(
        "gcpRegion",
        _GCP_REGION,
        "a GCP region (e.g. europe-west1, us-central1)",
        missing="the gke target needs the region of its regional cluster (e.g. europe-west1)",
    )
    zones = v.strings("gcpZones")
    if not zones:
        raise InputError(
            "gcpZones", f"the gke target needs the zones its node pools spread over (e.g. {region}-b, {region}-c, {region}-d)"
        )
    foreign = [zone for zone in zones if not re.fullmatch(re.escape(region) + r"-[a-z]", zone)]
    if foreign:
        raise InputError(
            "gcpZones", f"{', '.join(map(repr, foreign))} not zones of gcpRegion {region} (zones look like {region}-b)"
        )
    channel = v.text("gkeReleaseChannel").upper()
    if channel not in GKE_RELEASE_CHANNELS:
        raise InputError("gkeReleaseChannel", f"{channel!r} is not one of {', '.join(GKE_RELEASE_CHANNELS)}")
    network = v.text("gkeNetwork")
    if not network:
        raise InputError("gkeNetwork", "the gke target needs a VPC network (default: 'default')")
    return GkeSettings(
        project=project,
        region=region,
        zones=zones,
        release_channel=channel,
        private_nodes=v.flag("gkePrivateNodes"),
        network=network,
        subnetwork=v.text("gkeSubnetwork"),
        database_placement=spread_over_zones(database_count, zones),
        monitoring_placement=spread_over_zones(monitoring_count, zones),
        **hardening(v, region),
    )


# GKE accepts at most 50 authorized networks on a cluster with a public endpoint
# (cloud.google.com/kubernetes-engine/docs/how-to/authorized-networks, "Limitations").
MAX_MASTER_AUTHORIZED_NETWORKS = 50
_KMS_KEY = re.compile(r"^projects/([a-z][-a-z0-9]{4,28}[a-z0-9])/locations/([a-z0-9-]+)/keyRings/([-\w]+)/cryptoKeys/([-\w]+)$")


def hardening(v: Values, region: str) -> dict:
    """Control-plane CIDRs (IPv4 networks, host bits zero, as GKE reads cidrBlock) and the KMS key of
    application-layer Secrets encryption, which GKE requires in the cluster's own location."""
    cidrs = ipv4_cidrs(v, "gkeMasterAuthorizedNetworks", MAX_MASTER_AUTHORIZED_NETWORKS)
    key = v.text("gkeSecretsKmsKey")
    if key:
        match = _KMS_KEY.fullmatch(key)
        if not match:
            raise InputError(
                "gkeSecretsKmsKey", f"{key!r} is not a Cloud KMS key name (projects/P/locations/L/keyRings/R/cryptoKeys/K)"
            )
        if match.group(2) != region:
            raise InputError(
                "gkeSecretsKmsKey",
                f"the key is in {match.group(2)}, but GKE needs it in the cluster's location gcpRegion {region}",
            )
    return {"cloud_nat": v.flag("gkeCloudNat"), "master_authorized_networks": cidrs, "secrets_kms_key": key}
