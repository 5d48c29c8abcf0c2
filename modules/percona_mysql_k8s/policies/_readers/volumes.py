"""A ``volumeSpec`` (the data volume of the members, a filesystem backup storage's volume) as the operator reads it.

* PXC 1.20.0 ``VolumeSpec.validate`` (pkg/apis/pxc/v1/pxc_types.go:1682-1694): no source at all becomes an
  empty ``persistentVolumeClaim``; a claim needs ``resources.requests.storage`` ("volume.resources.storage
  can't be empty"), else the operator refuses the cluster. ``app.Volumes`` (pkg/pxc/app/volumes.go:41-64)
  takes the claim when there is one, else ``hostPath`` and ``emptyDir`` as the pods' volume.
* PS v1.2.0 ``validateVolume`` (api/v1/perconaservermysql_types.go:1378-1405): exactly one of ``emptyDir``,
  ``hostPath``, ``persistentVolumeClaim``; a claim needs ``resources.limits.storage`` or
  ``resources.requests.storage``. ``pkg/mysql/mysql.go:203-222``: a claim becomes the StatefulSet's
  volumeClaimTemplate, else the pod's ``hostPath``/``emptyDir`` volume.
"""

from __future__ import annotations

from dataclasses import dataclass

from percona_mysql_k8s.core.quantity import QuantityError, parse_quantity

from .values import MISSING, as_map, join, known

CLAIM, EMPTY_DIR, HOST_PATH = "persistentVolumeClaim", "emptyDir", "hostPath"


@dataclass(frozen=True)
class Volume:
    source: str | None  # the source the operator mounts; None when it refuses the spec
    problem: str | None  # why the operator refuses the spec (the cluster), or None
    claim_bytes: int | None = None  # the claim's storage request (PS: or limit), in bytes
    claim_path: str = ""


def read_volume(raw, path: str, operator: str) -> Volume:
    """The data volume ``raw`` (a volumeSpec) gives, read as ``operator`` reads it."""
    if raw is MISSING or raw is None:
        said = "volumeSpec should be specified" if operator == "pxc" else "volumeSpec provided is nil"
        return Volume(None, f"{path} is absent ({said})")
    spec = as_map(raw, path)
    # a source unknown at preview (another resource's output) may be null or absent at up: NotKnown
    given = [
        name for name in (EMPTY_DIR, HOST_PATH, CLAIM) if known(spec.get(name, MISSING), join(path, name)) not in (MISSING, None)
    ]
    if operator == "ps" and len(given) != 1:
        what = "no volume source" if not given else f"more than one volume source ({', '.join(given)})"
        return Volume(None, f"{path} has {what}: it must specify exactly one")
    if operator == "pxc" and not given:
        given = [CLAIM]  # an empty claim, which then lacks its storage request
    if CLAIM not in given:
        return Volume(given[0], None)
    claim_path = join(path, CLAIM)
    resources = as_map(as_map(spec.get(CLAIM, {}), claim_path).get("resources", MISSING), join(claim_path, "resources"))
    places = ("requests",) if operator == "pxc" else ("limits", "requests")
    for place in reversed(places):  # PS: the request when both are set (volumeClaimTemplates sizes by it)
        amount = as_map(resources.get(place, MISSING), join(join(claim_path, "resources"), place)).get("storage", MISSING)
        storage_path = join(join(join(claim_path, "resources"), place), "storage")
        if known(amount, storage_path) not in (MISSING, None):
            try:
                return Volume(CLAIM, None, int(parse_quantity(amount)), storage_path)
            except QuantityError as error:
                return Volume(None, f"{storage_path} is {amount!r}, not a quantity ({error})")
    wanted = "resources.requests.storage" if operator == "pxc" else "resources.limits.storage or resources.requests.storage"
    return Volume(None, f"{claim_path} has no {wanted}")
