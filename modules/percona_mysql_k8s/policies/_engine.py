"""The engine's side of the analyzer protocol: start the pack as the CLI does and talk to it over gRPC.

``pulumi preview --policy-pack policies`` starts ``python -u -m pulumi.policy <engine-address> .`` in the
pack directory with PULUMI_STACK, PULUMI_PROJECT, PULUMI_DRY_RUN and PULUMI_CONFIG in the environment,
reads the port the pack prints, and calls the ``Analyzer`` service: ``GetAnalyzerInfo``, ``Configure``,
``Analyze`` for every resource and ``AnalyzeStack`` once with all of them. Properties are marshalled as
the engine marshals them (unknowns as the SDK's sentinel strings, secrets as signed objects). The engine
address is parsed by the pack but never dialled. Used by ``python -m percona_mysql_k8s.policies.check``, the tests and the
benchmark.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc

REPOSITORY = Path(__file__).resolve().parents[3]
PACK_DIR = REPOSITORY / "policies"
LIBRARY_ROOT = Path(__file__).resolve().parents[2]  # holds the percona_mysql_k8s package
LEVELS = {analyzer_pb2.ADVISORY: "advisory", analyzer_pb2.MANDATORY: "mandatory",
          analyzer_pb2.REMEDIATE: "remediate", analyzer_pb2.DISABLED: "disabled"}
LEVEL_VALUES = {name: value for value, name in LEVELS.items()}
SECRET_SIG = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}


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
    return analyzer_pb2.AnalyzeRequest(type=resource.type, properties=struct(resource.properties), urn=resource.urn,
                                       name=resource.name, options=_options(resource))


def stack_request(resources: Iterable[Resource]) -> analyzer_pb2.AnalyzeStackRequest:
    items = []
    for resource in resources:
        dependencies = {key: analyzer_pb2.AnalyzerPropertyDependencies(urns=list(urns))
                        for key, urns in (resource.property_dependencies or {}).items() if urns}
        items.append(analyzer_pb2.AnalyzerResource(
            type=resource.type, properties=struct(resource.properties), urn=resource.urn, name=resource.name,
            options=_options(resource), parent=resource.parent or "", dependencies=list(resource.dependencies),
            propertyDependencies=dependencies))
    return analyzer_pb2.AnalyzeStackRequest(resources=items)


class Pack:
    """A running policy pack process and a client for it."""

    def __init__(self, pack_dir: Path = PACK_DIR, *, stack: str = "dev", project: str = "project",
                 config: Mapping[str, str] | None = None, dry_run: bool = True, python: str = sys.executable):
        env = dict(os.environ)
        env.update({"PULUMI_STACK": stack, "PULUMI_PROJECT": project, "PULUMI_DRY_RUN": "true" if dry_run else "false",
                    "PULUMI_CONFIG": json.dumps(dict(config or {}))})
        # The CLI runs the pack in its virtualenv, where `-e ..` (requirements.txt) makes the repository
        # importable; from a checkout without that install, put the repository on the path instead.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(LIBRARY_ROOT), env.get("PYTHONPATH", "")]))
        self.process = subprocess.Popen(
            [python, "-u", "-m", "pulumi.policy", "127.0.0.1:1", "."], cwd=pack_dir, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.process.stdout.readline().decode().strip()
        if not line.isdigit():
            self.close()
            raise RuntimeError(f"the policy pack did not start: {line!r} {self.process.stderr.read().decode()[-2000:]}")
        self.port = int(line)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}",
                                             options=[("grpc.max_receive_message_length", 400 * 1024 * 1024)])
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)

    def info(self) -> analyzer_pb2.AnalyzerInfo:
        return self.stub.GetAnalyzerInfo(empty_pb2.Empty())

    def configure(self, config: Mapping[str, Mapping[str, Any]]) -> None:
        """``{policy: {"enforcementLevel": "advisory", "max_fc_limit": 50}}`` as the CLI sends it."""
        request = analyzer_pb2.ConfigureAnalyzerRequest()
        for policy, values in config.items():
            values = dict(values)
            level = values.pop("enforcementLevel", None)
            entry = analyzer_pb2.PolicyConfig(properties=struct(values))
            if level is not None:
                entry.enforcementLevel = LEVEL_VALUES[level]
            request.policyConfig[policy].CopyFrom(entry)
        self.stub.Configure(request)

    def analyze(self, resource: Resource) -> list[Diagnostic]:
        return self._diagnostics(self.stub.Analyze(analyze_request(resource)))

    def analyze_stack(self, resources: Iterable[Resource]) -> list[Diagnostic]:
        return self._diagnostics(self.stub.AnalyzeStack(stack_request(resources)))

    @staticmethod
    def _diagnostics(response: analyzer_pb2.AnalyzeResponse) -> list[Diagnostic]:
        return [Diagnostic(d.policyName, d.policyPackName, d.policyPackVersion, LEVELS.get(d.enforcementLevel, "advisory"),
                           d.message, d.description, d.urn) for d in response.diagnostics]

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


def config_json(properties: Mapping[str, Any]) -> dict:
    return json_format.MessageToDict(struct(properties))
