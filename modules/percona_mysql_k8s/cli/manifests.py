"""Kubernetes manifests (``kubectl``-style YAML streams, ``helm template`` or ``kustomize build`` output)
as the resources the engine would send the pack for them.

Reading follows the manifests' owners:

* Documents are split on ``---`` and decoded as kubectl decodes them: k8s.io/apimachinery
  ``pkg/util/yaml`` splits the stream, sigs.k8s.io/yaml turns each document into JSON. So an empty
  document (only comments, or nothing between two ``---``) is skipped, every map key is a string
  (``1: x`` is ``"1": x``), an unquoted date stays the string it is written as (JSON has no
  timestamps), and a key defined twice in one mapping is an error (go-yaml: ``mapping key "x" already
  defined``), where PyYAML would silently keep the last.
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

import re
from dataclasses import dataclass
from typing import Any

import yaml

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

    @property
    def origin(self) -> str:
        if self.described:
            return self.described
        where = f"{'stdin' if self.file == STDIN else self.file}, document {self.document}"
        return f"{where}, {self.helm_source}" if self.helm_source else where


class _KubectlLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the decoding differences of sigs.k8s.io/yaml removed (module docstring)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)  # merge keys (<<) first, as go-yaml does
            seen: dict[str, int] = {}
            for key_node, _ in node.value:
                key = str(self.construct_object(key_node, deep=True))
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f'mapping key "{key}" already defined at line {seen[key] + 1}', key_node.start_mark
                    )
                seen[key] = key_node.start_mark.line
        mapping = super().construct_mapping(node, deep=deep)
        return {str(key): value for key, value in mapping.items()}


# An unquoted date/time is a string in JSON: drop PyYAML's timestamp resolver (keep every other one).
_KubectlLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def type_token(api_version: str, kind: str) -> str:
    """The Pulumi type token pulumi-kubernetes registers an object of this apiVersion and kind as."""
    return f"kubernetes:{'core/v1' if api_version == 'v1' else api_version}:{kind}"


def _documents(text: str, file: str) -> list[tuple[int, int, Any]]:
    """(document number, start line, decoded value) for every document of a YAML stream."""
    loader = _KubectlLoader(text)
    documents = []
    try:
        while loader.check_node():
            number = len(documents) + 1
            node = loader.get_node()
            line = node.start_mark.line + 1 if node is not None else 0
            documents.append((number, line, loader.construct_document(node) if node is not None else None))
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ManifestError(f"{_display(file)}: document {len(documents) + 1} is not valid YAML{where}: {problem}") from None
    finally:
        loader.dispose()
    return documents


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
    found = []
    previous_line = 0
    for number, line, value in _documents(text, file):
        # helm template writes `# Source: chart/templates/x.yaml` between the `---` and the document
        helm_source = next((source for source_line, source in reversed(sources) if previous_line < source_line < line), None)
        previous_line = max(previous_line, line)
        if value is None:
            continue  # an empty document: kubectl skips it too
        where = f"{_display(file)}: document {number} (line {line})"
        for path, obj in _objects(value, where, ""):
            inner = _at(where, path)
            props = {key: item for key, item in obj.items() if key != "status" or _kept_status(obj)}
            found.append(
                ManifestObject(
                    type_token(obj["apiVersion"], obj["kind"]), _name(obj, inner), props, file, number, line, helm_source
                )
            )
    return found


def read_values(text: str, file: str = STDIN) -> dict[str, Any]:
    """A Helm values file, decoded as Helm decodes it (chartutil.ReadValues: sigs.k8s.io/yaml, one document,
    a mapping; an empty file is no values). Raises :class:`ManifestError` naming the file."""
    documents = [value for _, _, value in _documents(text, file)]
    if len(documents) > 1:
        raise ManifestError(f"{_display(file)}: a values file is one YAML document, not {len(documents)}")
    values = documents[0] if documents else None
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise ManifestError(f"{_display(file)}: values are a mapping of keys, not {type(values).__name__}")
    return values
