"""The component package under the real Pulumi CLI (marker ``engine``; issue 22 §3).

* ``pulumi package get-schema provider`` on a copy of the repository (as ``pulumi package add`` from git sees it)
  lists the four public components with their inputs and outputs, and prints exactly provider/schema.json.
* A stack deployed with a component's previous type token keeps its resources under the new one (the alias).

Needs a ``pulumi`` on PATH with the Python language host (``scripts/engine.sh run-tier`` builds one: the kit of
../shared/tools/pulumi-engine); skipped otherwise, an error with ENGINE_TIER_REQUIRED=1. No cluster is needed.

Offline, ``get-schema`` first installs the plugin of every provider package in the plugin's venv (the
``pulumi-plugin.json`` each pulumi_* package ships) and fails on any it cannot download. So the test registers
them in a PULUMI_HOME of its own under the exact versions those packages name
(``plugins/resource-<name>-v<version>/pulumi-resource-<name>``): the kit's binary where it built one
(kubernetes, random), otherwise a stand-in script that only says what it is and exits 1. Building the schema
launches none of them (the host infers it from Python annotations; no component input is a provider resource),
so a stand-in being launched would fail the command, and the test with it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.engine

REPOSITORY = Path(__file__).resolve().parents[2]
DISTRIBUTION = ("pyproject.toml", "README.md", "LICENSE", "CHANGELOG.md", "modules", "provider")
COMPONENTS = ("MysqlOnGke", "MysqlOnEks", "MysqlOnKind", "MysqlOnExistingCluster")
STAND_IN = """#!/bin/sh
# A stand-in for pulumi-resource-{name} v{version} (tests/engine/test_engine_component_package.py): get-schema never
# launches it; if something does, it says so and fails.
echo "stand-in for pulumi-resource-{name} v{version}: not a provider (launched by mistake)" >&2
exit 1
"""


def _unavailable(reason: str):
    if os.environ.get("ENGINE_TIER_REQUIRED") == "1":
        pytest.fail(f"{reason} (ENGINE_TIER_REQUIRED=1)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def pulumi() -> str:
    binary = shutil.which("pulumi")
    if not binary or not shutil.which("pulumi-language-python"):
        _unavailable(
            "no `pulumi` with its Python language host on PATH: run `scripts/engine.sh run-tier` (it builds them, or uses yours)"
        )
    return binary


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(
        PULUMI_HOME=str(home),
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        NO_COLOR="1",
        PIP_NO_COMPILE="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        **extra,
    )
    return env


def _provider_plugins(python: Path) -> dict[str, str]:
    """name -> version of every resource plugin the venv's packages name (their pulumi-plugin.json)."""
    code = textwrap.dedent("""
        import json, pathlib, sysconfig
        found = {}
        for path in pathlib.Path(sysconfig.get_paths()["purelib"]).glob("*/pulumi-plugin.json"):
            plugin = json.loads(path.read_text())
            if plugin.get("resource"):
                found[plugin["name"]] = plugin["version"]
        print(json.dumps(found))
    """)
    result = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(result.stdout)


def register_plugins(home: Path, plugins: dict[str, str], kit: Path) -> dict[str, str]:
    """Each plugin under its exact version: the kit's binary when there is one, else a stand-in. Returns which."""
    used = {}
    for name, version in sorted(plugins.items()):
        folder = home / "plugins" / f"resource-{name}-v{version}"
        folder.mkdir(parents=True, exist_ok=True)
        binary = folder / f"pulumi-resource-{name}"
        built = kit / f"pulumi-resource-{name}"
        if built.is_file():
            binary.symlink_to(built)
            used[name] = "kit"
        else:
            binary.write_text(STAND_IN.format(name=name, version=version))
            binary.chmod(0o755)
            used[name] = "stand-in"
    return used


@pytest.fixture(scope="module")
def package(pulumi, tmp_path_factory) -> tuple[Path, Path]:
    """A copy of the repository (as ``pulumi package add`` from git sees it) with the plugin's venv made as the CLI
    makes it, and a PULUMI_HOME with the plugins of the venv's provider packages registered: (repository, home)."""
    work = tmp_path_factory.mktemp("component-package")
    repository = work / "percona-mysql-k8s"
    repository.mkdir()
    for name in DISTRIBUTION:
        source = REPOSITORY / name
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "venv")
        shutil.copytree(source, repository / name, ignore=ignore) if source.is_dir() else shutil.copy2(source, repository / name)
    plugin = repository / "provider"
    home = work / "pulumi-home"
    # The venv first (what the CLI's InstallDependencies does: venv, then pip install -r requirements.txt from
    # provider/), so the provider packages' versions are known before the CLI asks for their plugins.
    subprocess.run([sys.executable, "-m", "venv", str(plugin / "venv")], check=True, timeout=300)
    python = plugin / "venv" / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "-r", "requirements.txt"],
        cwd=plugin,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    plugins = _provider_plugins(python)
    assert {"kubernetes", "random", "gcp", "aws", "eks", "command"} <= set(plugins)
    used = register_plugins(home, plugins, Path(pulumi).parent)
    print(f"\nplugins registered: {used}")
    return repository, home


@pytest.fixture(scope="module")
def schema(pulumi, package) -> dict:
    """``pulumi package get-schema provider``."""
    repository, home = package
    result = subprocess.run(
        [pulumi, "package", "get-schema", "./provider"],
        cwd=repository,
        env=_env(home),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout)


def test_get_schema_lists_every_public_component_with_its_inputs_and_outputs(schema):
    assert schema["name"] == "percona-mysql"
    assert sorted(schema["resources"]) == sorted(f"percona-mysql:index:{name}" for name in COMPONENTS)
    for token, resource in schema["resources"].items():
        assert resource["isComponent"] is True and resource["description"], token
        assert len(resource["inputProperties"]) > 40 and {"clusterName", "engine", "storageSize"} <= set(
            resource["inputProperties"]
        )
        assert {"writerEndpoint", "database", "sizing"} <= set(resource["properties"])


def test_get_schema_prints_the_checked_in_snapshot(schema):
    # provider/schema.json is what consumers' SDKs are generated from; a change of a component's inputs or outputs
    # must show in review as a change of this file (regenerate: provider/README.md, or run this test with
    # PERCONA_UPDATE_SCHEMA=1, which writes what the engine printed and then fails so the run cannot pass by it)
    snapshot = REPOSITORY / "provider" / "schema.json"
    if os.environ.get("PERCONA_UPDATE_SCHEMA") == "1":
        snapshot.write_text(json.dumps(schema, indent=2) + "\n")
        pytest.fail(f"wrote {snapshot}: review the diff and commit it")
    assert schema == json.loads(snapshot.read_text())


# ---- a program in another language adds the package and previews a component ----------------------------------

_CONSUMER = """
import pulumi
import pulumi_percona_mysql as percona_mysql

database = percona_mysql.MysqlOnExistingCluster("orders", **{args!r})
pulumi.export("writerEndpoint", database.writer_endpoint)
"""
# An existing cluster planned from declared nodes, without the operator, PMM or backups: every resource it registers
# is one the kit's kubernetes and random providers preview without a cluster (unreachable: the provider defers).
CONSUMER_ARGS = {
    "cluster_name": "orders",
    "database_pool_labels": "pool=db",
    "database_pool_taint": "pool=db:NoSchedule",
    "monitoring_pool_labels": "pool=mon",
    "existing_node_source": "config",
    "existing_node_cpu": "7910m",
    "existing_node_memory": "28Gi",
    "install_operator": False,
    "install_pmm": False,
    "pmm_enabled": False,
    "backup": False,
    "ephemeral": True,
}


def _registered_under_mocks(tmp_path: Path, args: dict) -> list[tuple[str, str]]:
    """What the same component registers under the SDK's mocks (percona_mysql_k8s.cli.offline): (type, name) of each."""
    from percona_mysql_k8s.cli import offline

    program = tmp_path / "mocked"
    program.mkdir()
    (program / "__main__.py").write_text(
        f"from percona_mysql_k8s.stack.components import MysqlOnExistingCluster\nMysqlOnExistingCluster('orders', {args!r})\n"
    )
    return sorted((r.type, r.name) for r in offline.run_program(program, stack="dev", config={}, project="consumer"))


def test_a_program_adds_the_package_and_the_engine_constructs_the_component(pulumi, package, tmp_path):
    # The path every other language takes: `pulumi package add` generates the SDK (Python here: the kit has no
    # Node.js language host) and records the package in Pulumi.yaml; at preview the engine starts the plugin from
    # provider/ and calls Construct, and the component registers the stack program's resources under itself.
    repository, home = package
    project = tmp_path / "consumer"
    project.mkdir()
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:9'}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n"
        "users: [{name: u, user: {token: not-a-token}}]\n"
    )
    args = {**CONSUMER_ARGS, "kubeconfig": str(kubeconfig)}
    (project / "Pulumi.yaml").write_text(
        "name: consumer\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv\n"
    )
    (project / "requirements.txt").write_text("pulumi>=3.237\n")
    env = _env(home, PULUMI_BACKEND_URL=f"file://{tmp_path / 'state'}", PULUMI_CONFIG_PASSPHRASE="consumer")
    (tmp_path / "state").mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(project / "venv")], check=True, timeout=300)
    subprocess.run(
        [str(project / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "-r", "requirements.txt"],
        cwd=project,
        env=env,
        check=True,
        timeout=900,
    )

    def pulumi_run(*command: str) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [pulumi, *command, "--non-interactive"], cwd=project, env=env, capture_output=True, text=True, timeout=900
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        return result

    pulumi_run("package", "add", str(repository / "provider"))
    assert f"percona-mysql: {repository / 'provider'}" in (project / "Pulumi.yaml").read_text()
    (project / "__main__.py").write_text(_CONSUMER.format(args=args))
    pulumi_run("stack", "init", "dev")
    preview = json.loads(pulumi_run("preview", "--json").stdout)
    steps = [
        (step["urn"].split("::")[2].rsplit("$", 1)[-1], step["urn"].split("::")[3])
        for step in preview["steps"]
        if not step["urn"].split("::")[2].endswith("pulumi:pulumi:Stack")
    ]
    assert all(step["op"] == "create" for step in preview["steps"])
    # Expected: what the component registers under the SDK's mocks, in this process, from the same inputs
    assert sorted(steps) == _registered_under_mocks(tmp_path, args)
    assert ("percona-mysql:index:MysqlOnExistingCluster", "orders") in steps
    assert ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "orders-cr") in steps


# ---- the type-token rename keeps deployed stacks' resources -----------------------------------------------------

_BEFORE = """
import pulumi
import pulumi_kubernetes as k8s

# What 0.2.0's ExistingCluster registered (modules/percona_mysql_k8s/clusters/existing.py at 0.2.0): a component
# of type percona:clusters:ExistingCluster with its Kubernetes provider "<name>-k8s" as its child. Only the types
# and names matter here; the provider reads the kubeconfig written beside this program.
class ExistingCluster(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("percona:clusters:ExistingCluster", name, None, None)
        self.provider = k8s.Provider(f"{{name}}-k8s", kubeconfig={kubeconfig!r}, opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({{}})

ExistingCluster("perf")
"""

_AFTER = """
from percona_mysql_k8s.clusters.existing import ExistingCluster, ExistingClusterArgs
from percona_mysql_k8s.plan.clusters import cluster_settings_from_config

settings = cluster_settings_from_config({{
    "target": "existing", "clusterName": "perf", "kubeconfig": {kubeconfig!r},
    "databasePoolLabels": "pool=db", "databasePoolTaint": "pool=db:NoSchedule", "monitoringPoolLabels": "pool=mon",
    "existingNodeSource": "config", "existingNodeCpu": "7910m", "existingNodeMemory": "28Gi", "existingNodeZones": ["us-east-1a", "us-east-1b", "us-east-1c"],
}})
ExistingCluster("perf", ExistingClusterArgs.from_settings(settings))
"""


def test_a_stack_deployed_with_the_previous_type_keeps_its_resources(pulumi, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    # no cluster: the provider resource is created from its config alone (the kubernetes provider defers contact)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        textwrap.dedent("""
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
        contexts: [{name: c, context: {cluster: c, user: u}}]
        current-context: c
        users: [{name: u, user: {token: not-a-token}}]
    """)
    )
    (project / "Pulumi.yaml").write_text(
        f"name: rename\nruntime:\n  name: python\n  options:\n    virtualenv: {Path(sys.prefix)}\n"
    )
    env = _env(tmp_path / "home", PULUMI_BACKEND_URL=f"file://{tmp_path / 'state'}", PULUMI_CONFIG_PASSPHRASE="rename")
    (tmp_path / "state").mkdir()

    def pulumi_run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [pulumi, *args, "--non-interactive"], cwd=project, env=env, capture_output=True, text=True, timeout=600
        )

    assert pulumi_run("stack", "init", "dev").returncode == 0

    def deploy(program: str, command: str, *args: str) -> subprocess.CompletedProcess:
        (project / "__main__.py").write_text(program)
        result = pulumi_run(command, *args)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        return result

    before = _BEFORE.format(kubeconfig=str(kubeconfig))
    deploy(before, "up", "--yes", "--skip-preview")
    # the control: the new type without the alias would replace both (a new component and provider, the old deleted)
    unaliased = before.replace('"percona:clusters:ExistingCluster"', '"percona-mysql:index:ExistingCluster"')
    summary = json.loads(deploy(unaliased, "preview", "--json").stdout)["changeSummary"]
    assert summary == {"create": 2, "delete": 2, "same": 1}, summary
    # the library's ExistingCluster, with its alias: the same two resources, nothing created, deleted or replaced
    # (the one create is the second provider the target gained since, for CRDs that exist already: ClusterTarget.
    # shared_provider; what was deployed before is kept, none of it replaced)
    after = _AFTER.format(kubeconfig=str(kubeconfig))
    preview = json.loads(deploy(after, "preview", "--json").stdout)
    assert preview["changeSummary"] == {"same": 3, "create": 1}, preview["changeSummary"]
    created = [step["urn"] for step in preview["steps"] if step["op"] == "create"]
    assert len(created) == 1 and created[0].endswith("-k8s-shared"), created
    deploy(after, "up", "--yes", "--skip-preview")
    state = json.loads(pulumi_run("stack", "export").stdout)["deployment"]["resources"]
    types = sorted(resource["urn"].split("::")[2] for resource in state if resource["type"] != "pulumi:pulumi:Stack")
    assert (
        types == ["percona-mysql:index:ExistingCluster"] + ["percona-mysql:index:ExistingCluster$pulumi:providers:kubernetes"] * 2
    )
