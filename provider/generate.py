"""Write modules/percona_mysql_k8s/stack/components/, the package's components, from Pulumi.yaml's config.

Each component's inputs are the stack config keys its target reads (percona_mysql_k8s.stack.settings.target_keys),
typed, described and defaulted as Pulumi.yaml declares them; the provider host infers the schema from that
source (a TypedDict per component, a docstring after each field), so the class bodies are generated rather than
copied by hand four times (the host reads field docstrings from the class's own source only).

    .venv/bin/python provider/generate.py           # rewrite the modules
    .venv/bin/python provider/generate.py --check   # exit 1 when one is stale (tests/packaging/test_component_package.py too)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "modules" / "percona_mysql_k8s" / "stack" / "components"

# component -> (target, what it is)
COMPONENTS = {
    "MysqlOnGke": (
        "gke",
        "Percona MySQL on a new regional GKE cluster: private nodes behind Cloud NAT, a database pool "
        "and a monitoring pool, the operator, PMM, NetworkPolicies, a GCS backup bucket with its own "
        "service account, and the database cluster with every size computed from the nodes' allocatable.",
    ),
    "MysqlOnEks": (
        "eks",
        "Percona MySQL on a new EKS cluster: a private endpoint, KMS-encrypted Secrets, a database "
        "node group and a monitoring node group, the operator, PMM, NetworkPolicies, an SSE-KMS S3 backup "
        "bucket with its own IAM user, and the database cluster with every size computed from the nodes' "
        "allocatable.",
    ),
    "MysqlOnKind": (
        "kind",
        "Percona MySQL on a kind cluster made on the machine running the program (kind and Docker "
        "needed there): an ephemeral test bed sized to fit that machine.",
    ),
    "MysqlOnExistingCluster": (
        "existing",
        "Percona MySQL on a Kubernetes cluster you already have: its pools are "
        "found by their node labels, and every size is computed from their nodes' "
        "allocatable (read from the cluster, or declared).",
    ),
}
# Keys a target cannot do without: the settings refuse their Pulumi.yaml default (tests check each).
REQUIRED = {
    "gke": ("gcpProject", "gcpRegion", "gcpZones", "databaseNodeType"),
    "eks": ("awsRegion", "databaseNodeType"),
    "kind": (),
    "existing": ("databasePoolLabels", "monitoringPoolLabels"),
}
SECRET_INPUTS = ("pmmServerToken",)  # a Pulumi secret end to end: an Input, never a plain value
SCALARS = {"string": "str", "integer": "int", "boolean": "bool"}

# (python name, type, description) of every component's outputs; kubeconfig only where the component made the cluster
OUTPUTS = [
    (
        "kubeconfig",
        "pulumi.Output[str]",
        "A kubeconfig for the cluster the component made (a secret). It holds no token: kubectl runs the cloud's exec "
        "credential plugin (gke-gcloud-auth-plugin, aws eks get-token) with your own login.",
    ),
    ("cluster_name", "pulumi.Output[str]", "The Kubernetes cluster's name."),
    ("namespace", "pulumi.Output[str]", "The namespace of the database cluster."),
    ("writer_endpoint", "pulumi.Output[str]", "host:port of the writer endpoint (the proxy's Service) inside the cluster."),
    ("secret_name", "pulumi.Output[str]", "The Secret holding the database users' generated passwords."),
    (
        "database",
        "pulumi.Output[dict[str, Any]]",
        "The database cluster: name, namespace, engine, members, proxy, crVersion, writerEndpoint, secret, storageSize.",
    ),
    ("sizing", "pulumi.Output[dict[str, Any]]", "What the sizing engine decided for one member (resources, my.cnf, limits)."),
    ("monitoring_pool", "pulumi.Output[dict[str, Any]]", "How one monitoring node is shared (CPU and memory of each part)."),
    (
        "backups",
        "pulumi.Output[dict[str, Any]] | None",
        "Where the backups go, their schedule and retention, and the commands that list and restore them (absent when "
        "backups are off).",
    ),
    ("pmm", "pulumi.Output[dict[str, Any]] | None", "The PMM server (installed here, or the existing one named)."),
    ("sysbench", "pulumi.Output[dict[str, Any]] | None", "Where the benchmark's results are (absent when sysbench is off)."),
]


def _python_name(key: str) -> str:
    from percona_mysql_k8s.stack.package import python_name

    return python_name(key)


def _type(key: str, declared: dict) -> str:
    kind = declared["type"]
    if kind == "array":
        plain = f"list[{SCALARS[declared['items']['type']]}]"
    else:
        plain = SCALARS[kind]
    return f"pulumi.Input[{plain}]" if key in SECRET_INPUTS else plain


def _doc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', "'''")


def _default(declared: dict) -> str:
    default = declared.get("default")
    if default in ("", [], None):
        return ""
    shown = str(default).lower() if isinstance(default, bool) else default
    return f" Default: {shown}."


def _args_class(component: str, target: str, config: dict) -> list[str]:
    from percona_mysql_k8s.stack.settings import target_keys

    lines = [
        f"class {component}Args(TypedDict, total=False):",
        f'    """The inputs of {component}: the {target} stack\'s config keys (Pulumi.yaml, docs/clusters.md,',
        '    docs/database.md), with their defaults."""',
        "",
    ]
    for key in (*target_keys(target), *SECRET_INPUTS):
        declared = config[key]
        kind = _type(key, declared)
        if key in REQUIRED[target]:
            kind = f"Required[{kind}]"
        description = declared["description"].rstrip(".") + "." + _default(declared)
        if key in SECRET_INPUTS:
            description += " Pass a secret."
        lines += [f"    {_python_name(key)}: {kind}", f'    """{_doc(description)}"""', ""]
    return lines[:-1]


def _component_class(component: str, target: str, summary: str) -> list[str]:
    lines = [f"class {component}(pulumi.ComponentResource):", f'    """{_doc(summary)}"""', ""]
    for name, kind, description in OUTPUTS:
        if name == "kubeconfig" and target == "existing":
            continue
        lines += [f"    {name}: {kind}", f'    """{_doc(description)}"""', ""]
    lines += [
        f"    def __init__(self, name: str, args: {component}Args, opts: pulumi.ResourceOptions | None = None) -> None:",
        f'        super().__init__(token("{component}"), name, None, opts)',
        f'        build(self, "{target}", args)',
    ]
    return lines


HEADER = [
    "Generated from Pulumi.yaml by `.venv/bin/python provider/generate.py`: do not edit here",
    "(tests/packaging/test_component_package.py fails when this module is stale).",
]


def render_package() -> str:
    imports = sorted(f"from .{target} import {component}, {component}Args" for component, (target, _) in COMPONENTS.items())
    return "\n".join(
        [
            '"""The package\'s components, one per cluster target, for every Pulumi language (provider/PulumiPlugin.yaml).',
            "",
            *HEADER,
            "",
            "Each component is the stack program on its target as one resource (percona_mysql_k8s.stack.program): its inputs",
            "are that target's stack config keys, validated as the stack validates them before any resource exists. The",
            "inputs the sizing reads are plain values (TypeScript, Go and C# type them so): every size is decided when the",
            "component is constructed, so they must be known then; a secret passes as an Input. The provider host",
            "(provider/__main__.py) infers the schema from the annotations of the modules beside this one.",
            '"""',
            "",
            *imports,
            "",
            f"COMPONENTS = [{', '.join(COMPONENTS)}]",
            "",
            "__all__ = [",
            *[f'    "{name}",' for name in sorted([*COMPONENTS, *(f"{c}Args" for c in COMPONENTS), "COMPONENTS"])],
            "]",
            "",
        ]
    )


def render_component(component: str) -> str:
    target, summary = COMPONENTS[component]
    config = yaml.safe_load((ROOT / "Pulumi.yaml").read_text())["config"]
    lines = [
        f'"""{component}: the stack program on the {target} target as one component (percona_mysql_k8s.stack.components).',
        "",
        *HEADER,
        "No `from __future__ import annotations` here: the provider host reads the annotations as objects.",
        '"""',
        "",
        f"from typing import {'Any, Required, TypedDict' if REQUIRED[target] else 'Any, TypedDict'}",
        "",
        "import pulumi",
        "",
        "from percona_mysql_k8s._tokens import token",
        "from percona_mysql_k8s.stack.package import build",
        "",
        "",
        *_args_class(component, target, config),
        "",
        "",
        *_component_class(component, target, summary),
        "",
    ]
    return "\n".join(lines)


def render() -> dict[Path, str]:
    """Every generated module, by path."""
    files = {PACKAGE / "__init__.py": render_package()}
    for component, (target, _) in COMPONENTS.items():
        files[PACKAGE / f"{target}.py"] = render_component(component)
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python provider/generate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a module is stale, write nothing")
    args = parser.parse_args(argv)
    files = render()
    if args.check:
        stale = [path for path, text in files.items() if not path.is_file() or path.read_text() != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is stale: run .venv/bin/python provider/generate.py", file=sys.stderr)
        return 1 if stale else 0
    PACKAGE.mkdir(exist_ok=True)
    for path, text in files.items():
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
