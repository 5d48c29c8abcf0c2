"""A real Percona operator, run out of cluster as a plain process against a tier's control plane.

The binaries are built from the source kit by ``scripts/operators.sh ensure-built`` (``scripts/operators.sh paths``
names them). What running one outside its Deployment takes, found when the kit was checked
(../shared/tools/percona-operators/README.md) and read in the operators' source:

* **The service-account namespace file.** Both operators read
  ``/var/run/secrets/kubernetes.io/serviceaccount/namespace`` and fail without it (PXC ``pkg/k8s/utils.go:
  GetOperatorNamespace`` and ``pkg/k8s/operator_pod.go: OperatorPod``; PS ``pkg/k8s/utils.go: DefaultAPINamespace``,
  when ``POD_NAMESPACE`` is unset, and ``pkg/k8s/init_image.go: operatorPod``). A private mount namespace
  (``unshare -m``) mounts a tmpfs over ``/run`` (``/var/run`` links to it) that holds only that file, so the host is
  untouched. This needs root, or an unprivileged user namespace (``unshare -r``).
* **Its own Pod.** Both read Pod ``<that namespace>/$HOSTNAME`` to take the image of the init container they add to
  the database pods (PXC ``OperatorPod``, PS ``operatorPod``); the PS operator also reads Pod
  ``$POD_NAMESPACE/$POD_NAME`` at start-up (``pkg/util/k8s/util.go: GetOperatorPod``). In a cluster that is the
  operator Deployment's pod; here it is whatever Pod the caller names: the pod the operator chart's Deployment got
  (the engine tier), or a placeholder (:func:`placeholder_pod`), with one container named as in the operator's
  Deployment (PXC ``percona-xtradb-cluster-operator``, PS ``manager``).
* **The webhook.** Without its Deployment the PXC operator only logs the webhook, but still listens on :9443
  (hard-coded), so one PXC operator runs per host at a time: :meth:`OperatorProcess.start` refuses when the port is
  taken instead of starting an operator that exits.

Everything else is the operator as shipped: its own flags, its own reconcile loop, its own logs. Nothing here writes
what the operator writes (a custom resource's status, its finalizers).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kubernetes import client as k8s_client
from kubernetes.client.rest import ApiException

SERVICE_ACCOUNT_DIR = "/run/secrets/kubernetes.io/serviceaccount"  # /var/run/secrets/... on a host where /var/run -> /run
WEBHOOK_PORT = 9443  # PXC: pkg/webhook (hard-coded)


@dataclass(frozen=True)
class Flavor:
    """What differs between the two operators when run this way."""

    name: str  # pxc | ps
    binary_env: str  # scripts/operators.sh paths: the variable naming the binary
    operator_name: str  # OPERATOR_NAME, and the image name of the placeholder Pod
    container: str  # the container name of the operator's Deployment
    ready_line: re.Pattern[str]  # the log line after which the controller reconciles
    binds_webhook: bool


PXC = Flavor(
    name="pxc",
    binary_env="PXC_OPERATOR",
    operator_name="percona-xtradb-cluster-operator",
    container="percona-xtradb-cluster-operator",
    ready_line=re.compile(r'Starting workers.*"pxc-controller"'),
    binds_webhook=True,
)
PS = Flavor(
    name="ps",
    binary_env="PS_OPERATOR",
    operator_name="percona-server-mysql-operator",
    container="manager",
    ready_line=re.compile(r"Starting workers"),
    binds_webhook=False,
)
FLAVORS = {flavor.name: flavor for flavor in (PXC, PS)}


def operator_binaries(root: Path) -> dict[str, str]:
    """The operators' binary and source paths as ``scripts/operators.sh paths`` prints them (built or not)."""
    out = subprocess.run(["bash", str(root / "scripts/operators.sh"), "paths"], check=True, capture_output=True, text=True).stdout
    return dict(item.split("=", 1) for line in out.splitlines() for item in line.split()[1:])


def _port_taken(port: int) -> bool:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def placeholder_pod(core: k8s_client.CoreV1Api, flavor: Flavor, namespace: str, name: str, **spec) -> str:
    """Create (or keep) the Pod the operator reads as its own; ``spec`` adds to its spec (placement, say).

    Assumes: the operator reads only the image of its container from it (PXC: the init-container image)."""
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/name": flavor.operator_name}},
        "spec": {"containers": [{"name": flavor.container, "image": f"percona/{flavor.operator_name}:local"}], **spec},
    }
    try:
        core.create_namespaced_pod(namespace, body)
    except ApiException as error:
        if error.status != 409:
            raise
    return name


class OperatorProcess:
    """One operator process watching ``namespaces`` (its own namespace first), its log in ``workdir``.

    Use as a context manager, or call :meth:`start` and :meth:`stop`."""

    def __init__(
        self,
        flavor: Flavor,
        binary: str | Path,
        kubeconfig: str | Path,
        namespaces: list[str],
        pod_name: str,
        workdir: Path,
    ) -> None:
        if not namespaces:
            raise ValueError("an operator watches at least one namespace")
        self.flavor = flavor
        self.binary = Path(binary)
        self.kubeconfig = Path(kubeconfig)
        self.namespaces = list(namespaces)
        self.pod_name = pod_name
        self.workdir = workdir
        self.log_path = workdir / f"{flavor.name}-operator.log"
        self._process: subprocess.Popen | None = None
        self._log = None

    @property
    def namespace(self) -> str:
        return self.namespaces[0]

    def command(self) -> list[str]:
        metrics, health = free_port(), free_port()
        operator = shlex.join(
            [
                str(self.binary),
                f"--kubeconfig={self.kubeconfig}",
                "--leader-elect=false",
                f"--metrics-bind-address=127.0.0.1:{metrics}",
                f"--health-probe-bind-address=127.0.0.1:{health}",
            ]
        )
        setup = (
            f"mount -t tmpfs tmpfs /run && mkdir -p {SERVICE_ACCOUNT_DIR} "
            f"&& printf %s {shlex.quote(self.namespace)} > {SERVICE_ACCOUNT_DIR}/namespace && exec {operator}"
        )
        unshare = ["unshare", "-m", "--propagation", "private"]
        if os.geteuid() != 0:
            unshare.insert(1, "-r")  # an unprivileged user namespace may mount its own tmpfs
        return [*unshare, "sh", "-c", setup]

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "WATCH_NAMESPACE": ",".join(self.namespaces),
            "HOSTNAME": self.pod_name,
            "POD_NAME": self.pod_name,
            "POD_NAMESPACE": self.namespace,
            "OPERATOR_NAME": self.flavor.operator_name,
            "DISABLE_TELEMETRY": "true",
            "LOG_LEVEL": "INFO",
        }

    def start(self, timeout: float = 60.0) -> OperatorProcess:
        if not self.binary.is_file():
            raise FileNotFoundError(f"no {self.flavor.name} operator at {self.binary}: run scripts/operators.sh ensure-built")
        if self.flavor.binds_webhook and _port_taken(WEBHOOK_PORT):
            raise RuntimeError(
                f"127.0.0.1:{WEBHOOK_PORT} is taken: the PXC operator's webhook binds it (hard-coded), so another "
                "PXC operator runs on this host; stop it first"
            )
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("w")
        self._process = subprocess.Popen(
            self.command(), env=self.environment(), stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while not self.flavor.ready_line.search(self.log()):
            if self._process.poll() is not None:
                raise RuntimeError(f"the {self.flavor.name} operator exited ({self._process.returncode}):\n{self.tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"the {self.flavor.name} operator did not start in {timeout:.0f} s:\n{self.tail()}")
            time.sleep(0.25)
        return self

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def tail(self, lines: int = 20) -> str:
        return "\n".join(self.log().splitlines()[-lines:])

    def errors(self) -> list[str]:
        """The lines the operator logged at ERROR level: both log through zap's console encoder unless
        ``LOG_STRUCTURED`` is set (``cmd/manager/main.go: getLogEncoder``), which writes the level as a tab-separated
        word; the JSON encoder's spelling is matched too."""
        return [line for line in self.log().splitlines() if "\tERROR\t" in line or '"level":"error"' in line]

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self, timeout: float = 20.0) -> None:
        if self._process is None:
            return
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        if self._log is not None:
            self._log.close()
        self._process = None

    def __enter__(self) -> OperatorProcess:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
