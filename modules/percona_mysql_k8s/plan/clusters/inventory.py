"""Read an existing cluster's Nodes and pods at preview/up time (the only I/O of the existing target).

The program needs the numbers before it registers any resource (sizing decides the custom resource), so
this reads synchronously with the official Kubernetes client, through the same kubeconfig and context
the target's provider uses (exec credential plugins such as ``gke-gcloud-auth-plugin`` or
``aws eks get-token`` included). It needs ``list`` on ``nodes`` and on ``pods`` cluster-wide, which
``kubectl describe node`` needs too. Everything it returns is plain API JSON; the meaning is decided
in :mod:`percona_mysql_k8s.core.node_inventory`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from percona_mysql_k8s._extras import install_hint
from percona_mysql_k8s.core.errors import InputError

# (kubeconfig path or "", context or "") -> (Node objects, non-terminated Pod objects) as API JSON
ClusterReader = Callable[[str, str], tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]]]]

_TIMEOUT_SECONDS = 20
_OFFLINE_HINT = (
    "set existingNodeSource=config to plan offline from existingNodeCpu/existingNodeMemory "
    "(the plan then holds only if the cluster matches them)"
)


def read_cluster(kubeconfig: str, context: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every Node and every pod not yet terminated, as the API serves them (camelCase JSON)."""
    try:
        from kubernetes import client, config
        from kubernetes.client.rest import ApiException
        from kubernetes.config.config_exception import ConfigException
    except ImportError as error:  # the existing extra's (and requirements.txt's), not the base install's
        raise InputError(
            "existingNodeSource",
            f"reading the cluster needs the `kubernetes` package ({error}): {install_hint(('existing',))} "
            f"(or install requirements.txt), or {_OFFLINE_HINT}",
            rule="K1",
        ) from None
    key = "kubeContext" if context else "kubeconfig"
    try:
        api_client = config.new_client_from_config(config_file=kubeconfig or None, context=context or None)
    except (ConfigException, OSError, TypeError, ValueError) as error:
        raise InputError(
            key, f"cannot load the kubeconfig to read the cluster's Nodes: {error}; {_OFFLINE_HINT}", rule="K1"
        ) from None
    core = client.CoreV1Api(api_client)
    try:
        nodes = core.list_node(_request_timeout=_TIMEOUT_SECONDS)
        pods = core.list_pod_for_all_namespaces(
            field_selector="status.phase!=Succeeded,status.phase!=Failed", _request_timeout=_TIMEOUT_SECONDS
        )
    except ApiException as error:
        raise InputError(
            key,
            f"the API server refused to list Nodes/Pods ({error.status} {error.reason}): the "
            f"identity needs list on nodes and pods cluster-wide; or {_OFFLINE_HINT}",
            rule="K1",
        ) from None
    except Exception as error:  # urllib3 connection and TLS errors have no common base in the client
        raise InputError(
            key, f"cannot reach the cluster to read its Nodes ({type(error).__name__}: {error}); {_OFFLINE_HINT}", rule="K1"
        ) from None
    finally:
        api_client.close()
    serialize = api_client.sanitize_for_serialization
    return [serialize(node) for node in nodes.items], [serialize(pod) for pod in pods.items]
