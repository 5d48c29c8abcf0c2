"""The kubeconfig of a managed cluster: one cluster, one user, one context, all named after the cluster, the
user authenticating through an exec credential plugin (client.authentication.k8s.io/v1beta1), as
``gcloud container clusters get-credentials`` and ``aws eks update-kubeconfig`` write it."""

from __future__ import annotations

import json
from collections.abc import Sequence


def exec_plugin_kubeconfig(
    name: str,
    server: str,
    ca_data: str,
    command: str,
    args: Sequence[str],
    install_hint: str,
    provide_cluster_info: bool,
) -> str:
    """The kubeconfig (JSON) of cluster ``name`` at ``server``; ``args`` are the plugin's (none: no ``args`` key)."""
    plugin: dict[str, object] = {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": command}
    if args:
        plugin["args"] = list(args)
    plugin.update(installHint=install_hint, provideClusterInfo=provide_cluster_info)
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": name, "cluster": {"server": server, "certificate-authority-data": ca_data}}],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
            "users": [{"name": name, "user": {"exec": plugin}}],
        },
        indent=2,
    )
