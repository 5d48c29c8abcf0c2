"""The CrossGuard policy pack: one policy per module, assembled by the shell in ``pack/`` (``__main__.py``).

Policies are importable without starting the pack (``PolicyPack`` serves forever); the list is
:data:`percona_mysql_k8s.policies._catalog.ALL_POLICIES`. The shell is package data, the one source of the
checkout's ``policies/`` (links to it) and of every bundle (percona_mysql_k8s.cli.bundle copies it). The
tools that run the pack (the offline check, the bundle builder) are in :mod:`percona_mysql_k8s.cli`.
"""

from pathlib import Path

SHELL = Path(__file__).resolve().parent / "pack"
SHELL_FILES = ("PulumiPolicy.yaml", "__main__.py", "requirements.txt")
