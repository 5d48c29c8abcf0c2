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
from ._readers.values import MISSING, NotKnown, Unknown, as_list, as_map, as_str, at, join, known
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


def public(kind, annotations: dict, ranges: list, path: str = "", annotations_path: str = "", ranges_path: str = "") -> bool:
    """Whether a Service of type ``kind`` is reachable from the internet. At preview a value may be unknown:
    a known internal annotation keeps it private whatever else is unknown, and known ranges that already admit
    the internet make it public whatever the unknown ones add; anything else that is unknown raises NotKnown."""
    if known(kind, f"{path}.type" if path else "type") != "LoadBalancer":
        return False
    undecided = None
    for key, value in INTERNAL.items():
        given = annotations.get(key, "")
        if isinstance(given, Unknown):
            undecided = undecided or given.error(join(annotations_path, key))
        elif str(given).lower() == value:
            return False
    if undecided is not None:
        raise undecided
    if not ranges:
        return True
    if covers_internet([text for text in ranges if not isinstance(text, Unknown)]):
        return True
    for index, text in enumerate(ranges):
        known(text, f"{ranges_path}[{index}]")
    return False


def _report(ctx: Context, path: str) -> None:
    ctx.violation(
        "S3",
        f"{path} exposes the database through a public LoadBalancer without loadBalancerSourceRanges that keep the internet out",
        "the rule allows a public load balancer only with source ranges set",
        f"set {path} type ClusterIP, an internal load-balancer annotation, or loadBalancerSourceRanges naming only your networks (not 0.0.0.0/0, nor ranges that add up to it)",
        field=path,
    )


def check(ctx: Context) -> None:
    view = database(ctx, "S3")
    if view is not None:
        with ctx.checking("S3"):
            for rel in EXPOSE[view.operator]:
                with ctx.checking("S3"):  # each Service on its own fields
                    where = view.path(rel)
                    block = as_map(view.get(rel), where)
                    if block and public(
                        block.get("type"),
                        as_map(block.get("annotations", MISSING), join(where, "annotations")),
                        as_list(block.get("loadBalancerSourceRanges", MISSING), join(where, "loadBalancerSourceRanges")),
                        where,
                        join(where, "annotations"),
                        join(where, "loadBalancerSourceRanges"),
                    ):
                        _report(ctx, where)
            if view.operator == "pxc":
                for rel in LEGACY:
                    for field in ("serviceType", "replicasServiceType"):
                        with ctx.checking("S3"):
                            kind = view.get(f"{rel}.{field}")
                            if kind == "LoadBalancer" and public(
                                kind,
                                as_map(view.get(f"{rel}.serviceAnnotations"), view.path(f"{rel}.serviceAnnotations")),
                                as_list(
                                    view.get(f"{rel}.loadBalancerSourceRanges"), view.path(f"{rel}.loadBalancerSourceRanges")
                                ),
                                view.path(rel),
                                view.path(f"{rel}.serviceAnnotations"),
                                view.path(f"{rel}.loadBalancerSourceRanges"),
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
        if not _serves_a_database(props):
            return
        annotations = as_map(at(props, "metadata.annotations"), "metadata.annotations")
        ranges = as_list(at(props, "spec.loadBalancerSourceRanges"), "spec.loadBalancerSourceRanges")
        ranges_path = "spec.loadBalancerSourceRanges"
        if not ranges:
            written = known(annotations.get(RANGES_ANNOTATION), f"metadata.annotations.{RANGES_ANNOTATION}")
            if isinstance(written, str):
                ranges = [part for part in written.split(",") if part.strip()]
                ranges_path = f"metadata.annotations.{RANGES_ANNOTATION}"
        if public(kind, annotations, ranges, "spec", "metadata.annotations", ranges_path):
            _report(ctx, join("", "spec"))


def _serves_a_database(props: dict) -> bool:
    """A MySQL port or a selector on the operators' pod labels; NotKnown when only an unknown one could say."""
    ports, undecided = set(), None
    for index, entry in enumerate(as_list(at(props, "spec.ports"), "spec.ports")):
        try:
            port = known(
                known(entry, f"spec.ports[{index}]").get("port") if isinstance(entry, dict | Unknown) else None,
                f"spec.ports[{index}].port",
            )
        except NotKnown as error:
            undecided = undecided or error
            continue
        if isinstance(port, int | float) and not isinstance(port, bool) and math.isfinite(port):
            ports.add(int(port))
    selector = as_map(at(props, "spec.selector"), "spec.selector")
    if ports & MYSQL_PORTS or selects_database_pods({k: v for k, v in selector.items() if not isinstance(v, Unknown)}):
        return True
    unknown_labels = [key for key, value in selector.items() if isinstance(value, Unknown) and key in DATABASE_POD_LABELS]
    if unknown_labels:
        raise selector[unknown_labels[0]].error(f"spec.selector.{unknown_labels[0]}")
    if undecided is not None:
        raise undecided
    return False


POLICY = resource_policy(SPEC, check)
