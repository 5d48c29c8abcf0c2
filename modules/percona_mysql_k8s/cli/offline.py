"""Run a stack program with every provider mocked, and collect what it would register.

This is the closest thing to ``pulumi preview`` that needs no CLI, no cloud credentials and no
cluster: the offline check (percona_mysql_k8s.cli.check) feeds the result to the policy pack, the stack tests assert on
it, and the API-server tier applies its Kubernetes objects to a real API server.

What the Pulumi CLI does before running a program is mimicked: stack config from
``stacks/Pulumi.<stack>.yaml`` on top of the defaults declared in ``Pulumi.yaml``. The project is the one
around the working directory, or the directory passed as ``repository`` (percona_mysql_k8s.cli.project). Computed outputs
that providers would return (cluster endpoints, generated passwords) are filled with deterministic
placeholders by :class:`OfflineMocks`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import runpy
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import yaml
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime.settings import SETTINGS, set_root_resource
from pulumi.runtime.stack import run_pulumi_func
from pulumi.runtime.sync_await import _sync_await

from percona_mysql_k8s.cli.project import find_project, project_file
from percona_mysql_k8s.cli.stack_file import stack_file_config

_FAKE_CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCm9mZmxpbmUKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="


@dataclass
class Registration:
    """One resource as the engine would hand it to a policy pack (``AnalyzeStack``)."""

    urn: str
    type: str
    name: str
    inputs: dict[str, Any]
    state: dict[str, Any]
    custom: bool
    parent: str | None = None
    dependencies: list[str] = field(default_factory=list)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)
    provider: str | None = None
    protect: bool = False
    retain_on_delete: bool = False
    id: str | None = None
    site: tuple[str, int] | None = None  # (file, line) of the program's code that created it, when the program's own


def _placeholder(name: str, length: int = 24) -> str:
    """Deterministic stand-in for a generated secret: never a real password."""
    return "offline" + hashlib.sha256(name.encode()).hexdigest()[: length - 7]


class OfflineMocks(pulumi.runtime.Mocks):
    """Echo inputs as state, plus the computed outputs the program reads."""

    monitor: pulumi_mocks.MockMonitor | None = None  # set by run_program: resource references need it

    def __init__(self, previous_outputs: Mapping[str, Any] | None = None):
        # the stack's outputs from its last deployment, as the backend returns them ({} before the first)
        self.previous_outputs = dict(previous_outputs or {})
        self.stack_output_reads: list[str] = []  # the stacks whose outputs the program asked for

    def _resource_reference(self, typ: str, name: str, state: dict[str, Any]) -> dict[str, Any]:
        """A reference to a resource the SDK can look up (``pulumi:pulumi:getResource``)."""
        urn = self.monitor.make_urn("", typ, name)
        self.monitor.resources[urn] = pulumi_mocks.MockMonitor.ResourceRegistration(urn, f"{name}-offline-id", state)
        rpc = pulumi.runtime.rpc
        return {rpc._special_sig_key: rpc._special_resource_sig, "urn": urn, "id": f"{name}-offline-id", "packageVersion": ""}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        state = dict(args.inputs)
        typ = args.typ
        if typ.startswith("random:index/randomPassword") or typ.startswith("random:index/randomString"):
            state["result"] = _placeholder(args.name, int(args.inputs.get("length", 24)))
        elif typ == "gcp:container/cluster:Cluster":
            state.setdefault("endpoint", "203.0.113.10")
            state.setdefault("masterAuth", {"clusterCaCertificate": _FAKE_CA})
        elif typ == "eks:index:Cluster":
            state.setdefault("kubeconfig", {"apiVersion": "v1", "clusters": [], "contexts": [], "users": []})
            state.setdefault("kubeconfigJson", json.dumps({"apiVersion": "v1", "clusters": []}))
            cluster_name = args.inputs.get("name", args.name)
            state.setdefault(
                "eksCluster",
                self._resource_reference(
                    "aws:eks/cluster:Cluster",
                    cluster_name,
                    {"name": cluster_name, "endpoint": "https://offline.eks", "certificateAuthority": {"data": _FAKE_CA}},
                ),
            )
            state.setdefault("core", {})
            state.setdefault("oidcProviderArn", "arn:aws:iam::000000000000:oidc-provider/oidc.eks.offline/id/OFFLINE")
            state.setdefault("oidcProviderUrl", "https://oidc.eks.offline/id/OFFLINE")
        elif typ == "aws:eks/cluster:Cluster":
            state.setdefault("endpoint", "https://offline.eks")
            state.setdefault("certificateAuthority", {"data": _FAKE_CA})
        elif typ == "command:local:Command":
            state.setdefault("stdout", "apiVersion: v1\nkind: Config\nclusters: []\n")
        elif typ == "gcp:storage/hmacKey:HmacKey":  # the backup bucket's keys (database/backup_storage.py)
            state.setdefault("accessId", _placeholder(f"{args.name}-id", 24))
            state.setdefault("secret", _placeholder(f"{args.name}-secret", 40))
        elif typ == "aws:iam/accessKey:AccessKey":
            state.setdefault("secret", _placeholder(f"{args.name}-secret", 40))
        elif typ == "gcp:serviceaccount/account:Account":
            state.setdefault("email", f"{args.inputs.get('accountId')}@{args.inputs.get('project')}.iam.gserviceaccount.com")
        elif typ == "aws:kms/key:Key":
            state.setdefault("arn", f"arn:aws:kms:offline-1:000000000000:key/{args.name}")
        if typ.startswith("gcp:"):
            state.setdefault("name", args.inputs.get("name", args.name))
        return f"{args.name}-offline-id", state

    def call(self, args: pulumi.runtime.MockCallArgs):
        if args.token == "pulumi:pulumi:readStackOutputs":  # the builtin provider's answer (deploy/builtins.go)
            self.stack_output_reads.append(args.args["name"])
            return {"name": args.args["name"], "outputs": self.previous_outputs, "secretOutputNames": []}
        if args.token == "aws:index/getAvailabilityZones:getAvailabilityZones":
            return {"names": ["offline-1a", "offline-1b", "offline-1c"], "zoneIds": ["z1", "z2", "z3"]}
        if args.token == "aws:ec2/getSubnet:getSubnet":  # an existing subnet: its zone from its ID, spread over three
            subnet = str(args.args.get("id") or "")
            return {"id": subnet, "availabilityZone": f"offline-1{'abc'[sum(map(ord, subnet)) % 3]}"}
        if args.token == "aws:index/getRegion:getRegion":
            return {"name": "offline-1", "region": "offline-1"}
        if args.token == "aws:index/getPartition:getPartition":
            return {"partition": "aws", "dnsSuffix": "amazonaws.com"}
        if args.token == "aws:eks/getCluster:getCluster":  # an EKS cluster's endpoint and CA (clusters/eks.py)
            return {"name": args.args["name"], "endpoint": "https://offline.eks", "certificateAuthorities": [{"data": _FAKE_CA}]}
        if args.token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": "000000000000", "arn": "arn:aws:iam::000000000000:user/offline"}
        return {}


class RecordingMonitor(pulumi_mocks.MockMonitor):
    """A MockMonitor that also keeps parent, dependencies and provider of every registration."""

    def __init__(self, mocks: pulumi.runtime.Mocks):
        super().__init__(mocks)
        self.registrations: list[Registration] = []

    def RegisterResource(self, request):
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            registered = self.resources.get(response.urn)
            inputs = pulumi.runtime.rpc.deserialize_properties(request.object)
            self.registrations.append(
                Registration(
                    urn=response.urn,
                    type=request.type,
                    name=request.name,
                    inputs=_plain(inputs),
                    state=_plain(dict(registered.state)) if registered else {},
                    custom=bool(request.custom),
                    parent=request.parent or None,
                    dependencies=list(request.dependencies),
                    property_dependencies={key: list(value.urns) for key, value in request.propertyDependencies.items()},
                    provider=request.provider or None,
                    protect=bool(request.protect),
                    retain_on_delete=bool(request.retainOnDelete),
                    id=response.id or None,
                )
            )
        return response


class Registrations(list):
    """What a program registered, in order, and what it logged (``messages``: (level, text), ``warning``/``info``),
    as the engine would show them beside the preview."""

    def __init__(self, items=(), messages=()):
        super().__init__(items)
        self.messages: list[tuple[str, str]] = list(messages)

    def logged(self, level: str) -> list[str]:
        return [text for kind, text in self.messages if kind == level]


class _Collector(logging.Handler):
    """The program's pulumi.log messages (the mocks' engine logs them to a Python logger), kept, not printed."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.INFO:
            self.messages.append((record.levelname.lower(), record.getMessage()))


def _plain(value: Any) -> Any:
    """Deserialized properties with secrets unwrapped and unknowns as None (JSON-able).

    A resource reference becomes its ID (its URN when it has none), as the engine marshals references
    for a policy pack (``KeepResources`` off): the pack's SDK cannot read the reference form.
    """
    if isinstance(value, dict):
        signature = value.get(pulumi.runtime.rpc._special_sig_key)
        if signature == pulumi.runtime.rpc._special_secret_sig:
            return _plain(value.get("value"))
        if signature == pulumi.runtime.rpc._special_resource_sig:
            return value.get("id") or value.get("urn")
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if value is pulumi.runtime.rpc.UNKNOWN or type(value).__name__ == "Unknown":
        return None
    return value


def _project(repository: Path | None) -> tuple[Path, dict[str, Any]]:
    root = find_project(repository)
    return root, yaml.safe_load(project_file(root).read_text())


def project_name(repository: Path | None = None) -> str:
    return _project(repository)[1]["name"]


def stack_config(stack: str, repository: Path | None = None) -> dict[str, str]:
    """Config as the CLI hands it to a program: ``project:key`` -> string (JSON for non-strings).

    Pulumi.yaml defaults first, then ``stacks/Pulumi.<stack>.yaml``. Secure values (``secure:``) cannot
    be decrypted offline and are replaced by a placeholder.
    """
    repository, project = _project(repository)
    name = project["name"]
    values: dict[str, Any] = {}
    for key, spec in (project.get("config") or {}).items():
        if isinstance(spec, dict) and "default" in spec:
            values[f"{name}:{key}"] = spec["default"]
    stack_file = repository / project.get("stackConfigDir", ".") / f"Pulumi.{stack}.yaml"
    if not stack_file.exists():
        raise FileNotFoundError(f"no stack config {stack_file}")
    for key, value in stack_file_config(stack_file).items():
        full_key = key if ":" in key else f"{name}:{key}"
        if isinstance(value, dict) and "secure" in value:
            value = _placeholder(full_key)
        values[full_key] = value
    return {key: value if isinstance(value, str) else json.dumps(value) for key, value in values.items()}


def run_program(
    program: Path,
    *,
    stack: str,
    config: Mapping[str, str],
    project: str,
    preview: bool = False,
    secret_keys: Sequence[str] = (),
    previous_outputs: Mapping[str, Any] | None = None,
) -> Registrations:
    """Run ``program`` (a directory with ``__main__.py``) under mocks; return every registration.

    ``previous_outputs``: the stack's outputs from its last deployment (None: never deployed). Errors
    the program raises (bad config) propagate unchanged. What the program logs is kept on the result
    (Registrations.messages), not printed.
    """
    mocks = OfflineMocks(previous_outputs)
    monitor = RecordingMonitor(mocks)
    mocks.monitor = monitor
    collector = _Collector()
    logger = logging.getLogger(f"percona_mysql_k8s.offline.{id(collector)}")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(collector)
    # a new root Stack per run (set_mocks makes one only when there is none): its outputs are this run's alone,
    # and its URN names this run's stack
    set_root_resource(None)
    # "organization": the organization of a DIY (file, S3, GCS) backend's stacks
    pulumi.runtime.set_mocks(
        mocks, project=project, stack=stack, preview=preview, monitor=monitor, organization="organization", logger=logger
    )
    pulumi.runtime.set_all_config(dict(config), list(secret_keys))  # as the engine marks encrypted values
    SETTINGS.rpc_manager.clear()
    SETTINGS.outputs.clear()
    program = Path(program)
    sites = creation_sites(program)
    sys.path.insert(0, str(program))
    try:
        _sync_await(run_pulumi_func(lambda: runpy.run_path(str(program / "__main__.py"), run_name="__main__")))
    finally:
        sys.path.remove(str(program))
        logger.removeHandler(collector)
    for registration in monitor.registrations:
        registration.site = sites.get((registration.type, registration.name))
    return Registrations(monitor.registrations, collector.messages)


def creation_sites(program: Path) -> dict[tuple[str, str], tuple[str, int]]:
    """(type, name) -> (file, line) of the innermost frame in ``program``'s directory that created each resource,
    recorded by a stack transformation, which the SDK runs synchronously in every Resource's constructor (pulumi
    ``resource.py``: "give them a chance to run" before anything else); the registration itself happens later, on
    the event loop, where the program's frames are gone."""
    root = str(program.resolve())
    sites: dict[tuple[str, str], tuple[str, int]] = {}

    def record(args: pulumi.ResourceTransformationArgs) -> None:
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename.startswith(root):
                sites.setdefault((args.type_, args.name), (frame.f_code.co_filename, frame.f_lineno))
                break
            frame = frame.f_back
        return None

    pulumi.runtime.register_stack_transformation(record)
    return sites


def program_dir(repository: Path | None = None) -> Path:
    """The program the CLI runs: ``main`` of Pulumi.yaml (default the project directory), as the engine resolves it."""
    root, project = _project(repository)
    return (root / project.get("main", ".")).resolve()


def secure_config_keys(stack: str, repository: Path | None = None) -> list[str]:
    """The keys ``Pulumi.<stack>.yaml`` holds encrypted (``secure:``): the engine marks them secret."""
    root, project = _project(repository)
    name = project["name"]
    stack_file = root / project.get("stackConfigDir", ".") / f"Pulumi.{stack}.yaml"
    config = stack_file_config(stack_file)
    return [
        key if ":" in key else f"{name}:{key}" for key, value in config.items() if isinstance(value, dict) and "secure" in value
    ]


def run_stack(
    stack: str,
    *,
    repository: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    secrets: Mapping[str, str] | None = None,
    preview: bool = False,
    previous_outputs: Mapping[str, Any] | None = None,
) -> Registrations:
    """Run the project's program with the config of ``Pulumi.<stack>.yaml``; ``overrides`` are bare keys,
    ``secrets`` bare keys set as ``pulumi config set --secret`` would, and ``previous_outputs`` what the
    stack's last deployment exported (None: a first deployment).

    ``repository`` is the project directory (or one inside it); default: the one around the working directory.
    """
    name = project_name(repository)
    config = stack_config(stack, repository)
    for key, value in {**(overrides or {}), **(secrets or {})}.items():
        config[f"{name}:{key}"] = value if isinstance(value, str) else json.dumps(value)
    secret_keys = secure_config_keys(stack, repository) + [f"{name}:{key}" for key in secrets or {}]
    return run_program(
        program_dir(repository),
        stack=stack,
        config=config,
        project=name,
        preview=preview,
        secret_keys=secret_keys,
        previous_outputs=previous_outputs,
    )
