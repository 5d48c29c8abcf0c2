"""C1 beyond the CRD's schema: what the API server checks in metadata, server-side apply's typed conversion, nulls
as each client sends them, numbers at the edges and the request and etcd size limits (core.crd.metadata,
core.crd.limits). Every expectation here is also a class of the API-server tier's differential
(tests/apiserver/test_apiserver_manifests.py), which holds them against kube-apiserver 1.36."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest
from percona_mysql_k8s.core.crd import KUBECTL, PULUMI, admit
from percona_mysql_k8s.core.crd.limits import ETCD_MAX_REQUEST_BYTES, MAX_REQUEST_BODY_BYTES, go_json

BASES = Path(__file__).resolve().parents[1] / "policies" / "_bases"
PS = json.loads((BASES / "ps-gr.json").read_text())["props"]


def ps(metadata: dict | None = None, **mysql) -> dict:
    body = copy.deepcopy(PS)
    body["metadata"].update(metadata or {})
    body["spec"]["mysql"].update(mysql)
    return body


def reasons(body: dict, client: str = PULUMI) -> list[str]:
    return [str(error) for error in admit("ps.percona.com/v1", "PerconaServerMySQL", body, client=client).errors]


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"labels": {"app": "-db"}}, 'metadata.labels: Invalid value: "-db": a valid label must be an empty string'),
        ({"labels": {"app": "x" * 64}}, "must be no more than 63 bytes"),
        ({"labels": {"a/b/c": "x"}}, 'metadata.labels: Invalid value: "a/b/c": a valid label key'),
        ({"labels": {"Example.COM/x": "y"}}, "prefix part a lowercase RFC 1123 subdomain"),
        ({"annotations": {"bad key": "x"}}, 'metadata.annotations: Invalid value: "bad key": name part must consist'),
        ({"annotations": {"a": "x" * (256 * 1024)}}, "metadata.annotations: Too long: may not be more than 262144 bytes"),
        ({"labels": {"app": 1}}, ".metadata.labels.app: expected string, got &value.valueUnstructured{Value:1}"),
        ({"annotations": {"a": True}}, ".metadata.annotations.a: expected string, got &value.valueUnstructured{Value:true}"),
        ({"owner": "me"}, ".metadata.owner: field not declared in schema"),
        ({"generateName": "Db-"}, 'metadata.generateName: Invalid value: "Db-": a lowercase RFC 1123 subdomain'),
        ({"namespace": "a.b"}, 'metadata.namespace: Invalid value: "a.b": must not contain dots'),
        ({"finalizers": ["a b"]}, 'metadata.finalizers: Invalid value: "a b": name part must consist'),
        ({"finalizers": 1}, ".metadata.finalizers: expected list, got &value.valueUnstructured{Value:1}"),
        ({"finalizers": ["orphan", "foregroundDeletion"]}, "finalizer orphan and foregroundDeletion cannot be both set"),
        ({"managedFields": [{"manager": "x"}]}, "metadata.managedFields must be nil"),
    ],
)
def test_metadata_is_refused_as_the_api_server_refuses_it(metadata, expected):
    found = reasons(ps(metadata))
    assert any(expected in reason for reason in found), found


@pytest.mark.parametrize(
    "metadata",
    [
        {"labels": {"app.kubernetes.io/name": "db", "empty": "", "x": None}},
        {"annotations": {"A.example.com/Upper": "any text at all\n"}},
        {"annotations": {"a": "x" * (256 * 1024 - 1)}},  # keys and values: 262144 bytes, the limit
        {"annotations": None, "labels": None, "finalizers": ["percona.com/delete-mysql-pods-in-order"]},
    ],
)
def test_metadata_the_api_server_accepts_passes(metadata):
    assert reasons(ps(metadata)) == []


def test_a_null_is_dropped_when_pulumi_sends_it_and_judged_when_kubectl_does():
    """pulumi-kubernetes sends no null; kubectl's server-side apply sends it, and the API server then defaults it
    where the schema has a default (clusterType) and refuses it where the type allows no null (pmm)."""
    defaulted = ps(clusterType=None)
    assert reasons(defaulted, PULUMI) == [] and reasons(defaulted, KUBECTL) == []
    body = ps()
    body["spec"]["pmm"] = None
    assert reasons(body, PULUMI) == []
    assert 'spec.pmm: Invalid value: null: spec.pmm in body must be of type object: "null"' in reasons(body, KUBECTL)[0]


@pytest.mark.parametrize("number", [math.inf, -math.inf, math.nan])
def test_a_number_json_lacks_is_refused(number):
    assert reasons(ps(size=number))[0].startswith("spec.mysql.size: json: unsupported value: ")


@pytest.mark.parametrize(
    ("size", "integer"),
    [
        (2**63 - 1, True),  # kubectl sends the int64; the int32 format refuses it, not the type
        (2**63, False),  # beyond int64: a float64 on the API server
        (-(2**63) - 1, False),
        (9.223372036854776e18, False),  # the double 2^63: Go writes 9223372036854776000, beyond int64
        (3.0, True),
        (2.5, False),
    ],
)
def test_numbers_at_the_int64_edges_are_read_as_the_api_server_reads_them(size, integer):
    found = reasons(ps(size=size))
    type_error = any("in body must be of type integer" in reason for reason in found)
    assert type_error != integer, found


def test_the_request_and_etcd_limits():
    """3 MiB of JSON is the most a request carries; etcd stores at most 1.5 MiB with the metadata the API server
    adds (both measured on the API-server tier); the annotation limit is far below either."""
    assert reasons(ps(configuration="x" * 1_400_000)) == []
    etcd = reasons(ps(configuration="x" * 1_600_000))
    assert len(etcd) == 1 and etcd[0].startswith("etcdserver: request is too large")
    request = reasons(ps(configuration="x" * (MAX_REQUEST_BODY_BYTES + 1)))
    assert request[0].startswith("Request entity too large: limit is 3145728")
    assert ETCD_MAX_REQUEST_BYTES < MAX_REQUEST_BODY_BYTES


def test_go_json_writes_as_encoding_json_does():
    assert go_json({"b": [1, 1.5, 1e21, 1e-7, 100000.0], "a": "<&>\u2028é"}) == (
        '{"a":"\\u003c\\u0026\\u003e\\u2028é","b":[1,1.5,1e+21,1e-7,100000]}'
    )


def test_a_label_key_is_judged_whatever_its_value_and_finalizers_are_a_set():
    """Found by the API-server tier's differential: a null label value is Go's empty string, its key still a key;
    ObjectMeta's finalizers are a set to server-side apply."""
    assert any("prefix part" in reason for reason in reasons(ps({"labels": {"Example.com/x": None}}), KUBECTL))
    repeated = reasons(ps({"finalizers": ["orphan", "orphan"]}))
    assert '.metadata.finalizers: duplicate entries for key [="orphan"]' in repeated[0]


def test_a_metadata_value_unknown_at_preview_is_not_typed():
    """Found by the unknown-leaves property: a name not known yet is no string to the typed conversion, and the
    program will send one; only the known values are judged."""

    class NotYetKnown:
        pass

    def is_unknown(value):
        return isinstance(value, NotYetKnown)

    body = ps({"name": NotYetKnown(), "labels": {"app": NotYetKnown(), "tier": 1}})
    found = [str(error) for error in admit("ps.percona.com/v1", "PerconaServerMySQL", body, is_unknown).errors]
    assert found == [".metadata.labels.tier: .metadata.labels.tier: expected string, got &value.valueUnstructured{Value:1}"], (
        found
    )
