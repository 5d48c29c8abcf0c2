"""What every component of the package does (percona_mysql_k8s.stack.components, one per target): its inputs
are the stack config keys of that target, read and validated exactly as the stack program reads them, then
the stack program's resources are deployed under the component (percona_mysql_k8s.stack.program).

Inputs arrive with the Python names the provider host maps the schema's to (``gcp_project`` for
``gcpProject``): they are turned back into the config keys, so an error names the key as the stack config and
docs/*.md spell it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pulumi

from percona_mysql_k8s._extras import MissingExtraError
from percona_mysql_k8s.core.errors import InputError

from .settings import stack_settings_from_config, target_keys

PMM_TOKEN_ARG = "pmm_server_token"


def config_key(python_name: str) -> str:
    """``gcp_project`` -> ``gcpProject``: the provider host's camel case (pulumi.provider.experimental.util)."""
    head, *rest = python_name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def python_name(key: str) -> str:
    """``gcpProject`` -> ``gcp_project``, the inverse of :func:`config_key` for the stack's keys."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def config_values(target: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """The component's inputs as the stack config of ``target`` (absent keys keep Pulumi.yaml's defaults)."""
    known = set(target_keys(target))
    values: dict[str, Any] = {"target": target}
    for name, value in args.items():
        if name == PMM_TOKEN_ARG or value is None:
            continue
        key = config_key(name)
        if key not in known:  # the host passes only declared inputs; a Python caller may pass anything
            raise InputError(key, f"is not an input of this component (the {target} target reads: {', '.join(sorted(known))})")
        values[key] = list(value) if isinstance(value, tuple) else value
    return values


def build(component: pulumi.ComponentResource, target: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``args`` as the ``target`` stack's config, deploy the stack program's resources under
    ``component``, set its output attributes, register them and return them (schema names)."""
    from .program import deploy, outputs

    token = args.get(PMM_TOKEN_ARG)
    try:
        settings = stack_settings_from_config(config_values(target, args), pmm_token_set=token is not None)
        deployment = deploy(settings, pmm_token=token, parent=component)
    except (InputError, MissingExtraError) as error:
        raise pulumi.RunError(f"{type(component).__name__}: {error}") from None
    exported = outputs(deployment)
    database = exported["database"]
    values: dict[str, Any] = {
        "kubeconfig": exported.get("kubeconfig"),
        "cluster_name": settings.cluster.cluster_name,
        "namespace": database["namespace"],
        "writer_endpoint": database["writerEndpoint"],
        "secret_name": database["secret"],
        "database": database,
        "sizing": exported["sizing"],
        "monitoring_pool": exported["monitoringPool"],
        "backups": exported.get("backups"),
        "pmm": exported.get("pmm"),
        "sysbench": exported.get("sysbench"),
    }
    declared = set(type(component).__annotations__)
    registered = {}
    for name, value in values.items():
        if name in declared:
            output = pulumi.Output.from_input(value) if value is not None else None
            setattr(component, name, output)
            if output is not None:
                registered[config_key(name)] = output
    component.register_outputs(registered)
    return registered
