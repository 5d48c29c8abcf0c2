"""Writes the package's CRD schemas (``schemas/*.json``) from the pinned operators' CRD files.

The pack validates custom resources where ../shared and the network are out of reach, so it carries what it
needs of each pinned CRD: per kind its group, scope, the ``scale`` subresource and, per version, ``served``
and the ``openAPIV3Schema`` without its prose (``description``, ``title``, ``example``: nothing validates
them). The CRDs are Percona's, under the Apache License 2.0 like this project; each file names its source
and the sha256 of the bytes it came from. tests/core/test_crd_schemas.py regenerates them from the reference
material and fails when they differ (refresh after a version bump in plan/database/versions.py):

    scripts/fetch-reference.sh
    python -m percona_mysql_k8s.core.crd.generate ~/.cache/percona-mysql-k8s/reference

Only the kinds the pack reads or validates are kept (:data:`KINDS`): PerconaServerMySQLClusterSet is left out;
no policy reads it and its rules call ``isIP`` and ``format.dns1123Subdomain()``, library functions the CEL
bindings (core.crd.cel) do not carry.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import yaml

KINDS = (
    "PerconaXtraDBCluster",
    "PerconaXtraDBClusterBackup",
    "PerconaXtraDBClusterRestore",
    "PerconaServerMySQL",
    "PerconaServerMySQLBackup",
    "PerconaServerMySQLRestore",
)

# (package file, reference item in tests/reference_material/manifest.toml, the URL plan/database/versions.py installs)
SOURCES = (
    (
        "pxc-operator-1.20.0.json",
        "helm-pxc-operator-1.20.0-crds-crd.yaml",
        "https://raw.githubusercontent.com/percona/percona-helm-charts/pxc-operator-1.20.0/charts/pxc-operator/crds/crd.yaml",
    ),
    (
        "ps-operator-1.2.0.json",
        "ps-operator-v1.2.0-crd.yaml",
        "https://raw.githubusercontent.com/percona/percona-server-mysql-operator/v1.2.0/deploy/crd.yaml",
    ),
)
PROSE = ("description", "title", "example")
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


def without_prose(node: Any, *, in_properties: bool = False) -> Any:
    """The schema with every schema node's prose removed (a property *named* ``description`` stays)."""
    if isinstance(node, list):
        return [without_prose(item) for item in node]
    if not isinstance(node, dict):
        return node
    if in_properties:
        return {name: without_prose(sub) for name, sub in node.items()}
    kept = {}
    for name, value in node.items():
        if name in PROSE:
            continue
        if name in ("properties", "patternProperties", "definitions"):
            kept[name] = without_prose(value, in_properties=True)
        elif name in ("default", "enum"):
            kept[name] = value
        else:
            kept[name] = without_prose(value)
    return kept


def package_data(crd_text: bytes, source: str) -> dict:
    """What the package keeps of one CRD file."""
    kinds = {}
    for document in yaml.safe_load_all(crd_text):
        if not document or document.get("kind") != "CustomResourceDefinition":
            continue
        spec = document["spec"]
        kind = spec["names"]["kind"]
        if kind not in KINDS:
            continue
        versions = {}
        for version in spec["versions"]:
            entry: dict[str, Any] = {"served": bool(version.get("served")), "storage": bool(version.get("storage"))}
            entry["schema"] = without_prose((version.get("schema") or {}).get("openAPIV3Schema") or {})
            scale = (version.get("subresources") or {}).get("scale")
            if scale:
                entry["scale"] = {name: scale[name] for name in ("specReplicasPath", "statusReplicasPath") if name in scale}
            versions[version["name"]] = entry
        kinds[kind] = {"group": spec["group"], "scope": spec["scope"], "versions": versions}
    return {
        "source": source,
        "sha256": hashlib.sha256(crd_text).hexdigest(),
        "license": "Apache-2.0 (the operator's CRD, by Percona; prose removed)",
        "generated_by": "python -m percona_mysql_k8s.core.crd.generate",
        "kinds": kinds,
    }


def render(data: dict) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m percona_mysql_k8s.core.crd.generate", description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", type=Path, help="the folder of verified reference copies (scripts/fetch-reference.sh)")
    reference = parser.parse_args(argv).reference
    for name, item, source in SOURCES:
        (SCHEMA_DIR / name).write_text(render(package_data((reference / item).read_bytes(), source)))
        print(f"wrote {SCHEMA_DIR / name} from {reference / item}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
