"""The component package (provider/): one component per target, for TypeScript, YAML, Go, C# programs (issue 22).

Each component's inputs are its target's stack config keys, generated from Pulumi.yaml (provider/generate.py), and
it deploys exactly what the stack program deploys for that config (percona_mysql_k8s.stack.program), under itself.
The schema the provider host infers here in process is the checked-in snapshot (provider/schema.json); the real
engine's ``pulumi package get-schema`` prints the same (tests/engine/test_engine_component_package.py).
"""

from __future__ import annotations

import importlib.util
import json
import textwrap
from collections import Counter
from pathlib import Path

import pytest
import yaml
from percona_mysql_k8s import __version__, _tokens
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import GIB
from percona_mysql_k8s.plan.clusters import inventory as cluster_inventory
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.stack import components
from percona_mysql_k8s.stack.package import config_key, config_values, python_name
from percona_mysql_k8s.stack.settings import stack_settings_from_config, target_keys

REPOSITORY = Path(__file__).resolve().parents[2]
PROVIDER = REPOSITORY / "provider"
CONFIG = yaml.safe_load((REPOSITORY / "Pulumi.yaml").read_text())["config"]
_spec = importlib.util.spec_from_file_location("provider_generate", PROVIDER / "generate.py")
generate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(generate)
TARGETS = {target: component for component, (target, _summary) in generate.COMPONENTS.items()}
LAPTOP = (8000, 32 * GIB)
# stacks/Pulumi.<target>.yaml, plus what the offline run needs (the kind machine, the existing cluster's nodes)
OVERRIDES = {
    "gke": {},
    "eks": {},
    "kind": {"kindHostCpu": "8", "kindHostMemory": "32Gi"},
    "existing": {
        "existingNodeSource": "config",
        "existingNodeCpu": "7910m",
        "existingNodeMemory": "28Gi",
        "existingNodeZones": ["us-east-1a", "us-east-1b", "us-east-1c"],
    },
}


def inferred_schema() -> dict:
    """What the provider host (provider/__main__.py) answers GetSchema with, inferred in this process."""
    from pulumi.provider.experimental.component import ComponentProvider

    return json.loads(ComponentProvider(components.COMPONENTS, _tokens.PACKAGE, None, __version__).schema)


def test_the_generated_components_are_current():
    for path, text in generate.render().items():
        assert path.read_text() == text, f"{path.relative_to(REPOSITORY)} is stale: run .venv/bin/python provider/generate.py"


def _property(schema: dict) -> tuple:
    items = schema.get("items") or schema.get("additionalProperties") or {}
    return (
        schema.get("type"),
        schema.get("$ref"),
        schema.get("plain", False),
        schema.get("description"),
        items.get("type"),
        items.get("$ref"),
    )


def essence(schema: dict) -> dict:
    """What a schema says of each component: its description, inputs and outputs (name, type, plainness, description)
    and which are required. The CLI prints the host's schema normalized (no description on list items, no empty
    sections, a ``config`` section); this is what both say."""
    return {
        token: {
            "description": resource.get("description"),
            "inputs": {name: _property(value) for name, value in resource.get("inputProperties", {}).items()},
            "requiredInputs": sorted(resource.get("requiredInputs", [])),
            "outputs": {name: _property(value) for name, value in resource.get("properties", {}).items()},
            "required": sorted(resource.get("required", [])),
        }
        for token, resource in schema["resources"].items()
    } | {"name": schema["name"], "version": schema["version"]}


def test_the_inferred_schema_is_the_snapshot_the_cli_printed():
    # provider/schema.json is what `pulumi package get-schema provider` printed (tests/engine compares it byte for byte)
    snapshot = json.loads((PROVIDER / "schema.json").read_text())
    assert essence(inferred_schema()) == essence(snapshot), "provider/schema.json is stale: see provider/README.md"


def test_every_component_declares_its_targets_config_keys_as_pulumi_yaml_does():
    resources = inferred_schema()["resources"]
    assert set(resources) == {_tokens.token(component) for component in generate.COMPONENTS}
    for target, component in TARGETS.items():
        schema = resources[_tokens.token(component)]
        assert schema["isComponent"] is True and schema["description"]
        keys = list(target_keys(target))
        assert list(schema["inputProperties"]) == [*keys, "pmmServerToken"]
        for key in keys:
            declared, inferred = CONFIG[key], schema["inputProperties"][key]
            assert inferred["description"].startswith(declared["description"].rstrip(".")), key
            kind = declared["type"]
            assert inferred["type"] == kind and inferred.get("plain") is True, key  # the sizing reads it when constructed
            if kind == "array":
                assert inferred["items"]["type"] == declared["items"]["type"]
        assert "plain" not in schema["inputProperties"]["pmmServerToken"]  # a secret Output passes through
        assert sorted(schema["requiredInputs"]) == sorted(generate.REQUIRED[target])
        outputs = set(schema["properties"])
        assert {"clusterName", "namespace", "writerEndpoint", "secretName", "database", "sizing"} <= outputs
        assert ("kubeconfig" in outputs) is (target != "existing")


def test_names_map_to_config_keys_both_ways():
    for key in CONFIG:
        assert config_key(python_name(key)) == key
    assert python_name("databaseDiskSizeGb") == "database_disk_size_gb" and config_key("eks_vpc_id") == "eksVpcId"


def _minimal(target: str) -> dict:
    """The least a component of ``target`` needs (every REQUIRED key, and the existing cluster's declared nodes)."""
    return {
        "gke": {
            "gcp_project": "perf-1",
            "gcp_region": "europe-west1",
            "gcp_zones": ["europe-west1-b", "europe-west1-c", "europe-west1-d"],  # three: a zone's loss leaves a majority (K7)
            "database_node_type": "n2-standard-16",
        },
        "eks": {"aws_region": "eu-west-1", "database_node_type": "m6i.4xlarge"},
        "kind": {"kind_host_cpu": "8", "kind_host_memory": "32Gi", "ephemeral": True},
        "existing": {
            "database_pool_labels": "pool=db",
            "database_pool_taint": "pool=db:NoSchedule",
            "monitoring_pool_labels": "pool=mon",
            "existing_node_source": "config",
            "existing_node_cpu": "7910m",
            "existing_node_memory": "28Gi",
            "existing_node_zones": ["zone-a", "zone-b", "zone-c"],
            "backup_endpoint": "https://s3.backup.example.com",
            "backup_bucket": "db-backups",
            "backup_credentials_secret": "db-backup-keys",
        },
    }[target]


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_the_required_inputs_are_the_ones_the_settings_cannot_do_without(target):
    stack_settings_from_config(config_values(target, _minimal(target)), host=lambda: LAPTOP)
    for key in generate.REQUIRED[target]:
        args = {name: value for name, value in _minimal(target).items() if name != python_name(key)}
        with pytest.raises(InputError) as error:
            stack_settings_from_config(config_values(target, args), host=lambda: LAPTOP)
        assert error.value.key == key


def test_an_input_of_another_target_is_refused_naming_it():
    with pytest.raises(InputError, match="is not an input of this component") as error:
        config_values("eks", {**_minimal("eks"), "gcp_project": "p"})
    assert error.value.key == "gcpProject"


def _component_program(tmp_path: Path, target: str, args: dict) -> Path:
    program = tmp_path / f"{target}-program"
    program.mkdir()
    (program / "__main__.py").write_text(
        textwrap.dedent(f"""
        import pulumi
        from percona_mysql_k8s.stack.components import {TARGETS[target]}

        database = {TARGETS[target]}("db", {args!r})
        pulumi.export("kubeconfigIsSecret", database.kubeconfig.is_secret() if getattr(database, "kubeconfig", None) else None)
        pulumi.export("writerEndpoint", database.writer_endpoint)
    """)
    )
    return program


def _stack_args(target: str) -> dict:
    """stacks/Pulumi.<target>.yaml (with OVERRIDES) as the component's arguments, decoded as the CLI would."""
    values = {}
    for full, raw in offline.stack_config(target, REPOSITORY).items():
        key = full.split(":", 1)[1]
        if key in target_keys(target):
            values[python_name(key)] = raw if CONFIG[key]["type"] == "string" else json.loads(raw)
    return {**values, **{python_name(key): value for key, value in OVERRIDES[target].items()}}


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_each_component_deploys_what_its_stack_deploys_under_itself(target, tmp_path, monkeypatch):
    monkeypatch.setattr(kind_plan, "host_resources", lambda: LAPTOP)
    stack = offline.run_stack(target, repository=REPOSITORY, overrides=OVERRIDES[target])
    from pulumi.runtime.settings import get_root_resource

    stack_outputs = dict(get_root_resource().outputs)
    registered = offline.run_program(
        _component_program(tmp_path, target, _stack_args(target)), stack=target, config={}, project="consumer"
    )
    component = [r for r in registered if r.type == _tokens.token(TARGETS[target])]
    assert len(component) == 1 and component[0].name == "db"
    below = [r for r in registered if r is not component[0]]
    assert Counter((r.type, r.name) for r in below) == Counter((r.type, r.name) for r in stack)
    # every resource is the component's, directly or through one of its children
    parents = {r.urn: r.parent for r in registered}
    for resource in below:
        urn = resource.urn
        while parents.get(urn) and parents[urn] != component[0].urn:
            urn = parents[urn]
        assert parents.get(urn) == component[0].urn, f"{resource.type} {resource.name} is not under the component"
    from database.harness import stack_outputs as resolved

    outputs = resolved()  # the consumer program's: what it read from the component
    assert outputs["writerEndpoint"] == stack_outputs["database"]["writerEndpoint"]
    assert outputs["kubeconfigIsSecret"] is (True if target != "existing" else None)


def test_a_bad_input_stops_the_component_with_one_line_naming_it(tmp_path):
    program = _component_program(tmp_path, "gke", {**_minimal("gke"), "cluster_size": 2})
    with pytest.raises(Exception, match=r"^MysqlOnGke: T1: clusterSize: ") as error:
        offline.run_program(program, stack="gke", config={}, project="consumer")
    assert type(error.value).__name__ == "RunError"


def _fenced(language: str) -> list[str]:
    import re

    return re.findall(rf"^```{language}\n(.*?)^```", (PROVIDER / "README.md").read_text(), re.M | re.S)


def test_the_readmes_typescript_program_uses_the_schemas_names_and_a_valid_config():
    import re

    schema = json.loads((PROVIDER / "schema.json").read_text())
    (program,) = _fenced("typescript")
    ((variable, component, body),) = re.findall(r"const (\w+) = new perconaMysql\.(\w+)\(\"[\w-]+\", \{(.*?)\}\);", program, re.S)
    resource = schema["resources"][_tokens.token(component)]
    values = {}
    for key, literal in re.findall(r"^\s*(\w+): (.+?),?$", body, re.M):
        assert key in resource["inputProperties"], f"{component} has no input {key}"
        literal = re.sub(r'config\.require\("(\w+)"\)', '"perf-project-1"', literal)  # what the stack config would hold
        values[python_name(key)] = json.loads(literal)
    assert set(resource["requiredInputs"]) <= {config_key(name) for name in values}
    target = generate.COMPONENTS[component][0]
    stack_settings_from_config(config_values(target, values))  # the program's inputs are a valid stack config
    for output in re.findall(rf"\b{variable}\.(\w+)\b", program):
        assert output in resource["properties"], f"{component} has no output {output}"


def _nodes(properties: dict) -> list[dict]:
    """Three database Nodes, one per zone, and one monitoring Node carrying the pools' labels (and the taint), 8 vCPU /
    32 GiB."""

    def node(name: str, labels: str, taint: str = "", zone: str = "zone-a") -> dict:
        key_value, _, effect = taint.partition(":")
        key, _, value = key_value.partition("=")
        labels = {**dict(item.split("=") for item in labels.split(",")), "topology.kubernetes.io/zone": zone}
        return {
            "metadata": {"name": name, "labels": labels},
            "spec": {"taints": [{"key": key, "value": value, "effect": effect}] if taint else []},
            "status": {
                "allocatable": {"cpu": "7910m", "memory": "28Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }

    database = [
        node(f"db-{i}", properties["databasePoolLabels"], properties["databasePoolTaint"], f"zone-{'abc'[i]}") for i in range(3)
    ]
    return [*database, node("mon-0", properties["monitoringPoolLabels"])]


def test_the_readmes_yaml_program_uses_the_schemas_names_and_a_valid_config(monkeypatch):
    schema = json.loads((PROVIDER / "schema.json").read_text())
    (text,) = _fenced("yaml")
    program = yaml.safe_load(text)
    assert program["packages"] == {"percona-mysql": "../percona-mysql-k8s/provider"}
    for name, declared in program["resources"].items():
        component = declared["type"].rsplit(":", 1)[1]
        resource = schema["resources"][declared["type"]]
        properties = declared["properties"]
        assert set(properties) <= set(resource["inputProperties"]) and set(resource["requiredInputs"]) <= set(properties)
        # the existing target reads its pools' Nodes: answer as a cluster with the example's pool labels and taint
        nodes = _nodes(properties)
        monkeypatch.setattr(cluster_inventory, "read_cluster", lambda kubeconfig, context, nodes=nodes: (nodes, []))
        target = generate.COMPONENTS[component][0]
        stack_settings_from_config(config_values(target, {python_name(key): value for key, value in properties.items()}))
        for output in program["outputs"].values():
            assert output.startswith(f"${{{name}.") and output[len(name) + 3 : -1] in resource["properties"]


def test_the_provider_host_constructs_a_component_from_schema_inputs(tmp_path):
    # What the engine's Construct call does in the plugin (pulumi.provider.experimental.component): inputs by their
    # schema names (integers as floats, as they cross the wire) mapped to the Args, the component built, its
    # outputs read back by their schema names.
    inputs = {config_key(name): value for name, value in _minimal("gke").items()}
    inputs["clusterSize"] = 3.0
    program = tmp_path / "host"
    program.mkdir()
    (program / "__main__.py").write_text(
        textwrap.dedent(f"""
        import pulumi
        from pulumi.provider.experimental.component import ComponentProvider
        from percona_mysql_k8s import __version__
        from percona_mysql_k8s.stack.components import COMPONENTS

        provider = ComponentProvider(COMPONENTS, "percona-mysql", None, __version__)
        result = provider.construct("db", "percona-mysql:index:MysqlOnGke", {inputs!r}, None)
        pulumi.export("state", sorted(result.state))
        pulumi.export("writerEndpoint", result.state["writerEndpoint"])
        pulumi.export("kubeconfigIsSecret", result.state["kubeconfig"].is_secret())
    """)
    )
    registered = offline.run_program(program, stack="gke", config={}, project="consumer")
    from database.harness import stack_outputs as resolved

    outputs = resolved()
    assert outputs["state"] == sorted(
        [
            "kubeconfig",
            "clusterName",
            "namespace",
            "writerEndpoint",
            "secretName",
            "database",
            "sizing",
            "monitoringPool",
            "backups",
            "pmm",
        ]
    )  # no sysbench: off by default
    assert outputs["writerEndpoint"] == "percona-mysql-haproxy.mysql.svc:3306" and outputs["kubeconfigIsSecret"] is True
    assert [r.name for r in registered if r.type == "percona-mysql:index:MysqlOnGke"] == ["db"]
