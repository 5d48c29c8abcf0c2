"""Moved to :mod:`percona_mysql_k8s.cli.offline` (a stack program under mocks): this path warns, and goes in the
release percona_mysql_k8s._moved.REMOVED_IN names."""

from percona_mysql_k8s import _moved
from percona_mysql_k8s.cli import offline as _new

_moved.alias(__spec__, _new, running=False)
