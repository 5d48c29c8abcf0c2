"""One view of a database cluster, whatever declared it (INTERFACES §2, §3, §2.14, §3.10).

A ``PerconaXtraDBCluster`` or ``PerconaServerMySQL`` custom resource, or the values of a ``pxc-db`` or
``ps-db`` Helm release/chart (as the custom resource the pinned chart renders from them, chart_render),
become a :class:`DatabaseView`: the engine (Galera, group replication or
async), the mysqld component and its my.cnf (parsed with the core's option-file parser, including the
options inside ``wsrep_provider_options``), the proxies, the sidecars of every pod with the path of
their ``resources``, PMM, TLS, unsafe flags, finalizers and placement. Paths in messages are the
resource's own (``spec.pxc.configuration`` or ``values.pxc.configuration``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from percona_mysql_k8s.core.finding_field import FindingField
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.mycnf import (
    PROVIDER_OPTIONS,
    PS_USER_FILE,
    PXC_USER_FILE,
    Effective,
    MyCnfError,
    effective_options,
    parse_provider_options,
)
from percona_mysql_k8s.core.sidecars import (
    HAPROXY,
    PROXYSQL,
    ROUTER,
)

from .chart_render import render_ps_db, render_pxc_db
from .deferred import KnownOnRead, Pending, deferred
from .helm import CHART_DEFAULTS, PMM, PS_DB, PXC_DB, ValuesFromFiles, chart_name, chart_values, chart_version, is_helm
from .operator_text import has_template, image_tag, major_minor, render_template
from .resources import Resources, read_resources
from .values import MISSING, Malformed, NotKnown, Unknown, as_bool, as_int, as_list, as_map, as_str, at, describe, join, known

PXC_KIND, PS_KIND = "PerconaXtraDBCluster", "PerconaServerMySQL"
ASYNC = "async"
CLUSTER_TYPES = (GROUP_REPLICATION, ASYNC)


def is_pxc_cr(resource_type: str) -> bool:
    return resource_type.startswith("kubernetes:pxc.percona.com/") and resource_type.endswith(f":{PXC_KIND}")


def is_ps_cr(resource_type: str) -> bool:
    return resource_type.startswith("kubernetes:ps.percona.com/") and resource_type.endswith(f":{PS_KIND}")


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (values.KnownOnRead)
class Component(KnownOnRead):
    """A pod type of the cluster: mysqld, a proxy or the orchestrator. At preview ``enabled`` may be Pending
    (whether it runs is unknown), and so then is ``raw``: nothing of it is judged, and reading it names the
    field that decides it (values.KnownOnRead)."""

    key: str  # pxc | mysql | haproxy | proxysql | router | orchestrator
    rel: str  # path below the root: "pxc", "proxy.haproxy"
    role: str  # mysqld | proxy | orchestrator
    enabled: bool
    raw: dict

    def runs(self) -> bool:
        """Enabled, or maybe (unknown at preview): a pod type whose judgements are made or named."""
        enabled = object.__getattribute__(self, "enabled")
        return isinstance(enabled, Pending) or bool(enabled)

    def undecided(self) -> NotKnown | None:
        """Why whether it runs is unknown at preview, or None when that is known."""
        enabled = object.__getattribute__(self, "enabled")
        return enabled.error if isinstance(enabled, Pending) and isinstance(enabled.error, NotKnown) else None


@dataclass(frozen=True)
class Container:
    """One container of a database pod and where its ``resources`` block lives."""

    pod: str
    name: str
    role: str  # mysqld | proxy | sidecar | orchestrator
    path: str
    raw: Any

    def resources(self) -> Resources:
        return read_resources(self.raw, self.path)


_VERSIONED_GROUP = re.compile(r"mysqld-", re.IGNORECASE)


@dataclass
class DatabaseView:
    operator: str  # "pxc" | "ps"
    source: str  # what declared it, for messages
    chart: str | None
    root_path: str  # "spec" | "values"
    root: dict
    metadata: dict
    name: str
    chart_app_version: str | None = None
    values: dict | None = None  # chart values as given (merged over the chart defaults); root is what the chart renders
    _effective: Effective | None = field(default=None, repr=False)
    _options: dict | None = field(default=None, repr=False)

    # ---- paths and raw access ----------------------------------------------------------------
    def path(self, rel: str) -> str:
        return join(self.root_path, rel) if rel else self.root_path

    def get(self, rel: str) -> Any:
        return at(self.root, rel, base=self.root_path)

    def flag(self, rel: str, default: bool = False) -> bool:
        return bool(as_bool(self.get(rel), self.path(rel), default))

    # ---- the cluster -------------------------------------------------------------------------
    @property
    def mysqld_rel(self) -> str:
        return "pxc" if self.operator == "pxc" else "mysql"

    def cluster_type(self) -> str:
        """``pxc``, ``group-replication`` or ``async``."""
        if self.operator == "pxc":
            return PXC
        value = as_str(self.get("mysql.clusterType"), self.path("mysql.clusterType"), GROUP_REPLICATION)
        if value not in CLUSTER_TYPES:
            raise Malformed(self.path("mysql.clusterType"), f"is {describe(value)}, not one of {', '.join(CLUSTER_TYPES)}")
        return value

    def memory_engine(self) -> str | None:
        """The memory model's engine: PXC or group replication; None for async (no M4/M5 terms)."""
        kind = self.cluster_type()
        return None if kind == ASYNC else kind

    def size(self, rel: str) -> int | None:
        return as_int(self.get(f"{rel}.size"), self.path(f"{rel}.size"))

    def _component(self, key: str, rel: str, role: str, default_enabled: bool) -> Component:
        raw = deferred(lambda: as_map(self.get(rel), self.path(rel)))
        enabled = default_enabled if rel == self.mysqld_rel else deferred(lambda: self.flag(f"{rel}.enabled", default_enabled))
        if isinstance(enabled, Pending) and isinstance(enabled.error, NotKnown):
            raw = enabled  # whether it runs is unknown: none of it is judged
        return Component(key, rel, role, enabled, raw)

    def mysqld(self) -> Component:
        return self._component(self.mysqld_rel, self.mysqld_rel, "mysqld", True)

    def proxies(self) -> list[Component]:
        """Every proxy the resource declares, enabled as the operator will see it."""
        if self.operator == "pxc":
            haproxy = self._component(HAPROXY, "haproxy", "proxy", False)
            proxysql = self._component(PROXYSQL, "proxysql", "proxy", False)
            return [haproxy, proxysql]  # chart values: the rendered haproxy is off when proxysql is on (chart_render)
        return [
            self._component(HAPROXY, "proxy.haproxy", "proxy", False),
            self._component(ROUTER, "proxy.router", "proxy", False),
        ]

    def enabled_proxies(self) -> list[Component]:
        """The proxies that run, and those that may (unknown at preview: reading them raises NotKnown)."""
        return [proxy for proxy in self.proxies() if proxy.runs()]

    def orchestrator(self) -> Component | None:
        """The PS orchestrator as the operator decides it (percona-server-mysql-operator v1.2.0,
        api/v1/perconaservermysql_types.go ``OrchestratorEnabled``): never with group replication,
        always on async unless ``unsafeFlags.orchestrator``, else ``orchestrator.enabled``."""
        if self.operator != "ps" or self.cluster_type() == GROUP_REPLICATION:
            return None
        component = self._component("orchestrator", "orchestrator", "orchestrator", False)
        unsafe = deferred(lambda: self.unsafe("orchestrator"))
        if isinstance(unsafe, Pending):
            return replace(component, enabled=unsafe, raw=unsafe)
        if not unsafe:  # on whatever orchestrator.enabled says
            raw = deferred(lambda: as_map(self.get("orchestrator"), self.path("orchestrator")))
            component = replace(component, enabled=True, raw=raw)
        return component

    def cr_version(self) -> tuple[int, int, int] | None:
        """The CR version the operator compares against: ``spec.crVersion``, the ps-db/pxc-db chart's
        appVersion for chart values (the chart renders ``crVersion: {{ .Chart.AppVersion }}``), None
        when absent (the operator then takes its own version)."""
        if self.chart:
            version = known(self.chart_app_version, "version")
        else:
            version = as_str(self.get("crVersion"), self.path("crVersion"))
        match = re.match(r"^v?(\d+)\.(\d+)\.(\d+)", version or "")
        return (int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None

    def toolkit(self) -> bool:
        """``pt-heartbeat`` runs in every mysql pod of an async cluster with the orchestrator and a
        ``toolkit`` block (v1.2.0 pkg/mysql/mysql.go ``containers``)."""
        if self.operator != "ps" or self.cluster_type() != ASYNC:
            return False
        orchestrator = self.orchestrator()
        return orchestrator is not None and orchestrator.enabled and bool(as_map(self.get("toolkit"), self.path("toolkit")))

    def pods(self) -> list[Component]:
        """Enabled pod types: mysqld, proxies, orchestrator."""
        pods = [self.mysqld(), *self.enabled_proxies()]
        orchestrator = self.orchestrator()
        # enabled as the operator decides it, but size 0 runs no pod (ps-db renders size: 0 unless
        # orchestrator.enabled; pt-heartbeat still joins the mysql pods, toolkit())
        if orchestrator is not None and orchestrator.runs():
            size = deferred(lambda: self.size(orchestrator.rel))
            if isinstance(size, Pending) and isinstance(size.error, NotKnown):
                pods.append(replace(orchestrator, enabled=size, raw=size))
            elif isinstance(size, Pending) or size != 0:
                pods.append(orchestrator)  # a malformed size is reported where the orchestrator is read
        return pods

    def unsafe(self, name: str) -> bool:
        """An operator unsafe flag; PXC's deprecated allowUnsafeConfigurations turns all of them on."""
        if self.operator == "pxc" and self.flag("allowUnsafeConfigurations"):
            return True
        return self.flag(f"unsafeFlags.{name}")

    # ---- images and versions -----------------------------------------------------------------
    def image(self, rel: str) -> tuple[str | None, str | None]:
        return image_tag(self.get(rel), self.path(rel))

    def mysql_version(self) -> str | None:
        """``8.0`` or ``8.4`` from the mysqld image tag; None when it cannot be told."""
        _, tag = self.image(f"{self.mysqld_rel}.image")
        version = major_minor(tag)
        if version is None:
            return None
        return "8.4" if version >= (8, 4) else "8.0"

    def server_series(self) -> str | None:
        """``MAJOR.MINOR`` of the mysqld image tag (``8.4``, ``9.7``): which ``[mysqld-X.Y]`` group it reads."""
        _, tag = self.image(f"{self.mysqld_rel}.image")
        version = major_minor(tag)
        return f"{version[0]}.{version[1]}" if version else None

    # ---- my.cnf ------------------------------------------------------------------------------
    @property
    def config_rel(self) -> str:
        return f"{self.mysqld_rel}.configuration"

    def config_text(self) -> str | None:
        return as_str(self.get(self.config_rel), self.path(self.config_rel))

    def effective(self) -> Effective:
        """The configuration read as mysqld reads it in the operator's layering
        (core.mycnf.effective_options): every group mysqld reads for this version, last value wins.
        An ``!include`` of a file the pack cannot see is Malformed: undecidable, never assumed good."""
        if self._effective is None:
            where = self.path(self.config_rel)
            text = self.config_text()
            try:
                effective = effective_options(self.operator, text, self._series_for(text))
            except MyCnfError as error:
                raise Malformed(where, f"is not an option file mysqld starts with: {error}") from None
            if effective.undecided:
                raise Malformed(where, f"cannot be judged: {effective.undecided[0]}")
            self._effective = effective
        return self._effective

    def _series_for(self, text: str | None) -> str | None:
        """The server series whose ``[mysqld-X.Y]`` group mysqld reads; when the image is unknown at preview and
        the text has no such group (not even in a comment), every series reads the text alike."""
        series = deferred(self.server_series)
        if not isinstance(series, Pending):
            return series
        if text is None or not _VERSIONED_GROUP.search(text):
            return None
        series.raise_error()

    def options(self) -> dict[str, str]:
        """mysqld's options (normalized keys) with the value it keeps for each."""
        if self._options is None:
            self._options = self.effective().values()
        return self._options

    def origin(self, key: str) -> str:
        """Where mysqld got ``key``, for messages: `` ([server], line 7)``; empty when it is not set."""
        setting = self.effective().settings.get(key)
        if setting is None:
            return ""
        return f" ([{setting.group}], line {setting.line})"

    def reading(self, key: str) -> str:
        """``key``'s value as written, and mysqld's reading of it when that differs: ``3 (mysqld reads AFTER)``."""
        setting = self.effective().settings.get(key)
        if setting is None:
            return ""
        if setting.bare or setting.written == setting.value:
            return setting.value
        return f"{setting.written} (mysqld reads {setting.value})"

    def config_field(self, *keys: str) -> FindingField:
        """The configuration as the field a finding judged, at the line of its text that sets the first of ``keys``
        the user's file sets (mysqld's last setting of it); without such a line, the configuration as a whole."""
        where = self.path(self.config_rel)
        try:
            settings = self.effective().settings
        except (Malformed, NotKnown):
            return FindingField(where)
        for key in keys:
            setting = settings.get(key)
            if setting is not None and setting.file in (PXC_USER_FILE, PS_USER_FILE):
                line = setting.line - self._rendered_lines_before()
                return FindingField(where, line if line > 0 else None)
        return FindingField(where)

    def _rendered_lines_before(self) -> int:
        """Chart values: how many lines the chart renders before the user's configuration text (its option lines
        are counted in the rendered text); 0 for a custom resource."""
        if self.values is None:
            return 0
        given = at(self.values, self.config_rel, base="values")
        rendered = self.config_text()
        if not isinstance(given, str) or not given or not isinstance(rendered, str) or given not in rendered:
            return 0
        return rendered[: rendered.index(given)].count("\n")

    def provider_options(self) -> dict[str, str]:
        """The Galera parameters in ``wsrep_provider_options``, split as the provider splits them (keys exact)."""
        try:
            return parse_provider_options(self.options().get(PROVIDER_OPTIONS))
        except MyCnfError as error:
            raise Malformed(
                self.path(self.config_rel),
                f"has a {PROVIDER_OPTIONS}{self.origin(PROVIDER_OPTIONS)} Galera would not start with: {error}",
            ) from None

    def option(self, *names: str) -> tuple[str, str] | None:
        """(name as written, value mysqld keeps) of the first of ``names`` that is set. An alias
        (``slave_parallel_workers``) sets the same variable as its new name: the reader stores it there."""
        settings = self.effective().settings
        for name in names:
            setting = settings.get(name)
            if setting is not None:
                return (setting.name or name).replace("-", "_"), setting.value
        return None

    # ---- containers --------------------------------------------------------------------------
    def mysqld_container(self) -> Container:
        rel = f"{self.mysqld_rel}.resources"
        return Container(self.mysqld_rel, self.mysqld_rel, "mysqld", self.path(rel), deferred(lambda: self.get(rel)))

    def pmm_enabled(self) -> bool:
        return self.flag("pmm.enabled")

    def logcollector_enabled(self) -> bool:
        return self.operator == "pxc" and self.flag("logcollector.enabled")

    def backup_sidecar(self) -> bool:
        """PS runs an ``xtrabackup`` sidecar in every mysql pod while backups are enabled (§3.3)."""
        return self.operator == "ps" and self.flag("backup.enabled")

    def monit_inherits_haproxy(self) -> bool:
        """PS crVersion < 1.2.0 gives ``mysql-monit`` HAProxy's own resources (v1.2.0 pkg/haproxy/haproxy.go:
        ``resources := spec.Resources; if cr.CompareVersion("1.2.0") >= 0 { resources = spec.SidecarResources["mysql-monit"] }``).
        The ps-db 1.1.0 chart always renders crVersion 1.1.0."""
        version = self.cr_version()
        return version is not None and version < (1, 2, 0)

    def finalizers(self) -> tuple[str, list]:
        if self.chart:
            return self.path("finalizers"), as_list(self.get("finalizers"), self.path("finalizers"))
        return "metadata.finalizers", as_list(at(self.metadata, "finalizers", base="metadata"), "metadata.finalizers")


def _name(props: dict, fallback: str) -> str | Pending:
    """``metadata.name``, else ``fallback``; Pending when it is unknown at preview (the pods' labels carry it)."""
    metadata = props.get("metadata")
    if isinstance(metadata, Unknown):
        return Pending(metadata.error("metadata"))
    if isinstance(metadata, dict) and isinstance(metadata.get("name"), Unknown):
        return Pending(metadata["name"].error("metadata.name"))
    if isinstance(metadata, dict) and isinstance(metadata.get("name"), str):
        return metadata["name"]
    return fallback


def database_view(resource_type: str, props: dict, name: str = "") -> DatabaseView | None:
    """The view of a database resource, or None when the resource declares no database cluster.

    Raises Malformed when the resource is a database resource whose top-level shape is unreadable,
    NotKnown when its values are unknown at preview and ValuesFromFiles for chart values in files.
    """
    if is_pxc_cr(resource_type) or is_ps_cr(resource_type):
        operator_name = "pxc" if is_pxc_cr(resource_type) else "ps"
        spec = as_map(at(props, "spec"), "spec")
        metadata = as_map(at(props, "metadata"), "metadata")
        kind = PXC_KIND if operator_name == "pxc" else PS_KIND
        return DatabaseView(operator_name, f"{kind} custom resource", None, "spec", spec, metadata, _name(props, name))
    if is_helm(resource_type):
        chart = chart_name(props)
        if chart not in (PXC_DB, PS_DB):
            return None
        values = chart_values(props, chart)
        operator_name = "pxc" if chart == PXC_DB else "ps"
        # The chart's appVersion: equal to the chart version for the pxc-db and ps-db releases we know.
        app_version = chart_version(props) or CHART_DEFAULTS[chart].get("crVersion")
        if not isinstance(app_version, str | Unknown):
            app_version = str(CHART_DEFAULTS[chart].get("crVersion"))
        # The custom resource the pinned chart renders from these values: keys it ignores are not in it
        # (chart_render); messages keep the values' own paths.
        release = props.get("name") if isinstance(props.get("name"), str) and props.get("name") else name
        rendered = (render_pxc_db if chart == PXC_DB else render_ps_db)(values, app_version, release or "release")
        root = {**rendered["spec"], "finalizers": rendered["finalizers"]}
        return DatabaseView(
            operator_name, f"{chart} chart values", chart, "values", root, {}, name, chart_app_version=app_version, values=values
        )
    return None


__all__ = [
    "ASYNC",
    "Component",
    "Container",
    "DatabaseView",
    "MISSING",
    "Malformed",
    "NotKnown",
    "PMM",
    "ValuesFromFiles",
    "database_view",
    "has_template",
    "image_tag",
    "major_minor",
    "render_template",
]
