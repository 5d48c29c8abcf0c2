"""The package's type tokens: every component is ``percona-mysql:index:<Component>``.

One namespace, the one the Pulumi component package declares (provider/PulumiPlugin.yaml, the provider host's
schema: ``<package>:index:<class name>``), so a component has the same type whether a Python program builds
it or a TypeScript or YAML program adds the package. Releases before 0.3 registered the cluster components as
``percona:clusters:<Component>`` and the database components as ``percona-mysql:database:<Component>``; a
type is part of a resource's URN, so those components carry an alias of their old type (:func:`options`)
and a stack deployed before keeps its resources: the engine matches them by the alias instead of replacing
them (tests/engine/test_engine_component_package.py, tests/packaging/test_type_tokens.py).
"""

from __future__ import annotations

import pulumi

PACKAGE = "percona-mysql"
MODULE = "index"  # the provider host serves one module (pulumi.provider.experimental.component)


def token(component: str) -> str:
    return f"{PACKAGE}:{MODULE}:{component}"


# component -> the type it had before 0.3 (URNs of stacks deployed then hold it)
PREVIOUS_TOKENS: dict[str, str] = {
    **{name: f"percona:clusters:{name}" for name in ("GkeCluster", "EksCluster", "KindCluster", "ExistingCluster")},
    **{
        name: f"percona-mysql:database:{name}"
        for name in (
            "DatabaseCluster",
            "NetworkPolicies",
            "PerconaOperator",
            "PmmServer",
            "PmmToken",
            "Sysbench",
            "GcsBackupStorage",
            "S3BackupStorage",
        )
    },
}


def options(component: str, opts: pulumi.ResourceOptions | None) -> pulumi.ResourceOptions:
    """``opts`` plus the alias of the component's previous type, if it had one."""
    previous = PREVIOUS_TOKENS.get(component)
    if previous is None:
        return opts or pulumi.ResourceOptions()
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=previous)]))
