"""Extras by use (issue 22): the base install has the commands and no provider; each target is an extra, and a
component whose extra is missing says which one to install.

The real installs are built in clean venvs (test_clean_venvs.py, marker clean_venv); here an install without
an extra is simulated in a child interpreter by blocking the extra's modules (``sys.modules[name] = None``
makes ``import name`` raise ModuleNotFoundError, exactly as when the distribution is absent).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from percona_mysql_k8s import _extras

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE = REPOSITORY / "modules" / "percona_mysql_k8s"
PROJECT = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
EXTRAS = PROJECT["optional-dependencies"]
DISTRIBUTIONS = {name: {dist.lower().replace("_", "-") for dist in dists} for name, dists in packages_distributions().items()}


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(text).name.lower().replace("_", "-") for text in requirements}


def _distribution(module: str) -> str:
    (name,) = DISTRIBUTIONS[module] - {"percona-mysql-k8s"}
    return name


def _extra_distributions(extra: str) -> set[str]:
    """What ``pip install percona-mysql-k8s[extra]`` adds, self-references followed."""
    found = set()
    for text in EXTRAS[extra]:
        requirement = Requirement(text)
        if requirement.name == "percona-mysql-k8s":
            for inner in requirement.extras:
                found |= _extra_distributions(inner)
        else:
            found.add(requirement.name.lower())
    return found


BASE = _names(PROJECT["dependencies"])


def test_the_extras_table_is_what_pyproject_declares():
    assert set(_extras.TARGET_EXTRAS) <= set(EXTRAS) and "all" in EXTRAS
    assert _extra_distributions("all") == set().union(*(_extra_distributions(extra) for extra in _extras.TARGET_EXTRAS))
    for module, extras in _extras.PROVIDED_BY.items():
        distribution = _distribution(module)
        declared_in = {
            extra
            for extra in (*_extras.TARGET_EXTRAS, "plot", "grade", "admission", "restore")
            if distribution in _extra_distributions(extra)
        }
        assert declared_in == set(extras), f"{module} ({distribution}): pyproject puts it in {declared_in}, _extras says {extras}"
        assert distribution not in BASE, f"{distribution} is an extra's, not the base install's"
    for module, extra in _extras.MODULE_EXTRAS.items():
        assert (PACKAGE.parent / (module.replace(".", "/") + ".py")).is_file() and extra in (*_extras.TARGET_EXTRAS, "restore")


def test_no_cloud_sdk_and_no_provider_in_the_base_install():
    assert not BASE & {"pulumi-gcp", "pulumi-aws", "pulumi-eks", "pulumi-kubernetes", "pulumi-random", "pulumi-command"}
    assert {"pulumi", "pulumi-policy"} <= BASE  # the pack and the offline check's mocks


def _third_party_imports(path: Path) -> set[str]:
    """Top-level names imported by ``path`` (statements only; under TYPE_CHECKING too, as a checker reads them)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return {name for name in found if name not in sys.stdlib_module_names and name not in ("percona_mysql_k8s", "__future__")}


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda path: _module_name(path))
def test_every_import_is_in_the_base_install_or_in_the_extra_its_module_names(path):
    # The defect this guards against: a provider imported by a module the base install loads, or an extra's
    # module importing what its extra does not install.
    module = _module_name(path)
    for name in sorted(_third_party_imports(path)):
        if name in ("grpc", "google"):  # grpcio and protobuf come with pulumi, which requires them
            continue
        distribution = _distribution(name)
        if distribution in BASE:
            continue
        assert name in _extras.PROVIDED_BY, f"{module} imports {name} ({distribution}): neither a base dependency nor an extra's"
        extras = _extras.extras_for(name, module)
        assert all(distribution in _extra_distributions(extra) for extra in extras), (module, name, extras)


def _child(code: str, blocked: tuple[str, ...]) -> subprocess.CompletedProcess:
    """Run ``code`` in a child interpreter that cannot import ``blocked`` (as if they were not installed)."""
    prelude = f"import sys\nfor _name in {list(blocked)!r}:\n    sys.modules[_name] = None\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, timeout=180, cwd=REPOSITORY
    )


EVERY_EXTRA = tuple(_extras.PROVIDED_BY)


def test_the_base_install_runs_its_commands_without_any_extra(tmp_path):
    manifest = tmp_path / "configmap.yaml"
    manifest.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: default}\ndata: {a: b}\n")
    result = _child(
        f"""
        import io, json
        from contextlib import redirect_stdout
        from percona_mysql_k8s.sizing import cli
        from percona_mysql_k8s.cli import bundle, check
        from percona_mysql_k8s.cli import offline, restore
        import percona_mysql_k8s.stack.settings, percona_mysql_k8s.clusters, percona_mysql_k8s.database
        sized = io.StringIO()
        with redirect_stdout(sized):
            assert cli.main(["--engine", "pxc", "--node-type", "n2-standard-16", "--provider", "gke", "--format", "json"]) == 0
        judged = io.StringIO()
        with redirect_stdout(judged):
            status = check.main(["--manifests", {str(manifest)!r}, "--json"])
        restored = io.StringIO()
        with redirect_stdout(restored):
            assert restore.main(["--engine", "pxc", "--cluster", "db1", "--namespace", "mysql", "--backup", "b1"]) == 0
        print(json.dumps({{"sized": "mysqld" in json.loads(sized.getvalue())["resources"], "status": status,
                          "restore": "PerconaXtraDBClusterRestore" in restored.getvalue(),
                          "loaded": sorted(m for m, v in sys.modules.items() if v is not None and m.split(".")[0] in {list(EVERY_EXTRA)!r})}}))
    """,
        EVERY_EXTRA,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome == {"sized": True, "status": 0, "restore": True, "loaded": []}


@pytest.mark.parametrize(
    ("code", "blocked", "hint"),
    [
        ("import percona_mysql_k8s.clusters.gke", ("pulumi_gcp",), '"percona-mysql-k8s[gke]"'),
        ("import percona_mysql_k8s.clusters.gke", ("pulumi_kubernetes",), '"percona-mysql-k8s[gke]"'),
        ("import percona_mysql_k8s.clusters.eks", ("pulumi_eks",), '"percona-mysql-k8s[eks]"'),
        ("import percona_mysql_k8s.clusters.eks", ("pulumi_aws",), '"percona-mysql-k8s[eks]"'),
        ("import percona_mysql_k8s.clusters.kind", ("pulumi_command",), '"percona-mysql-k8s[kind]"'),
        ("import percona_mysql_k8s.clusters.existing", ("pulumi_kubernetes",), '"percona-mysql-k8s[existing]"'),
        (
            "from percona_mysql_k8s.database import DatabaseCluster",
            ("pulumi_random",),
            '"percona-mysql-k8s[<target>]" with the target you deploy to (gke, eks, kind, existing), or "percona-mysql-k8s[all]"',
        ),
        (
            "from percona_mysql_k8s.database.backup_storage import _cloud_sdk; _cloud_sdk('pulumi_gcp', 'gke', 'GcsBackupStorage')",
            ("pulumi_gcp",),
            '"percona-mysql-k8s[gke]"',
        ),
        (
            "from percona_mysql_k8s.database.backup_storage import _cloud_sdk; _cloud_sdk('pulumi_aws', 'eks', 'S3BackupStorage')",
            ("pulumi_aws",),
            '"percona-mysql-k8s[eks]"',
        ),
    ],
)
def test_a_component_without_its_extra_names_the_extra(code, blocked, hint):
    result = _child(
        f"""
        from percona_mysql_k8s._extras import MissingExtraError
        try:
            {code}
        except MissingExtraError as error:
            print(error)
        else:
            print("imported")
    """,
        blocked,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    message = result.stdout.strip()
    assert f"needs {blocked[0]}, which this installation lacks: pip install {hint}" in message


def test_a_module_missing_for_another_reason_is_not_blamed_on_an_extra():
    # A broken install (a module no extra provides) keeps Python's own error: an extra would not fix it.
    error = ModuleNotFoundError("No module named 'yaml'", name="yaml")
    assert _extras.missing_extra(error, "percona_mysql_k8s.clusters.gke") is error


def test_the_stack_program_without_its_targets_extra_stops_with_one_line_naming_it():
    from percona_mysql_k8s.cli import offline

    result = _child(
        f"""
        from percona_mysql_k8s.cli import offline
        try:
            offline.run_stack("kind", repository={str(REPOSITORY)!r}, overrides={{"kindHostCpu": "8", "kindHostMemory": "32Gi"}})
        except Exception as error:
            print(type(error).__name__, "|", error)
    """,
        ("pulumi_command",),
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert offline is not None
    kind, _, message = result.stdout.strip().splitlines()[-1].partition(" | ")
    assert kind == "RunError"
    assert message == (
        "percona_mysql_k8s.clusters.kind needs pulumi_command, which this installation lacks: "
        'pip install "percona-mysql-k8s[kind]"'
    )


def test_the_readme_shows_each_installs_size_and_time():
    # README "Install as a library": one row per install benchmarks/install_bench.py measures, with its figures
    import re

    readme = (REPOSITORY / "README.md").read_text()
    table = readme[readme.index("<!-- BEGIN INSTALL SIZES -->") : readme.index("<!-- END INSTALL SIZES -->")]
    rows = dict(re.findall(r"^\| `(?:percona-mysql-k8s|\[(\w+)\])` \|.*?\| (\d+ MiB \| \d+ s \| \d+) \|$", table, re.M))
    assert set(rows) == {"", *_extras.TARGET_EXTRAS, "restore", "all"}  # "" is the base install's row
    assert 'pip install "percona-mysql-k8s[gke]"' in readme
    base, every = (int(rows[key].split(" MiB")[0]) for key in ("", "all"))
    assert base * 3 < every  # issue 22: the base install is under a third of the full one
