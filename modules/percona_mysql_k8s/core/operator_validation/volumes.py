"""A ``volumeSpec`` (the members' data volume, ProxySQL's, a filesystem backup storage's) as the operator reads it.

* PXC 1.20.0 ``VolumeSpec.validate`` (pkg/apis/pxc/v1/pxc_types.go:1680-1694): no source at all becomes an empty
  ``persistentVolumeClaim``; a claim needs the key ``resources.requests.storage`` ("volume.resources.storage can't be
  empty"), else the operator refuses the cluster. ``app.Volumes`` (pkg/pxc/app/volumes.go:41-64) takes the claim when
  there is one, else ``hostPath`` and ``emptyDir`` as the pods' volume.
* PS v1.2.0 ``validateVolume`` (api/v1/perconaservermysql_types.go:1378-1412): exactly one of ``emptyDir``,
  ``hostPath``, ``persistentVolumeClaim``; a claim needs ``resources.limits.storage`` or ``resources.requests.storage``.
  ``pkg/mysql/mysql.go:203-222``: a claim becomes the StatefulSet's volumeClaimTemplate, else the pod's volume.

A storage that is no quantity cannot even be decoded (resource.Quantity's UnmarshalJSON); the API server refuses it
first in a custom resource (C1), chart values reach the operator without that check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..quantity import QuantityError, parse_quantity
from .model import ABSENT, Reader, UnknownField, Unreadable, join

CLAIM, EMPTY_DIR, HOST_PATH = "persistentVolumeClaim", "emptyDir", "hostPath"
SOURCES = (EMPTY_DIR, HOST_PATH, CLAIM)


@dataclass(frozen=True)
class Volume:
    source: str | None  # the source the operator mounts; None when it refuses the spec
    problem: str | None = None  # why the operator refuses the spec (the whole cluster), or None
    words: str = ""  # what the operator logs then (its error, without the caller's prefix)
    problem_path: str = ""  # the field to change
    found: str = ""  # what that field holds, said after its path
    claim_bytes: int | None = None  # the claim's storage request (PS: or limit), in bytes
    claim_path: str = ""


def read_volume(r: Reader, raw: Any, path: str, operator: str) -> Volume:
    """The data volume ``raw`` (a volumeSpec at ``path``) gives, read as ``operator`` reads it."""
    if raw is ABSENT or raw is None:
        said = "volumeSpec should be specified" if operator == "pxc" else "volumeSpec provided is nil"
        return Volume(None, f"{path} is absent ({said})", said, path, "is absent")
    if r.is_unknown(raw):
        raise UnknownField(path, raw)
    if not isinstance(raw, dict):
        raise Unreadable(path, "is not an object")
    spec = raw
    # a source unknown at preview (another resource's output) may be null or absent at up: its check waits
    given = [name for name in SOURCES if r.get(name, spec, path) is not ABSENT]
    if operator == "ps" and len(given) != 1:
        what = "no volume source" if not given else f"more than one volume source ({', '.join(given)})"
        words = (
            "volumeSpec must specify at least one volume source"
            if not given
            else "volumeSpec must specify at most one volume source — multiple sources set"
        )
        return Volume(None, f"{path} has {what}: it must specify exactly one", words, path, f"has {what}")
    if operator == "pxc" and not given:
        given = [CLAIM]  # an empty claim, which then lacks its storage request
    if CLAIM not in given:
        return Volume(given[0])
    claim_path = join(path, CLAIM)
    resources = join(claim_path, "resources")
    places = ("requests",) if operator == "pxc" else ("limits", "requests")
    for place in reversed(places):  # PS: the request when both are set (volumeClaimTemplates sizes by it)
        storage_path = join(join(resources, place), "storage")
        amount = r.get(f"{CLAIM}.resources.{place}.storage", spec, path)
        if amount is not ABSENT:
            try:
                return Volume(CLAIM, claim_bytes=int(parse_quantity(amount)), claim_path=storage_path)
            except QuantityError as error:
                problem = f"{storage_path} is {amount!r}, not a quantity ({error})"
                found = f"is {amount!r}, not a quantity ({error})"
                return Volume(None, problem, f"quantities must match the regular expression ({error})", storage_path, found)
    if operator == "pxc":
        return Volume(
            None,
            f"{claim_path} has no resources.requests.storage",
            "volume.resources.storage can't be empty",
            join(join(resources, "requests"), "storage"),
            "is not set"
            if given == [CLAIM] and r.get(CLAIM, spec, path) is not ABSENT
            else f"is not set ({path} names no volume source: the operator makes a claim)",
        )
    return Volume(
        None,
        f"{claim_path} has no resources.limits.storage or resources.requests.storage",
        "pvc's resources.limits[storage] or resources.requests[storage] should be specified",
        join(join(resources, "requests"), "storage"),
        "is not set (nor resources.limits.storage)",
    )
