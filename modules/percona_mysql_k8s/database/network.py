"""The cluster's NetworkPolicies as resources (R6); their content is
:mod:`percona_mysql_k8s.plan.database.network_policies`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.clusters.target import ClusterTarget
from percona_mysql_k8s.plan.database.network_policies import ClientAccess, network_policies
from percona_mysql_k8s.plan.database.pods import labels
from percona_mysql_k8s.plan.database.spec import DatabaseSpec

from .common import child_options


@dataclass(frozen=True)
class NetworkPoliciesArgs:
    spec: DatabaseSpec
    target: ClusterTarget
    clients: ClientAccess = field(default_factory=ClientAccess)
    pmm_server: bool = False  # a PMM server runs in the database namespace
    operator_installed: bool = True  # the stack installs the operator in the database namespace
    depends_on: Sequence[pulumi.Resource] = field(default=())


class NetworkPolicies(pulumi.ComponentResource):
    """Ingress fences for the database pods and their proxies. Created before the custom resource, so
    the pods are never reachable unfenced."""

    def __init__(self, name: str, args: NetworkPoliciesArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(token("NetworkPolicies"), name, None, renamed("NetworkPolicies", opts))
        after = [*args.target.ready, *args.depends_on]
        bodies = network_policies(
            args.spec,
            args.clients,
            pmm_server=args.pmm_server,
            operator_installed=args.operator_installed,
            labels=labels("network-policy", args.spec.name),
        )
        self.policies = [
            k8s.networking.v1.NetworkPolicy(
                f"{name}-{body['metadata']['name'].removeprefix(args.spec.name + '-')}",
                metadata=body["metadata"],
                spec=body["spec"],
                opts=child_options(self, args.target.provider, after),
            )
            for body in bodies
        ]
        self.ready: list[pulumi.Resource] = list(self.policies)
        self.register_outputs({"policies": [body["metadata"]["name"] for body in bodies]})
