"""kind: an ephemeral test cluster created and deleted by the stack itself.

``pulumi up`` runs ``kind create cluster --config=- --name <name>`` (the config from
:mod:`percona_mysql_k8s.clusters.kind_config` on stdin), ``pulumi destroy`` runs ``kind delete cluster --name
<name>``; both through ``pulumi_command.local.Command`` on the machine running Pulumi, which therefore
needs the ``kind`` binary and a running Docker engine. That is checked before anything is registered,
so a missing tool is an :class:`InputError` saying what to install, not a failed shell command.

The config goes over stdin rather than through a file: a preview writes nothing to disk, and no file has
to outlive the program for a later replace. Any change of the config or the name replaces the cluster
(delete first: two kind clusters cannot share a name).

The kind nodes are containers sharing this machine, and each kubelet reports the whole of it: the
workers' budgets come from the host model of :mod:`percona_mysql_k8s.core.kind_host` (``kindHostShare:
auto``) or a fixed share of the machine (K1). One database worker per member, one monitoring worker.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess

import pulumi

from percona_mysql_k8s._extras import missing_extra
from percona_mysql_k8s._tokens import options as renamed
from percona_mysql_k8s._tokens import token

try:
    import pulumi_command as command
    import pulumi_kubernetes as k8s
except ModuleNotFoundError as missing:  # a provider SDK of an extra (pyproject.toml): say which one installs it
    raise missing_extra(missing, __name__) from None

from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.plan.clusters.shape import ClusterArgs

from .kind_config import render_kind_config
from .target import ClusterTarget, real_engine

KIND_INSTALL = "install kind from https://kind.sigs.k8s.io/docs/user/quick-start/#installation"
DOCKER_INSTALL = "install Docker from https://docs.docker.com/get-docker/ (Docker Desktop, Docker Engine or a compatible engine)"


def missing_kind_tools() -> list[str]:
    """What the kind target lacks on this machine, each with how to get it; empty when all is there."""
    problems = []
    if shutil.which("kind") is None:
        problems.append(f"the kind binary is not on PATH: {KIND_INSTALL}")
    if shutil.which("docker") is None:
        problems.append(f"the docker command is not on PATH: {DOCKER_INSTALL}")
    else:
        try:
            info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=30, check=False)
            running = info.returncode == 0
        except (OSError, subprocess.SubprocessError):
            running = False
        if not running:
            problems.append(
                "Docker is installed but its engine does not answer (`docker info` failed): start Docker "
                "(Docker Desktop, or `sudo systemctl start docker`) and make sure this user may use it"
            )
    return problems


def require_kind_tools() -> None:
    """Raise an :class:`InputError` on ``target`` naming what to install when kind or Docker is missing."""
    problems = missing_kind_tools()
    if problems:
        raise InputError(
            "target", "the kind target creates the cluster on this machine and needs kind and Docker: " + "; ".join(problems)
        )


def _commands_will_run() -> bool:
    """False under Pulumi's mocks (unit tests, offline previews): no command ever runs there, so the tools
    are not needed. A real engine, preview included, checks them."""
    return real_engine()


def create_command(name: str) -> str:
    return f"kind create cluster --config=- --name {shlex.quote(name)} --wait 5m"


def delete_command(name: str) -> str:
    return f"kind delete cluster --name {shlex.quote(name)}"


def kubeconfig_command(name: str) -> str:
    return f"kind get kubeconfig --name {shlex.quote(name)}"


class KindClusterArgs(ClusterArgs):
    """The kind cluster's part of the plan (plan.clusters.shape.ClusterArgs: one shape for every target)."""

    TARGET = "kind"

    @property
    def config_yaml(self) -> str:
        return render_kind_config(
            self.cluster_name, self.database_pool.node_count, self.monitoring_pool.node_count, self.kind.node_image
        )


class KindCluster(pulumi.ComponentResource):
    """A kind cluster made by ``kind create cluster``; ``.target`` is what the database layer uses."""

    def __init__(self, name: str, args: KindClusterArgs, opts: pulumi.ResourceOptions | None = None):
        if _commands_will_run():
            require_kind_tools()  # before anything is registered
        super().__init__(token("KindCluster"), name, None, renamed("KindCluster", opts))
        config = args.config_yaml
        self.config_yaml = config

        self.cluster = command.local.Command(
            f"{name}-kind",
            create=create_command(args.cluster_name),
            delete=delete_command(args.cluster_name),
            stdin=config,
            triggers=[args.cluster_name, config],
            opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True, replace_on_changes=["*"]),
        )
        kubeconfig = command.local.Command(
            f"{name}-kubeconfig",
            create=kubeconfig_command(args.cluster_name),
            # a new cluster listens on a new port: read its kubeconfig again whenever the cluster is replaced
            triggers=[self.cluster.id],
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=[self.cluster], additional_secret_outputs=["stdout"], replace_on_changes=["*"]
            ),
        )
        self.kubeconfig = pulumi.Output.secret(kubeconfig.stdout)
        self.provider = k8s.Provider(
            f"{name}-k8s", kubeconfig=self.kubeconfig, opts=pulumi.ResourceOptions(parent=self, depends_on=[kubeconfig])
        )
        self.target = ClusterTarget(
            name=args.cluster_name,
            kind="kind",
            provider=self.provider,
            database_pool=args.database_pool,
            monitoring_pool=args.monitoring_pool,
            ready=(self.cluster,),
            kubeconfig=self.kubeconfig,
        )
        self.register_outputs({"kubeconfig": self.kubeconfig, "kindConfig": config})
