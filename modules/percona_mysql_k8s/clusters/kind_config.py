"""The kind cluster configuration: one control plane, one database worker per member, one monitoring worker.

Pure Python. The kind component pipes this YAML to ``kind create cluster --config=-``; users who create
the cluster themselves print it with::

    python -m percona_mysql_k8s.clusters.kind_config --workers 3 --name percona-mysql > kind.yaml
    kind create cluster --config kind.yaml --name percona-mysql

Database workers carry the database pool's label and taint (K4), the monitoring workers its label, so
the database layer places pods on kind exactly as on GKE or EKS. Labels use the node ``labels`` field
(kind turns it into the kubelet's ``--node-labels``); the taint goes into the kubeadm JoinConfiguration's
``nodeRegistration.taints``, which has the same shape in every kubeadm config version kind uses (unlike
``kubeletExtraArgs``, a map in v1beta3 and a list in v1beta4, so it is not patched here).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

import yaml

from percona_mysql_k8s.core.command_line import Parser, UsageError
from percona_mysql_k8s.core.errors import InputError, one_line
from percona_mysql_k8s.core.pools import DATABASE_POOL, DATABASE_TAINT, MONITORING_POOL, POOL_LABEL, Taint

KIND_API_VERSION = "kind.x-k8s.io/v1alpha4"
DEFAULT_NODE_IMAGE = "kindest/node:v1.33.1"


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the kubeadm patches) as literal blocks, the way kind's documentation writes them."""


def _literal_blocks(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _literal_blocks)


def _join_taints(taints: Sequence[Taint]) -> str:
    """A kubeadm JoinConfiguration patch that registers the node with ``taints``."""
    patch = {"kind": "JoinConfiguration", "nodeRegistration": {"taints": [taint.as_k8s() for taint in taints]}}
    return yaml.safe_dump(patch, sort_keys=False)


def _worker(image: str, labels: Mapping[str, str], taints: Sequence[Taint]) -> dict:
    node: dict = {"role": "worker", "image": image, "labels": dict(labels)}
    if taints:
        node["kubeadmConfigPatches"] = [_join_taints(taints)]
    return node


def kind_config(
    name: str,
    database_workers: int,
    monitoring_workers: int = 1,
    image: str = DEFAULT_NODE_IMAGE,
    database_labels: Mapping[str, str] | None = None,
    database_taints: Sequence[Taint] = (DATABASE_TAINT,),
    monitoring_labels: Mapping[str, str] | None = None,
) -> dict:
    """The kind ``Cluster`` object as a dict (see :func:`render_kind_config` for the YAML)."""
    if isinstance(database_workers, bool) or not isinstance(database_workers, int) or database_workers < 1:
        raise InputError("clusterSize", f"{database_workers!r}: a kind cluster needs at least one database worker", rule="T1")
    if isinstance(monitoring_workers, bool) or not isinstance(monitoring_workers, int) or monitoring_workers < 1:
        raise InputError("monitoringNodeCount", f"{monitoring_workers!r}: a kind cluster needs a monitoring worker", rule="K4")
    database_labels = {POOL_LABEL: DATABASE_POOL} if database_labels is None else database_labels
    monitoring_labels = {POOL_LABEL: MONITORING_POOL} if monitoring_labels is None else monitoring_labels
    nodes = [{"role": "control-plane", "image": image}]
    nodes += [_worker(image, database_labels, database_taints) for _ in range(database_workers)]
    nodes += [_worker(image, monitoring_labels, ()) for _ in range(monitoring_workers)]
    return {"kind": "Cluster", "apiVersion": KIND_API_VERSION, "name": name, "nodes": nodes}


def render_kind_config(name: str, database_workers: int, monitoring_workers: int = 1, image: str = DEFAULT_NODE_IMAGE) -> str:
    """The kind config as YAML, with the database pool's label and taint on every database worker."""
    header = (
        f"# kind cluster {name}: 1 control plane, {database_workers} database worker(s) labeled and tainted "
        f"{DATABASE_TAINT.key}={DATABASE_TAINT.value}:{DATABASE_TAINT.effect}, {monitoring_workers} monitoring worker(s)\n"
    )
    body = yaml.dump(kind_config(name, database_workers, monitoring_workers, image), Dumper=_Dumper, sort_keys=False)
    return header + body


def main(argv: Sequence[str] | None = None) -> int:
    parser = Parser(
        prog="python -m percona_mysql_k8s.clusters.kind_config",
        description="Print the kind config of a Percona MySQL test cluster (for users who run kind themselves).",
        examples=(
            "python -m percona_mysql_k8s.clusters.kind_config --workers 3 --name percona-mysql > kind.yaml",
            "kind create cluster --config kind.yaml --name percona-mysql",
        ),
    )
    parser.add_argument("--workers", type=int, default=3, help="database workers, one per member (default 3)")
    parser.add_argument("--monitoring-workers", type=int, default=1, help="monitoring workers (default 1)")
    parser.add_argument("--name", default="percona-mysql", help="cluster name (default percona-mysql)")
    parser.add_argument("--image", default=DEFAULT_NODE_IMAGE, help=f"node image (default {DEFAULT_NODE_IMAGE})")
    try:
        args = parser.parse_args(argv)
        sys.stdout.write(render_kind_config(args.name, args.workers, args.monitoring_workers, args.image))
    except (UsageError, InputError) as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
