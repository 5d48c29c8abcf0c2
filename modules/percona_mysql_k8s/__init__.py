"""Percona MySQL on Kubernetes, correctly sized and safe by construction.

Layers (enforced by the import-linter contracts in pyproject.toml):

* ``percona_mysql_k8s.core``  - pure Python: machine catalog, allocatable model, rule catalogue, memory model,
  sizing engine. Never imports pulumi.
* ``percona_mysql_k8s.sizing`` - the sizing command (``python -m percona_mysql_k8s.sizing``), a thin view over the core.
* the Pulumi components (``percona_mysql_k8s.clusters``, ``percona_mysql_k8s.database``) turn core results into resources.
"""

__version__ = "0.2.0"  # the distribution's version (pyproject.toml reads it), its pack's too (PulumiPolicy.yaml)
