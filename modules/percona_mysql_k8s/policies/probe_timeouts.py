"""K6 (advisory): probes are never shorter than the operators' defaults (percona_mysql_k8s.core.probes), and use the
field names the operator reads (PXC plural ``readinessProbes``/``livenessProbes``, PS singular).

PXC's legacy ``pxc.livenessDelaySec``/``readinessDelaySec`` (and the same on ``haproxy``) override the probe's
``initialDelaySeconds`` whenever they are set (percona-xtradb-cluster-operator b3b0b10,
pkg/apis/pxc/v1/pxc_types.go ``setProbesDefaults``); the pxc-db chart always renders the pxc ones and the
haproxy ones when non-zero (charts/pxc-db/templates/cluster.yaml), with 300 as its liveness default.
"""

from __future__ import annotations

from percona_mysql_k8s.core.memory import GROUP_REPLICATION
from percona_mysql_k8s.core.probes import OPERATOR_DEFAULTS

from ._framework import Context, Spec, resource_policy
from ._readers.values import MISSING, NotKnown, as_int, as_map
from ._subjects import database, database_types

SPEC = Spec(
    name="probe-timeouts",
    rules=("K6",),
    applies_to=database_types,
    description="probe delays, timeouts, periods and failure thresholds are never below the operator defaults",
)
FIELDS = ("initialDelaySeconds", "timeoutSeconds", "periodSeconds", "failureThreshold")


def check(ctx: Context) -> None:
    view = database(ctx, "K6")
    if view is None:
        return
    components = []
    with ctx.checking("K6"):
        engine = "pxc" if view.operator == "pxc" else GROUP_REPLICATION
        components = [view.mysqld(), *view.enabled_proxies()]
    for component in components:
        role = "mysqld" if component.role == "mysqld" else component.key
        for kind, probe in (OPERATOR_DEFAULTS.get((engine, role)) or {}).items():
            with ctx.checking("K6"):  # each probe of each pod type on its own fields
                _probe(ctx, view, component, kind, probe)


def _probe(ctx: Context, view, component, kind: str, probe) -> None:
    right = f"{kind}Probes" if view.operator == "pxc" else f"{kind}Probe"
    wrong = f"{kind}Probe" if view.operator == "pxc" else f"{kind}Probes"
    path = view.path(f"{component.rel}.{right}")
    if component.raw.get(wrong, MISSING) is not MISSING:
        ctx.violation(
            "K6",
            f"{view.path(f'{component.rel}.{wrong}')} is not a field the operator reads",
            f"the rule keeps probes at or above the defaults, set under {right}",
            f"rename it to {right}",
            field=view.path(f"{component.rel}.{wrong}"),
        )
    values = as_map(component.raw.get(right, MISSING), path)
    short, undecided = [], []
    for field in FIELDS:
        try:
            delay_path, delay = _delay_override(view, component, kind) if field == "initialDelaySeconds" else ("", None)
            if delay is not None:
                value, where = delay, delay_path
            else:
                value, where = as_int(values.get(field, MISSING), f"{path}.{field}"), None
        except NotKnown as error:  # the other fields are still judged
            undecided.append(error)
            continue
        minimum = getattr(probe, field)
        if value is not None and value < minimum:
            short.append(f"{field} {value} < {minimum}" + (f" (set by {where}, which overrides it)" if where else ""))
    if not short and undecided:
        raise undecided[0]
    if short:
        perhaps = "".join(error.placeholder(", and perhaps more") for error in undecided)
        ctx.violation(
            "K6",
            f"{path} has {', '.join(short)}{perhaps}",
            "the rule never shortens probes below the operator defaults: a slow but healthy pod must not be killed",
            f"raise them to at least {', '.join(f'{f}={getattr(probe, f)}' for f in FIELDS)}",
            field=path,
        )


def _delay_override(view, component, kind: str) -> tuple[str, int | None]:
    """(path, value) of PXC's ``<kind>DelaySec`` when the operator will apply it, else (path, None)."""
    rel = f"{component.rel}.{kind}DelaySec"
    path = view.path(rel)
    if view.operator != "pxc" or component.key not in ("pxc", "haproxy"):
        return path, None
    value = as_int(component.raw.get(f"{kind}DelaySec", MISSING), path)
    if view.chart and component.key == "haproxy" and not value:
        return path, None  # the chart renders haproxy's only when non-zero
    return path, value


POLICY = resource_policy(SPEC, check)
