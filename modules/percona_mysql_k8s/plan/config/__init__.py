"""The config decoder: the stack config to typed settings, each setting decoded and parsed once (issue 23).

* :mod:`.keys`: the database layer's keys (types, Pulumi.yaml defaults), :class:`ConfigValues` (each key decoded
  once, read into its domain once), and the checks of the key set (every key declared, a token stored secret);
* :mod:`.backup`: the backup keys, the schedule parsed once into a
  :class:`~percona_mysql_k8s.core.cron.CronSchedule` that the plan, the custom resources and the bucket receive;
* :mod:`.sections`: the database cluster, PMM, sysbench, the NetworkPolicies' clients, the chart sources;
* :mod:`.kind_fit`: on kind, the richest layout the host holds;
* :mod:`.decide`: :func:`stack_settings_from_config`, the entry: every part, sized (:class:`StackSettings`).

Pure (no Pulumi). The cluster layer's keys are decoded by :mod:`percona_mysql_k8s.plan.clusters`, which the entry
calls. :mod:`percona_mysql_k8s.stack.settings` re-exports the entry for the stack program.
"""

from .backup import BackupSettings, backup_schedule, backup_settings
from .decide import StackSettings, stack_settings_from_config
from .keys import CONFIG_KEYS, OPTIONAL_KEYS, PMM_TOKEN_KEY, ConfigValues, all_keys, check_config_keys, target_keys
from .sections import PmmSettings, Sources, SysbenchSettings

__all__ = [
    "CONFIG_KEYS",
    "OPTIONAL_KEYS",
    "PMM_TOKEN_KEY",
    "BackupSettings",
    "ConfigValues",
    "PmmSettings",
    "Sources",
    "StackSettings",
    "SysbenchSettings",
    "all_keys",
    "backup_schedule",
    "backup_settings",
    "check_config_keys",
    "stack_settings_from_config",
    "target_keys",
]
