"""What the PS operator v1.2.0 refuses before it reconciles anything (percona-server-mysql-operator v1.2.0).

``Reconcile`` (pkg/controller/ps/controller.go:238-245) reads the cluster through ``k8s.GetCRWithDefaults``
(pkg/k8s/utils.go:492-511), which calls ``CheckNSetDefaults`` (api/v1/perconaservermysql_types.go:1076-1358); an error
there ends the reconcile ("get CR: check and set defaults for ...") before anything is rendered. Two of its refusals
cannot reach it past the CRD (C1 refuses them first): a ``mysql.clusterType`` outside the CRD's enum (1081-1083), and
an autoscaling ``maxSize`` below 1Gi (119-124; the CRD's CEL rule on ``maxSize``). A crVersion go-version cannot read
is no refusal of CheckNSetDefaults, but every reconcile panics at its first version comparison (``Version``,
1057-1059: ``v.Must``), after the Secrets and Services and before any StatefulSet. Source lines below are in
api/v1/perconaservermysql_types.go unless they name another file.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..cron import CronError, parse_schedule
from ..go_text import GoSyntaxError, go_atoi
from .model import Reader, Refusal, describe, join, malformed_cr_version
from .volumes import read_volume

OPERATOR_VERSION = "1.2.0"  # setCRVersion (pkg/k8s/utils.go:567-585) writes it into an empty crVersion
# naming.EnvBootstrapReadTimeout, EnvAsyncSourceRetryCount, EnvAsyncSourceConnectRetry (pkg/naming/env.go:11-17)
ASYNC_ENV = ("BOOTSTRAP_READ_TIMEOUT", "ASYNC_SOURCE_RETRY_COUNT", "ASYNC_SOURCE_CONNECT_RETRY")
Found = Iterator[tuple[str, str, str, str]]


def _backup(r: Reader) -> Found:
    """1094-1115, with backup.enabled: an image, distinct schedule names, storages that exist, a parsable schedule."""
    if not r.flag("spec.backup.enabled"):
        return
    if not r.filled("spec.backup.image"):
        yield "spec.backup.image", "is empty", "backup.image can't be empty", f"set spec.backup.image: {r.example('backup')}"
    storages = r.mapping("spec.backup.storages")
    names: dict[str, str] = {}
    for path, entry in r.each("spec.backup.schedule"):
        name = r.text("name", entry, path)
        if name in names:
            yield (
                join(path, "name"),
                f"is {name!r}, as {names[name]} is",
                f"scheduled backups should have different names: {name} name is used by multiple schedules",
                f"give {join(path, 'name')} a name no other schedule has (e.g. {name}-{len(names) + 1})",
            )
        names.setdefault(name, join(path, "name"))
        storage = r.text("storageName", entry, path)
        if storage not in storages:
            listed = ", ".join(sorted(map(str, storages)))
            yield (
                join(path, "storageName"),
                f"is {describe(storage)}, which names no storage of the cluster",
                f"storage {storage} doesn't exist",
                f"set {join(path, 'storageName')} to one of the storages of spec.backup.storages: {listed}"
                if storages
                else f"declare the storage in spec.backup.storages (type s3, with its bucket) and name it in {join(path, 'storageName')}",
            )
        schedule = r.text("schedule", entry, path)
        if schedule:
            try:
                parse_schedule(schedule)
            except CronError as error:
                if error.owner == "robfig":
                    yield (
                        join(path, "schedule"),
                        f"is {schedule!r}, which cron.ParseStandard refuses ({error})",
                        "invalid schedule format",
                        f"write {join(path, 'schedule')} as five cron fields, e.g. '0 3 * * *'",
                    )


def _volume(r: Reader) -> Found:
    """validateVolume (1378-1412), called at 1280-1283 on mysql.volumeSpec, through the one reader of a volumeSpec."""
    path = "spec.mysql.volumeSpec"
    volume = read_volume(r, r.get(path), path, "ps")
    if volume.problem:
        yield (
            volume.problem_path,
            volume.found,
            volume.words,
            f"set {path}.persistentVolumeClaim.resources.requests.storage (e.g. 100Gi) and no other volume source",
        )


def _async_env(r: Reader) -> Found:
    """1296-1325: on an async cluster, three settings of the mysql container's env must be whole numbers >= 0."""
    if r.text("spec.mysql.clusterType") != "async":
        return
    for path, variable in r.each("spec.mysql.env"):
        name = r.text("name", variable, path)
        if name not in ASYNC_ENV:
            continue
        value = r.text("value", variable, path)
        try:
            number = go_atoi(value)
        except GoSyntaxError as error:
            yield (
                join(path, "value"),
                f"is {describe(value)}, not a whole number"
                + (" (valueFrom is not read: the operator parses value)" if not value else ""),
                f"failed to parse {name}: {error}",
                f"set {join(path, 'value')} to a whole number of 0 or more (as text, e.g. '3')",
            )
            continue
        if number < 0:
            yield (
                join(path, "value"),
                f"is {value}",
                f"{name} should be a positive value",
                f"set {join(path, 'value')} to 0 or more",
            )


def _cr_version(r: Reader) -> Found:
    return malformed_cr_version(r, OPERATOR_VERSION, consequence=": every reconcile panics at the first version comparison")


V = "api/v1/perconaservermysql_types.go"
REFUSALS = (
    Refusal(
        "ps-backup",
        "ps",
        "spec.backup",
        "backups on without an image, two schedules of one name, a schedule naming no storage or one cron refuses",
        f"{V}:1094-1115",
        _backup,
    ),
    Refusal(
        "ps-volume",
        "ps",
        "spec.mysql.volumeSpec",
        "no data volume, none or several volume sources, a claim without a storage size",
        f"{V}:1280-1283, 1378-1412",
        _volume,
    ),
    Refusal(
        "ps-async-env",
        "ps",
        "spec.mysql.env",
        "async: BOOTSTRAP_READ_TIMEOUT, ASYNC_SOURCE_RETRY_COUNT or ASYNC_SOURCE_CONNECT_RETRY not a whole number >= 0",
        f"{V}:1296-1325",
        _async_env,
    ),
    Refusal(
        "ps-cr-version", "ps", "spec.crVersion", "a crVersion go-version cannot read (a panic)", f"{V}:1057-1065", _cr_version
    ),
)
