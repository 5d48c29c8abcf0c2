"""The cluster plan: the stack config, for one target, to the shape every target decides.

* :mod:`.shape`: :class:`ClusterSettings` (name, size, the two pools) and each target's part of it;
* :mod:`.keys`: the config keys this layer reads, which target reads each, typed access, labels and taints;
* :mod:`.common`: what every target decides alike (bounds, machine budgets, our own clusters' two pools);
* one module per target: :mod:`.gke`, :mod:`.eks`, :mod:`.kind` (and the host it runs on), :mod:`.existing`
  (with :mod:`.inventory`, reading an existing cluster's Nodes);
* :mod:`.decide`: :func:`cluster_settings_from_config`, the entry.

Pure (no Pulumi): the components of :mod:`percona_mysql_k8s.clusters` take a ClusterSettings and register resources.
"""

from .decide import cluster_settings_from_config
from .keys import CONFIG_KEYS, TARGET_KEYS, decode_config_value
from .shape import TARGETS, ClusterArgs, ClusterSettings, EksSettings, ExistingSettings, GkeSettings, KindSettings, ZonePlacement

__all__ = [
    "CONFIG_KEYS",
    "ClusterArgs",
    "TARGETS",
    "TARGET_KEYS",
    "ClusterSettings",
    "EksSettings",
    "ExistingSettings",
    "GkeSettings",
    "KindSettings",
    "ZonePlacement",
    "cluster_settings_from_config",
    "decode_config_value",
]
