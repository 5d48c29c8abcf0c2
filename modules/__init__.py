"""Percona MySQL on Kubernetes, correctly sized and safe by construction.

Layers (enforced by the import-linter contracts in pyproject.toml):

* ``modules.core``  - pure Python: machine catalog, allocatable model, rule catalogue, memory model,
  sizing engine. Never imports pulumi.
* ``modules.sizing`` - the sizing command (``python -m modules.sizing``), a thin view over the core.
* the Pulumi components (``modules.clusters``, ``modules.database``) turn core results into resources.
"""
