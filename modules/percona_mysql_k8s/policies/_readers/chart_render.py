"""The custom resource a pxc-db or ps-db chart renders from its values, as the pinned chart version does.

Transcribed from the charts' ``templates/cluster.yaml`` at percona-helm-charts 3df2bb5 (pxc-db 1.20.0,
ps-db 1.1.0; ../shared/reference/percona/charts). A key the template does not render is not in the result
(the policies give no verdict on it), and a component the template does not render for the topology is
absent or ``enabled: false`` exactly as the chart writes it. Each field is rendered the way the template
writes it (helm_template): ``{{ x }}`` printing, ``toYaml``, ``tpl`` and the ``if``/``hasKey`` around it.
tests/policies/test_chart_render.py compares this with ``helm template`` of the real archives.

The renderers live in chart_pxc_db and chart_ps_db, the field grammar they share in chart_fields; this
module names them all (its public names stay importable from here).

A field is one of ``(key, condition, how)`` (chart_fields describes the grammar).
"""

from .chart_fields import Field, render
from .chart_ps_db import (
    AFFINITY,
    CONFIGURATION,
    MYSQL_FIELDS,
    ORCHESTRATOR_FIELDS,
    PS_HAPROXY_FIELDS,
    PS_POD,
    ROUTER_FIELDS,
    render_ps_db,
)
from .chart_pxc_db import HAPROXY_FIELDS, PROXYSQL_FIELDS, PXC_FIELDS, PXC_POD, pxc_db_fullname, render_pxc_db

__all__ = [
    "AFFINITY",
    "CONFIGURATION",
    "HAPROXY_FIELDS",
    "MYSQL_FIELDS",
    "ORCHESTRATOR_FIELDS",
    "PROXYSQL_FIELDS",
    "PS_HAPROXY_FIELDS",
    "PS_POD",
    "PXC_FIELDS",
    "PXC_POD",
    "ROUTER_FIELDS",
    "Field",
    "pxc_db_fullname",
    "render",
    "render_ps_db",
    "render_pxc_db",
]
