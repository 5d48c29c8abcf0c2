"""The cluster layer's config keys: their types and Pulumi.yaml defaults, which target reads each, and typed
access to the decoded values (each error an :class:`InputError` naming the key and the rule)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.names import label_key_problem, label_value_problem
from percona_mysql_k8s.core.pools import DATABASE_TAINT, Taint
from percona_mysql_k8s.core.units import whole_number

from .shape import TAINT_EFFECTS

# Every config key this layer reads, with its type and the default declared in Pulumi.yaml (a test keeps
# the two in step). Values arrive decoded: str, int, bool or list[str].
CONFIG_KEYS: dict[str, tuple[type, object]] = {
    "target": (str, "kind"),
    "clusterName": (str, "percona-mysql"),
    "clusterSize": (int, 3),
    "ephemeral": (bool, False),
    "databaseNodeType": (str, ""),
    "databaseNodeCount": (int, 3),
    "databaseDiskSizeGb": (int, 100),
    "monitoringNodeType": (str, ""),
    "monitoringNodeCount": (int, 1),
    # "" = the provider's default DaemonSet requests (core.allocatable.DEFAULT_DAEMONSETS, K1)
    "daemonsetCpu": (str, ""),
    "daemonsetMemory": (str, ""),
    "gcpProject": (str, ""),
    "gcpRegion": (str, ""),
    "gcpZones": (list, []),
    "gkeReleaseChannel": (str, "REGULAR"),
    "gkePrivateNodes": (bool, True),
    "gkeNetwork": (str, "default"),
    "gkeSubnetwork": (str, ""),
    # GKE hardening (issue 11): Cloud NAT for private nodes, control-plane CIDRs, KMS for Secrets in etcd.
    "gkeCloudNat": (bool, True),
    "gkeMasterAuthorizedNetworks": (list, []),
    "gkeSecretsKmsKey": (str, ""),
    "awsRegion": (str, ""),
    "eksVersion": (str, "1.33"),
    "eksVpcId": (str, ""),
    "eksSubnetIds": (list, []),
    "eksPrivateEndpoint": (bool, False),
    # EKS hardening (issue 11): the public endpoint only for these CIDRs; Secrets envelope encryption key.
    "eksPublicAccessCidrs": (list, []),
    "eksSecretsKmsKeyArn": (str, ""),
    "kindHostShare": (str, "auto"),
    "kindHostCpu": (str, ""),
    "kindHostMemory": (str, ""),
    "kindNodeImage": (str, "kindest/node:v1.33.1"),
    "kubeconfig": (str, ""),
    "kubeContext": (str, ""),
    "databasePoolLabels": (str, ""),
    "databasePoolTaint": (str, ""),
    "monitoringPoolLabels": (str, ""),
    "existingNodeCpu": (str, ""),
    "existingNodeMemory": (str, ""),
    "existingNodeSource": (str, "cluster"),
    "existingNodeZones": (list, []),
    # K7: a production stack whose zones cannot keep a majority through a zone's loss runs only with this set
    "acceptZoneLoss": (bool, False),
}


def decode_config_value(key: str, raw: str) -> object:
    """A raw config string (as the Pulumi CLI passes it) decoded to the key's type."""
    kind, _ = CONFIG_KEYS[key]
    if kind is str:
        return raw
    if kind is bool:
        lowered = raw.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise InputError(key, f"{raw!r} is not true or false")
    if kind is int:
        try:
            return whole_number(raw)
        except ValueError:
            raise InputError(key, f"{raw!r} is not a whole number (ASCII digits)") from None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = [item.strip() for item in raw.split(",") if item.strip()]
    return value


def rekey(error: InputError, key: str) -> InputError:
    """A core error re-issued under the stack config key the user actually set."""
    prefix = (f"{error.rule}: " if error.rule else "") + f"{error.key}: "
    message = str(error)
    return InputError(key, message[len(prefix) :] if message.startswith(prefix) else message, error.rule)


class Values:
    """Typed access to the decoded config, with Pulumi.yaml's defaults for absent keys."""

    def __init__(self, values: Mapping[str, object]):
        self._values = values

    def explicit(self, key: str) -> bool:
        """Whether the stack config sets ``key`` (rather than Pulumi.yaml's default applying)."""
        return self._values.get(key) is not None

    def _get(self, key: str) -> object:
        kind, default = CONFIG_KEYS[key]
        value = self._values.get(key)
        return default if value is None else value

    def text(self, key: str) -> str:
        value = self._get(key)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise InputError(key, f"{value!r} is not a string")
        return str(value).strip()

    def matching(self, key: str, pattern: re.Pattern[str], what: str, missing: str = "") -> str:
        """The text of ``key``, which ``pattern`` must match in full ("'<text>' is not <what>" otherwise);
        with ``missing``, the error an empty value raises (a key the target cannot do without)."""
        value = self.text(key)
        if missing and not value:
            raise InputError(key, missing)
        if not pattern.fullmatch(value):
            raise InputError(key, f"{value!r} is not {what}")
        return value

    def integer(self, key: str, minimum: int, rule: str | None = None, why: str = "") -> int:
        value = self._get(key)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # numbers may round-trip through JSON as floats
        if isinstance(value, str):
            try:
                value = whole_number(value)
            except ValueError:
                pass  # refused below, naming the key
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(key, f"{value!r} is not a whole number", rule=rule)
        if value < minimum:
            raise InputError(key, f"{value} is below the minimum of {minimum}{why}", rule=rule)
        return value

    def flag(self, key: str) -> bool:
        value = self._get(key)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        if not isinstance(value, bool):
            raise InputError(key, f"{value!r} is not true or false")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self._get(key)
        if isinstance(value, str):
            value = decode_config_value(key, value) if value.strip() else []
        if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
            raise InputError(key, f"{value!r} is not a list of strings")
        items = tuple(item.strip() for item in value if item.strip())
        duplicates = sorted({item for item in items if items.count(item) > 1})
        if duplicates:
            raise InputError(key, f"{', '.join(map(repr, duplicates))} listed more than once")
        return items


# ---- keys of one target: set on another, they would be ignored ---------------------------------------

# Which targets read each target-specific key (every other key is read by all targets).
TARGET_KEYS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        ("gcpProject", "gcpRegion", "gcpZones", "gkeReleaseChannel", "gkePrivateNodes", "gkeNetwork", "gkeSubnetwork"), ("gke",)
    ),
    **dict.fromkeys(("awsRegion", "eksVersion", "eksVpcId", "eksSubnetIds", "eksPrivateEndpoint"), ("eks",)),
    **dict.fromkeys(("kindHostShare", "kindHostCpu", "kindHostMemory", "kindNodeImage"), ("kind",)),
    **dict.fromkeys(
        (
            "kubeconfig",
            "kubeContext",
            "databasePoolLabels",
            "databasePoolTaint",
            "monitoringPoolLabels",
            "existingNodeCpu",
            "existingNodeMemory",
            "existingNodeSource",
            "existingNodeZones",
        ),
        ("existing",),
    ),
    # kind sizes one worker per member from a share of the host: no machine types, counts or boot disks
    **dict.fromkeys(
        ("databaseNodeType", "monitoringNodeType", "databaseNodeCount", "databaseDiskSizeGb"), ("gke", "eks", "existing")
    ),
}


def check_target_keys(values: Mapping[str, object], target: str) -> None:
    """A key another target reads, set to anything but its default, is an error: it would be ignored."""
    for key, owners in TARGET_KEYS.items():
        value = values.get(key)
        if value is None or target in owners:
            continue
        default = CONFIG_KEYS[key][1]
        decoded = decode_config_value(key, value) if isinstance(value, str) and not isinstance(default, str) else value
        if decoded == default or (isinstance(decoded, str) and decoded.strip() == str(default)):
            continue
        raise InputError(
            key,
            f"applies only to target {' or '.join(owners)}, and this stack's target is {target}: it would "
            "be ignored (remove it from the stack config, or change target)",
        )


def _check_label_key(key: str, config_key: str, rule: str) -> None:
    if label_key_problem(key):
        raise InputError(config_key, f"{key!r} is not a valid Kubernetes label key ([prefix/]name)", rule=rule)


def parse_labels(text: str, config_key: str) -> dict[str, str]:
    """``"k=v,k2=v2"`` as a label map; each key and value checked against Kubernetes' label syntax (K4)."""
    labels: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise InputError(config_key, f"{item!r} is not key=value (write the labels as k=v,k2=v2)", rule="K4")
        _check_label_key(key, config_key, "K4")
        if label_value_problem(value):
            raise InputError(config_key, f"{value!r} is not a valid Kubernetes label value", rule="K4")
        if key in labels:
            raise InputError(config_key, f"label {key!r} is given twice", rule="K4")
        labels[key] = value
    return labels


def parse_taint(text: str, config_key: str) -> Taint:
    """``"key=value:Effect"`` (or ``"key:Effect"``) as a :class:`Taint` (K4)."""
    head, sep, effect = text.strip().rpartition(":")
    if not sep or not head:
        raise InputError(
            config_key, f"{text!r} is not key=value:Effect (e.g. {DATABASE_TAINT.key}=database:NoSchedule)", rule="K4"
        )
    if effect not in TAINT_EFFECTS:
        raise InputError(config_key, f"taint effect {effect!r} is not one of {', '.join(TAINT_EFFECTS)}", rule="K4")
    key, _, value = head.partition("=")
    _check_label_key(key, config_key, "K4")
    if label_value_problem(value):
        raise InputError(config_key, f"{value!r} is not a valid taint value", rule="K4")
    return Taint(key, value, effect)
