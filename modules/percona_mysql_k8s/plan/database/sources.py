"""Where the charts and the CRDs come from: the public Percona sources, or a mirror for air-gapped installs.

Pure (no Pulumi), read at validation time so a bad source is an InputError naming its config key before
anything is registered. A chart source (``operatorChart``, ``pmmChart``) is one of:

* empty: the pinned chart from the public Percona Helm repository (:data:`versions.HELM_REPOSITORY`);
* ``https://`` or ``http://`` URL: an internal Helm repository mirroring it (Release ``repository_opts.repo``),
  or, when it ends in ``.tgz``, the chart archive itself;
* ``oci://host/path/<chart>``: an OCI registry holding the chart (Helm 3.8+; Release ``chart`` takes it as is);
* an absolute path to the chart's ``.tgz`` archive or unpacked directory (Release ``chart`` takes a path).

pulumi-kubernetes' ``helm.v3.Release`` accepts all four in ``chart`` / ``repository_opts.repo``
(https://www.pulumi.com/registry/packages/kubernetes/api-docs/helm/v3/release/: "Local Chart Directory",
"Remote Chart", and ``chart`` as "Chart name to be installed. A path may be used."; OCI references are
resolved by the embedded Helm library). A local chart is read here (its ``Chart.yaml``) and must be the
pinned chart and version: the custom resource's ``crVersion`` and images are pinned with it (versions.py).

The CRD source (``operatorCrds``) is empty (the pinned public URL), an ``http(s)://`` URL of a mirror, or an
absolute path to the operator's ``crd.yaml``, which must hold the operator's CustomResourceDefinitions.
Relative paths are refused: Pulumi runs the program from ``stacks/``, not from where ``pulumi`` was typed.
"""

from __future__ import annotations

import os
import re
import tarfile
from dataclasses import dataclass
from typing import Any

import yaml

from percona_mysql_k8s.core.errors import InputError

from . import versions

_OCI = re.compile(r"^oci://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._-]+)+$")
_HTTP = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]+)?(/[^\s]*)?$")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
# Images the charts and custom resources name live on Docker Hub; a mirror prefix replaces its host.
_REGISTRY = re.compile(r"^[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._-]+)*$")


@dataclass(frozen=True)
class ChartSource:
    """What a ``helm.v3.Release`` gets: ``chart``, ``version`` (None: the archive's own) and ``repository``."""

    chart: str
    version: str | None
    repository: str | None
    origin: str  # "public", "mirror", "oci", "archive-url", "local"


def _absolute(key: str, text: str) -> str:
    path = os.path.expanduser(text)
    if not os.path.isabs(path):
        raise InputError(
            key,
            f"{text!r} is a relative path: give an absolute one (Pulumi runs the program from stacks/), "
            "an oci:// reference or an https:// URL",
        )
    if not os.path.exists(path):
        raise InputError(key, f"{path} does not exist")
    return path


def _chart_yaml(key: str, path: str) -> dict:
    """The ``Chart.yaml`` of a chart directory or ``.tgz`` archive (Helm packages it as ``<name>/Chart.yaml``)."""
    try:
        if os.path.isdir(path):
            with open(os.path.join(path, "Chart.yaml"), encoding="utf-8") as handle:
                text = handle.read()
        else:
            with tarfile.open(path, "r:*") as archive:
                member = next(
                    (m for m in archive.getmembers() if m.name.count("/") == 1 and m.name.endswith("/Chart.yaml")), None
                )
                if member is None:
                    raise InputError(key, f"{path} holds no <chart>/Chart.yaml: not a chart archive made by `helm package`")
                text = archive.extractfile(member).read().decode("utf-8")
    except FileNotFoundError:
        raise InputError(key, f"{path} has no Chart.yaml: not a chart directory") from None
    except (OSError, tarfile.TarError, UnicodeDecodeError) as error:
        raise InputError(key, f"{path} is neither a chart directory nor a chart archive (.tgz): {error}") from None
    try:
        chart = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InputError(key, f"the Chart.yaml of {path} is not YAML: {error}") from None
    if not isinstance(chart, dict):
        raise InputError(key, f"the Chart.yaml of {path} is not a mapping")
    return chart


def chart_source(key: str, text: str, chart: str, version: str) -> ChartSource:
    """The source of the pinned ``chart`` ``version`` named by config key ``key`` (see the module doc)."""
    text = text.strip()
    if not text:
        return ChartSource(chart, version, versions.HELM_REPOSITORY, "public")
    if text.startswith("oci://"):
        if not _OCI.fullmatch(text):
            raise InputError(key, f"{text!r} is not an OCI chart reference (oci://registry[:port]/path/{chart})")
        if text.rsplit("/", 1)[1] != chart:
            raise InputError(key, f"{text!r} must end with the chart's name, /{chart} (the version, {version}, is pinned)")
        return ChartSource(text, version, None, "oci")
    scheme = _SCHEME.match(text)
    if scheme:
        if scheme.group(1).lower() not in ("http", "https") or not _HTTP.fullmatch(text):
            raise InputError(
                key,
                f"{text!r}: a chart comes from a path, an oci:// reference or an http(s):// repository "
                f"URL, not {scheme.group(1)}://",
            )
        if text.lower().split("?", 1)[0].endswith(".tgz"):
            return ChartSource(text, None, None, "archive-url")
        return ChartSource(chart, version, text, "mirror")
    path = _absolute(key, text)
    # The policy pack recognises a chart by the last segment of ``chart`` (its version suffix dropped), as
    # `helm pull --untar` (a directory named after the chart) and `helm package` (<chart>-<version>.tgz) name it.
    base = os.path.basename(path.rstrip("/"))
    expected = chart if os.path.isdir(path) else f"{chart}-{version}.tgz"
    if base != expected:
        raise InputError(
            key, f"{path}: name it {expected} (as helm pull / helm package do), so the policy pack recognises the {chart} chart"
        )
    found = _chart_yaml(key, path)
    if found.get("name") != chart or str(found.get("version")) != version:
        raise InputError(
            key,
            f"{path} is the chart {found.get('name')!r} {found.get('version')!r}; this stack pins {chart} "
            f"{version} (database/versions.py), which its custom resource and images are pinned with",
        )
    return ChartSource(path, None, None, "local")


def crd_source(key: str, text: str, release: versions.OperatorRelease) -> str:
    """The CRD file for ``yaml.v2.ConfigFile``: the pinned URL, a mirror URL or a checked local path."""
    text = text.strip()
    if not text:
        return release.crd_url
    scheme = _SCHEME.match(text)
    if scheme:
        if scheme.group(1).lower() not in ("http", "https") or not _HTTP.fullmatch(text):
            raise InputError(key, f"{text!r}: the CRDs come from an absolute path or an http(s):// URL, not {scheme.group(1)}://")
        return text
    path = _absolute(key, text)
    if os.path.isdir(path):
        raise InputError(key, f"{path} is a directory: give the operator's crd.yaml")
    group = release.api_version.split("/", 1)[0]
    try:
        with open(path, encoding="utf-8") as handle:
            documents = [doc for doc in yaml.safe_load_all(handle) if isinstance(doc, dict)]
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise InputError(key, f"{path} is not a YAML file: {error}") from None
    kinds = {
        doc.get("spec", {}).get("names", {}).get("kind")
        for doc in documents
        if doc.get("kind") == "CustomResourceDefinition" and doc.get("spec", {}).get("group") == group
    }
    if release.kind not in kinds:
        raise InputError(
            key,
            f"{path} does not define {release.kind} ({group}): give the crd.yaml of the "
            f"{release.chart} {release.chart_version} release",
        )
    return path


def image_registry(key: str, text: str) -> str:
    """A registry mirror prefix (``registry.local:5000`` or ``registry.local/dockerhub``), or ``""``."""
    text = text.strip().rstrip("/")
    if text and (_SCHEME.match(text) or not _REGISTRY.fullmatch(text)):
        raise InputError(
            key, f"{text!r} is not a registry host with an optional path (e.g. registry.local:5000/dockerhub; no scheme)"
        )
    return text


def mirrored(image: str, registry: str) -> str:
    """``percona/pmm-server:3.8.1`` from Docker Hub as ``<registry>/percona/pmm-server:3.8.1``; unchanged
    without a mirror, and for an image that names its own registry (a first segment with ``.`` or ``:``,
    or ``localhost``, as the Docker reference grammar tells a registry host from a Docker Hub namespace)."""
    first = image.split("/", 1)[0]
    names_registry = "/" in image and ("." in first or ":" in first or first == "localhost")
    return image if not registry or names_registry else f"{registry}/{image}"


def mirror_images(value: Any, registry: str) -> Any:
    """A manifest or chart values with every ``image`` under ``registry``: a string ``image`` (custom
    resources, pod specs, the pxc-operator chart) or an ``image.repository`` (the ps-operator and pmm
    charts). Everything else, Pulumi outputs included, passes unchanged."""
    if not registry:
        return value
    if isinstance(value, list):
        return [mirror_images(item, registry) for item in value]
    if not isinstance(value, dict):
        return value
    result = {}
    for key, item in value.items():
        if key == "image" and isinstance(item, str):
            result[key] = mirrored(item, registry)
        elif key == "image" and isinstance(item, dict) and isinstance(item.get("repository"), str):
            result[key] = {**item, "repository": mirrored(item["repository"], registry)}
        else:
            result[key] = mirror_images(item, registry)
    return result
