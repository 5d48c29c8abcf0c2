"""The backup section of a database (R1-R4) as its operator reads it: storages, schedules, retention, PITR.

Read from a :class:`~.database.DatabaseView`, so custom resources and pxc-db/ps-db chart values alike:

* PXC (percona-xtradb-cluster-operator v1.19.0, pkg/apis/pxc/v1/pxc_types.go ``BackupSpec``): ``spec.backup``
  absent means no backups. ``storages.<name>.type`` is ``s3``, ``azure`` or ``filesystem`` (a volume in the
  cluster); ``schedule[]`` has ``name``, ``schedule``, ``storageName`` and ``keep`` (deprecated) or
  ``retention{type: count, count, deleteFromStorage}``; ``GetRetention`` takes ``retention`` over ``keep``.
  ``pitr{enabled, storageName}``: the binlog collector uploads only to ``s3`` or ``azure`` storage
  (pkg/pxc/app/binlogcollector/binlog-collector.go ``getStorageEnvs``); PITR exists from crVersion 1.8.0
  (cmd/pitr first ships in v1.8.0). The pxc-db chart renders ``spec.backup`` only when
  ``backup.enabled`` (default true) and passes storages, schedule and pitr through (charts/pxc-db/templates/
  cluster.yaml, percona-helm-charts 3df2bb5); its ``s3.credentialsAccessKey``/``credentialsSecretKey`` put
  the keys in the values and let the chart write the Secret (_helpers.tpl ``pxc-database.storages``).
* PS (percona-server-mysql-operator v1.2.0, api/v1/perconaservermysql_types.go): ``backup.enabled`` (absent =
  false; the backup controller refuses backups of a cluster without it, pkg/controller/psbackup/controller.go).
  ``storages.<name>.type`` is ``s3``, ``gcs`` or ``azure``; ``schedule[]`` has ``keep``; the bucket may carry
  its prefix (``BucketWithPrefix``: ``bucket/prefix``). ``pitr{enabled, binlogServer{storage{s3}}}``
  (``PiTREnabled``: enabled and a binlog server); a point-in-time restore exists from 1.1.0 (the restore
  CR's ``pitr`` first ships in v1.1.0), so PITR is required from crVersion 1.1.0. The ps-db chart renders
  schedule, pitr and storages verbatim under ``backup.enabled`` (charts/ps-db/templates/cluster.yaml).

At preview a field may be unknown (another resource's output): each storage, schedule and PITR field is read
on its own (_readers/deferred.py), and raises NotKnown only when a judgement reads it, so a schedule that never
runs is reported next to an endpoint not yet known (docs/preview-unknowns.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from percona_mysql_k8s.core.backup import in_cluster_host

from .database import DatabaseView
from .deferred import KnownOnRead, Pending, deferred
from .operator_refusals import backup_refusal
from .values import MISSING, Malformed, Unknown, as_bool, as_int, as_list, as_map, as_str, at, describe, join, known

FILESYSTEM = "filesystem"
OBJECT_STORAGE_TYPES = {"pxc": ("s3", "azure"), "ps": ("s3", "gcs", "azure")}
# The first crVersion whose operator restores to a point in time (see the module docstring).
PITR_SINCE = {"pxc": (1, 8, 0), "ps": (1, 1, 0)}


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (deferred.KnownOnRead)
class Storage(KnownOnRead):
    """One object or volume storage: where the operator writes backups."""

    name: str
    path: str  # spec.backup.storages.<name>
    type: str | None
    endpoint: str  # "" = the provider's own HTTPS endpoint (AWS S3, Google Cloud Storage, Azure Blob)
    endpoint_path: str
    verify_tls: bool | None  # None: absent, the operators verify (default true)
    static_keys: tuple[str, ...] = ()  # chart values paths holding cloud keys
    credentials_secret: str = ""  # the s3/gcs/azure block's credentialsSecret

    def offsite_problem(self, operator: str) -> str | None:
        """Why the operator's backups on this storage are not in object storage outside the cluster (R1)."""
        if self.type == FILESYSTEM:
            return f"storage {self.name} is of type filesystem: a volume in the cluster, lost with it"
        if self.type not in OBJECT_STORAGE_TYPES[operator]:
            return (
                f"storage {self.name} has type {describe(self.type)}, not one the operator writes to object "
                f"storage ({', '.join(OBJECT_STORAGE_TYPES[operator])})"
            )
        problem = endpoint_in_cluster(self.endpoint)
        if problem:
            return f"storage {self.name} ({self.endpoint_path}) {problem}"
        return None


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (deferred.KnownOnRead)
class Schedule(KnownOnRead):
    path: str  # spec.backup.schedule[0]
    name: str
    schedule: str
    storage_name: str
    keep: int  # the count the operator keeps; <= 0 deletes nothing
    keep_path: str
    deletes_from_storage: bool = True  # PXC retention.deleteFromStorage false: old backups stay in storage
    kind: str = "full"  # PS schedule[].type: full (the CRD's default) or incremental


@dataclass(eq=False)  # identity: reading a Pending field raises (deferred.KnownOnRead)
class BackupSection(KnownOnRead):
    operator: str
    off: str | None  # why there are no backups at all, or None
    path: str = "spec.backup"
    refusal: str | None = None  # why the operator refuses the whole cluster for this section (rule C2's checks)
    cr_version: tuple[int, ...] | None = None  # None: the operator's own (absent crVersion)
    storages: dict[str, Storage] = field(default_factory=dict)
    schedules: list[Schedule] = field(default_factory=list)
    pitr_supported: bool = True
    pitr_enabled: bool = False
    pitr_path: str = ""
    pitr_storage: Storage | None = None  # PXC: the storage pitr.storageName names; PS: the binlog server's s3
    pitr_problem: str | None = None  # why PITR's storage is unusable or absent


def endpoint_in_cluster(endpoint: str) -> str | None:
    """Why an endpoint is inside the cluster (or on the pod itself), or None. ``""`` is the cloud's own."""
    if not endpoint:
        return None
    host = _host(endpoint)
    if host is None:
        return f"has endpoint {describe(endpoint)}, which names no host"
    problem = in_cluster_host(host)
    return f"has endpoint {endpoint}: {problem}" if problem else None


def endpoint_scheme(endpoint: str) -> str | None:
    """The URL scheme, lower case; None when the endpoint carries none (``minio.example.com:9000``)."""
    if "://" not in endpoint:
        return None
    return endpoint.split("://", 1)[0].lower()


def _host(endpoint: str) -> str | None:
    text = endpoint.strip()
    try:
        host = urlsplit(text if "://" in text else f"//{text}").hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


def _storage(view: DatabaseView, name: str, raw, path: str) -> Storage:
    """One storage, each field read on its own: a field unknown at preview (or malformed) is Pending."""
    spec = deferred(lambda: as_map(raw, path))
    if isinstance(spec, Pending):
        return Storage(name, path, spec, spec, spec, spec, spec, spec)
    kind = deferred(lambda: as_str(spec.get("type", MISSING), join(path, "type")))
    verify = deferred(lambda: as_bool(spec.get("verifyTLS", MISSING), join(path, "verifyTLS")))
    if isinstance(kind, Pending):
        return Storage(name, path, kind, kind, kind, verify, kind, kind)
    block = kind if kind in ("s3", "gcs", "azure") else None
    endpoint_path = join(join(path, block or "s3"), "endpointUrl")
    section = deferred(lambda: as_map(spec.get(block, MISSING), join(path, block)) if block else {})
    endpoint = deferred(
        lambda: (as_str(known(section, join(path, str(block))).get("endpointUrl", MISSING), endpoint_path, "") or "").strip()
    )
    secret_path = join(join(path, block or "s3"), "credentialsSecret")
    secret = deferred(
        lambda: as_str(known(section, join(path, str(block))).get("credentialsSecret", MISSING), secret_path, "") or ""
    )
    keys = deferred(lambda: _static_keys(view, name, path) if block == "s3" else ())
    return Storage(name, path, kind, endpoint, endpoint_path, verify, keys, secret)


def _static_keys(view: DatabaseView, name: str, path: str) -> tuple:
    """The chart values paths holding cloud keys; each unknown one Pending (R4 names it), the other still judged."""
    if not view.chart:
        return ()
    # the pxc-db chart moves these keys from the values into a Secret it writes (pxc-database.storages):
    # they are read from the values themselves
    given = known(_values_storage(view, name).get("s3"), join(path, "s3"))
    given = given if isinstance(given, dict) else {}
    keys = {key: join(join(path, "s3"), key) for key in ("credentialsAccessKey", "credentialsSecretKey")}
    return tuple(
        deferred(lambda key=key, where=where: known(given.get(key), where) and where)
        for key, where in keys.items()
        if isinstance(given.get(key), Unknown) or given.get(key) not in (MISSING, None, "")
    )


def _values_storage(view: DatabaseView, name: str) -> dict:
    storage = at(view.values, f"backup.storages.{name}", base="values") if isinstance(view.values, dict) else None
    return storage if isinstance(storage, dict) else {}


def _schedule(view: DatabaseView, raw, path: str) -> Schedule:
    """One schedule entry, each field read on its own: a field unknown at preview (or malformed) is Pending."""
    entry = deferred(lambda: as_map(raw, path))
    if isinstance(entry, Pending):
        return Schedule(path, entry, entry, entry, entry, entry, entry, entry)
    name = deferred(lambda: as_str(entry.get("name", MISSING), join(path, "name"), "") or "")
    # the text goes to ParseStandard exactly as written: the operators trim nothing
    text = deferred(lambda: as_str(entry.get("schedule", MISSING), join(path, "schedule"), "") or "")
    storage = deferred(lambda: as_str(entry.get("storageName", MISSING), join(path, "storageName"), "") or "")
    kind = "full"
    if view.operator == "ps":
        kind = deferred(lambda: as_str(entry.get("type", MISSING), join(path, "type"), "full") or "full")
    retention = deferred(lambda: _retention(view, entry, path))
    if isinstance(retention, Pending):
        return Schedule(path, name, text, storage, retention, retention, retention, kind)
    keep, keep_path, deletes = retention
    return Schedule(path, name, text, storage, keep, keep_path, deletes, kind)


def _retention(view: DatabaseView, entry: dict, path: str) -> tuple:
    """(keep, where it is set, deletes from storage): PXC GetRetention takes ``retention`` over ``keep``."""
    keep_path = join(path, "keep")
    keep = as_int(entry.get("keep", MISSING), keep_path, 0)
    deletes = True
    retention = known(entry.get("retention", MISSING), join(path, "retention"))
    if view.operator == "pxc" and retention not in (MISSING, None):
        # GetRetention: a retention block replaces keep; its type is "count" (the CRD's only enum value).
        rpath = join(path, "retention")
        retention = as_map(retention, rpath)
        kind = as_str(retention.get("type", MISSING), join(rpath, "type"))
        if kind != "count":
            raise Malformed(join(rpath, "type"), f"is {describe(kind)}, not count (the only retention type)")
        keep_path = join(rpath, "count")
        keep = as_int(retention.get("count", MISSING), keep_path, 0)
        deletes = bool(as_bool(retention.get("deleteFromStorage", MISSING), join(rpath, "deleteFromStorage"), True))
    return keep or 0, keep_path, deletes


def backup_section(view: DatabaseView) -> BackupSection:
    """The backups the operator will run for this database. Raises Malformed on unreadable fields, NotKnown
    when whether there are backups at all is unknown at preview; a field unknown below that raises when read."""
    operator = view.operator
    rel, path = "backup", view.path("backup")
    section = BackupSection(operator, None, path)
    raw = view.get(rel)
    section.cr_version = version = deferred(view.cr_version)
    section.pitr_supported = version if isinstance(version, Pending) else version is None or version >= PITR_SINCE[operator]
    if raw is MISSING or raw is None:
        # the pxc-db chart renders spec.backup only while values.backup.enabled is true (chart_render)
        section.off = (
            f"{path}.enabled is false: the chart renders no backup section, the operator runs no backups"
            if view.chart
            else f"{path} is absent: the operator runs no backups"
        )
        return section
    backup = as_map(raw, path)
    enabled_path = join(path, "enabled")
    if operator == "ps":
        # The PS operator runs no backups without backup.enabled (the ps-db chart renders it; the pxc-db chart
        # renders spec.backup only while backup.enabled is true, chart_render).
        if not as_bool(backup.get("enabled", MISSING), enabled_path, False):
            section.off = f"{enabled_path} is {'absent' if backup.get('enabled', MISSING) is MISSING else 'false'}: the operator runs no backups"
            return section
    section.refusal = deferred(lambda: backup_refusal(view))
    storages_path = join(path, "storages")
    storages = deferred(lambda: as_map(backup.get("storages", MISSING), storages_path))
    if isinstance(storages, Pending):
        section.storages = storages
    else:
        for name, spec in storages.items():
            section.storages[str(name)] = _storage(view, str(name), spec, join(storages_path, str(name)))
    schedules_path = join(path, "schedule")
    schedules = deferred(lambda: as_list(backup.get("schedule", MISSING), schedules_path))
    if isinstance(schedules, Pending):
        section.schedules = schedules
    else:
        for index, entry in enumerate(schedules):
            section.schedules.append(_schedule(view, entry, f"{schedules_path}[{index}]"))
    pitr = deferred(lambda: as_map(backup.get("pitr", MISSING), join(path, "pitr")))
    if isinstance(pitr, Pending):
        section.pitr_path = join(path, "pitr")
        section.pitr_enabled = section.pitr_storage = section.pitr_problem = pitr
    else:
        _pitr(view, section, pitr, join(path, "pitr"))
    return section


def _pitr(view: DatabaseView, section: BackupSection, pitr: dict, path: str) -> None:
    section.pitr_path = path
    section.pitr_enabled = deferred(lambda: bool(as_bool(pitr.get("enabled", MISSING), join(path, "enabled"), False)))
    if isinstance(section.pitr_enabled, Pending):
        section.pitr_storage = section.pitr_problem = section.pitr_enabled
        return
    if not section.pitr_enabled:
        return
    found = deferred(lambda: (_pxc_pitr if view.operator == "pxc" else _ps_pitr)(section, pitr, path))
    section.pitr_storage, section.pitr_problem = (found, found) if isinstance(found, Pending) else found


def _pxc_pitr(section: BackupSection, pitr: dict, path: str) -> tuple[Storage | None, str | None]:
    """(the storage PITR uploads to, why it cannot) for PXC: ``pitr.storageName`` names one of the storages."""
    name_path = join(path, "storageName")
    name = as_str(pitr.get("storageName", MISSING), name_path, "") or ""
    storage = section.storages.get(name)
    if storage is None:
        return None, (
            f"{name_path} is {describe(name) if name else 'empty'}, which names no storage "
            "of the cluster (the operator refuses the cluster)"
        )

    def problem() -> str | None:  # the storage's own fields, each maybe unknown at preview: Pending alone
        found = storage.offsite_problem("pxc")
        if found is None and not storage.credentials_secret and not storage.static_keys:
            # binlog-collector.go getStorageEnvs: the collector's keys come from that Secret by name
            # (SecretKeySelector); an empty name is a Deployment the API server refuses
            found = (
                f"storage {name} has no {storage.type}.credentialsSecret: the binlog collector reads its keys "
                "from that Secret only, and runs without one never"
            )
        return found

    return storage, deferred(problem)


def _ps_pitr(section: BackupSection, pitr: dict, path: str) -> tuple[Storage | None, str | None]:
    """(the binlog server's storage, why it cannot upload) for PS."""
    server_path = join(path, "binlogServer")
    server = known(pitr.get("binlogServer", MISSING), server_path)
    if server in (MISSING, None):
        return None, f"{server_path} is absent: the operator runs no binlog server (PiTREnabled is false)"
    s3_path = join(join(server_path, "storage"), "s3")
    server = as_map(server, server_path)
    s3 = as_map(as_map(server.get("storage", MISSING), join(server_path, "storage")).get("s3", MISSING), s3_path)
    bucket = as_str(s3.get("bucket", MISSING), join(s3_path, "bucket"), "") or ""
    if not bucket:
        return None, f"{join(s3_path, 'bucket')} is not set: the binlog server has nowhere to upload"
    endpoint_path = join(s3_path, "endpointUrl")
    endpoint = (as_str(s3.get("endpointUrl", MISSING), endpoint_path, "") or "").strip()
    storage = Storage("binlogServer", join(server_path, "storage"), "s3", endpoint, endpoint_path, None)
    problem = endpoint_in_cluster(endpoint)
    if problem:
        return storage, f"the binlog server's storage ({endpoint_path}) {problem}"
    return storage, _binlog_server_problem(server, server_path, s3, s3_path)


def _binlog_server_problem(server: dict, path: str, s3: dict, s3_path: str) -> str | None:
    """What the PS v1.2.0 CRD or operator refuses in ``pitr.binlogServer``, or None.

    The CRD's CEL rules on ``pitr`` (api/v1/perconaservermysql_types.go:683-684, 694): with PITR on, a binlog
    server needs an ``image`` and a ``size`` above 0, and ``size`` is at most 1. ``reconcileBinlogServer``
    (pkg/controller/ps/controller.go:1538-1551) runs no binlog server without
    ``storage.s3.credentialsSecret`` (``binlogserver.GetConfiguration``: ``ErrNoCredentials``, only logged).
    """
    image = as_str(server.get("image", MISSING), join(path, "image"), "") or ""
    size = as_int(server.get("size", MISSING), join(path, "size"), 0) or 0
    if not image:
        return f"{join(path, 'image')} is empty: the CRD refuses it (binlogServer.image is required when pitr is enabled)"
    if size <= 0:
        return f"{join(path, 'size')} is {size}: the CRD refuses it (binlogServer.size is required when pitr is enabled)"
    if size > 1:
        return f"{join(path, 'size')} is {size}: the CRD refuses it (binlogServer size cannot be more than 1)"
    if not (as_str(s3.get("credentialsSecret", MISSING), join(s3_path, "credentialsSecret"), "") or ""):
        return (
            f"{join(s3_path, 'credentialsSecret')} is empty: the operator runs no binlog server without it "
            "(binlogserver.GetConfiguration, ErrNoCredentials)"
        )
    return None
