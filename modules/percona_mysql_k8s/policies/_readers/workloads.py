"""Pods, Deployments, StatefulSets, ReplicaSets, DaemonSets, Jobs and CronJobs as pod specs (K4, K5, B1-B3, S1, T3).

A workload is classified as a *load generator* when a container image or name, or the workload's name,
contains "sysbench", or it is labelled ``app.kubernetes.io/component=load-generator``; as the *PMM
server* when a container runs a ``pmm-server`` image. Anything else is an ordinary workload.

At preview a field may be unknown: replicas, the name and the labels are read on their own (values.deferred),
a container that is unknown as a whole stays in the list as unknown, and the role is decided from what is
known when that is enough (a known pmm-server image), NotKnown otherwise.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from percona_mysql_k8s.core.units import Schema

from .deferred import KnownOnRead, Pending, deferred
from .placement import Placement, read_placement
from .resources import Resources, read_resources
from .values import MISSING, Malformed, NotKnown, Unknown, as_int, as_list, as_map, as_str, at, describe, join, known

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


@dataclass(frozen=True, eq=False)  # identity: reading a Pending field raises (values.KnownOnRead)
class Workload(KnownOnRead):
    type: str
    kind: str
    name: str
    path: str  # of the pod spec
    spec: dict
    labels: dict
    replicas: int
    containers: tuple[dict, ...]  # an entry unknown at preview is an Unknown
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

    def _texts(self, key: str, containers) -> tuple[list[str], NotKnown | None]:
        """The known string ``key`` of each container, and the first one unknown at preview."""
        found, unknown = [], None
        for index, container in enumerate(containers):
            try:
                value = known(
                    known(container, f"{self.path}.containers[{index}]").get(key), f"{self.path}.containers[{index}].{key}"
                )
            except NotKnown as error:
                unknown = unknown or error
                continue
            if isinstance(value, str):
                found.append(value)
        return found, unknown

    def images(self) -> list[str]:
        """Every image; NotKnown when one is unknown at preview."""
        images, unknown = self._texts("image", self.containers + self.init_containers)
        if unknown is not None:
            raise unknown
        return images

    def role(self) -> str:
        """PMM server, load generator or workload, from what is known when that decides it (a known
        pmm-server image makes the PMM server whatever else is unknown); NotKnown otherwise."""
        images, unknown_image = self._texts("image", self.containers + self.init_containers)
        if any("pmm-server" in image for image in images):
            return PMM_SERVER
        if unknown_image is not None:
            raise unknown_image
        names, unknown_name = self._texts("name", self.containers)
        texts = [*images, *names]
        label = deferred(lambda: known(self.labels.get(LOAD_GENERATOR_LABEL[0]), f"labels.{LOAD_GENERATOR_LABEL[0]}"))
        name = deferred(lambda: self.name)
        if label == LOAD_GENERATOR_LABEL[1] or any(
            "sysbench" in text.lower() for text in texts + [name] if isinstance(text, str)
        ):
            return LOAD_GENERATOR
        for undecided in (unknown_name, label, name):
            if isinstance(undecided, Pending):
                undecided.raise_error()
            if isinstance(undecided, NotKnown):
                raise undecided
        return OTHER

    def container_resources(self) -> list[tuple[str, Resources]]:
        result = []
        for index, container in enumerate(self.containers):
            path = f"{join(self.path, 'containers')}[{index}].resources"
            container = known(container, f"{join(self.path, 'containers')}[{index}]")
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
            container = known(container, f"{join(self.path, 'initContainers')}[{index}]")
            resources = read_resources(
                container.get("resources", MISSING), f"{join(self.path, 'initContainers')}[{index}].resources", Schema.BUILTIN
            )
            cpu, memory = max(cpu, resources.scheduled_cpu), max(memory, resources.scheduled_memory)
        return cpu, memory

    def script(self) -> str:
        """Command and arguments of every container joined, for B2/B3/T3 and S1 to read; NotKnown when a word
        of them is unknown at preview."""
        parts = []
        for index, container in enumerate(self.containers):
            where = f"{join(self.path, 'containers')}[{index}]"
            container = known(container, where)
            for key in ("command", "args"):
                value = known(container.get(key), join(where, key))
                if isinstance(value, list):
                    parts.extend(
                        str(item)
                        for number, item in enumerate(value)
                        if isinstance(known(item, f"{join(where, key)}[{number}]"), str | int | float)
                    )
        return "\n".join(parts)

    def command_lines(self) -> str:
        """What each container (init containers first: they run before the others) runs, one command line per
        container as the kubelet execs it (command then args, the image's entrypoint when both are absent): a
        shell's ``-c`` script as the script, any other argv quoted back into one line (shlex.join), so an exec-form
        ``["sysbench", "oltp_read_write", "--tables=4", "prepare"]`` reads as the shell form does. NotKnown when a
        word is unknown at preview."""
        lines = []
        for key_list, entries in (("initContainers", self.init_containers), ("containers", self.containers)):
            for index, container in enumerate(entries):
                where = f"{join(self.path, key_list)}[{index}]"
                container = known(container, where)
                argv = []
                for key in ("command", "args"):
                    value = known(container.get(key), join(where, key))
                    if isinstance(value, list):
                        argv += [str(known(item, f"{join(where, key)}[{n}]")) for n, item in enumerate(value)]
                shell = argv and argv[0].rsplit("/", 1)[-1] in ("sh", "bash", "dash", "ash", "zsh")
                if shell and "-c" in argv[1:] and argv.index("-c", 1) + 1 < len(argv):
                    lines.append(argv[argv.index("-c", 1) + 1])
                elif argv:
                    lines.append(shlex.join(argv))
        return "\n".join(lines)

    def env(self) -> list[tuple[str, dict, str]]:
        """(path, env entry, container name) of every environment variable; NotKnown when an entry is unknown."""
        result = []
        for index, container in enumerate(self.containers + self.init_containers):
            container = known(container, f"{join(self.path, 'containers')}[{index}]")
            entries = known(container.get("env"), f"{join(self.path, 'containers')}[{index}].env")
            if isinstance(entries, list):
                for number, entry in enumerate(entries):
                    if isinstance(known(entry, f"{join(self.path, 'containers')}[{index}].env[{number}]"), dict):
                        name = container.get("name", index)
                        if isinstance(name, Unknown):  # named in messages by its placeholder
                            name = name.error(f"{join(self.path, 'containers')}[{index}].name").placeholder()
                        result.append((f"{join(self.path, 'containers')}[{index}].env[{number}]", entry, str(name)))
        return result


def _dicts(items: list, path: str) -> tuple[dict, ...]:
    for index, item in enumerate(items):
        if not isinstance(item, dict | Unknown):
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

    def read_labels() -> dict:
        labels = dict(as_map(metadata.get("labels", MISSING), "metadata.labels"))
        if template_path:
            labels.update(as_map(at(props, f"{template_path}.metadata.labels"), f"{template_path}.metadata.labels"))
        return {str(k): v for k, v in labels.items()}

    def read_replicas() -> int:
        if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
            replicas = as_int(at(props, "spec.replicas"), "spec.replicas", 1, text=True)  # a built-in kind, read as before
        elif kind == "Job":
            replicas = as_int(at(props, "spec.parallelism"), "spec.parallelism", 1, text=True)
        else:
            replicas = 1
        return max(0, replicas or 0)

    workload_name = deferred(lambda: as_str(metadata.get("name", MISSING), "metadata.name", name) or name)
    containers = _dicts(as_list(spec.get("containers", MISSING), join(path, "containers")), join(path, "containers"))
    init = _dicts(as_list(spec.get("initContainers", MISSING), join(path, "initContainers")), join(path, "initContainers"))
    return Workload(
        resource_type,
        kind,
        workload_name,
        path,
        spec,
        deferred(read_labels),
        deferred(read_replicas),
        containers,
        init,
    )
