"""The real PXC operator for the pod the operator chart's Deployment got: a process that lives as long as that pod.

In a cluster the kubelet runs the operator's container in the pod the chart's Deployment creates, with the
environment the pod spec gives it, and kills it when the pod goes. Here kwok "runs" that pod (Running, Ready, no
container), and :class:`DeploymentOperator` runs the operator binary built from the kit (scripts/operators.sh) as a
process standing for it (tests/operator_process.py: its own service-account namespace file, its own pod read back by
name). It watches the namespace for the Deployment whose pod template has the operator's container, and:

* when a pod of that Deployment is Running, starts the operator for it, with that container's environment as the
  chart rendered it (``value`` and the ``fieldRef`` of the pod's name and namespace, resolved as the kubelet
  resolves them: WATCH_NAMESPACE, LOG_LEVEL, DISABLE_TELEMETRY, ...), but for OPERATOR_NAME (below);
* when that pod is deleted or replaced (a Helm upgrade, ``pulumi destroy``), stops it, as the kubelet would, and
  starts it again for a new pod.

Assumes: one replica (the chart's default), so one operator at a time; the container's command is the operator
binary with its default flags, except leader election (off: one process) and the metrics and health ports (free
ones: the process shares the host's network). One deviation, because pods have no network here: with OPERATOR_NAME
naming its Deployment, the PXC operator registers a validating webhook (failurePolicy Fail) behind a Service that
selects its pod (pkg/webhook/hook.go: setup); the API server would call it at the pod's address, and kwok's pods
have none the API server can reach (the EndpointSlice controller refuses loopback addresses), so every write the
webhook intercepts (the status, the finalizers) would fail. OPERATOR_NAME names no Deployment instead, and the
operator skips the webhook ("failed to setup webhook", logged at INFO). The webhook validates nothing of these
stacks anyway: it checks a custom resource only with ``spec.enableCRValidationWebhook``, which they leave unset.
Everything the operator writes (the custom resource's status, its finalizers, the StatefulSets, Services, Secrets
and PDBs it renders) it writes itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client.rest import ApiException
from operator_process import Flavor, OperatorProcess

# OPERATOR_NAME of the process: a name no Deployment has, so the operator does not register its webhook (above)
NO_DEPLOYMENT = "operator-process-without-webhook"
# The kubelet resolves these fieldRefs from the pod (the Downward API); the chart's Deployment uses metadata.name.
FIELD_REFS: dict[str, Callable[[k8s_client.V1Pod], str]] = {
    "metadata.name": lambda pod: pod.metadata.name,
    "metadata.namespace": lambda pod: pod.metadata.namespace,
}


def container_environment(pod: k8s_client.V1Pod, container: str) -> dict[str, str]:
    """The environment the kubelet would give ``container`` of ``pod`` (its ``env`` list)."""
    spec = next((c for c in pod.spec.containers if c.name == container), None)
    if spec is None:
        raise ValueError(f"pod {pod.metadata.name} has no container {container!r}")
    env = {}
    for item in spec.env or []:
        if item.value_from is None:
            env[item.name] = item.value or ""
        elif item.value_from.field_ref is not None and item.value_from.field_ref.field_path in FIELD_REFS:
            env[item.name] = FIELD_REFS[item.value_from.field_ref.field_path](pod)
        else:
            raise ValueError(f"{container}: env {item.name} comes from {item.value_from}, which this stand-in does not resolve")
    return env


class DeploymentOperator:
    """Runs ``flavor``'s operator for the Running pod of the Deployment in ``namespace`` whose template has the
    operator's container. ``kubeconfig`` is a path, or a callable returning one once the cluster exists (the kind
    stack's cluster is made during ``pulumi up``). Use as a context manager."""

    def __init__(
        self,
        flavor: Flavor,
        binary: str | Path,
        kubeconfig: str | Path | Callable[[], Path | None],
        namespace: str,
        workdir: Path,
        interval: float = 0.5,
    ):
        self.flavor = flavor
        self.binary = Path(binary)
        self._kubeconfig = kubeconfig
        self.namespace = namespace
        self.workdir = workdir
        self.interval = interval
        self.processes: list[OperatorProcess] = []  # every process started, the running one last
        self.history: list[str] = []  # what was started and stopped, for the report
        self.failures: list[str] = []
        self._pod: str | None = None
        self._core: k8s_client.CoreV1Api | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"{flavor.name}-operator", daemon=True)

    # ------------------------------------------------------------------------------------------------------
    def __enter__(self) -> DeploymentOperator:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=60)
        self._stop_process("the test ended")

    @property
    def current(self) -> OperatorProcess | None:
        return self.processes[-1] if self.processes and self.processes[-1].running() else None

    def errors(self) -> list[str]:
        """Every ERROR line any of the processes logged."""
        return [line for process in self.processes for line in process.errors()]

    def logs(self) -> str:
        return "\n".join(f"--- {process.log_path}\n{process.tail(40)}" for process in self.processes)

    def wait_running(self, timeout: float = 300) -> OperatorProcess:
        deadline = time.monotonic() + timeout
        while self.current is None:
            if self.failures:
                raise AssertionError(f"the {self.flavor.name} operator could not start: {self.failures}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {self.flavor.name} operator running after {timeout:.0f} s: {self.history}")
            time.sleep(0.5)
        return self.current

    # ------------------------------------------------------------------------------------------------------
    def _kubeconfig_path(self) -> Path | None:
        found = self._kubeconfig() if callable(self._kubeconfig) else Path(self._kubeconfig)
        return found if found is not None and Path(found).is_file() else None

    def _operator_pod(self, core: k8s_client.CoreV1Api) -> k8s_client.V1Pod | None:
        """The Running, not deleted pod of the Deployment that runs the operator's container, if any."""
        apps = k8s_client.AppsV1Api(core.api_client)
        for deployment in apps.list_namespaced_deployment(self.namespace, _request_timeout=20).items:
            if not any(c.name == self.flavor.container for c in deployment.spec.template.spec.containers):
                continue
            selector = ",".join(f"{k}={v}" for k, v in sorted(deployment.spec.selector.match_labels.items()))
            pods = core.list_namespaced_pod(self.namespace, label_selector=selector, _request_timeout=20).items
            running = [p for p in pods if p.status.phase == "Running" and not p.metadata.deletion_timestamp]
            if running:
                return sorted(running, key=lambda p: p.metadata.creation_timestamp)[-1]
        return None

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._tend()
            except Exception as error:  # noqa: BLE001 - a missed poll (the API server restarting, gone at the end) is retried
                self.history.append(f"poll failed: {type(error).__name__}: {str(error)[:200]}")
                self._core = None
            self._stop.wait(self.interval)

    def _tend(self) -> None:
        if self._core is None:
            path = self._kubeconfig_path()
            if path is None:  # the cluster does not exist (yet, or any more)
                self._stop_process("the cluster is gone")
                return
            self._core = k8s_client.CoreV1Api(k8s_config.new_client_from_config(str(path)))
        try:
            pod = self._operator_pod(self._core)
        except ApiException as error:
            if error.status == 404:  # the namespace is not there yet
                return
            raise
        if pod is None:
            self._stop_process("its pod is gone")
        elif pod.metadata.name != self._pod:
            self._stop_process(f"its pod was replaced by {pod.metadata.name}")
            self._start(pod)

    def _start(self, pod: k8s_client.V1Pod) -> None:
        index = len(self.processes)
        process = OperatorProcess(
            self.flavor,
            self.binary,
            self._kubeconfig_path(),
            [self.namespace],
            pod.metadata.name,
            self.workdir / f"{index}-{pod.metadata.name}",
            env=container_environment(pod, self.flavor.container) | {"OPERATOR_NAME": NO_DEPLOYMENT},
        )
        self.processes.append(process)
        self._pod = pod.metadata.name
        try:
            process.start()
        except (RuntimeError, TimeoutError, FileNotFoundError) as error:
            self.failures.append(f"{pod.metadata.name}: {error}")
            return
        self.history.append(f"{time.strftime('%H:%M:%S')} started for pod {pod.metadata.name}")

    def _stop_process(self, why: str) -> None:
        if self._pod is None:
            return
        for process in self.processes:
            process.stop()
        self.history.append(f"{time.strftime('%H:%M:%S')} stopped ({why}): pod {self._pod}")
        self._pod = None
