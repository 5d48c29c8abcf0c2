"""Mocks for the cluster components: one MockMonitor per test, so a test can list every registration.

Computed outputs the providers would return (GKE endpoint and CA, the EKS kubeconfig and the
``aws.eks.Cluster`` inside ``eks.Cluster``, the kind kubeconfig) are filled in here.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi
import pytest
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockMonitor
from stack_configs import FAKE_CA, HOST, KIND_KUBECONFIG, ZONES

with warnings.catch_warnings():
    # pulumi_eks and pulumi_aws warn at import time about resources we do not use (eks.NodeGroup,
    # ec2.EncryptionControl); import them once here, quietly.
    warnings.simplefilter("ignore", DeprecationWarning)
    import pulumi_aws
    import pulumi_eks  # noqa: F401

    pulumi_aws.ec2.Vpc  # noqa: B018 - pulumi_aws loads its modules lazily, on first use


@dataclass(frozen=True)
class Registered:
    type: str
    name: str
    state: dict[str, Any]
    parent_type: str | None
    urn: str = ""
    dependencies: frozenset[str] = frozenset()  # resource and property dependencies together
    options: dict[str, Any] | None = None  # the resource options the engine sees


class RecordingMonitor(MockMonitor):
    """A MockMonitor that also keeps every registration's dependencies and resource options."""

    def __init__(self, mocks: pulumi.runtime.Mocks):
        super().__init__(mocks)
        self.dependencies: dict[str, frozenset[str]] = {}
        self.options: dict[str, dict[str, Any]] = {}

    def RegisterResource(self, request):
        response = super().RegisterResource(request)
        urns = set(request.dependencies)
        for value in request.propertyDependencies.values():
            urns.update(value.urns)
        self.dependencies[response.urn] = frozenset(urns)
        self.options[response.urn] = {
            "deleteBeforeReplace": request.deleteBeforeReplace,
            "replaceOnChanges": list(request.replaceOnChanges),
            "additionalSecretOutputs": list(request.additionalSecretOutputs),
            "protect": request.protect,
        }
        return response


EKS_ENDPOINT = "https://0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com"


class ClusterMocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.monitor: MockMonitor | None = None
        self.calls: list[pulumi.runtime.MockCallArgs] = []
        # eks.Cluster returns its aws.eks.Cluster as a resource reference; an older pulumi_aws than the one
        # pulumi_eks was built with gets the cluster's ID instead (clusters/eks.py _name_of)
        self.degraded_eks_reference = False

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        state = dict(args.inputs)
        if args.typ == "gcp:container/cluster:Cluster":
            state.update(endpoint="203.0.113.10", masterAuth={"clusterCaCertificate": FAKE_CA})
        elif args.typ.startswith("gcp:"):
            state.setdefault("name", args.name)
        elif args.typ == "eks:index:Cluster":
            state["kubeconfigJson"] = json.dumps(
                {"apiVersion": "v1", "kind": "Config", "clusters": [{"name": args.inputs["name"]}]}
            )
            state["eksCluster"] = (
                args.inputs["name"] if self.degraded_eks_reference else self._eks_cluster_reference(args.inputs["name"])
            )
            state["oidcProviderArn"] = "arn:aws:iam::123456789012:oidc-provider/oidc.eks.eu-west-1.amazonaws.com/id/ABC"
            state["oidcProviderUrl"] = "https://oidc.eks.eu-west-1.amazonaws.com/id/ABC"
        elif args.typ == "aws:iam/role:Role":
            state["arn"] = f"arn:aws:iam::123456789012:role/{args.name}"
        elif args.typ == "aws:kms/key:Key":
            state["arn"] = f"arn:aws:kms:eu-west-1:123456789012:key/{args.name}"
        elif args.typ == "command:local:Command":
            state["stdout"] = KIND_KUBECONFIG if args.inputs["create"].startswith("kind get kubeconfig") else ""
        return f"{args.name}-id", state

    def _eks_cluster_reference(self, name: str) -> dict:
        """``eks.Cluster`` returns its ``aws.eks.Cluster`` as a resource reference: register one the SDK can
        look up (``pulumi:pulumi:getResource``) and return the reference."""
        urn = self.monitor.make_urn("", "aws:eks/cluster:Cluster", name)
        state = {"name": name, "endpoint": EKS_ENDPOINT, "certificateAuthority": {"data": FAKE_CA}}
        self.monitor.resources[urn] = MockMonitor.ResourceRegistration(urn, f"{name}-id", state)
        return {rpc._special_sig_key: rpc._special_resource_sig, "urn": urn, "id": f"{name}-id", "packageVersion": ""}

    def call(self, args: pulumi.runtime.MockCallArgs):
        self.calls.append(args)
        if args.token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            return {"names": ZONES, "zoneIds": [f"euw1-az{i}" for i in range(len(ZONES))]}
        if args.token == "aws:index/getPartition:getPartition":
            return {"partition": "aws", "dnsSuffix": "amazonaws.com"}
        if args.token == "aws:eks/getCluster:getCluster":
            return {"name": args.args["name"], "endpoint": EKS_ENDPOINT, "certificateAuthorities": [{"data": FAKE_CA}]}
        return {}


class Mocked:
    """The monitor of one test, with helpers to run a program and read what it registered."""

    def __init__(self, mocks: ClusterMocks, monitor: RecordingMonitor):
        self.mocks = mocks
        self.monitor = monitor

    def run(self, build: Callable[[], Any], collect: Callable[[Any], dict[str, Any]] | None = None) -> tuple[Any, dict]:
        """Run ``build`` as a Pulumi program; return its result and the resolved values of ``collect(result)``.

        Every registration has completed when this returns (the runtime waits for outstanding RPCs),
        also when ``build`` raises.
        """
        box: dict[str, Any] = {}

        @pulumi.runtime.test
        def program():
            box["result"] = build()
            outputs = collect(box["result"]) if collect else {}
            return pulumi.Output.all(**outputs).apply(lambda values: box.update(values=values)) if outputs else None

        program()
        return box["result"], box.get("values", {})

    def resources(self) -> list[Registered]:
        registered = []
        for urn, registration in self.monitor.resources.items():
            qualified = urn.split("::")[2]
            types = qualified.split("$")
            registered.append(
                Registered(
                    types[-1],
                    urn.split("::")[3],
                    registration.state,
                    types[-2] if len(types) > 1 else None,
                    urn,
                    self.monitor.dependencies.get(urn, frozenset()),
                    self.monitor.options.get(urn),
                )
            )
        return registered

    def of_type(self, typ: str) -> list[Registered]:
        return [r for r in self.resources() if r.type == typ]

    def one(self, typ: str, name: str | None = None) -> Registered:
        found = [r for r in self.of_type(typ) if name is None or r.name == name]
        assert len(found) == 1, f"expected one {typ} {name or ''}, found {[r.name for r in found]}"
        return found[0]

    def types(self) -> set[str]:
        return {r.type for r in self.resources()}


@pytest.fixture
def mocked() -> Mocked:
    mocks = ClusterMocks()
    monitor = RecordingMonitor(mocks)
    mocks.monitor = monitor
    pulumi.runtime.set_mocks(mocks, project="percona-mysql", stack="test", preview=False, monitor=monitor)
    return Mocked(mocks, monitor)


@pytest.fixture
def host() -> Callable[[], tuple[int, int]]:
    return lambda: HOST
