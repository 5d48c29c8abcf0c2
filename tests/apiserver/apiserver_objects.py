"""Kubernetes objects a program would create, as the pulumi-kubernetes provider would send them.

Pure code (no API server): turns the registrations of :mod:`percona_mysql_k8s.cli.offline` (or plain manifests) into
:class:`KubeObject` records, orders them the way the engine would create them, picks the Percona CRD
files that match a stack, and compares what was sent with what the API server stored.

What the provider does before it sends an object, and what is mimicked here:

* ``apiVersion``/``kind`` come from the type token when they are not in the inputs
  (``kubernetes:core/v1:Secret`` -> ``v1``/``Secret``; ``kubernetes:apps/v1:Deployment`` -> ``apps/v1``).
* Numbers cross the engine as floats; the provider (Go) writes ``3.0`` as ``3``. Integral floats are
  turned back into ints, or an integer field of a CRD would see ``3.0``.
* ``metadata.name`` is auto-named ``<resource name>-<suffix>`` when absent (deterministic suffix here).
* A namespaced object without ``metadata.namespace`` goes into its provider's namespace, else ``default``.
* Unknown values (``None``) are left out.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml

# Type tokens that are Kubernetes but not one object: recorded and skipped.
_NOT_OBJECTS = ("helm.sh/", "yaml/", "kustomize/", "yaml:", "helm.sh:", "kustomize:")
_TOKEN = re.compile(r"^kubernetes:(?P<gv>[^:]+):(?P<kind>[A-Za-z0-9]+)$")


@dataclass
class KubeObject:
    """One object to apply: the body the provider would send, plus where it came from."""

    key: str  # the Pulumi URN, or "<file>#<n>" for manifests
    api_version: str
    kind: str
    body: dict[str, Any]
    source: str  # human-readable origin: "kubernetes:core/v1:Secret creds" or a file name
    depends_on: list[str] = field(default_factory=list)  # keys of other KubeObjects
    default_namespace: str = "default"  # provider namespace, used when a namespaced body has none
    notes: list[str] = field(default_factory=list)  # what was filled in before sending

    @property
    def group(self) -> str:
        return self.api_version.rpartition("/")[0] if "/" in self.api_version else ""

    @property
    def name(self) -> str:
        return self.body["metadata"]["name"]

    @property
    def namespace(self) -> str | None:
        return self.body.get("metadata", {}).get("namespace")

    def label(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {where}{self.name} ({self.source})"


@dataclass
class Skipped:
    """A registration that is not applied, and why."""

    type: str
    name: str
    reason: str


@dataclass
class Collected:
    objects: list[KubeObject]
    skipped: list[Skipped]
    helm_releases: list[dict[str, Any]]  # chart, version, namespace, repo of every Helm release/chart
    manifest_sources: list[str]  # file/url of every yaml ConfigFile/ConfigGroup (not rendered)

    def summary(self) -> str:
        lines = [f"{len(self.objects)} Kubernetes objects to apply:"]
        lines += [f"  - {obj.label()}" + (f"  [{'; '.join(obj.notes)}]" if obj.notes else "") for obj in self.objects]
        lines.append(f"{len(self.skipped)} registrations not applied:")
        lines += [f"  - {item.type} {item.name}: {item.reason}" for item in self.skipped]
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------------
# values as the provider writes them


def wire_value(value: Any) -> Any:
    """Unknowns dropped, integral floats as ints: the JSON the Go provider would send."""
    if isinstance(value, dict):
        return {key: wire_value(item) for key, item in value.items() if item is not None}
    if isinstance(value, (list, tuple)):
        return [wire_value(item) for item in value if item is not None]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def api_version_kind(type_token: str, inputs: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(apiVersion, kind)`` of a ``kubernetes:<group>/<version>:<Kind>`` token; None if not an object."""
    match = _TOKEN.match(type_token)
    if not match:
        return None
    gv, kind = match["gv"], match["kind"]
    if kind == "CustomResource" and gv.startswith("apiextensions.k8s.io"):
        if not inputs.get("apiVersion") or not inputs.get("kind"):
            return None
        return inputs["apiVersion"], inputs["kind"]
    if "/" not in gv:
        return None
    group, _, version = gv.partition("/")
    return (version if group == "core" else gv), kind


def autoname(name: str, urn: str) -> str:
    """The provider's ``<name>-<random>``; deterministic here so reruns hit the same object."""
    return f"{name}-{hashlib.sha256(urn.encode()).hexdigest()[:8]}".lower()


# --------------------------------------------------------------------------------------------------
# registrations -> objects


def _descendants(registrations: Sequence[Any]) -> dict[str, set[str]]:
    children: dict[str, list[str]] = {}
    for record in registrations:
        if record.parent:
            children.setdefault(record.parent, []).append(record.urn)
    result: dict[str, set[str]] = {}

    def walk(urn: str) -> set[str]:
        if urn not in result:
            result[urn] = set()
            for child in children.get(urn, []):
                result[urn] |= {child} | walk(child)
        return result[urn]

    for record in registrations:
        walk(record.urn)
    return result


def collect(registrations: Sequence[Any]) -> Collected:
    """Every Kubernetes object among ``registrations`` (:class:`percona_mysql_k8s.cli.offline.Registration`)."""
    by_urn = {record.urn: record for record in registrations}
    descendants = _descendants(registrations)
    provider_namespace: dict[str, str] = {}
    for record in registrations:
        if record.type == "pulumi:providers:kubernetes" and record.inputs.get("namespace"):
            provider_namespace[record.urn] = record.inputs["namespace"]

    objects: dict[str, KubeObject] = {}
    skipped: list[Skipped] = []
    helm: list[dict[str, Any]] = []
    manifests: list[str] = []
    for record in registrations:
        token = record.type
        if token.startswith("pulumi:providers:"):
            skipped.append(Skipped(token, record.name, "provider"))
            continue
        if not token.startswith("kubernetes:"):
            skipped.append(Skipped(token, record.name, "not a Kubernetes object"))
            continue
        gv = token.split(":")[1]
        if gv.startswith(_NOT_OBJECTS):
            if gv.startswith("helm.sh"):
                chart = str(record.inputs.get("chart", ""))
                info = {
                    "type": token,
                    "name": record.name,
                    "chart": chart.rpartition("/")[2],
                    "version": record.inputs.get("version"),
                    "namespace": record.inputs.get("namespace"),
                    "repo": (record.inputs.get("repositoryOpts") or {}).get("repo"),
                    "createNamespace": bool(record.inputs.get("createNamespace")),
                    "skipCrds": bool(record.inputs.get("skipCrds")),
                }
                helm.append(info)
                reason = f"Helm chart {info['chart']} {info['version'] or ''} recorded, not rendered (charts cannot be downloaded here)"
            else:
                sources = [record.inputs.get("file")] + list(record.inputs.get("files") or [])
                manifests += [str(item) for item in sources if item]
                reason = "manifest component recorded, not rendered (opaque under mocks)"
            skipped.append(Skipped(token, record.name, reason))
            continue
        if token.rpartition(":")[2].endswith(("Patch", "List")):
            skipped.append(Skipped(token, record.name, "patch/list resource: changes objects it does not create"))
            continue
        gvk = api_version_kind(token, record.inputs)
        if gvk is None:
            skipped.append(Skipped(token, record.name, "no apiVersion/kind"))
            continue
        api_version, kind = gvk
        body = wire_value(dict(record.inputs))
        body["apiVersion"], body["kind"] = api_version, kind
        metadata = body.setdefault("metadata", {})
        notes = []
        if not metadata.get("name"):
            metadata["name"] = autoname(record.name, record.urn)
            notes.append(f"auto-named {metadata['name']}")
        provider = (record.provider or "").rsplit("::", 1)[0]
        objects[record.urn] = KubeObject(
            key=record.urn,
            api_version=api_version,
            kind=kind,
            body=body,
            source=f"{token} {record.name}",
            default_namespace=provider_namespace.get(provider, "default"),
            notes=notes,
        )

    # dependencies: declared ones (a component stands for all its descendants), the parent, and
    # anything reached through resources that are not applied (a Helm release, a component).
    def reach(urns: Iterable[str], seen: set[str]) -> set[str]:
        found: set[str] = set()
        for urn in urns:
            if urn in seen or urn not in by_urn:
                continue
            seen.add(urn)
            if urn in objects:
                found.add(urn)
                continue
            record = by_urn[urn]
            found |= reach(list(record.dependencies) + sorted(descendants.get(urn, ())), seen)
        return found

    for urn, obj in objects.items():
        record = by_urn[urn]
        direct = list(record.dependencies) + [u for deps in record.property_dependencies.values() for u in deps]
        expanded = [d for dep in direct for d in ([dep] + sorted(descendants.get(dep, ())))]
        if record.parent in objects:
            expanded.append(record.parent)
        obj.depends_on = sorted(reach(expanded, {urn}) - {urn})
    return Collected(list(objects.values()), skipped, helm, manifests)


def from_manifests(
    documents: Iterable[dict[str, Any]], *, source: str, namespace: str | None = None, depends_on: Sequence[str] = ()
) -> list[KubeObject]:
    """Plain manifests (an operator's example CR, a secrets file) as objects in ``namespace``."""
    objects = []
    for index, document in enumerate(doc for doc in documents if doc):
        body = wire_value(document)
        if namespace:
            body.setdefault("metadata", {}).setdefault("namespace", namespace)
        objects.append(
            KubeObject(
                key=f"{source}#{index}",
                api_version=body["apiVersion"],
                kind=body["kind"],
                body=body,
                source=source,
                depends_on=list(depends_on),
                default_namespace=namespace or "default",
            )
        )
    return objects


def load_manifests(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


# --------------------------------------------------------------------------------------------------
# order


def _rank(obj: KubeObject) -> int:
    if obj.kind == "Namespace" and obj.api_version == "v1":
        return 0
    if obj.kind == "CustomResourceDefinition":
        return 1
    return 2


def apply_order(objects: Sequence[KubeObject]) -> list[KubeObject]:
    """Topological order on ``depends_on``; a Namespace before what goes into it, CRDs before CRs.

    Ties keep Namespaces first, then CRDs, then the order the program registered them in.
    Raises ``ValueError`` on a cycle.
    """
    keys = {obj.key: obj for obj in objects}
    namespaces = {obj.name: obj.key for obj in objects if _rank(obj) == 0}
    crds = {
        (obj.body.get("spec", {}).get("group"), obj.body.get("spec", {}).get("names", {}).get("kind")): obj.key
        for obj in objects
        if _rank(obj) == 1
    }
    edges: dict[str, set[str]] = {obj.key: {dep for dep in obj.depends_on if dep in keys} for obj in objects}
    for obj in objects:
        target_ns = obj.namespace or (obj.default_namespace if _rank(obj) == 2 else None)
        if target_ns in namespaces and namespaces[target_ns] != obj.key:
            edges[obj.key].add(namespaces[target_ns])
        if (obj.group, obj.kind) in crds:
            edges[obj.key].add(crds[(obj.group, obj.kind)])
    position = {obj.key: (_rank(obj), index) for index, obj in enumerate(objects)}
    ordered: list[KubeObject] = []
    done: set[str] = set()
    while len(ordered) < len(objects):
        ready = [key for key in keys if key not in done and edges[key] <= done]
        if not ready:
            cycle = sorted(key for key in keys if key not in done)
            raise ValueError(f"dependency cycle among {cycle}")
        key = min(ready, key=position.__getitem__)
        ordered.append(keys[key])
        done.add(key)
    return ordered


# --------------------------------------------------------------------------------------------------
# which Percona CRDs a stack needs

FAMILIES = {
    "ps": {
        "group": "ps.percona.com",
        "repo": "percona-server-mysql-operator",
        "chart": "ps-operator",
        "default": "ps-operator-v1.2.0-crd.yaml",
    },
    "pxc": {
        "group": "pxc.percona.com",
        "repo": "percona-xtradb-cluster-operator",
        "chart": "pxc-operator",
        "default": "helm-pxc-operator-1.20.0-crds-crd.yaml",
    },
}


def crd_files(collected: Collected, reference: Path) -> list[tuple[Path, str]]:
    """The Percona CRD files that match what a stack installs, each with the reason it was chosen.

    Per operator family (PS, PXC) that the stack uses (a custom resource of its group, or its Helm chart):
    CRDs the stack creates itself need nothing; otherwise a manifest URL naming the operator version,
    then the Helm chart version, then the custom resource's ``crVersion``, then the newest CRD here.
    Raises ``FileNotFoundError`` when the matching file is not in ``reference``.
    """
    chosen: list[tuple[Path, str]] = []
    for family, spec in FAMILIES.items():
        crs = [obj for obj in collected.objects if obj.group == spec["group"]]
        charts = [rel for rel in collected.helm_releases if rel["chart"] == spec["chart"]]
        if not crs and not charts:
            continue
        if any(
            obj.kind == "CustomResourceDefinition" and obj.body.get("spec", {}).get("group") == spec["group"]
            for obj in collected.objects
        ):
            continue
        sources: list[tuple[str, list[str]]] = []  # (why, file names to try), most specific first
        for url in collected.manifest_sources:  # the operator repository's deploy/crd.yaml, or the chart's crds/
            operator = re.search(rf"{spec['repo']}/(?:[^/]+/)*?v?(\d+\.\d+\.\d+)/", url)
            chart = re.search(rf"percona-helm-charts/(?:[^/]+/)*?{spec['chart']}-(\d+\.\d+\.\d+)/", url)
            if operator:
                sources.append((f"manifest {url}", [f"{family}-operator-v{operator[1]}-crd.yaml"]))
            elif chart:
                sources.append(
                    (
                        f"manifest {url}",
                        [f"helm-{spec['chart']}-{chart[1]}-crds-crd.yaml", f"{family}-operator-v{chart[1]}-crd.yaml"],
                    )
                )
        for release in charts:
            if release["skipCrds"]:
                continue
            version = release["version"]
            if version:  # Helm ships the operator's deploy/crd.yaml bytes in crds/
                sources.append(
                    (
                        f"Helm chart {spec['chart']} {version}",
                        [f"helm-{spec['chart']}-{version}-crds-crd.yaml", f"{family}-operator-v{version}-crd.yaml"],
                    )
                )
        for obj in crs:
            version = obj.body.get("spec", {}).get("crVersion")
            if version:
                sources.append(
                    (
                        f"{obj.kind} {obj.name} crVersion {version}",
                        [f"{family}-operator-v{version}-crd.yaml", f"helm-{spec['chart']}-{version}-crds-crd.yaml"],
                    )
                )
        sources.append(("no version named by the stack: the newest CRD here", [spec["default"]]))
        reason, names = sources[0]
        for name in names:
            if (reference / name).exists():
                chosen.append((reference / name, reason))
                break
        else:
            available = sorted(path.name for path in reference.glob("*crd*.yaml"))
            raise FileNotFoundError(f"{family}: {reason} needs {' or '.join(names)}, not in {reference} (have {available})")
    return chosen


# --------------------------------------------------------------------------------------------------
# sent vs stored

_QUANTITY = re.compile(r"^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$")
_SUFFIX = {
    "": Decimal(1),
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
    "Ki": Decimal(2**10),
    "Mi": Decimal(2**20),
    "Gi": Decimal(2**30),
    "Ti": Decimal(2**40),
    "Pi": Decimal(2**50),
    "Ei": Decimal(2**60),
}


def quantity(value: Any) -> Decimal | None:
    """A Kubernetes quantity ("1Gi", "500m", 0.5, "1e3") as a number; None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return Decimal(str(value))
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if not match:
        return None
    try:
        number = Decimal(match[1])
    except InvalidOperation:
        return None
    suffix = match[2] or ""
    if suffix[:1] in ("e", "E") and len(suffix) > 1:
        return number * (Decimal(10) ** int(suffix[1:]))
    return number * _SUFFIX[suffix]


def _equal(sent: Any, live: Any) -> bool:
    if sent == live and type(sent) is type(live):
        return True
    if (
        isinstance(sent, (int, float))
        and isinstance(live, (int, float))
        and not isinstance(sent, bool)
        and not isinstance(live, bool)
    ):
        return sent == live
    if isinstance(sent, str) or isinstance(live, str):
        left, right = quantity(sent), quantity(live)
        return left is not None and left == right
    return False


def expected_readback(body: Mapping[str, Any]) -> dict[str, Any]:
    """What the API server should store for ``body``: a Secret's ``stringData`` lands in ``data``."""
    expected = dict(body)
    if body.get("apiVersion") == "v1" and body.get("kind") == "Secret" and body.get("stringData"):
        data = dict(expected.get("data") or {})
        for key, value in expected.pop("stringData").items():
            data[key] = base64.b64encode(str(value).encode()).decode()
        expected["data"] = data
    return expected


def differences(sent: Any, live: Any, path: str = "") -> list[str]:
    """Every field of ``sent`` that is missing from or different in ``live`` (extra live fields are fine)."""
    where = path or "."
    if isinstance(sent, dict):
        if not isinstance(live, dict):
            return [f"{where}: sent an object, stored {live!r}"]
        found = []
        for key, value in sent.items():
            child = f"{path}.{key}"
            if key not in live:
                found.append(f"{child}: sent {_short(value)}, not stored (pruned or dropped)")
            else:
                found += differences(value, live[key], child)
        return found
    if isinstance(sent, list):
        if not isinstance(live, list):
            return [f"{where}: sent a list, stored {live!r}"]
        if len(sent) != len(live):
            return [f"{where}: sent {len(sent)} items, stored {len(live)}"]
        return [
            diff for index, (a, b) in enumerate(zip(sent, live, strict=True)) for diff in differences(a, b, f"{path}[{index}]")
        ]
    if not _equal(sent, live):
        return [f"{where}: sent {sent!r}, stored {live!r}"]
    return []


def defaulted(sent: Any, live: Any, path: str = "") -> list[str]:
    """Paths the API server filled in (present in ``live``, absent from ``sent``), below ``spec``/``data``."""
    if isinstance(sent, dict) and isinstance(live, dict):
        found = []
        for key, value in live.items():
            child = f"{path}.{key}"
            if key not in sent:
                found.append(child)
            else:
                found += defaulted(sent[key], value, child)
        return found
    if isinstance(sent, list) and isinstance(live, list) and len(sent) == len(live):
        return [item for index, (a, b) in enumerate(zip(sent, live, strict=True)) for item in defaulted(a, b, f"{path}[{index}]")]
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
