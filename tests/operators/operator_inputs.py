"""What the operator tier hands the real operators, and what it expects back, from the stack program itself.

Pure (no cluster): for every shipped stack (``stacks/Pulumi.<stack>.yaml``) and each engine it can select, a
:class:`StackCase` runs the stack program under Pulumi's mocks (``percona_mysql_k8s.cli.offline.run_stack``, as the
offline check and the API-server tier do) and keeps the custom resource and the Secrets it registers in the
database namespace, as the pulumi-kubernetes provider would send them. The same stack config, decoded by the
program's own decoder (``stack_settings_from_config``), gives what the tier compares the operator's render with: the
sizing's containers and my.cnf, and the pools the Nodes are shaped after. Nothing here is a hand-written copy of a
custom resource.

Each case gets its own namespace through the stack's own ``namespace`` key, so one operator process watches them
all (``WATCH_NAMESPACE`` is a comma list; the PXC operator's webhook binds :9443, so only one runs at a time).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]
STACKS = tuple(sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (REPOSITORY / "stacks").glob("Pulumi.*.yaml")))
PXC, GROUP_REPLICATION = "pxc", "group-replication"
ENGINES = (PXC, GROUP_REPLICATION)  # every target can select either (percona_mysql_k8s.plan.config: engine)
# The kind stack sizes its nodes as a share of the machine running the program (K1): pin the 8-CPU / 32 GiB
# workstation its stack file is written for (as the API-server tier and `scripts/up.sh --offline` do).
KIND_HOST = (8000, 32 * 2**30)
# The existing stack reads its cluster's Nodes at preview/up; here it plans from one declared node (the
# 8 vCPU / 32 GiB machine its stack file's comment names), and the tier's Nodes are shaped after that plan.
OFFLINE_EXISTING = {
    "existingNodeSource": "config",
    "existingNodeCpu": "7910m",
    "existingNodeMemory": "28Gi",
    "existingNodeZones": ["us-east-1a", "us-east-1b", "us-east-1c"],
}
# A size change in the stack config that keeps every Node as it is: DaemonSets taking more of each node leave the
# member less (K1), so the sizing shrinks mysqld and the operator must re-render the same StatefulSet.
RESIZE = {"daemonsetMemory": "3Gi", "daemonsetCpu": "1"}
PMM_TOKEN_KEY = "pmmservertoken"  # percona_mysql_k8s.plan.database.spec.PMM_TOKEN_KEY
CR_KINDS = {"PerconaXtraDBCluster": PXC, "PerconaServerMySQL": GROUP_REPLICATION}
_TOKEN = re.compile(r"^kubernetes:(?P<group>[^/:]+)/(?P<version>[^:]+):(?P<kind>[A-Za-z0-9]+)$")


def tier_required() -> bool:
    """With OPERATOR_TIER_REQUIRED=1 (``scripts/operators.sh run-tier`` sets it) a missing prerequisite fails, never
    skips; the script itself fails under CI=true when the tier cannot start. (The unit suite, which collects these
    tests too, skips them: the tier runs them.)"""
    import os

    return os.environ.get("OPERATOR_TIER_REQUIRED") == "1"


def wire(value: Any) -> Any:
    """Unknowns dropped, integral floats as ints: the JSON the Go provider sends (numbers cross the engine as floats)."""
    if isinstance(value, dict):
        return {key: wire(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [wire(item) for item in value if item is not None]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def as_object(type_token: str, inputs: Mapping[str, Any]) -> dict[str, Any] | None:
    """The object a ``kubernetes:<group>/<version>:<Kind>`` registration sends, or None for anything else."""
    match = _TOKEN.match(type_token)
    if not match:
        return None
    group = match["group"]
    body = wire(dict(inputs))
    body.setdefault("apiVersion", match["version"] if group == "core" else f"{group}/{match['version']}")
    body.setdefault("kind", match["kind"])
    return body


@dataclass(frozen=True)
class StackCase:
    stack: str
    engine: str

    @property
    def id(self) -> str:
        return f"{self.stack}-{'pxc' if self.engine == PXC else 'gr'}"

    @property
    def namespace(self) -> str:
        return f"op-{self.id}"

    @property
    def operator(self) -> str:
        return "pxc" if self.engine == PXC else "ps"

    def overrides(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        values: dict[str, Any] = dict(OFFLINE_EXISTING) if self.stack == "existing" else {}
        values.update(engine=self.engine, namespace=self.namespace)
        values.update(extra or {})
        return values

    def config(self, extra: Mapping[str, Any] | None = None) -> dict[str, str]:
        """The bare config keys the program decodes: Pulumi.yaml defaults, the stack file, this case's overrides."""
        import json

        from percona_mysql_k8s.cli.offline import stack_config

        values = {key.split(":", 1)[1]: value for key, value in stack_config(self.stack, REPOSITORY).items()}
        for key, value in self.overrides(extra).items():
            values[key] = value if isinstance(value, str) else json.dumps(value)
        return values

    def settings(self, extra: Mapping[str, Any] | None = None):
        """The program's own decoding of this config: the sizing, the pools (``StackSettings``)."""
        from percona_mysql_k8s.stack.settings import stack_settings_from_config

        return stack_settings_from_config(self.config(extra), host=lambda: KIND_HOST)

    def objects(self, extra: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """The stack program's custom resource and the Secrets it registers in the database namespace (a copy: the
        program runs once per case and config)."""
        import copy
        import json

        key = (self, json.dumps(dict(extra or {}), sort_keys=True))
        if key not in _OBJECTS:
            _OBJECTS[key] = self._run_program(extra)
        return copy.deepcopy(_OBJECTS[key])

    def _run_program(self, extra: Mapping[str, Any] | None) -> list[dict[str, Any]]:
        from percona_mysql_k8s.cli.offline import run_stack
        from percona_mysql_k8s.plan.clusters import kind as kind_plan

        host, kind_plan.host_resources = kind_plan.host_resources, lambda: KIND_HOST
        try:
            registrations = run_stack(self.stack, repository=REPOSITORY, overrides=self.overrides(extra))
        finally:
            kind_plan.host_resources = host
        found = []
        for record in registrations:
            body = as_object(record.type, record.inputs)
            if body is None or body["kind"] not in ("Secret", *CR_KINDS):
                continue
            if (body.get("metadata") or {}).get("namespace") == self.namespace:
                found.append(body)
        kinds = [body["kind"] for body in found]
        if sum(kind in CR_KINDS for kind in kinds) != 1:
            raise AssertionError(f"{self.id}: expected one Percona custom resource in {self.namespace}, found {kinds}")
        return found


_OBJECTS: dict[tuple[StackCase, str], list[dict[str, Any]]] = {}
STACK_CASES = tuple(StackCase(stack, engine) for stack in STACKS for engine in ENGINES)


def custom_resource(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return next(body for body in objects if body["kind"] in CR_KINDS)


def cluster_secret(objects: list[dict[str, Any]]) -> dict[str, Any]:
    """The Secret the custom resource names in ``spec.secretsName``."""
    cr = custom_resource(objects)
    name = cr["spec"]["secretsName"]
    return next(body for body in objects if body["kind"] == "Secret" and body["metadata"]["name"] == name)


def with_pmm_token(objects: list[dict[str, Any]], case_id: str) -> list[dict[str, Any]]:
    """The Secrets as the stack's PMM token Job leaves them (percona_mysql_k8s.database.pmm.PmmToken): that Job asks
    the PMM server to mint a service-account token and patches it into ``<cluster>-secrets`` as ``pmmservertoken``,
    and the custom resource is created only after it (DatabaseCluster waits for the Job). No PMM server runs here,
    so the tier writes a token of its own into the Secret before the custom resource is applied. The operators
    build the pmm-client container only when that key is there (PXC pkg/pxc/app/statefulset/node.go PMMContainer;
    PS api/v1 PMMEnabled)."""
    cr = custom_resource(objects)
    if not (cr["spec"].get("pmm") or {}).get("enabled"):
        return objects
    secret = cluster_secret(objects)
    data = dict(secret.get("data") or {})
    if PMM_TOKEN_KEY in data or PMM_TOKEN_KEY in (secret.get("stringData") or {}):
        return objects  # an existing PMM server's token, set in config (ExternalPmm)
    token = hashlib.sha256(f"tier-pmm-token:{case_id}".encode()).hexdigest()
    data[PMM_TOKEN_KEY] = base64.b64encode(token.encode()).decode()
    patched = {**secret, "data": data}
    return [patched if body is secret else body for body in objects]
