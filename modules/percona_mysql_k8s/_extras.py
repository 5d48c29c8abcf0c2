"""Which extra of the distribution installs what a component imports (pyproject.toml, [project.optional-dependencies]).

The base install (``pip install percona-mysql-k8s``) holds the sizing command, the policy pack with its check
and bundle commands, and the restore command: no cloud SDK and no Pulumi provider. Each cluster target is an
extra that brings its providers: ``gke``, ``eks``, ``kind``, ``existing``; ``all`` is every one. A component
module imports its providers at the top inside ``try``, and turns a missing one into
:class:`MissingExtraError`, which names the extra to install::

    try:
        import pulumi_gcp as gcp
    except ModuleNotFoundError as missing:
        raise missing_extra(missing, __name__) from None

Pure (no third-party import): the table is read by tests/packaging/test_distribution.py against pyproject.toml.
"""

from __future__ import annotations

TARGET_EXTRAS = ("gke", "eks", "kind", "existing")
DISTRIBUTION = "percona-mysql-k8s"

# import name -> the extras that install it (pyproject.toml keeps them in step: a test)
PROVIDED_BY: dict[str, tuple[str, ...]] = {
    "pulumi_gcp": ("gke",),
    "pulumi_aws": ("eks",),
    "pulumi_eks": ("eks",),
    "pulumi_command": ("kind",),
    "pulumi_kubernetes": TARGET_EXTRAS,
    "pulumi_random": TARGET_EXTRAS,
    "pulumi_tls": TARGET_EXTRAS,  # the admission component's certificates
    "starlette": ("admission",),
    "uvicorn": ("admission",),
    "prometheus_client": ("admission",),
    "cryptography": ("admission",),
    "matplotlib": ("plot",),
    "pymysql": ("grade",),
    # the API client: the existing target's Node reads, restore --apply, the admission server's Node watch and audit
    "kubernetes": ("existing", "restore", "admission"),
}

# module -> the extra its users install (a module not listed serves every target: any target's extra will do)
MODULE_EXTRAS: dict[str, str] = {
    "percona_mysql_k8s.clusters.gke": "gke",
    "percona_mysql_k8s.clusters.eks": "eks",
    "percona_mysql_k8s.clusters.kind": "kind",
    "percona_mysql_k8s.clusters.existing": "existing",
    "percona_mysql_k8s.plan.clusters.inventory": "existing",
    "percona_mysql_k8s.cli.restore": "restore",
}


class MissingExtraError(ModuleNotFoundError):
    """A provider SDK a component needs is not installed; the message says which extra installs it."""


def install_hint(extras: tuple[str, ...]) -> str:
    if len(extras) == 1:
        return f'pip install "{DISTRIBUTION}[{extras[0]}]"'
    return f'pip install "{DISTRIBUTION}[<target>]" with the target you deploy to ({", ".join(extras)}), or "{DISTRIBUTION}[all]"'


def extras_for(missing_module: str, importer: str, extra: str | None = None) -> tuple[str, ...] | None:
    """The extras that would install ``missing_module`` for ``importer`` (whose users install ``extra``, default
    MODULE_EXTRAS's); None when no extra provides it."""
    provided = PROVIDED_BY.get(missing_module.split(".")[0])
    if provided is None:
        return None
    wanted = extra or MODULE_EXTRAS.get(importer)
    return (wanted,) if wanted in provided else provided


def missing_extra(error: ModuleNotFoundError, importer: str, extra: str | None = None) -> ModuleNotFoundError:
    """``error`` as a :class:`MissingExtraError` naming the extra to install, or ``error`` itself when what is
    missing is no extra's (then it is a broken install, and the original error says so best)."""
    name = error.name or ""
    extras = extras_for(name, importer, extra)
    if extras is None:
        return error
    return MissingExtraError(
        f"{importer} needs {name.split('.')[0]}, which this installation lacks: {install_hint(extras)}", name=name
    )
