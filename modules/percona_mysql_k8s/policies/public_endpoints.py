"""S3: no database Service exposed through a public load balancer unless source ranges are set.

Checked on the operators' expose blocks (PXC ``pxc.expose``, ``haproxy.exposePrimary``/``exposeReplicas``,
``proxysql.expose`` and the pre-1.20 ``serviceType`` fields; PS ``mysql.expose``/``exposePrimary``,
``proxy.haproxy.expose``, ``proxy.router.expose``, ``orchestrator.expose``) and on raw Services that
serve MySQL ports or select Percona pods. A LoadBalancer is private when annotated internal (GKE, AWS,
Azure) or restricted by ``loadBalancerSourceRanges`` that do not include 0.0.0.0/0 or ::/0.
"""

from __future__ import annotations

import math

from ._framework import Context, Spec, resource_policy
from ._readers.values import MISSING, as_list, as_map, as_str, at, join
from ._subjects import any_of, database, database_types, exactly

SPEC = Spec(name="no-public-database-endpoint", rules=("S3",), applies_to=any_of(database_types, exactly("kubernetes:core/v1:Service")),
            description="database Services are not exposed through a public load balancer without source ranges",
            remediation="Use ClusterIP, an internal load balancer annotation, or loadBalancerSourceRanges.")

EXPOSE = {"pxc": ("pxc.expose", "haproxy.exposePrimary", "haproxy.exposeReplicas", "proxysql.expose"),
          "ps": ("mysql.expose", "mysql.exposePrimary", "proxy.haproxy.expose", "proxy.router.expose", "orchestrator.expose")}
LEGACY = ("pxc", "haproxy", "proxysql")
INTERNAL = {"networking.gke.io/load-balancer-type": "internal", "cloud.google.com/load-balancer-type": "internal",
            "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
            "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
            "service.beta.kubernetes.io/azure-load-balancer-internal": "true"}
MYSQL_PORTS = {3306, 3307, 3309, 33060, 33062, 6032, 6446, 6447, 6448, 6449}
PERCONA_NAMES = {"percona-xtradb-cluster", "percona-server", "percona-server-mysql"}


def public(kind, annotations: dict, ranges: list) -> bool:
    if kind != "LoadBalancer":
        return False
    if any(str(annotations.get(key, "")).lower() == value for key, value in INTERNAL.items()):
        return False
    return not ranges or any(str(r).strip() in ("0.0.0.0/0", "::/0") for r in ranges)


def _report(ctx: Context, path: str) -> None:
    ctx.violation("S3", f"{path} exposes the database through a public LoadBalancer without loadBalancerSourceRanges",
                  "the rule allows a public load balancer only with source ranges set",
                  f"set {path} type ClusterIP, an internal load-balancer annotation, or loadBalancerSourceRanges (not 0.0.0.0/0)")


def check(ctx: Context) -> None:
    view = database(ctx, "S3")
    if view is not None:
        with ctx.checking("S3"):
            for rel in EXPOSE[view.operator]:
                block = as_map(view.get(rel), view.path(rel))
                if block and public(block.get("type"), as_map(block.get("annotations", MISSING), view.path(rel)),
                                    as_list(block.get("loadBalancerSourceRanges", MISSING), view.path(rel))):
                    _report(ctx, view.path(rel))
            if view.operator == "pxc":
                for rel in LEGACY:
                    for field in ("serviceType", "replicasServiceType"):
                        kind = view.get(f"{rel}.{field}")
                        if kind == "LoadBalancer" and public(kind, as_map(view.get(f"{rel}.serviceAnnotations"), view.path(rel)),
                                                             as_list(view.get(f"{rel}.loadBalancerSourceRanges"), view.path(rel))):
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
        ports = {int(p["port"]) for p in as_list(at(props, "spec.ports"), "spec.ports")
                 if isinstance(p, dict) and isinstance(p.get("port"), int | float) and not isinstance(p.get("port"), bool)
                 and math.isfinite(p["port"])}
        selector = as_map(at(props, "spec.selector"), "spec.selector")
        if not (ports & MYSQL_PORTS or str(selector.get("app.kubernetes.io/name", "")) in PERCONA_NAMES):
            return
        if public(kind, as_map(at(props, "metadata.annotations"), "metadata.annotations"),
                  as_list(at(props, "spec.loadBalancerSourceRanges"), "spec.loadBalancerSourceRanges")):
            _report(ctx, join("", "spec"))


POLICY = resource_policy(SPEC, check)
