"""Pods, Deployments, StatefulSets, ReplicaSets, DaemonSets, Jobs and CronJobs as pod specs (K4, K5, B1-B3, S1, T3).

A workload is classified as a *load generator* when a container image or name, or the workload's name,
contains "sysbench", or it is labelled ``app.kubernetes.io/component=load-generator``; as the *PMM
server* when a container runs a ``pmm-server`` image. Anything else is an ordinary workload.
"""

from __future__ import annotations

from dataclasses import dataclass

from percona_mysql_k8s.core.units import Schema

from .placement import Placement, read_placement
from .resources import Resources, read_resources
from .values import MISSING, Malformed, as_int, as_list, as_map, as_str, at, describe, join

POD_SPEC_PATHS = {
    "kubernetes:core/v1:Pod": "spec",
    "kubernetes:apps/v1:Deployment": "spec.template.spec",
    "kubernetes:apps/v1:StatefulSet": "spec.template.spec",
    "kubernetes:apps/v1:ReplicaSet": "spec.template.spec",
    "kubernetes:apps/v1:DaemonSet": "spec.template.spec",
    "kubernetes:batch/v1:Job": "spec.template.spec",
    "kubernetes:batch/v1:CronJob": "spec.jobTemplate.spec.template.spec",
}
LOAD_GENERATOR, PMM_SERVER, OTHER = "load generator", "PMM server", "workload"
LOAD_GENERATOR_LABEL = ("app.kubernetes.io/component", "load-generator")


@dataclass(frozen=True)
class Workload:
    type: str
    kind: str
    name: str
    path: str  # of the pod spec
    spec: dict
    labels: dict
    replicas: int
    containers: tuple[dict, ...]
    init_containers: tuple[dict, ...]

    @property
    def daemonset(self) -> bool:
        return self.kind == "DaemonSet"

    def placement(self) -> Placement:
        return read_placement(
            self.spec.get("nodeSelector", MISSING),
            self.spec.get("tolerations", MISSING),
            self.spec.get("affinity", MISSING),
            self.path,
        )

    def images(self) -> list[str]:
        return [c["image"] for c in self.containers + self.init_containers if isinstance(c.get("image"), str)]

    def role(self) -> str:
        names = [c.get("name") for c in self.containers if isinstance(c.get("name"), str)]
        if any("pmm-server" in image for image in self.images()):
            return PMM_SERVER
        if self.labels.get(LOAD_GENERATOR_LABEL[0]) == LOAD_GENERATOR_LABEL[1]:
            return LOAD_GENERATOR
        if any("sysbench" in text.lower() for text in [*self.images(), *names, self.name]):
            return LOAD_GENERATOR
        return OTHER

    def container_resources(self) -> list[tuple[str, Resources]]:
        result = []
        for index, container in enumerate(self.containers):
            path = f"{join(self.path, 'containers')}[{index}].resources"
            result.append(
                (str(container.get("name", index)), read_resources(container.get("resources", MISSING), path, Schema.BUILTIN))
            )
        return result

    def pod_request(self) -> tuple[int, int]:
        """(millicores, bytes) the scheduler reserves for one pod: containers, or the largest init container."""
        cpu = memory = 0
        for _, resources in self.container_resources():
            cpu += resources.scheduled_cpu
            memory += resources.scheduled_memory
        for index, container in enumerate(self.init_containers):
            resources = read_resources(
                container.get("resources", MISSING), f"{join(self.path, 'initContainers')}[{index}].resources", Schema.BUILTIN
            )
            cpu, memory = max(cpu, resources.scheduled_cpu), max(memory, resources.scheduled_memory)
        return cpu, memory

    def script(self) -> str:
        """Command and arguments of every container joined, for B2/B3/T3 and S1 to read."""
        parts = []
        for container in self.containers:
            for key in ("command", "args"):
                value = container.get(key)
                if isinstance(value, list):
                    parts.extend(str(item) for item in value if isinstance(item, str | int | float))
        return "\n".join(parts)

    def env(self) -> list[tuple[str, dict, str]]:
        """(path, env entry, container name) of every environment variable."""
        result = []
        for index, container in enumerate(self.containers + self.init_containers):
            entries = container.get("env")
            if isinstance(entries, list):
                for number, entry in enumerate(entries):
                    if isinstance(entry, dict):
                        result.append(
                            (f"{join(self.path, 'containers')}[{index}].env[{number}]", entry, str(container.get("name", index)))
                        )
        return result


def _dicts(items: list, path: str) -> tuple[dict, ...]:
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise Malformed(f"{path}[{index}]", f"is {describe(item)}, not a container")
    return tuple(items)


def workload_view(resource_type: str, props: dict, name: str = "") -> Workload | None:
    path = POD_SPEC_PATHS.get(resource_type)
    if path is None:
        return None
    kind = resource_type.rsplit(":", 1)[-1]
    spec = as_map(at(props, path), path)
    metadata = as_map(at(props, "metadata"), "metadata")
    template_path = path.rsplit(".spec", 1)[0] if path != "spec" else ""
    labels = dict(as_map(metadata.get("labels", MISSING), "metadata.labels"))
    if template_path:
        labels.update(as_map(at(props, f"{template_path}.metadata.labels"), f"{template_path}.metadata.labels"))
    if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        replicas = as_int(at(props, "spec.replicas"), "spec.replicas", 1, text=True)  # a built-in kind, read as before
    elif kind == "Job":
        replicas = as_int(at(props, "spec.parallelism"), "spec.parallelism", 1, text=True)
    else:
        replicas = 1
    workload_name = as_str(metadata.get("name", MISSING), "metadata.name", name) or name
    containers = _dicts(as_list(spec.get("containers", MISSING), join(path, "containers")), join(path, "containers"))
    init = _dicts(as_list(spec.get("initContainers", MISSING), join(path, "initContainers")), join(path, "initContainers"))
    return Workload(
        resource_type,
        kind,
        workload_name,
        path,
        spec,
        {str(k): v for k, v in labels.items()},
        max(0, replicas or 0),
        containers,
        init,
    )
