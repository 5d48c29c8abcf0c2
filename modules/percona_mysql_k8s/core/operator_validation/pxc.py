"""What the PXC operator 1.20.0 refuses before it reconciles anything (percona-xtradb-cluster-operator b3b0b10a7).

``Reconcile`` (pkg/controller/pxc/controller.go:267-270) calls ``CheckNSetDefaults`` and, on an error, returns
"wrong PXC options: ..." and renders nothing: no StatefulSet, no Service, no Secret, no backup. ``CheckNSetDefaults``
(pkg/apis/pxc/v1/pxc_types.go:1084-1414) starts with ``Validate`` (398-539), then defaults, the safe-configuration
checks (``checkSafeDefaults``, 1501-1531, from crVersion 1.15.0 unless paused), the configuration templates
(``executeConfigurationTemplate``, 1648-1669) and the TLS validity durations (1392-1405). Every source line cited
below is in pkg/apis/pxc/v1/pxc_types.go unless it names another file. Each check yields (path, what it holds, the
operator's words, the fix).
"""

from __future__ import annotations

from typing import Any

from .model import Reader, Refusal, describe, join, malformed_cr_version
from .pxc_basics import CLUSTER_NAME_MAX, OPERATOR_VERSION, RESERVED_CHANNEL_NAMES, Found, has_pxc
from .pxc_safety import (
    configuration_template,
    duration_syntax,
    safe_proxy_size,
    safe_pxc_size,
    safe_tls,
    tls_durations,
)
from .volumes import read_volume

PULUMI_AUTONAME_SUFFIX = 9  # "-" and 8 random characters (pulumi-kubernetes metadata.AssignNameIfAutonamable)


def cluster_name_problem(name: str) -> str | None:
    """The operator's words for a cluster name it refuses (Validate, 399-401), or None."""
    if len(name) > CLUSTER_NAME_MAX:
        return f"cluster name ({name}) too long, must be no more than {CLUSTER_NAME_MAX} characters"
    return None


def _name(r: Reader) -> Found:
    name = r.text("metadata.name")
    if not name and r.autonamed_from:
        length = len(r.autonamed_from) + PULUMI_AUTONAME_SUFFIX
        if length > CLUSTER_NAME_MAX:
            yield (
                "metadata.name",
                f"is not set: Pulumi names the resource {r.autonamed_from!r}, '-' and 8 random characters ({length} in all)",
                f"cluster name ({r.autonamed_from}-",
                f"set metadata.name: {shorten(r.autonamed_from)}",
            )
        return
    words = cluster_name_problem(name)
    if words:
        yield (
            "metadata.name",
            f"is {name!r}, {len(name)} characters",
            words,
            f"rename the cluster to at most {CLUSTER_NAME_MAX} characters: metadata.name: {shorten(name)}",
        )


def shorten(name: str) -> str:
    """A name of at most 22 characters the API server also takes (a DNS label ends with a letter or digit)."""
    return name[:CLUSTER_NAME_MAX].rstrip("-.") or "cluster"


def _cr_version(r: Reader) -> Found:
    return malformed_cr_version(r, OPERATOR_VERSION, logged="invalid cr version: ")


def _pxc_section(r: Reader) -> Found:
    if not has_pxc(r):
        name = r.text("metadata.name")
        yield (
            "spec.pxc",
            "is absent",
            f"spec.pxc section is not specified. Please check {name} cluster settings",
            f"add spec.pxc with size: 3, image: {r.example('pxc')}, resources and volumeSpec",
        )


def _image(component: str, path: str, words: str, needs_enabled: bool) -> Any:
    def check(r: Reader) -> Found:
        if component == "pxc" and not has_pxc(r):
            return
        if needs_enabled and not r.flag(f"spec.{component}.enabled"):
            return
        if not r.filled(path):
            yield path, "is empty", words, f"set {path}: {r.example(component)}"

    return check


def _replication_channels(r: Reader) -> Found:
    if not has_pxc(r):
        return
    channels = list(r.each("spec.pxc.replicationChannels"))
    if not channels:
        return
    first_source = r.flag("isSource", channels[0][1], channels[0][0])
    for path, channel in channels:
        name = r.text("name", channel, path)
        if len(name) > 64 or name == "" or name in RESERVED_CHANNEL_NAMES:
            yield (
                join(path, "name"),
                f"is {describe(name)}",
                f"invalid replication channel name {name}, please see channel naming conventions",
                f"name the channel with 1 to 64 characters, other than {' and '.join(RESERVED_CHANNEL_NAMES)}",
            )
        source = r.flag("isSource", channel, path)
        if source != first_source:
            yield (
                join(path, "isSource"),
                f"is {str(source).lower()}, the first channel's {str(first_source).lower()}",
                "you can specify only one type of replication please specify equal values for isSource field",
                f"set {join(path, 'isSource')}: {str(first_source).lower()}, as every channel of the cluster",
            )
        if source:
            continue
        if not r.items("sourcesList", channel, path):
            yield (
                join(path, "sourcesList"),
                "is empty on a replica channel",
                f"sources list for replication channel {name} should be empty, because it's replica",
                f"list the source cluster's hosts in {join(path, 'sourcesList')} (host, port)",
            )
        config = join(path, "configuration")
        if r.flag("configuration.ssl", channel, path) and not r.text("configuration.ca", channel, path):
            yield (
                join(config, "ca"),
                "is empty while configuration.ssl is true",
                f"if you set ssl for channel {name}, you have to indicate a path to a CA file to verify the server certificate",
                f"set {join(config, 'ca')} to the CA file's path in the pod (e.g. /etc/mysql/ssl/ca.crt)",
            )


def _volume(path: str, wrap: str, gate) -> Any:
    """``VolumeSpec.validate`` (1680-1694) through the one reader of a volumeSpec; ``wrap`` is the caller's prefix."""

    def check(r: Reader) -> Found:
        if gate(r):
            yield from volume_refusal(r, path, wrap)

    return check


def volume_refusal(r: Reader, path: str, wrap: str) -> Found:
    volume = read_volume(r, r.get(path), path, "pxc")
    if volume.problem:
        absent = volume.problem_path == path
        words = f"{wrap.split(':')[0]}: {volume.words}" if absent else f"{wrap}{volume.words}"
        storage = f"{path}.persistentVolumeClaim.resources.requests.storage"
        yield volume.problem_path, volume.found, words, f"set {storage} (e.g. 100Gi)"


def _proxy_enabled(component: str):
    return lambda r: r.flag(f"spec.{component}.enabled")


def _both_proxies(r: Reader) -> Found:
    if r.flag("spec.haproxy.enabled") and r.flag("spec.proxysql.enabled"):
        yield (
            "spec.proxysql.enabled",
            "is true, as spec.haproxy.enabled is",
            "can't enable both HAProxy and ProxySQL please only select one of them",
            "set spec.proxysql.enabled: false (keep HAProxy)",
        )


def _backup(r: Reader) -> Found:
    """Validate's backup part (489-517), for a backup section that is present (even empty)."""
    if not r.present("spec.backup"):
        return
    if not r.filled("spec.backup.image"):
        yield "spec.backup.image", "is empty", "backup.Image can't be empty", f"set spec.backup.image: {r.example('backup')}"
    storages = r.mapping("spec.backup.storages")
    if r.flag("spec.backup.pitr.enabled"):
        name = r.text("spec.backup.pitr.storageName")
        if not name:
            yield (
                "spec.backup.pitr.storageName",
                "is empty while PITR is on",
                "backup.PITR.StorageName can't be empty",
                _name_a_storage("spec.backup.pitr.storageName", storages),
            )
        elif name not in storages:
            yield (
                "spec.backup.pitr.storageName",
                f"is {name!r}, which names no storage of the cluster",
                f"pitr storage {name} doesn't exist",
                _name_a_storage("spec.backup.pitr.storageName", storages),
            )
    yield from backup_schedules(r, storages)


def backup_schedules(r: Reader, storages: dict) -> Found:
    for path, entry in r.each("spec.backup.schedule"):
        name = r.text("storageName", entry, path)
        if name not in storages:
            yield (
                join(path, "storageName"),
                f"is {describe(name)}, which names no storage of the cluster",
                f"storage {name} doesn't exist",
                _name_a_storage(join(path, "storageName"), storages),
            )
            continue
        storage = join("spec.backup.storages", name)
        if r.text("type", storages[name], storage) != "filesystem":
            continue
        volume = join(storage, "volume")
        if not r.present("volume", storages[name], storage):
            yield (
                volume,
                "is absent on a filesystem storage",
                f"backup storage {name}: volume should be specified",
                f"set {volume}.persistentVolumeClaim.resources.requests.storage (e.g. 100Gi)",
            )
            continue
        yield from volume_refusal(r, volume, "Backup: validate volume spec: ")


def _name_a_storage(path: str, storages: dict) -> str:
    if storages:
        return f"set {path} to one of the storages of spec.backup.storages: {', '.join(sorted(map(str, storages)))}"
    return f"declare the storage in spec.backup.storages (type s3, with its bucket) and name it in {path}"


def _smart_update(r: Reader) -> Found:
    if (
        r.text("spec.updateStrategy") == "SmartUpdate"
        and not r.flag("spec.proxysql.enabled")
        and not r.flag("spec.haproxy.enabled")
    ):
        yield (
            "spec.updateStrategy",
            "is SmartUpdate with neither HAProxy nor ProxySQL enabled",
            "ProxySQL or HAProxy should be enabled if SmartUpdate set",
            "set spec.haproxy.enabled: true with size: 3 (SmartUpdate switches the writer through the proxy)",
        )


def _users(r: Reader) -> Found:
    seen: set[str] = set()
    for path, user in r.each("spec.users"):
        name = r.text("name", user, path)
        if name in seen:
            yield (
                join(path, "name"),
                f"is {name!r}, named by an earlier user too",
                f"user {name} is duplicated",
                f"remove {path} or merge it into the first user named {name!r}",
            )
        seen.add(name)


def _extra_pvcs(r: Reader) -> Found:
    """validateExtraPVCs (1825-1852): the first repeat of a name, a mount path or a claim name."""
    if not has_pxc(r):
        return
    seen: dict[str, set[str]] = {"name": set(), "mountPath": set(), "claimName": set()}
    for path, volume in r.each("spec.pxc.extraPVCs"):
        name = r.text("name", volume, path)
        for key, words in (
            ("name", f"extraPVC: duplicate volume name {name}"),
            ("mountPath", f"extraPVC {name}: duplicate mount path {{}}"),
            ("claimName", f"extraPVC {name}: duplicate claim name {{}}"),
        ):
            value = r.text(key, volume, path)
            if value in seen[key]:
                yield (
                    join(path, key),
                    f"is {value!r}, as an earlier extra volume's",
                    words.format(value),
                    f"give {join(path, key)} a value no other entry of spec.pxc.extraPVCs has",
                )
                break
            seen[key].add(value)


V = "pkg/apis/pxc/v1/pxc_types.go"
REFUSALS = (
    Refusal("pxc-name-length", "pxc", "metadata.name", "a name longer than 22 characters", f"{V}:399-401", _name),
    Refusal(
        "pxc-cr-version", "pxc", "spec.crVersion", "a crVersion go-version cannot read", f"{V}:403-406, 1571-1577", _cr_version
    ),
    Refusal("pxc-section", "pxc", "spec.pxc", "no pxc section", f"{V}:410-412", _pxc_section),
    Refusal(
        "pxc-image",
        "pxc",
        "spec.pxc.image",
        "no mysqld image",
        f"{V}:418-420",
        _image("pxc", "spec.pxc.image", "pxc.Image can't be empty", False),
    ),
    Refusal(
        "pxc-replication-channels",
        "pxc",
        "spec.pxc.replicationChannels",
        "a channel name MySQL refuses, mixed source and replica channels, a replica without sources, SSL without a CA",
        f"{V}:422-450",
        _replication_channels,
    ),
    Refusal(
        "pxc-pmm-image",
        "pxc",
        "spec.pmm.image",
        "PMM on without an image",
        f"{V}:452-456",
        _image("pmm", "spec.pmm.image", "pmm.Image can't be empty", True),
    ),
    Refusal(
        "pxc-volume",
        "pxc",
        "spec.pxc.volumeSpec",
        "no data volume, or a claim without a storage request",
        f"{V}:458-464, 1680-1694",
        _volume("spec.pxc.volumeSpec", "PXC: validate volume spec: ", has_pxc),
    ),
    Refusal(
        "pxc-both-proxies",
        "pxc",
        "spec.haproxy.enabled, spec.proxysql.enabled",
        "HAProxy and ProxySQL both on",
        f"{V}:466-468",
        _both_proxies,
    ),
    Refusal(
        "pxc-haproxy-image",
        "pxc",
        "spec.haproxy.image",
        "HAProxy on without an image",
        f"{V}:470-474",
        _image("haproxy", "spec.haproxy.image", "haproxy.Image can't be empty", True),
    ),
    Refusal(
        "pxc-proxysql-image",
        "pxc",
        "spec.proxysql.image",
        "ProxySQL on without an image",
        f"{V}:476-479",
        _image("proxysql", "spec.proxysql.image", "proxysql.Image can't be empty", True),
    ),
    Refusal(
        "pxc-proxysql-volume",
        "pxc",
        "spec.proxysql.volumeSpec",
        "ProxySQL on without a volume, or a claim without a storage request",
        f"{V}:480-486, 1680-1694",
        _volume("spec.proxysql.volumeSpec", "ProxySQL: validate volume spec: ", _proxy_enabled("proxysql")),
    ),
    Refusal(
        "pxc-backup",
        "pxc",
        "spec.backup",
        "a backup section without an image, PITR or a schedule naming no storage, a filesystem storage without a volume",
        f"{V}:489-517",
        _backup,
    ),
    Refusal("pxc-smart-update", "pxc", "spec.updateStrategy", "SmartUpdate without a proxy", f"{V}:519-523", _smart_update),
    Refusal("pxc-users", "pxc", "spec.users", "two users of one name", f"{V}:525-531", _users),
    Refusal(
        "pxc-extra-pvcs",
        "pxc",
        "spec.pxc.extraPVCs",
        "a repeated volume name, mount path or claim",
        f"{V}:533-536, 1825-1852",
        _extra_pvcs,
    ),
    Refusal("pxc-safe-tls", "pxc", "spec.tls.enabled", "TLS off without unsafeFlags.tls", f"{V}:1164-1169, 1502-1504", safe_tls),
    Refusal(
        "pxc-safe-size",
        "pxc",
        "spec.pxc.size",
        "a size other than 3 or 5 without unsafeFlags.pxcSize",
        f"{V}:1164-1169, 1506-1516",
        safe_pxc_size,
    ),
    Refusal(
        "pxc-safe-proxysql-size",
        "pxc",
        "spec.proxysql.size",
        "fewer than 2 ProxySQL pods without unsafeFlags.proxySize",
        f"{V}:1164-1169, 1518-1522",
        safe_proxy_size("proxysql", "ProxySQL"),
    ),
    Refusal(
        "pxc-safe-haproxy-size",
        "pxc",
        "spec.haproxy.size",
        "fewer than 2 HAProxy pods without unsafeFlags.proxySize",
        f"{V}:1164-1169, 1524-1528",
        safe_proxy_size("haproxy", "HAProxy"),
    ),
    Refusal(
        "pxc-configuration-template",
        "pxc",
        "spec.pxc.configuration",
        "a {{ }} template in the configuration without a memory limit",
        f"{V}:1197-1199, 1648-1653",
        configuration_template("pxc"),
    ),
    Refusal(
        "pxc-haproxy-configuration-template",
        "pxc",
        "spec.haproxy.configuration",
        "a {{ }} template in HAProxy's configuration without a memory limit",
        f"{V}:1269-1271, 1648-1653",
        configuration_template("haproxy"),
    ),
    Refusal(
        "pxc-proxysql-configuration-template",
        "pxc",
        "spec.proxysql.configuration",
        "a {{ }} template in ProxySQL's configuration without a memory limit",
        f"{V}:1318-1320, 1648-1653",
        configuration_template("proxysql"),
    ),
    Refusal(
        "pxc-tls-duration-syntax",
        "pxc",
        "spec.tls.certValidityDuration, spec.tls.caValidityDuration",
        "a validity Go cannot read: the operator cannot decode the object at all",
        "k8s.io/apimachinery pkg/apis/meta/v1/duration.go:32-45 (metav1.Duration.UnmarshalJSON)",
        duration_syntax,
    ),
    Refusal(
        "pxc-tls-durations",
        "pxc",
        "spec.tls.certValidityDuration, spec.tls.caValidityDuration",
        "certificates valid under 1 hour, a CA valid shorter than them or not beyond 730 hours",
        f"{V}:1392-1405",
        tls_durations,
    ),
)
