"""``percona-mysql-restore``: a restore object for a named backup or a point in time (R1, R2).

Prints the ``PerconaXtraDBClusterRestore`` / ``PerconaServerMySQLRestore`` as YAML (pipe it to ``kubectl apply
-f -``) or, with ``--apply``, creates it through the current kubeconfig context. The operator then does the
restore (docs/backups.md). Both operators need the base backup named (PXC ``CheckNsetDefaults``, PS
``getBackup``); with ``--time`` and no ``--backup`` the command picks it as the operators' docs tell a user to:
the latest succeeded backup of the cluster completed before that time, read from the cluster's backup objects.

Bad input is one line on stderr naming the flag, exit status 2: names and namespaces as the API server
validates them (DNS-1123 subdomains and labels, core.names), a point in time between 1970 (where binary log
timestamps start) and now, and, when the backups are listed, after the oldest one completed. A refusal by the
API server is one line, exit status 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import yaml

from percona_mysql_k8s._extras import install_hint
from percona_mysql_k8s.core.command_line import Parser, UsageError, error_line
from percona_mysql_k8s.core.errors import InputError, one_line
from percona_mysql_k8s.core.memory import GROUP_REPLICATION, PXC
from percona_mysql_k8s.core.names import DNS1123_SUBDOMAIN_MAX_LENGTH, dns1123_subdomain_problem
from percona_mysql_k8s.plan.database import versions
from percona_mysql_k8s.plan.database.restore import (
    POINT_IN_TIME_FORMAT,
    check_point_in_time,
    check_restore_names,
    parse_point_in_time,
    restore_manifest,
)

ENGINES = {"pxc": PXC, "gr": GROUP_REPLICATION, GROUP_REPLICATION: GROUP_REPLICATION}
# The backup kinds' plural names and the field naming their cluster (the CRDs: perconaxtradbclusterbackups,
# spec.pxcCluster; perconaservermysqlbackups, spec.clusterName).
BACKUPS = {PXC: ("perconaxtradbclusterbackups", "pxcCluster"), GROUP_REPLICATION: ("perconaservermysqlbackups", "clusterName")}
RESTORES = {PXC: "perconaxtradbclusterrestores", GROUP_REPLICATION: "perconaservermysqlrestores"}
SUCCEEDED = "Succeeded"  # both operators' BackupSucceeded state
FLAGS = {
    "engine": "--engine",
    "cluster": "--cluster",
    "namespace": "--namespace",
    "backup": "--backup",
    "time": "--time",
    "name": "--name",
    "storage": "--backup",
    "apply": "--apply",
    "kubeconfig": "--kubeconfig",
    "context": "--context",
}
_TIMEOUT_SECONDS = 20


class ApiError(Exception):
    """The cluster could not be read or refused the object: one line, exit status 1."""


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="percona-mysql-restore",
        description="Restore a Percona MySQL cluster from a backup, or to a point in time (UTC), through its operator.",
        examples=(
            "percona-mysql-restore --engine pxc --cluster db1 --namespace mysql --backup cron-db1-offsite-2026112303 | kubectl apply -f -",
            "percona-mysql-restore --engine gr --cluster db1 --namespace mysql --time '2026-11-23 10:15:00' --apply",
        ),
    )
    parser.add_argument("--engine", required=True, help="pxc or gr (group replication)")
    parser.add_argument("--cluster", required=True, help="the custom resource's name (dbClusterName)")
    parser.add_argument("--namespace", required=True, help="the cluster's namespace")
    parser.add_argument("--backup", help="the backup object to restore (for --time: the base backup)")
    parser.add_argument("--time", help="point in time 'YYYY-MM-DD hh:mm:ss' (UTC) to roll forward to with the binary logs")
    parser.add_argument("--name", help="the restore object's name (default: <cluster>-restore-<time>)")
    parser.add_argument("--apply", action="store_true", help="create the object in the cluster instead of printing it")
    parser.add_argument("--kubeconfig", default="", help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    parser.add_argument("--context", default="", help="kubeconfig context (default: the current one)")
    return parser


def _completed(backup: dict[str, Any]) -> datetime | None:
    """``status.completed`` (a metav1.Time, RFC 3339 in UTC) of a backup object."""
    text = (backup.get("status") or {}).get("completed")
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).replace(tzinfo=None)
    except ValueError:
        return None


def latest_backup_before(engine: str, cluster: str, backups: Sequence[dict[str, Any]], when: datetime) -> str:
    """The newest succeeded backup of ``cluster`` completed at or before ``when`` (naive UTC)."""
    _, cluster_field = BACKUPS[engine]
    candidates = [
        (completed, backup["metadata"]["name"])
        for backup in backups
        if (backup.get("spec") or {}).get(cluster_field) == cluster
        and (backup.get("status") or {}).get("state") == SUCCEEDED
        and (completed := _completed(backup)) is not None
        and completed <= when
    ]
    if not candidates:
        raise InputError(
            "time",
            f"no succeeded backup of cluster {cluster!r} completed at or before "
            f"{when.strftime(POINT_IN_TIME_FORMAT)} UTC: pick an earlier time or name one with --backup",
            "R2",
        )
    return max(candidates)[1]


def _api(kubeconfig: str, context: str):
    try:
        from kubernetes import client, config
        from kubernetes.config.config_exception import ConfigException
    except ImportError as error:
        raise ApiError(
            f"--apply/listing backups needs the `kubernetes` package ({error}): {install_hint(('restore',))}"
        ) from None
    try:
        api_client = config.new_client_from_config(config_file=kubeconfig or None, context=context or None)
    except (ConfigException, OSError, TypeError, ValueError) as error:
        raise InputError("kubeconfig" if not context else "context", f"cannot load the kubeconfig: {error}") from None
    return client.CustomObjectsApi(api_client)


def _call(what: str, function, *args, **kwargs):
    try:
        return function(*args, **kwargs, _request_timeout=_TIMEOUT_SECONDS)
    except Exception as error:  # ApiException, urllib3 connection and TLS errors: no common base in the client
        status = getattr(error, "status", None)
        reason = getattr(error, "reason", None)
        detail = f"{status} {reason}" if status else f"{type(error).__name__}: {error}"
        raise ApiError(f"{what}: {detail}") from None


def _items(listed: Any, plural: str) -> list[dict[str, Any]]:
    """The list's items, each an object with metadata.name (anything else is the API's fault, said in one line)."""
    items = listed.get("items") if isinstance(listed, dict) else None
    if not isinstance(items, list) or not all(
        isinstance(item, dict) and isinstance((item.get("metadata") or {}).get("name"), str) for item in items
    ):
        raise ApiError(f"listing {plural}: the API server's answer is not a list of objects")
    return items


def _group_version(engine: str) -> tuple[str, str]:
    group, version = versions.operator_for(engine).api_version.split("/")
    return group, version


def _default_name(cluster: str, when: datetime) -> str:
    return f"{cluster}-restore-{when.strftime('%Y%m%d-%H%M%S')}"


def run(argv: Sequence[str] | None, api=None, now: datetime | None = None) -> int:
    """``api``: a ``kubernetes.client.CustomObjectsApi`` (or anything with its two methods); None builds one
    from the kubeconfig when it is needed."""
    args = _parser().parse_args(argv)
    engine = ENGINES.get(args.engine)
    if engine is None:
        raise InputError("engine", f"must be pxc or gr; got {args.engine!r}")
    if not args.backup and not args.time:
        raise InputError("backup", "name the backup to restore, or give --time to restore to a point in time")
    now = now or datetime.now(UTC).replace(tzinfo=None)
    when = parse_point_in_time(args.time) if args.time else None
    if when is not None:
        check_point_in_time(when, now)
    check_restore_names(args.cluster, args.namespace, args.name or "restore")
    name = args.name or _default_name(args.cluster, when or now)
    if not args.name and dns1123_subdomain_problem(name):
        raise InputError(
            "name",
            f"the default restore name {name!r} is longer than the {DNS1123_SUBDOMAIN_MAX_LENGTH} "
            "characters an object name may have: give --name",
        )
    group, version = _group_version(engine)
    backup = args.backup
    if backup is None:
        check_restore_names(args.cluster, args.namespace, name)  # every flag is checked before the cluster is asked
        api = api or _api(args.kubeconfig, args.context)
        listed = _call(
            f"listing {BACKUPS[engine][0]} in {args.namespace}",
            api.list_namespaced_custom_object,
            group,
            version,
            args.namespace,
            BACKUPS[engine][0],
        )
        backup = latest_backup_before(engine, args.cluster, _items(listed, BACKUPS[engine][0]), when)
        print(f"base backup: {backup} (the latest completed before {args.time} UTC)", file=sys.stderr)
    obj = restore_manifest(engine, args.cluster, args.namespace, name=name, backup_name=backup, point_in_time=args.time)
    if not args.apply:
        sys.stdout.write(yaml.safe_dump(obj, sort_keys=False))
        return 0
    api = api or _api(args.kubeconfig, args.context)
    _call(
        f"creating {obj['kind']} {args.namespace}/{name}",
        api.create_namespaced_custom_object,
        group,
        version,
        args.namespace,
        RESTORES[engine],
        obj,
    )
    print(
        f"{obj['kind']} {args.namespace}/{name} created; follow it with: "
        f"kubectl -n {args.namespace} get {RESTORES[engine]} {name} -w",
        file=sys.stderr,
    )
    return 0


def main(argv: Sequence[str] | None = None, *, api=None, now: datetime | None = None) -> int:
    try:
        return run(argv, api, now)
    except UsageError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 2
    except InputError as error:
        print(one_line(error_line(error, FLAGS)), file=sys.stderr)
        return 2
    except ApiError as error:
        print(one_line(f"error: {error}"), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
