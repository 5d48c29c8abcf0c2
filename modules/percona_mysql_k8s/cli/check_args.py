"""The command line of ``percona-mysql-policy-check`` (cli.check)."""

from __future__ import annotations

import argparse
from pathlib import Path

from percona_mysql_k8s.cli import outputs
from percona_mysql_k8s.core.command_line import Parser
from percona_mysql_k8s.policies._readers.helm import PMM, PS_DB, PXC_DB

REPEATABLE = {"action": "append", "default": []}  # an option given once per value, every value kept in order


def parser(description: str) -> argparse.ArgumentParser:
    parser = Parser(
        prog="percona-mysql-policy-check",
        description=description,
        examples=(
            "percona-mysql-policy-check --stack gke                      # the project's stacks/Pulumi.gke.yaml",
            "percona-mysql-policy-check --stack kind --set kindHostCpu=8 --set kindHostMemory=32Gi",
            "percona-mysql-policy-check --stack prod --policy-config policy-config.json --format sarif=check.sarif",
            "percona-mysql-policy-check --program examples/eks-pxc-proxysql --stack dev",
            "kustomize build overlays/prod | percona-mysql-policy-check --manifests -",
            "percona-mysql-policy-check --chart pxc-db --values values.yaml --values prod.yaml",
        ),
        statuses={
            0: "no mandatory violation (advisory ones are listed)",
            1: "a mandatory violation",
            2: "bad input: a flag, a stack or manifest that cannot be read, a policy config the CLI refuses, a program "
            "that fails under mocks, an input with no object",
        },
    )
    parser.add_argument("--stack", help="stack name: stacks/Pulumi.<stack>.yaml")
    parser.add_argument(
        "--manifests",
        nargs="+",
        metavar="PATH",
        help="judge Kubernetes manifests instead of a stack: YAML files or directories (kubectl -f style, "
        "helm template or kustomize build output), - for stdin",
    )
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="accept a --manifests input that holds no object (otherwise an error: an empty pipe is a failed render)",
    )
    parser.add_argument(
        "--chart",
        choices=(PXC_DB, PS_DB, PMM),
        help="with --values: judge Helm values of this chart (as a Helm release of it), alone or with --manifests",
    )
    parser.add_argument(
        "--values",
        action="append",
        metavar="FILE",
        help="a values file for --chart (repeatable, merged in order as helm -f does; - for stdin)",
    )
    parser.add_argument("--release", help="the release name shown for --chart (default: the chart name)")
    parser.add_argument(
        "-C",
        "--cwd",
        type=Path,
        help="run as if started in DIR: the project is the one around it (default: the working directory), as `pulumi -C DIR`",
    )
    parser.add_argument("--policy-pack", type=Path, help="the pack's directory (default: the project's policies/)")
    parser.add_argument("--program", type=Path, help="a program directory other than stacks/ (its Pulumi.yaml names the project)")
    parser.add_argument("--project", help="project name for --program (default: the name in the program's Pulumi.yaml)")
    parser.add_argument("--config", type=Path, help="JSON object of config for --program (project:key -> value)")
    parser.add_argument(
        "--set",
        **REPEATABLE,
        metavar="KEY=VALUE",
        help="override a config key for this check, e.g. --set kindHostCpu=8 --set kindHostMemory=32Gi",
    )
    parser.add_argument("--policy-config", type=Path, help="JSON policy config as for `pulumi preview --policy-pack-config`")
    parser.add_argument(
        "--format",
        **REPEATABLE,
        metavar="FORMAT[=FILE]",
        help=f"output format, repeatable: {', '.join(outputs.FORMATS)}; =FILE writes it to FILE (at most one goes to "
        "stdout). Exit status 0 clean, 1 a mandatory finding, 2 bad usage or input",
    )
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument("--stdin-name", metavar="PATH", help="the file name findings in objects read from stdin point at")
    parser.add_argument(
        "--rules-uri",
        metavar="URI",
        help="the URL of docs/rules.md that SARIF links each rule to (default: the commit on GitHub Actions)",
    )
    return parser
