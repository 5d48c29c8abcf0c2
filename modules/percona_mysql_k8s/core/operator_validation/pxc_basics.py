"""The PXC operator 1.20.0's own constants and its reading of crVersion, shared by its refusal checks (pxc.py,
pxc_safety.py); every source line cited is in pkg/apis/pxc/v1/pxc_types.go unless it names another file."""

from __future__ import annotations

from collections.abc import Iterator

from ..go_version import GoVersion, MalformedVersion, parse_version
from .model import Reader

OPERATOR_VERSION = "1.20.0"  # setCRVersion (pkg/controller/pxc/version.go:533-548) writes it into an empty crVersion
CLUSTER_NAME_MAX = 22  # clusterNameMaxLen (pxc_types.go:1042)
SAFE_DEFAULTS_SINCE = "1.15.0"  # below it the operator raises sizes silently (setSafeDefaults) instead of refusing
MAX_SAFE_PXC_SIZE, MIN_SAFE_PROXY_SIZE = 5, 2  # maxSafePXCSize, minSafeProxySize (1410-1411)
# pkg/pxctls/pxctls.go:16-18 and cert-manager's MinimumCertificateDuration (pkg/apis/certmanager/v1/const.go:23)
DEFAULT_CERT_HOURS, DEFAULT_CA_HOURS, RENEW_BEFORE_HOURS, MINIMUM_CERT_HOURS = 24 * 90, 24 * 365 * 3, 730, 1
RESERVED_CHANNEL_NAMES = ("group_replication_applier", "group_replication_recovery")
Found = Iterator[tuple[str, str, str, str]]


def cr_version(r: Reader) -> GoVersion | None:
    """The crVersion the operator compares with (its own when empty); None when it is malformed (Validate refuses)."""
    try:
        return parse_version(r.text("spec.crVersion") or OPERATOR_VERSION)
    except MalformedVersion:
        return None


def has_pxc(r: Reader) -> bool:
    return r.present("spec.pxc")
