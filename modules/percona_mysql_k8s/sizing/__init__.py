"""The sizing command: ``python -m percona_mysql_k8s.sizing --help``. A thin view over :mod:`percona_mysql_k8s.core`."""
