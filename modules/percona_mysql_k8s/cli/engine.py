"""The engine's side of the analyzer protocol: start the pack as the CLI does and talk to it over gRPC.

``pulumi preview --policy-pack policies`` starts ``python -u -m pulumi.policy <engine-address> .`` in the
pack directory with PULUMI_STACK, PULUMI_PROJECT, PULUMI_DRY_RUN and PULUMI_CONFIG in the environment,
reads the port the pack prints, and calls the ``Analyzer`` service: ``GetAnalyzerInfo``, ``Configure``,
``Analyze`` for every resource and ``AnalyzeStack`` once with all of them. Properties are marshalled as
the engine marshals them (unknowns as the SDK's sentinel strings, secrets as signed objects). The engine
address is parsed by the pack but never dialled. Used by the offline check (percona_mysql_k8s.cli.check), the tests and the benchmark.
"""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

import percona_mysql_k8s
from percona_mysql_k8s.cli.project import policy_pack_dir

# The directory this library was imported from (site-packages, or modules/ of a checkout).
LIBRARY_PATH = Path(percona_mysql_k8s.__file__).resolve().parent.parent


def _installed() -> bool:
    """Whether this library comes from the interpreter's site-packages (then a child finds it there itself)."""
    sites = {sysconfig.get_paths()["purelib"], *site.getsitepackages(), site.getusersitepackages()}
    return any(Path(path).resolve() == LIBRARY_PATH for path in sites if path)


CLIENT_ENVIRONMENT = "PERCONA_POLICY_CLIENT"  # who sends the resources, when not Pulumi (policies._readers.admission)

LEVELS = {
    analyzer_pb2.ADVISORY: "advisory",
    analyzer_pb2.MANDATORY: "mandatory",
    analyzer_pb2.REMEDIATE: "remediate",
    analyzer_pb2.DISABLED: "disabled",
}
LEVEL_VALUES = {name: value for value, name in LEVELS.items()}


@dataclass(frozen=True)
class Resource:
    """What the engine sends for one resource (AnalyzerResource)."""

    urn: str
    type: str
    name: str
    properties: Mapping[str, Any]
    parent: str | None = None
    dependencies: tuple[str, ...] = ()
    property_dependencies: Mapping[str, list[str]] | None = None
    protect: bool = False


@dataclass(frozen=True)
class Diagnostic:
    policy: str
    pack: str
    version: str
    level: str
    message: str
    description: str
    urn: str

    @property
    def rule(self) -> str:
        """The rule ID the violation message starts with (after the policy description)."""
        body = self.message.split("\n", 1)[-1]
        return body.split(":", 1)[0]


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def struct(properties: Mapping[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(_jsonable(properties))
    return message


def _options(resource: Resource) -> analyzer_pb2.AnalyzerResourceOptions:
    return analyzer_pb2.AnalyzerResourceOptions(protect=resource.protect, parent=resource.parent or "")


def analyze_request(resource: Resource) -> analyzer_pb2.AnalyzeRequest:
    return analyzer_pb2.AnalyzeRequest(
        type=resource.type,
        properties=struct(resource.properties),
        urn=resource.urn,
        name=resource.name,
        options=_options(resource),
    )


def stack_request(resources: Iterable[Resource]) -> analyzer_pb2.AnalyzeStackRequest:
    items = []
    for resource in resources:
        dependencies = {
            key: analyzer_pb2.AnalyzerPropertyDependencies(urns=list(urns))
            for key, urns in (resource.property_dependencies or {}).items()
            if urns
        }
        items.append(
            analyzer_pb2.AnalyzerResource(
                type=resource.type,
                properties=struct(resource.properties),
                urn=resource.urn,
                name=resource.name,
                options=_options(resource),
                parent=resource.parent or "",
                dependencies=list(resource.dependencies),
                propertyDependencies=dependencies,
            )
        )
    return analyzer_pb2.AnalyzeStackRequest(resources=items)


class Pack:
    """A running policy pack process and a client for it."""

    def __init__(
        self,
        pack_dir: Path | None = None,
        *,
        stack: str = "dev",
        project: str = "project",
        config: Mapping[str, str] | None = None,
        dry_run: bool = True,
        python: str | None = None,
        client: str | None = None,
    ):
        """Start the pack in ``pack_dir`` (default: the project's ``policies/``, percona_mysql_k8s.cli.project).

        With ``python`` (the interpreter of the pack's own virtualenv, as PulumiPolicy.yaml names it) the
        pack runs on what that environment provides and nothing of this process's. Without it, it runs on
        this interpreter with this very library first on its path, so the pack and its caller agree.

        ``client`` names who would send the resources to the API server when it is not Pulumi (``kubectl`` for
        manifests): C1 then reads them as that client sends them (percona_mysql_k8s.policies._readers.admission).
        The engine sets no such variable: under ``pulumi preview`` the client is pulumi-kubernetes.
        """
        pack_dir = policy_pack_dir(pack_dir)
        self._info: analyzer_pb2.AnalyzerInfo | None = None
        self._configured: Any = None
        env = dict(os.environ)
        env.update(
            {
                "PULUMI_STACK": stack,
                "PULUMI_PROJECT": project,
                "PULUMI_DRY_RUN": "true" if dry_run else "false",
                "PULUMI_CONFIG": json.dumps(dict(config or {})),
            }
        )
        env.pop(CLIENT_ENVIRONMENT, None)
        if client:
            env[CLIENT_ENVIRONMENT] = client
        if python is None:
            python = sys.executable
            if not _installed():  # a checkout on PYTHONPATH or an editable install: hand the child the same path
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(LIBRARY_PATH), env.get("PYTHONPATH", "")]))
        else:
            env.pop("PYTHONPATH", None)
            env.pop("PYTHONHOME", None)  # as the CLI activates a virtualenv (sdk/python/toolchain ActivateVirtualEnv)
        # The language host starts a pack as `python -u -m pulumi.policy <engine> <pack dir>` with the pack
        # directory as working directory (sdk/python/cmd/pulumi-language-python/main.go, RunPlugin).
        self.process = subprocess.Popen(
            [python, "-u", "-m", "pulumi.policy", "127.0.0.1:1", str(pack_dir)],
            cwd=pack_dir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        line = self.process.stdout.readline().decode().strip()
        if not line.isdigit():
            self.process.kill()
            errors = self.process.stderr.read().decode()[-2000:]
            self.close()
            raise RuntimeError(f"the policy pack did not start: {line!r} {errors}")
        self.port = int(line)
        self.channel = grpc.insecure_channel(
            f"127.0.0.1:{self.port}", options=[("grpc.max_receive_message_length", 400 * 1024 * 1024)]
        )
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)

    def info(self) -> analyzer_pb2.AnalyzerInfo:
        """The pack's answer to GetAnalyzerInfo (asked once: a running pack's policies do not change)."""
        if self._info is None:
            self._info = self.stub.GetAnalyzerInfo(empty_pb2.Empty())
        return self._info

    def configure(self, config: Mapping[str, Mapping[str, Any]]) -> None:
        """``{policy: {"enforcementLevel": "advisory", "max_fc_limit": 50}}`` as the CLI sends it; the same config
        again is not sent again (a long-lived pack, the admission server's, is configured once)."""
        if self._configured == config:
            return
        request = analyzer_pb2.ConfigureAnalyzerRequest()
        for policy, values in config.items():
            values = dict(values)
            level = values.pop("enforcementLevel", None)
            entry = analyzer_pb2.PolicyConfig(properties=struct(values))
            if level is not None:
                entry.enforcementLevel = LEVEL_VALUES[level]
            request.policyConfig[policy].CopyFrom(entry)
        self.stub.Configure(request)
        self._configured = json.loads(json.dumps(config))  # a copy: the caller's dict may change after

    def analyze(self, resource: Resource) -> list[Diagnostic]:
        return self._diagnostics(self.stub.Analyze(analyze_request(resource)))

    def analyze_stack(self, resources: Iterable[Resource]) -> list[Diagnostic]:
        return self._diagnostics(self.stub.AnalyzeStack(stack_request(resources)))

    @staticmethod
    def _diagnostics(response: analyzer_pb2.AnalyzeResponse) -> list[Diagnostic]:
        return [
            Diagnostic(
                d.policyName,
                d.policyPackName,
                d.policyPackVersion,
                LEVELS.get(d.enforcementLevel, "advisory"),
                d.message,
                d.description,
                d.urn,
            )
            for d in response.diagnostics
        ]

    def close(self) -> None:
        try:
            if getattr(self, "channel", None) is not None:
                self.channel.close()
        finally:
            self.process.kill()
            self.process.wait(timeout=10)
            for stream in (self.process.stdout, self.process.stderr):
                stream.close()

    def __enter__(self) -> Pack:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()
