"""The CRD schemas the package carries are the pinned operators' CRDs, fresh, and within what core.crd reads.

Stale: regenerate with ``python -m percona_mysql_k8s.core.crd.generate <reference dir>`` (core/crd/generate.py).
"""

from __future__ import annotations

import hashlib

import pytest
from percona_mysql_k8s.core.crd import catalog, sources
from percona_mysql_k8s.core.crd.cel import compiled
from percona_mysql_k8s.core.crd.generate import KINDS, SCHEMA_DIR, SOURCES, package_data, render
from percona_mysql_k8s.plan.database import versions
from reference_material.manifest import load
from reference_material.resolve import reference_path


@pytest.mark.parametrize(("name", "item", "url"), SOURCES, ids=[name for name, _, _ in SOURCES])
def test_the_carried_schemas_are_generated_from_the_pinned_crds(name, item, url):
    crd = reference_path(item).read_bytes()
    assert (SCHEMA_DIR / name).read_text() == render(package_data(crd, url)), f"{name} is stale: regenerate it"
    assert hashlib.sha256(crd).hexdigest() == load().item(item).sha256


def test_the_sources_are_the_crds_the_stacks_install():
    assert {url for _, _, url in SOURCES} == {versions.PXC.crd_url, versions.PS.crd_url}
    assert {item for _, item, _ in SOURCES} == {versions.PXC.reference_crd, versions.PS.reference_crd}
    assert all(source["license"].startswith("Apache-2.0") for source in sources())


def test_every_kind_the_pack_reads_is_carried_with_its_served_versions():
    assert {kind for _, kind in catalog.kinds()} == set(KINDS)
    assert catalog.versions("pxc.percona.com", "PerconaXtraDBCluster")["v1"].served
    assert not catalog.versions("pxc.percona.com", "PerconaXtraDBCluster")["v1-2-0"].served


def _nodes(schema, path=""):
    yield path, schema
    for name, sub in (schema.get("properties") or {}).items():
        yield from _nodes(sub, f"{path}.{name}")
    for name in ("items", "additionalProperties"):
        if isinstance(schema.get(name), dict):
            yield from _nodes(schema[name], f"{path}[]")
    for sub in schema.get("anyOf") or []:
        yield from _nodes(sub, path)


def _versions():
    return [version for group, kind in catalog.kinds() for version in catalog.versions(group, kind).values()]


def test_the_schemas_use_only_what_the_reader_implements():
    """Formats: the API server checks int32 on integers and date-time on strings here (openapi.py); any other
    supported format would need its checker. Keywords: nothing beyond what jsonschema and openapi.py read."""
    formats, keywords = set(), set()
    for version in _versions():
        for _, node in _nodes(version.schema):
            if "format" in node:
                formats.add((node.get("type", ""), node["format"]))
            keywords |= set(node)
    assert formats <= {("integer", "int32"), ("integer", "int64"), ("string", "date-time")}, formats
    assert keywords <= {
        "type", "properties", "items", "additionalProperties", "required", "enum", "default", "format", "pattern",
        "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "anyOf", "nullable",
        "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields", "x-kubernetes-list-type",
        "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-validations",
    }, keywords  # fmt: skip


def test_every_cel_rule_compiles_and_reads_no_value_it_would_need_typed_otherwise():
    """Each rule compiles in the core's environment (its library functions are bound), and no rule reads a byte,
    duration or date-time field, which the API server would hand to CEL typed (cel.py passes strings; a field a rule
    does not select is never converted, by the API server either: its values are converted when selected)."""
    rules = 0
    for version in _versions():
        for path, node in _nodes(version.schema):
            for rule in node.get("x-kubernetes-validations") or []:
                assert compiled(rule["rule"]) is not None, (path, rule)
                assert not ({"oldSelf"} & set(rule["rule"].split(".")) or "messageExpression" in rule), (path, rule)
                typed = [below for below, sub in _nodes(node, path) if sub.get("format") in ("byte", "duration", "date-time")]
                assert not [below for below in typed if below.rsplit(".", 1)[-1].split("[")[0] in rule["rule"]], (path, rule)
                rules += 1
    assert rules >= 30, rules
