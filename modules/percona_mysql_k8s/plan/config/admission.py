"""The admission server's stack settings (``admission``, ``admissionImage``, ``admissionAuditSeconds``,
``admissionApiServerCidrs``): off unless asked for, decided before any resource like every other key.

* ``failurePolicy`` follows the stack: ``Fail`` on production stacks (a breaching custom resource never slips through
  while the server is away), ``Ignore`` on ephemeral ones.
* The NetworkPolicy admits the API server's addresses to the webhook port: a production stack names them
  (``admissionApiServerCidrs``; how to find them per cloud: docs/admission.md); an ephemeral one may leave them out,
  which admits any address to that port alone.
* The server runs on the monitoring pool, placed as the PMM server is; the monitoring plan reserves its two replicas
  (core.monitoring, K5); its metrics may be scraped from the database namespace, where PMM runs.
"""

from __future__ import annotations

import ipaddress

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.plan.admission import MODES, AdmissionSettings, check_settings
from percona_mysql_k8s.plan.clusters import ClusterSettings

from .keys import ConfigValues


def _cidrs(values: list) -> tuple[str, ...]:
    found = []
    for index, value in enumerate(values):
        try:
            found.append(str(ipaddress.ip_network(str(value), strict=True)))
        except ValueError as error:
            raise InputError("admissionApiServerCidrs", f"item {index} ({str(value)!r}) is not a CIDR block: {error}") from None
    return tuple(found)


def admission_settings_from_config(values, cluster: ClusterSettings, *, namespace: str) -> AdmissionSettings | None:
    """The server's settings, or None when ``admission`` is empty (no server)."""
    v = ConfigValues.of(values)
    mode = v.get("admission").strip().lower()
    if not mode:
        for key in ("admissionImage", "admissionApiServerCidrs"):
            if v.get(key):
                raise InputError(key, "is set but admission is empty (no admission server): set admission or clear it")
        return None
    if mode not in MODES:
        raise InputError("admission", f"{mode!r} is not one of {', '.join(MODES)} (empty: no admission server)")
    cidrs = _cidrs(v.get("admissionApiServerCidrs"))
    if not cidrs and not cluster.ephemeral and mode != "audit":
        raise InputError(
            "admissionApiServerCidrs",
            "a production stack names the addresses its API server calls webhooks from, so the server's NetworkPolicy "
            "admits them alone (GKE: the control plane's range; EKS: the VPC's; docs/admission.md)",
        )
    settings = AdmissionSettings(
        mode=mode,
        image=v.get("admissionImage").strip(),
        failure_policy="Ignore" if cluster.ephemeral else "Fail",
        audit_seconds=v.get("admissionAuditSeconds"),
        api_server_cidrs=cidrs,
        metrics_namespaces=(namespace,),
        placement=cluster.monitoring_pool.placement().as_pod_spec(),
    )
    check_settings(settings)
    return settings
