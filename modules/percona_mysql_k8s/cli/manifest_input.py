"""The check's inputs read into objects: manifest files, directories and stdin as ``kubectl apply -f`` reads them,
and chart values files merged as ``helm template -f`` merges them (the objects: percona_mysql_k8s.cli.manifests)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from percona_mysql_k8s.cli.locations import Positions
from percona_mysql_k8s.cli.manifests import (
    STDIN,
    ManifestError,
    ManifestObject,
    read_manifests,
    read_values_document,
    source_lines,
)
from percona_mysql_k8s.policies._readers.helm import HELM_TYPES
from percona_mysql_k8s.policies._readers.values import deep_merge

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


def chart_release(chart: str, values_files: Iterable[str], release: str | None = None, stdin=None) -> ManifestObject:
    """A Helm release of ``chart`` with the given values files merged in order (later files win, maps merge
    key by key, as ``helm template -f a.yaml -f b.yaml`` merges them): the resource the pack judges chart values
    as (``kubernetes:helm.sh/v3:Release``, values over the chart defaults)."""
    values: dict = {}
    layers = []
    for given in values_files:
        try:
            text = (stdin or sys.stdin).read() if given == STDIN else Path(given).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ManifestError(f"{given}: cannot be read: {getattr(error, 'strerror', None) or error}") from None
        document = read_values_document(text, given)
        values = deep_merge(values, document.value if document is not None else {})
        marks, key_marks = (document.marks, document.key_marks) if document is not None else ({(): (1, 1)}, {})
        layers.append(Positions(given, document.value if document else {}, marks, key_marks, source_lines(text)))
    name = release or chart
    files = ", ".join("stdin" if given == STDIN else given for given in values_files)
    return ManifestObject(
        HELM_TYPES[0],
        name,
        {"chart": chart, "values": values},
        files,
        1,
        1,
        described=f"{chart} values: {files}",
        value_files=tuple(layers),
    )


def read_manifest_paths(paths: Iterable[str], stdin=None, *, allow_empty: bool = False) -> list[ManifestObject]:
    """Every object of the given files (``-`` is stdin; a directory is its *.yaml, *.yml and *.json files,
    as ``kubectl apply -f DIR`` reads it). Raises ManifestError naming the file, and naming a path that holds no
    object unless ``allow_empty``: an empty stdin is what a failed ``kustomize build | ...`` sends."""
    objects = []
    for given in paths:
        found = []
        if given == STDIN:
            found = read_manifests((stdin or sys.stdin).read(), STDIN)
        else:
            path = Path(given)
            files = (
                sorted(p for p in path.iterdir() if p.suffix in MANIFEST_SUFFIXES and p.is_file()) if path.is_dir() else [path]
            )
            for file in files:
                try:
                    text = file.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as error:
                    raise ManifestError(f"{file}: cannot be read: {getattr(error, 'strerror', None) or error}") from None
                found.extend(read_manifests(text, str(file)))
        if not found and not allow_empty:
            raise ManifestError(_nothing_in(given))
        objects.extend(found)
    return objects


def _nothing_in(given: str) -> str:
    if given == STDIN:
        what = "stdin is empty (did the command before the pipe fail?)"
    elif Path(given).is_dir():
        what = f"{given}: no object in its {', '.join('*' + suffix for suffix in MANIFEST_SUFFIXES)} files"
    else:
        what = f"{given}: no object in the file"
    return f"--manifests: {what}; nothing was judged (--allow-empty accepts an input with no object)"
