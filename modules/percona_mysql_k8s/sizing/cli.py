"""Command line of the sizing engine: flags -> SizingInput -> table, JSON or picture."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from percona_mysql_k8s.core.command_line import Parser, UsageError, error_line
from percona_mysql_k8s.core.errors import InputError, one_line
from percona_mysql_k8s.core.memory import ENGINES, MYSQL_VERSIONS
from percona_mysql_k8s.core.profiles import LOADS
from percona_mysql_k8s.core.report import to_json
from percona_mysql_k8s.core.sidecars import PROXIES
from percona_mysql_k8s.core.sizing import DEFAULT_DISK_IOPS, SizingInput, size
from percona_mysql_k8s.core.threshold_pairs import add_threshold_option, threshold_pairs
from percona_mysql_k8s.core.units import cpu_to_millicores, memory_to_bytes, whole_number

# Input keys of the core -> the flag a user typed.
FLAGS = {
    "cpu": "--cpu",
    "memory": "--memory",
    "node_type": "--node-type",
    "provider": "--provider",
    "daemonset_cpu": "--daemonset-cpu",
    "daemonset_memory": "--daemonset-memory",
    "cluster_size": "--size",
    "mysql_version": "--mysql-version",
    "log_collector": "--log-collector",
    "disk_iops": "--disk-iops",
    "volume_bytes": "--volume",
    "thresholds": "--threshold",
    "threshold": "--threshold",
    "plot": "--plot",
}
PLOT_SUFFIXES = (".png", ".svg")


def _whole_number(text: str) -> int:
    """A count as typed: ASCII digits only (core.units.whole_number)."""
    try:
        return whole_number(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="percona-mysql-sizing",
        description="Size one Percona MySQL member (mysqld pod + one proxy pod) from its budget or its node type.",
        examples=(
            "percona-mysql-sizing --engine group-replication --cpu 4000m --memory 8Gi --load heavy-oltp --connections 0 --proxy haproxy",
            "percona-mysql-sizing --engine pxc --node-type n2-standard-16 --provider gke --format json",
        ),
    )
    parser.add_argument("--engine", required=True, help=f"{' or '.join(ENGINES)}")
    budget = parser.add_argument_group("budget: either --cpu and --memory, or --node-type and --provider")
    budget.add_argument("--cpu", help="per-member CPU (Kubernetes quantity: 4000m, 4)")
    budget.add_argument("--memory", help="per-member memory (Kubernetes quantity: 8Gi, 8G)")
    budget.add_argument("--node-type", help="machine type of the database pool, e.g. n2-standard-16, m6i.4xlarge")
    budget.add_argument("--provider", help="provider of --node-type: gke or eks")
    budget.add_argument("--daemonset-cpu", help="CPU requested per node by DaemonSets (default: the provider's, K1)")
    budget.add_argument("--daemonset-memory", help="memory requested per node by DaemonSets (default: the provider's, K1)")
    parser.add_argument("--load", default="light-oltp", help=f"load profile: {', '.join(LOADS)} (default light-oltp)")
    parser.add_argument(
        "--connections",
        type=_whole_number,
        default=0,
        help="max_connections; 0 derives what the proxies open at their shipped limits, fewer where "
        "the buffer pool would fall below 70%% of the mysqld limit (M6)",
    )
    parser.add_argument(
        "--proxy", default="haproxy", help=f"{', '.join(PROXIES)}: haproxy (default), proxysql (PXC), router (GR)"
    )
    parser.add_argument(
        "--thread-pool",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="Percona Server's thread pool: idle connections hold no thread, running statements are "
        "bounded by the cores (default on, M6)",
    )
    parser.add_argument("--pmm", action=argparse.BooleanOptionalAction, default=True, help="PMM client sidecars (default on)")
    parser.add_argument(
        "--log-collector",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="PXC log collector sidecars (default: on for PXC; PS has none)",
    )
    parser.add_argument(
        "--backup",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="backups enabled (PS adds an xtrabackup sidecar to every mysqld pod)",
    )
    parser.add_argument("--mysql-version", default="8.0", help=f"{' or '.join(MYSQL_VERSIONS)} (default 8.0)")
    parser.add_argument("--size", type=_whole_number, default=3, help="cluster size (T1: PXC 3/5, GR 3/5/7)")
    parser.add_argument("--allow-unsafe-size", action="store_true", help="allow fewer members (ephemeral stacks only)")
    parser.add_argument("--volume", help="data volume size (Kubernetes quantity: 200Gi); bounds the redo log (K6)")
    parser.add_argument(
        "--disk-iops", type=_whole_number, default=DEFAULT_DISK_IOPS, help=f"data volume IOPS (default {DEFAULT_DISK_IOPS})"
    )
    add_threshold_option(parser)
    parser.add_argument("--format", default="table", choices=("table", "json"))
    parser.add_argument("--plot", metavar="FILE", help="write the memory split as a picture (.png or .svg)")
    return parser


def _quantity(key: str, value: str | None, convert) -> int | None:
    if value is None:
        return None
    try:
        return convert(value)
    except ValueError as error:
        raise InputError(key, str(error), "K1") from None


def check_plot_target(path: str | None) -> None:
    """Refuse a picture that cannot be written before anything is printed (one line, exit 2)."""
    if path is None:
        return
    target = Path(path)
    if target.suffix.lower() not in PLOT_SUFFIXES:
        raise InputError("plot", f"{path}: the picture must be {' or '.join(PLOT_SUFFIXES)}")
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError("plot", f"{path}: the directory {directory} does not exist")
    if target.is_dir():
        raise InputError("plot", f"{path} is a directory")
    if not os.access(directory, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InputError("plot", f"{path}: not writable")


def input_from_args(args: argparse.Namespace) -> SizingInput:
    return SizingInput(
        engine=args.engine,
        load=args.load,
        connections=args.connections,
        proxy=args.proxy,
        thread_pool=args.thread_pool,
        pmm=args.pmm,
        log_collector=args.log_collector,
        backup=args.backup,
        mysql_version=args.mysql_version,
        cluster_size=args.size,
        allow_unsafe_size=args.allow_unsafe_size,
        disk_iops=args.disk_iops,
        volume_bytes=_quantity("volume", args.volume, memory_to_bytes),
        cpu_millicores=_quantity("cpu", args.cpu, cpu_to_millicores),
        memory_bytes=_quantity("memory", args.memory, memory_to_bytes),
        node_type=args.node_type,
        provider=args.provider,
        daemonset_cpu_millicores=_quantity("daemonset_cpu", args.daemonset_cpu, cpu_to_millicores),
        daemonset_memory_bytes=_quantity("daemonset_memory", args.daemonset_memory, memory_to_bytes),
        thresholds=threshold_pairs(args.threshold),
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = None
    try:
        args = _parser().parse_args(argv)
        check_plot_target(args.plot)
        result = size(input_from_args(args))
    except UsageError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    except InputError as error:
        line = error_line(error, FLAGS)
        if args is not None and args.threshold and error.key not in ("threshold", "thresholds"):
            # a refusal the thresholds led to (e.g. a larger term no longer fits): name them too
            line += f" (with --threshold {', '.join(args.threshold)})"
        print(one_line(line), file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(to_json(result), indent=2))
    else:
        from .table import render

        render(result)
    if args.plot:
        from .plot import write_plot

        try:
            write_plot(result, args.plot)
        except (OSError, ValueError) as error:  # checked above; a disk that fills up meanwhile still gets one line
            print(f"error: --plot: {error}", file=sys.stderr)
            return 2
        print(f"memory split written to {args.plot}", file=sys.stderr)
    return 0
