"""Kubernetes manifests (``kubectl``-style YAML streams, ``helm template`` or ``kustomize build`` output)
as the resources the engine would send the pack for them.

Reading follows the manifests' owners:

* Documents are read as kubectl reads them, by the core's one reader of Kubernetes YAML
  (percona_mysql_k8s.core.kube_yaml: apimachinery's document split, go-yaml v2's YAML 1.1 scalars, so ``y`` is
  true, ``1e5`` the integer 100000 and ``0o17`` 15, ``1:30`` a string; a key defined twice keeps its last
  value; sigs.k8s.io/yaml's string keys and JSON numbers). A blank or ``null`` document is skipped. An object
  whose metadata kubectl cannot decode (a label value that is a number) is refused as kubectl refuses it
  (core.kube_yaml.object_meta), and so is a number JSON cannot hold (``.inf``).
* Each object becomes the resource pulumi-kubernetes registers for it (sdk/python
  ``pulumi_kubernetes/yaml/yaml.py``, ``_parse_yaml_object``): a kind ending in ``List`` is its
  ``items``, each on its own; ``apiVersion`` and ``kind`` are required, and so is ``metadata.name``;
  the resource name is ``namespace/name`` (or ``name``); the type token is
  ``kubernetes:<group>/<version>:<Kind>`` with the core group spelled ``core`` (``v1`` Secret is
  ``kubernetes:core/v1:Secret``) and any other apiVersion taken as written, which is also how
  ``apiextensions.CustomResource`` names a custom resource
  (``kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster``).
* The properties are the object itself (its inputs), without ``status``, which is output-only; but a Node's:
  its ``status.allocatable`` and ``Ready`` condition are what the kubelet says of it, what the pack places pods
  against (the Nodes of ``kubectl get nodes -o yaml``, policies/_readers/node_pools.py).

Nothing here imports Pulumi: the check (``percona-mysql-policy-check --manifests``, percona_mysql_k8s.cli.check) sends these to
the pack over the analyzer protocol.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from percona_mysql_k8s.cli.locations import Positions
from percona_mysql_k8s.core.errors import one_line
from percona_mysql_k8s.core.kube_yaml import Document, KubeYamlError, read_first_document, read_stream
from percona_mysql_k8s.core.kube_yaml.object_meta import kubectl_refuses

STDIN = "-"
_HELM_SOURCE = re.compile(r"^# Source: (\S.*?)\s*$")


class ManifestError(Exception):
    """Input that is not a readable manifest: names the file and the document."""


@dataclass(frozen=True)
class ManifestObject:
    type: str  # the Pulumi type token
    name: str  # the resource name pulumi-kubernetes gives it: namespace/name or name
    props: dict[str, Any]
    file: str  # the path as given, or "-" for stdin
    document: int  # 1-based position of the document in its file
    line: int  # 1-based line where the document starts
    helm_source: str | None = None  # the template that rendered it (`# Source:` comment of helm template)
    described: str | None = None  # where it comes from, when not one document of one file
    # (line, column) of each value, keyed by its path in ``props`` (core.kube_yaml); empty when not read from a file
    marks: dict[tuple, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)
    key_marks: dict[tuple, tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)  # each key's
    lines: tuple[str, ...] = field(default=(), compare=False, repr=False)  # the file's lines (block scalars' text)
    # chart values: each values file as read, in merge order (cli.locations.Positions), to point into the one that sets a value
    value_files: tuple = field(default=(), compare=False, repr=False)

    def positions(self, file: str | None = None) -> Positions:
        """Where this object's fields are written (cli.locations), its file shown as ``file``."""
        return Positions(file or self.file, self.props, self.marks, self.key_marks, self.lines, self.helm_source)

    @property
    def origin(self) -> str:
        if self.described:
            return self.described
        where = f"{'stdin' if self.file == STDIN else self.file}, document {self.document}"
        return f"{where}, {self.helm_source}" if self.helm_source else where


def type_token(api_version: str, kind: str) -> str:
    """The Pulumi type token pulumi-kubernetes registers an object of this apiVersion and kind as."""
    return f"kubernetes:{'core/v1' if api_version == 'v1' else api_version}:{kind}"


def _documents(text: str, file: str) -> list[Document]:
    """Every document kubectl reads from the stream (blank ones left out), or ManifestError naming where."""
    try:
        return read_stream(text, file)
    except KubeYamlError as error:
        raise ManifestError(one_line(str(error).replace(f"{file}:", f"{_display(file)}:", 1))) from None


def _display(file: str) -> str:
    return "stdin" if file == STDIN else file


def _helm_sources(text: str) -> list[tuple[int, str]]:
    """(line, template) of every ``# Source:`` comment helm template writes above a rendered document."""
    return [
        (number, match.group(1)) for number, raw in enumerate(text.splitlines(), start=1) if (match := _HELM_SOURCE.match(raw))
    ]


def _at(where: str, path: str) -> str:
    return f"{where}, {path.lstrip('.')}" if path else where


def _objects(value: Any, where: str, path: str) -> list[tuple[str, dict]]:
    """(path, object) for one decoded document: the object, or the items of a ``*List``."""
    if not isinstance(value, dict):
        raise ManifestError(
            f"{_at(where, path)}: a Kubernetes object is a mapping with apiVersion and kind, "
            f"not {type(value).__name__} {str(value)[:60]!r}"
        )
    for key in ("apiVersion", "kind"):
        if not isinstance(value.get(key), str) or not value[key]:
            raise ManifestError(
                f"{_at(where, path)}: {key} is missing or not a string; every Kubernetes object has apiVersion and kind"
            )
    if value["kind"].endswith("List"):
        items = value.get("items") or []
        if not isinstance(items, list):
            raise ManifestError(
                f"{_at(where, path + '.items')}: a {value['kind']} holds a list of objects, not {type(items).__name__}"
            )
        found = []
        for index, item in enumerate(items):
            found.extend(_objects(item, where, f"{path}.items[{index}]"))
        return found
    return [(path, value)]


def _name(obj: dict, where: str) -> str:
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name:
        raise ManifestError(
            f"{where}: metadata.name is missing; the {obj['kind']} cannot be identified "
            f"(generateName is resolved only by the API server)"
        )
    namespace = metadata.get("namespace")
    return f"{namespace}/{name}" if isinstance(namespace, str) and namespace else name


def _kept_status(obj: dict) -> bool:
    return obj.get("apiVersion") == "v1" and obj.get("kind") == "Node"


def read_manifests(text: str, file: str = STDIN) -> list[ManifestObject]:
    """Every object of one YAML stream, in order. Raises :class:`ManifestError` naming file and document."""
    sources = _helm_sources(text)
    lines = source_lines(text)
    found = []
    for document in _documents(text, file):
        number, line = document.number, document.line
        # helm template writes `# Source: chart/templates/x.yaml` between the `---` and the document
        helm_source = next((source for source_line, source in reversed(sources) if document.start <= source_line < line), None)
        where = f"{_display(file)}: document {number} (line {line})"
        for path, obj in _objects(document.value, where, ""):
            inner = _at(where, path)
            refused = kubectl_refuses(obj)
            if refused:
                raise ManifestError(one_line(f"{inner}: kubectl cannot decode the object: {refused}"))
            props = {key: item for key, item in obj.items() if key != "status" or _kept_status(obj)}
            prefix = _prefix(path)
            found.append(
                ManifestObject(
                    type_token(obj["apiVersion"], obj["kind"]),
                    _name(obj, inner),
                    props,
                    file,
                    number,
                    line,
                    helm_source,
                    marks=_under(document.marks, prefix),
                    key_marks=_under(document.key_marks, prefix),
                    lines=lines,
                )
            )
    return found


def source_lines(text: str) -> tuple[str, ...]:
    """The text's lines as the reader numbers them (``\\n`` ends a line, a ``\\r`` before it dropped)."""
    return tuple(line.removesuffix("\r") for line in text.split("\n"))


def _prefix(path: str) -> tuple:
    """The marks' key of the object at ``path`` in its document (``.items[2]`` of a List: ("items", 2))."""
    prefix: tuple = ()
    for index in re.findall(r"\[(\d+)\]", path):
        prefix += ("items", int(index))
    return prefix


def _under(marks: dict[tuple, tuple[int, int]], prefix: tuple) -> dict[tuple, tuple[int, int]]:
    """The marks below ``prefix``, keyed from the object down."""
    return {where[len(prefix) :]: mark for where, mark in marks.items() if where[: len(prefix)] == prefix}


_INT64 = 1 << 63
_SAFE = 1 << 53
_BELOW_INT64 = math.nextafter(float(_INT64), 0.0)  # the largest double below 2^63: 9223372036854774784


def wire_numbers(value: Any) -> Any:
    """``value`` for the analyzer protocol, whose ``Struct`` holds every number as a double. kubectl sends an int64
    exactly; beyond 2^53 the nearest double of one near either end of int64 is +-2^63, which the pack (as the
    API server) would read as a float: such an integer goes as the double next to it towards zero, so the pack
    still reads an int64 (core.crd.structural.json_numbers)."""
    if isinstance(value, dict):
        return {key: wire_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [wire_numbers(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _SAFE:
        return math.copysign(min(abs(float(value)), _BELOW_INT64), value)
    return value


def read_values(text: str, file: str = STDIN) -> dict[str, Any]:
    """A Helm values file, decoded as Helm decodes it (chartutil.ReadValues: sigs.k8s.io/yaml over the whole file,
    so its first document; a mapping; an empty file is no values). Raises :class:`ManifestError` naming the file."""
    document = read_values_document(text, file)
    return document.value if document is not None else {}


def read_values_document(text: str, file: str = STDIN) -> Document | None:
    """:func:`read_values` with the positions of its values (None for no values)."""
    try:
        document = read_first_document(text, file)
    except KubeYamlError as error:
        raise ManifestError(one_line(str(error).replace(f"{file}:", f"{_display(file)}:", 1))) from None
    values = document.value if document is not None else None
    if values is None:
        return None
    if not isinstance(values, dict):
        raise ManifestError(f"{_display(file)}: values are a mapping of keys, not {type(values).__name__}")
    return document
