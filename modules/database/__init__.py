"""The database layer: Percona operators, clusters, proxies, PMM and sysbench on a ClusterTarget."""
