"""Moved to :mod:`percona_mysql_k8s.plan.clusters` (issue 23: one module per target and the shape they share):
this path warns and is removed in the next release. The entry is
:func:`percona_mysql_k8s.plan.clusters.cluster_settings_from_config` (also :mod:`percona_mysql_k8s.clusters`)."""

from percona_mysql_k8s._moved import moved_to

# In the order the plan modules import each other, so a name resolves to the module defining it; the four
# targets' bound checks are also named check_bounds: the old name is the entry's.
__getattr__, __dir__ = moved_to(
    __name__,
    [
        "percona_mysql_k8s.plan.clusters.shape",
        "percona_mysql_k8s.plan.clusters.keys",
        "percona_mysql_k8s.plan.clusters.inventory",
        "percona_mysql_k8s.plan.clusters.common",
        "percona_mysql_k8s.plan.clusters.kind",
        "percona_mysql_k8s.plan.clusters.gke",
        "percona_mysql_k8s.plan.clusters.eks",
        "percona_mysql_k8s.plan.clusters.existing",
        "percona_mysql_k8s.plan.clusters.decide",
    ],
    renamed={"check_bounds": "percona_mysql_k8s.plan.clusters.decide:check_bounds"},
)
