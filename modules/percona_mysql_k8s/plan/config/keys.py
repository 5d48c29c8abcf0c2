"""The database layer's config keys (their types and Pulumi.yaml defaults), the typed reader every decoder
uses, and the checks of the key set itself (every key declared, secrets stored as secrets).

Pure (no Pulumi). The cluster layer's keys are :mod:`percona_mysql_k8s.plan.clusters.keys`'.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Container, Mapping
from typing import Any

from percona_mysql_k8s.core.cloud_keys import static_cloud_keys
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import whole_number
from percona_mysql_k8s.plan.clusters.keys import CONFIG_KEYS as CLUSTER_KEYS

# key: (type, default declared in Pulumi.yaml; a test keeps the two in step)
BACKUP_KEYS: dict[str, tuple[type, object]] = {
    "backup": (bool, True),
    "backupSchedule": (str, "0 3 * * *"),
    "backupRetentionDays": (int, 7),
    "pitr": (bool, True),
    "pitrUploadSeconds": (int, 60),
    "backupBucket": (str, ""),
    "backupKmsKey": (str, ""),
    "backupEndpoint": (str, ""),
    "backupRegion": (str, ""),
    "backupCredentialsSecret": (str, ""),
}
# Backup keys only some targets read: set elsewhere they would be ignored, so they are refused.
CLOUD_ONLY = ("backupKmsKey",)
ENDPOINT_ONLY = ("backupEndpoint", "backupRegion", "backupCredentialsSecret")
CLOUD_TARGETS = ("gke", "eks")

# The database layer's keys with their type and the default declared in Pulumi.yaml (a test keeps the
# two in step).
CONFIG_KEYS: dict[str, tuple[type, object]] = {
    "engine": (str, "pxc"),
    # read by both layers, declared once (the cluster layer's)
    **{key: CLUSTER_KEYS[key] for key in ("clusterSize", "ephemeral")},
    "proxy": (str, "haproxy"),
    "load": (str, "light-oltp"),
    "connections": (int, 0),
    "mysqlVersion": (str, "8.4"),
    "namespace": (str, "mysql"),
    "storageClass": (str, ""),
    "storageSize": (str, "100Gi"),
    "diskIops": (int, 3000),
    "logCollector": (bool, True),
    # what `pulumi up` waits for on the custom resource: the operator's "ready", or its first reconcile
    "databaseAwait": (str, "ready"),
    **BACKUP_KEYS,  # scheduled backups and PITR (plan.config.backup, R1-R4)
    "installOperator": (bool, True),
    # false: the database namespace exists already (e.g. holding the backup credentials Secret, or made by the
    # platform team); the Kubernetes provider refuses to create an object that exists
    "createNamespace": (bool, True),
    "installPmm": (bool, True),
    "pmmEnabled": (bool, True),
    "pmmServerHost": (str, ""),
    "sysbenchEnabled": (bool, False),
    "sysbenchRunId": (str, ""),
    "sysbenchDataSize": (str, ""),
    "sysbenchThreads": (list, [1, 4, 16, 64, 256, 1024]),
    "sysbenchDuration": (int, 600),
    "sysbenchWarmup": (int, 300),
    "sysbenchRate": (int, 0),
    "sysbenchCleanup": (bool, False),
    # Air-gapped installs (database.sources): "" = the public pinned chart / CRDs.
    "operatorChart": (str, ""),
    "pmmChart": (str, ""),
    "operatorCrds": (str, ""),
    "imageRegistry": (str, ""),
    # R6: NetworkPolicies around the database pods and proxies; who besides the database namespace may
    # reach the proxies (namespaces; pod labels as key=value items).
    "networkPolicies": (bool, True),
    "clientNamespaces": (list, []),
    "clientPodLabels": (list, []),
    # the admission server (plan.config.admission): "" (none), enforce, warn or audit
    "admission": (str, ""),
    "admissionImage": (str, ""),
    "admissionAuditSeconds": (int, 300),
    "admissionApiServerCidrs": (list, []),
}
OPTIONAL_KEYS: dict[str, tuple[type, object]] = {
    # Name of the database custom resource; empty = clusterName (at most 22 characters, PXC's limit).
    "dbClusterName": (str, ""),
    # Storage of the PMM server's data volume.
    "pmmStorageSize": (str, "20Gi"),
}
# A secret key: its value never enters these settings, only whether it is set.
PMM_TOKEN_KEY = "pmmServerToken"


def _decode(key: str, value: object, kind: type) -> object:
    """Raw config strings (what ``pulumi.Config.get`` returns) to the key's type; decoded values pass."""
    if not isinstance(value, str) or kind is str:
        if kind is str and isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)  # e.g. mysqlVersion: 8.4 written without quotes
        return value
    text = value.strip()
    if kind is bool:
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise InputError(key, f"{value!r} is not true or false")
    if kind is int:
        try:
            return whole_number(text)
        except ValueError:
            raise InputError(key, f"{value!r} is not a whole number (ASCII digits)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [item.strip() for item in text.split(",") if item.strip()]


def _typed(key: str, value: object, kind: type) -> object:
    """``value`` (decoded) checked against the key's type; an error names the key."""
    if kind is str and not isinstance(value, str):
        raise InputError(key, f"{value!r} is not a string")
    if kind is bool and not isinstance(value, bool):
        raise InputError(key, f"{value!r} is not true or false")
    if kind is int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(key, f"{value!r} is not a whole number")
    if kind is list:
        if not isinstance(value, list):
            raise InputError(key, f"{value!r} is not a list")
        value = [int(v) if isinstance(v, float) and v.is_integer() else v for v in value]
    return value.strip() if isinstance(value, str) else value


class ConfigValues:
    """The database layer's keys, each decoded to its type once (Pulumi.yaml's default for an absent key), and
    read into its domain once (:meth:`parsed`: a volume size in bytes, the backup schedule as a CronSchedule).

    :meth:`of` hands a reader on: every decoder of one stack reads the same values, and a key read twice is
    decoded and parsed once.
    """

    def __init__(self, values: Mapping[str, object]):
        self.raw = values
        self._decoded: dict[str, object] = {}
        self._parsed: dict[str, Any] = {}

    @classmethod
    def of(cls, values: Mapping[str, object] | ConfigValues) -> ConfigValues:
        return values if isinstance(values, ConfigValues) else cls(values)

    def get(self, key: str) -> object:
        if key not in self._decoded:
            kind, default = {**CONFIG_KEYS, **OPTIONAL_KEYS}[key]
            raw = self.raw.get(key)
            self._decoded[key] = _typed(key, default if raw is None else _decode(key, raw, kind), kind)
        return self._decoded[key]

    def parsed(self, key: str, parse: Callable[[Any], Any]) -> Any:
        """``key``'s decoded value read by ``parse``, its one domain reader (which raises an InputError naming
        ``key``), the first time; the same typed value afterwards."""
        if key not in self._parsed:
            self._parsed[key] = parse(self.get(key))
        return self._parsed[key]


def check_config_keys(config: Mapping[str, object], *, project: str, secret_keys: Container[str]) -> None:
    """Every key of the project's namespace is one the program reads (a misspelling is never ignored), and
    a PMM token, when one is set, is stored encrypted (S1). ``config`` maps full ``project:key`` names to
    values as the engine passes them (Pulumi.yaml defaults included). A production stack's config holds no
    static cloud key (R4, core.cloud_keys, the policy pack's test); an ephemeral one (``ephemeral: true``) may."""
    if str(config.get(f"{project}:ephemeral", "")).lower() != "true":
        for found in static_cloud_keys(config):
            raise InputError(
                found.key,
                f"{found.what}: no static cloud key belongs in stack config (remove it; on gke/eks "
                "the stack creates a key scoped to the backup bucket, elsewhere name a Secret you "
                "created in backupCredentialsSecret)",
                "R4",
            )
    known = set(all_keys()) | {PMM_TOKEN_KEY}
    for full in sorted(config):
        namespace, _, key = full.partition(":")
        if namespace != project or key in known:
            continue
        close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise InputError(key, f"is not a setting of this project{hint} (every setting is declared in Pulumi.yaml)")
    token = f"{project}:{PMM_TOKEN_KEY}"
    if config.get(token) and token not in secret_keys:
        raise InputError(
            PMM_TOKEN_KEY,
            "is stored in plain text in the stack config: set it with `pulumi config set --secret pmmServerToken <token>`",
            "S1",
        )


def all_keys() -> tuple[str, ...]:
    """Every key the stack program reads (cluster layer + database layer), secrets excluded."""
    return tuple(dict.fromkeys([*CLUSTER_KEYS, *CONFIG_KEYS, *OPTIONAL_KEYS]))


TARGETS = ("gke", "eks", "kind", "existing")
_TARGET_PREFIXES = {"gcp": ("gke",), "gke": ("gke",), "aws": ("eks",), "eks": ("eks",), "kind": ("kind",)}


def target_keys(target: str) -> tuple[str, ...]:
    """The keys a stack of ``target`` reads, in all_keys() order (``target`` itself left out): the inputs of the
    package's component for that target (percona_mysql_k8s.stack.components). A key of another target is one the
    settings refuse or ignore there (plan.clusters.TARGET_KEYS, CLOUD_ONLY/ENDPOINT_ONLY above, and the
    gke*/eks*/kind* keys only their target reads)."""
    from percona_mysql_k8s.plan.clusters import TARGET_KEYS

    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}")

    def owners(key: str) -> tuple[str, ...]:
        if key in TARGET_KEYS:
            return TARGET_KEYS[key]
        if key in CLOUD_ONLY:
            return CLOUD_TARGETS
        if key in ENDPOINT_ONLY:
            return ("kind", "existing")
        prefix = next((p for p in _TARGET_PREFIXES if key.startswith(p) and key[len(p) : len(p) + 1].isupper()), None)
        return _TARGET_PREFIXES[prefix] if prefix else TARGETS

    return tuple(key for key in all_keys() if key != "target" and target in owners(key))
