"""The CrossGuard policy pack: one policy per module, assembled by the shell in ``pack/`` (``__main__.py``).

Policies are importable without starting the pack (``PolicyPack`` serves forever); the list is
:data:`percona_mysql_k8s.policies._catalog.ALL_POLICIES`. The shell is package data, the one source of the
checkout's ``policies/`` (links to it) and of every bundle (percona_mysql_k8s.cli.bundle copies it). The
tools that run the pack (the offline check, the bundle builder) are in :mod:`percona_mysql_k8s.cli`.
"""

from pathlib import Path

SHELL = Path(__file__).resolve().parent / "pack"
SHELL_FILES = ("PulumiPolicy.yaml", "__main__.py", "requirements.txt")

# The pack's name and description (here, not in _catalog, so the pack can name itself before it imports its
# policies: percona_mysql_k8s.policies._lazy).
PACK_NAME = "percona-mysql"
PACK_DESCRIPTION = (
    "Percona MySQL on Kubernetes: flow control, memory split, topology, placement, capacity and safety "
    "rules of the rule catalogue (docs/rules.md), on our modules, Helm charts and hand-written custom resources alike."
)
