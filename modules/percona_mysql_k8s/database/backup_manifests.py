"""Moved to :mod:`percona_mysql_k8s.plan.database.backup_manifests` and :mod:`percona_mysql_k8s.plan.database.restore` (issue 23): this path warns and is removed in the next release."""

from percona_mysql_k8s._moved import moved_to

__getattr__, __dir__ = moved_to(
    __name__, ["percona_mysql_k8s.plan.database.backup_manifests", "percona_mysql_k8s.plan.database.restore"]
)
