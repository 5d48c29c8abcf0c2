"""Moved to :mod:`percona_mysql_k8s.plan.config.backup` (issue 23: one config decoder in the pure plan layer):
this path warns and is removed in the next release."""

from percona_mysql_k8s._moved import moved_to

__getattr__, __dir__ = moved_to(__name__, ["percona_mysql_k8s.plan.config.keys", "percona_mysql_k8s.plan.config.backup"])
