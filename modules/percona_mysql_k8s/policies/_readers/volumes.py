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

from percona_mysql_k8s.core.operator_validation import ABSENT, Reader, UnknownField, Unreadable
from percona_mysql_k8s.core.operator_validation.volumes import CLAIM, EMPTY_DIR, HOST_PATH, Volume
from percona_mysql_k8s.core.operator_validation.volumes import read_volume as _read

from .values import MISSING, Malformed, NotKnown, Unknown

__all__ = ["CLAIM", "EMPTY_DIR", "HOST_PATH", "Volume", "read_volume"]


def read_volume(raw, path: str, operator: str) -> Volume:
    """The data volume ``raw`` (a volumeSpec) gives, read as ``operator`` reads it (the core's one reader, rule C2's):
    a field unknown at preview raises NotKnown, one the operator cannot hold Malformed."""
    reader = Reader({}, lambda value: isinstance(value, Unknown))
    try:
        return _read(reader, ABSENT if raw is MISSING else raw, path, operator)
    except UnknownField as unknown:
        value = unknown.value
        raise value.error(unknown.path) if isinstance(value, Unknown) else NotKnown(unknown.path) from None
    except Unreadable as problem:
        raise Malformed(problem.path, problem.problem) from None
