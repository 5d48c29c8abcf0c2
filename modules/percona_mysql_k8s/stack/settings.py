"""The stack program's settings: the decoder is :mod:`percona_mysql_k8s.plan.config` (issue 23: one decoder in the
pure plan layer). The names the stack program, the component package and the docs read are re-exported here;
any other name of the old module still reads, warning and naming its new home, for one release."""

from percona_mysql_k8s._moved import moved_to
from percona_mysql_k8s.plan.config import (
    CONFIG_KEYS,
    OPTIONAL_KEYS,
    PMM_TOKEN_KEY,
    StackSettings,
    all_keys,
    check_config_keys,
    stack_settings_from_config,
    target_keys,
)

__all__ = [
    "CONFIG_KEYS",
    "OPTIONAL_KEYS",
    "PMM_TOKEN_KEY",
    "StackSettings",
    "all_keys",
    "check_config_keys",
    "stack_settings_from_config",
    "target_keys",
]

__getattr__, __dir__ = moved_to(
    __name__,
    [
        "percona_mysql_k8s.plan.config.keys",
        "percona_mysql_k8s.plan.config.backup",
        "percona_mysql_k8s.plan.config.sections",
        "percona_mysql_k8s.plan.config.decide",
    ],
)
