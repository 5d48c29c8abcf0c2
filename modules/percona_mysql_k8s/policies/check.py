"""Moved to :mod:`percona_mysql_k8s.cli.check` (``percona-mysql-policy-check``): this path warns, and goes in the release
percona_mysql_k8s._moved.REMOVED_IN names. Never vendored into a pack (cli.bundle.NOT_VENDORED)."""

import sys

from percona_mysql_k8s import _moved
from percona_mysql_k8s.cli import check as _new

_moved.alias(__spec__, _new, running=__name__ == "__main__")
if __name__ == "__main__":
    sys.exit(_new.main())
