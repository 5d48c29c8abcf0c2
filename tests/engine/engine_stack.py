"""One stack of the project under the real CLI: init as a user does, its config, `up` watched for scheduling
failures, previews read step by step, and a teardown that leaves the cluster as it found it."""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from engine_cli import PulumiCli, PulumiFailed, Result, kill_with_plugins
from engine_cluster import CoreSource, SchedulingWatch, wait_for
from engine_volumes import bound_volume
from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException

PROJECT = "percona-mysql"
# stacks/Pulumi.existing.yaml as shipped
EXISTING = "existing"
NAMESPACE = "mysql"  # the default namespace, which exists before the stack (createNamespace: false)
BACKUP_SECRET = "existing-mysql-backup-s3"  # backupCredentialsSecret
CLUSTER = "existing-mysql"  # clusterName: the custom resource's and its Secret's names
CR = ("pxc.percona.com", "v1", "perconaxtradbclusters")
PMM_CLAIM = "pmm-storage-pmm-0"  # the pmm chart's volumeClaimTemplate (storage.name) of its StatefulSet pmm
PMM_STORAGE = "20Gi"  # pmmStorageSize's default
# The members' claims: the PXC operator's volumeClaimTemplate `datadir` of its StatefulSet <cluster>-pxc, of
# storageSize (stacks/Pulumi.existing.yaml) and no storage class (storageClass: "", the cluster's default: none here).
DATA_CLAIMS = tuple(f"datadir-{CLUSTER}-pxc-{member}" for member in range(3))
DATA_STORAGE = "100Gi"
# Secrets the PXC operator makes for the cluster with no ownerReference (so they outlive the custom resource): the
# TLS pairs (pkg/controller/pxc/tls.go) and its copy of the users' passwords, internal-<cluster> (users.go)
OPERATOR_KEEPS = (f"{CLUSTER}-ssl", f"{CLUSTER}-ssl-internal", f"internal-{CLUSTER}")


class SchedulingFailed(AssertionError):
    pass


def fresh_stack(cli: PulumiCli, stack: str, shipped: str, repository: Path) -> None:
    """``pulumi stack init <stack>`` on the shipped ``stacks/Pulumi.<shipped>.yaml`` as it is in the clone (a
    leftover of an interrupted run, its state and its config edits, are removed first)."""
    cli.run("stack", "rm", "--yes", "--force", stack=stack, check=False, timeout=120)
    shutil.copy2(repository / "stacks" / f"Pulumi.{shipped}.yaml", cli.project / "stacks" / f"Pulumi.{stack}.yaml")
    cli.run("stack", "init", stack, "--secrets-provider", "passphrase", timeout=120)


def user_namespace(core: k8s_client.CoreV1Api) -> None:
    """What docs/backups.md tells the user of an existing cluster to create before the stack: the namespace and the
    Secret with the backup identity's keys (stand-in values: nothing here talks to S3; the stack never holds them).
    A leftover of an interrupted run is removed first."""
    remove_namespace(core)
    core.create_namespace({"metadata": {"name": NAMESPACE}})
    core.create_namespaced_secret(
        NAMESPACE,
        {
            "metadata": {"name": BACKUP_SECRET},
            "type": "Opaque",
            "stringData": {
                "AWS_ACCESS_KEY_ID": "AKIAENGINETIERSTANDIN",
                "AWS_SECRET_ACCESS_KEY": "engine-tier-stand-in-not-a-key",
            },
        },
    )


def remove_namespace(core: k8s_client.CoreV1Api) -> None:
    try:
        core.delete_namespace(NAMESPACE)
    except ApiException as error:
        if error.status != 404:
            raise

    def gone():
        try:
            core.read_namespace(NAMESPACE)
            return False
        except ApiException as error:
            return error.status == 404

    wait_for(f"namespace {NAMESPACE} gone", gone, timeout=180)


# What `pulumi up` waits for on the custom resource here (databaseAwait, docs/database.md): the operator's first
# reconcile. Its "ready" needs mysqld in the pods, and no container runs here (docs/engine.md).
DATABASE_AWAIT = "reconciled"


def air_gapped(material) -> dict[str, str]:
    """What the user of an air-gapped cluster sets: the charts as local archives and the operator's CRDs as a local
    file (Pulumi.yaml: operatorChart, pmmChart, operatorCrds)."""
    return {
        "operatorChart": str(material.operator_chart),
        "pmmChart": str(material.pmm_chart),
        "operatorCrds": str(material.operator_crds),
    }


def existing_stack(cli: PulumiCli, repository: Path, kubeconfig: str, material) -> None:
    """A fresh `existing` stack with its kubeconfig, the air-gapped sources and the await of a cluster without mysqld."""
    fresh_stack(cli, EXISTING, EXISTING, repository)
    set_config(cli, EXISTING, {"kubeconfig": kubeconfig, **air_gapped(material), "databaseAwait": DATABASE_AWAIT})


def set_config(cli: PulumiCli, stack: str, values: dict[str, str], project: str = PROJECT) -> None:
    for key, value in values.items():
        cli.run("config", "set", f"{project}:{key}", value, stack=stack, timeout=60)


def up(cli: PulumiCli, stack: str, core: CoreSource, *args: str, timeout: float = 1200) -> str:
    """``pulumi up --yes --skip-preview`` while every pod's scheduling is watched: a pod that fits no Node stops the
    run at once (the CLI is killed) and fails with the scheduler's message."""
    output = cli.log.with_name(f"up-{stack}-{time.monotonic_ns()}.log")
    start = time.monotonic()
    with SchedulingWatch(core) as watch:
        process = cli.start("up", "--yes", "--skip-preview", *args, stack=stack, output=output)
        while process.poll() is None:
            if watch.failures:
                kill_with_plugins(process)
                raise SchedulingFailed(
                    "a pod fits no Node, `pulumi up` stopped:\n"
                    + "\n".join(f"  {f.pod}: {f.message}" for f in watch.failures)
                    + f"\n{output.read_text()[-3000:]}"
                )
            if time.monotonic() - start > timeout:
                kill_with_plugins(process)
                raise PulumiFailed(f"pulumi up did not finish in {timeout} s:\n{output.read_text()[-5000:]}")
            time.sleep(0.5)
    text = output.read_text()
    with cli.log.open("a") as log:
        log.write(f"$ pulumi up {' '.join(args)} (exit {process.returncode}, {time.monotonic() - start:.0f} s)\n{text}\n\n")
    if process.returncode != 0:
        raise PulumiFailed(f"pulumi up failed (exit {process.returncode}):\n{text[-8000:]}")
    return text


@dataclass(frozen=True)
class Step:
    op: str
    urn: str
    type: str
    name: str
    diffs: tuple[str, ...]


def preview_steps(cli: PulumiCli, stack: str, *args: str) -> tuple[list[Step], Result]:
    """``pulumi preview --json``: every step the engine plans, with the property paths that differ (the engine's
    ``detailedDiff``, as ``--diff`` shows them)."""
    result = cli.run("preview", "--json", *args, stack=stack, timeout=900)
    document = json.loads(result.stdout)
    steps = []
    for step in document.get("steps") or []:
        urn = step["urn"]
        steps.append(
            Step(
                step["op"],
                urn,
                urn.split("::")[2].rsplit("$", 1)[-1],
                urn.rsplit("::", 1)[1],
                tuple(sorted(step.get("detailedDiff") or ())),
            )
        )
    return steps, result


def tear_down(cli: PulumiCli, stack: str) -> list[str]:
    """Best effort, for a run that failed half-way: the documented recovery and teardown of a self-managed backend
    (cancel the lock, refresh dropping pending creates, unprotect, destroy), then the stack itself. Returns what
    did not work, for the report."""
    problems = []
    for args in (
        ["cancel", "--yes"],
        ["refresh", "--yes", "--clear-pending-creates"],
        ["state", "unprotect", "--all", "--yes"],
        ["destroy", "--yes", "--skip-preview"],
        ["stack", "rm", "--yes", "--force"],
    ):
        result = cli.run(*args, stack=stack, check=False, timeout=900)
        if result.returncode != 0 and args[0] != "cancel":
            problems.append(result.text()[-2000:])
    return problems


def stack_volumes(core: k8s_client.CoreV1Api, prefix: str, *, pmm: bool = True) -> list[str]:
    """Static volumes for the claims the existing stack's pods make (PMM's, unless ``pmm`` is false, and each
    member's), as the administrator of a cluster without a provisioner makes them (engine_volumes.bound_volume)."""
    claims = ([(PMM_CLAIM, PMM_STORAGE)] if pmm else []) + [(claim, DATA_STORAGE) for claim in DATA_CLAIMS]
    names = []
    for claim, size in claims:
        bound_volume(core, f"{prefix}-{claim}", NAMESPACE, claim, size)
        names.append(f"{prefix}-{claim}")
    return names
