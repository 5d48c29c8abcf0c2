"""S3: no database Service exposed through a public load balancer unless source ranges are set.

Checked on the operators' expose blocks (PXC ``pxc.expose``, ``haproxy.exposePrimary``/``exposeReplicas``,
``proxysql.expose`` and the pre-1.20 ``serviceType`` fields; PS ``mysql.expose``/``exposePrimary``,
``proxy.haproxy.expose``, ``proxy.router.expose``, ``orchestrator.expose``) and on raw Services that
serve MySQL ports or select database pods by any of the operators' labels, whatever the port. A
LoadBalancer is private when annotated internal (GKE, AWS, Azure) or restricted by
``loadBalancerSourceRanges`` that do not together cover the internet (``0.0.0.0/1`` + ``128.0.0.0/1`` is
``0.0.0.0/0``): every public IPv4 address, or every global unicast IPv6 address (2000::/3).
"""

from __future__ import annotations

import ipaddress
import math

from ._framework import Context, Spec, resource_policy
from ._readers.values import MISSING, as_list, as_map, as_str, at, join
from ._subjects import any_of, database, database_types, exactly

SPEC = Spec(
    name="no-public-database-endpoint",
    rules=("S3",),
    applies_to=any_of(database_types, exactly("kubernetes:core/v1:Service")),
    description="database Services are not exposed through a public load balancer without source ranges",
    remediation="Use ClusterIP, an internal load balancer annotation, or loadBalancerSourceRanges.",
)

EXPOSE = {
    "pxc": ("pxc.expose", "haproxy.exposePrimary", "haproxy.exposeReplicas", "proxysql.expose"),
    "ps": ("mysql.expose", "mysql.exposePrimary", "proxy.haproxy.expose", "proxy.router.expose", "orchestrator.expose"),
}
LEGACY = ("pxc", "haproxy", "proxysql")
INTERNAL = {
    "networking.gke.io/load-balancer-type": "internal",
    "cloud.google.com/load-balancer-type": "internal",
    "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
    "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
    "service.beta.kubernetes.io/azure-load-balancer-internal": "true",
}
# Kubernetes reads the source ranges from this annotation when spec.loadBalancerSourceRanges is empty
# (https://kubernetes.io/docs/reference/labels-annotations-taints/#service-beta-kubernetes-io-load-balancer-source-ranges).
RANGES_ANNOTATION = "service.beta.kubernetes.io/load-balancer-source-ranges"
MYSQL_PORTS = {3306, 3307, 3309, 33060, 33062, 6032, 6446, 6447, 6448, 6449}
PERCONA_NAMES = {"percona-xtradb-cluster", "percona-server", "percona-server-mysql"}
# The labels the operators put on their pods (PXC: pkg/pxc/app labels; PS: pkg/naming/kubernetes.go,
# whose newer releases name the application mysql/haproxy/router/orchestrator and the component
# database/proxy/orchestrator, older ones percona-server and mysql/haproxy/router).
DATABASE_POD_LABELS = {
    "app.kubernetes.io/name": PERCONA_NAMES | {"mysql", "orchestrator"},
    "app.kubernetes.io/part-of": {"percona-xtradb-cluster", "percona-server"},
    "app.kubernetes.io/managed-by": {
        "percona-xtradb-cluster-operator",
        "percona-server-mysql-operator",
        "percona-server-operator",
    },
    "app.kubernetes.io/component": {"pxc", "mysql", "database", "haproxy", "proxysql", "router", "orchestrator", "proxy"},
}
# Addresses that are not the internet (RFC 6890 special-purpose blocks): ranges may leave them out and
# still admit every public address.
_SPECIAL_V4 = (
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
)


def _public_v4() -> list[ipaddress.IPv4Network]:
    blocks = [ipaddress.IPv4Network("0.0.0.0/0")]
    for special in map(ipaddress.IPv4Network, _SPECIAL_V4):
        blocks = [part for block in blocks for part in (block.address_exclude(special) if special.subnet_of(block) else [block])]
    return blocks


PUBLIC_V4 = _public_v4()
PUBLIC_V6 = [ipaddress.IPv6Network("2000::/3")]


def covers_internet(ranges: list) -> bool:
    """Whether the source ranges together admit every public address of IPv4 or IPv6 (unreadable ranges
    are not counted: the API server rejects them)."""
    networks = []
    for text in ranges:
        try:
            networks.append(ipaddress.ip_network(str(text).strip(), strict=False))
        except ValueError:
            continue
    for public_blocks, version in ((PUBLIC_V4, 4), (PUBLIC_V6, 6)):
        union = list(ipaddress.collapse_addresses(n for n in networks if n.version == version))
        if union and all(any(block.subnet_of(net) for net in union) for block in public_blocks):
            return True
    return False


def selects_database_pods(selector: dict) -> bool:
    return any(str(selector.get(key, "")) in values for key, values in DATABASE_POD_LABELS.items())


def public(kind, annotations: dict, ranges: list) -> bool:
    if kind != "LoadBalancer":
        return False
    if any(str(annotations.get(key, "")).lower() == value for key, value in INTERNAL.items()):
        return False
    return not ranges or covers_internet(ranges)


def _report(ctx: Context, path: str) -> None:
    ctx.violation(
        "S3",
        f"{path} exposes the database through a public LoadBalancer without loadBalancerSourceRanges that keep the internet out",
        "the rule allows a public load balancer only with source ranges set",
        f"set {path} type ClusterIP, an internal load-balancer annotation, or loadBalancerSourceRanges naming only your networks (not 0.0.0.0/0, nor ranges that add up to it)",
    )


def check(ctx: Context) -> None:
    view = database(ctx, "S3")
    if view is not None:
        with ctx.checking("S3"):
            for rel in EXPOSE[view.operator]:
                block = as_map(view.get(rel), view.path(rel))
                if block and public(
                    block.get("type"),
                    as_map(block.get("annotations", MISSING), view.path(rel)),
                    as_list(block.get("loadBalancerSourceRanges", MISSING), view.path(rel)),
                ):
                    _report(ctx, view.path(rel))
            if view.operator == "pxc":
                for rel in LEGACY:
                    for field in ("serviceType", "replicasServiceType"):
                        kind = view.get(f"{rel}.{field}")
                        if kind == "LoadBalancer" and public(
                            kind,
                            as_map(view.get(f"{rel}.serviceAnnotations"), view.path(rel)),
                            as_list(view.get(f"{rel}.loadBalancerSourceRanges"), view.path(rel)),
                        ):
                            _report(ctx, view.path(f"{rel}.{field}"))
        return
    resource = ctx.resource
    if resource.type != "kubernetes:core/v1:Service":
        return
    with ctx.checking("S3"):
        props = resource.props
        kind = as_str(at(props, "spec.type"), "spec.type")
        if kind != "LoadBalancer":
            return
        ports = {
            int(p["port"])
            for p in as_list(at(props, "spec.ports"), "spec.ports")
            if isinstance(p, dict)
            and isinstance(p.get("port"), int | float)
            and not isinstance(p.get("port"), bool)
            and math.isfinite(p["port"])
        }
        selector = as_map(at(props, "spec.selector"), "spec.selector")
        if not (ports & MYSQL_PORTS or selects_database_pods(selector)):
            return
        annotations = as_map(at(props, "metadata.annotations"), "metadata.annotations")
        ranges = as_list(at(props, "spec.loadBalancerSourceRanges"), "spec.loadBalancerSourceRanges")
        if not ranges and isinstance(annotations.get(RANGES_ANNOTATION), str):
            ranges = [part for part in annotations[RANGES_ANNOTATION].split(",") if part.strip()]
        if public(kind, annotations, ranges):
            _report(ctx, join("", "spec"))


POLICY = resource_policy(SPEC, check)
