"""Moved to :mod:`percona_mysql_k8s.plan.database.spec` and :mod:`percona_mysql_k8s.plan.database.manifests` and :mod:`percona_mysql_k8s.plan.database.pods` (issue 23): this path warns and is removed in the next release."""

from percona_mysql_k8s._moved import moved_to

__getattr__, __dir__ = moved_to(
    __name__,
    ["percona_mysql_k8s.plan.database.spec", "percona_mysql_k8s.plan.database.manifests", "percona_mysql_k8s.plan.database.pods"],
)
