"""core.crd.admit: what the API server does to a custom resource before and while it validates it.

Expectations are derived from the API server's code (cited in the modules): pruning, null pruning and defaults
(apiextensions-apiserver schema/pruning, schema/defaulting), server-side apply's undeclared fields (kube-openapi
schemaconv), the OpenAPI keywords as kube-openapi reads them, list types, the scale subresource and
hasBlockingErr. tests/apiserver/test_apiserver_crd_admission.py checks the same answers against a real API server.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from percona_mysql_k8s.core.crd import CEL_SKIPPED, admit
from percona_mysql_k8s.core.crd.openapi import date_time
from percona_mysql_k8s.core.crd.structural import default, json_numbers, prune, prune_nulls, undeclared

BASES = Path(__file__).resolve().parents[1] / "policies" / "_bases"


def _props(name: str) -> dict:
    return json.loads((BASES / f"{name}.json").read_text())["props"]


PS, PXC = _props("ps-gr"), _props("pxc")


def ps(**spec) -> dict:
    body = copy.deepcopy(PS)
    body["spec"].update(copy.deepcopy(spec))
    return body


def mysql(**changes) -> dict:
    return {**copy.deepcopy(PS["spec"]["mysql"]), **changes}


def answer(body: dict, api_version: str = "ps.percona.com/v1", kind: str = "PerconaServerMySQL"):
    return admit(api_version, kind, body)


def reasons(body: dict, **kwargs) -> list[str]:
    return [str(error) for error in answer(body, **kwargs).errors]


def test_the_hand_written_bases_are_accepted_and_a_kind_no_crd_defines_is_not_judged():
    assert not answer(PS).refused and not answer(PXC, "pxc.percona.com/v1", "PerconaXtraDBCluster").refused
    assert admit("v1", "ConfigMap", {"data": {}}) is None
    assert admit("ps.percona.com/v1", "PerconaServerMySQLClusterSet", {}) is None  # not carried (core/crd/generate.py)


def test_numbers_arrive_as_the_json_the_provider_writes():
    assert json_numbers({"a": [3.0, 1.5, True], "b": 1e20, "c": 1e21}) == {"a": [3, 1.5, True], "b": 10**20, "c": 1e21}
    assert isinstance(json_numbers(2.0**64), float)  # beyond int64 the decoder keeps a float


def test_server_side_apply_refuses_undeclared_fields_unless_an_ancestor_keeps_unknown_fields():
    schema = {
        "type": "object",
        "properties": {
            "open": {
                "type": "object",
                "x-kubernetes-preserve-unknown-fields": True,
                "properties": {"x": {"type": "object", "properties": {"y": {}}}},
            },
            "closed": {"type": "object", "properties": {"x": {"type": "string"}}},
            "map": {"type": "object", "additionalProperties": {"type": "string"}},
            "free": {"type": "object"},
        },
    }
    body = {"open": {"x": {"z": 1}, "w": 2}, "closed": {"x": "a", "typo": 1}, "map": {"any": "b"}, "free": {"q": 1}, "kind": "K"}
    assert [error.path for error in undeclared(body, schema)] == ["closed.typo"]
    # pruning keeps the preserve flag to its own node: open.x.z goes, open.w stays; free's keys go (no properties)
    assert prune(body, schema) == ["open.x.z", "closed.typo", "free.q"]
    assert body == {"open": {"x": {}, "w": 2}, "closed": {"x": "a"}, "map": {"any": "b"}, "free": {}, "kind": "K"}


def test_nulls_are_dropped_unless_nullable_or_defaulted_then_defaults_fill_in_recursively():
    schema = {
        "type": "object",
        "properties": {
            "gone": {"type": "string"},
            "kept": {"type": "string", "nullable": True},
            "filled": {"type": "object", "default": {}, "properties": {"n": {"type": "integer", "default": 3}}},
            "items": {"type": "array", "items": {"type": "object", "properties": {"t": {"type": "string", "default": "full"}}}},
        },
    }
    body = {"gone": None, "kept": None, "filled": None, "items": [{}, {"t": "incremental"}]}
    prune_nulls(body, schema)
    default(body, schema)
    assert body == {"kept": None, "filled": {"n": 3}, "items": [{"t": "full"}, {"t": "incremental"}]}


def test_the_stored_resource_holds_the_crds_defaults():
    body = ps()
    del body["spec"]["mysql"]["clusterType"]
    stored = answer(body).stored
    assert stored["spec"]["mysql"]["clusterType"] == "group-replication"  # the PS CRD's default
    assert "clusterType" not in body["spec"]["mysql"]  # the caller's object is left alone


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            {"mysql": mysql(size="3")},
            'spec.mysql.size: Invalid value: "3": spec.mysql.size in body must be of type integer: "string"',
        ),
        ({"mysql": mysql(size=True)}, 'spec.mysql.size in body must be of type integer: "boolean"'),
        ({"mysql": mysql(clusterType="galera")}, 'Unsupported value: "galera": supported values: "group-replication", "async"'),
        ({"secretsName": 7}, 'spec.secretsName in body must be of type string: "integer"'),
    ],
)
def test_blocking_errors_stop_the_cel_rules_as_the_api_server_does(spec, expected):
    found = reasons(ps(**spec))
    assert any(expected in reason for reason in found), found
    assert found[-1] == str(CEL_SKIPPED)


def test_a_non_blocking_error_lets_the_cel_rules_run():
    body = ps(mysql=mysql(size=4))
    body["spec"]["mysql"]["resources"]["requests"]["memory"] = "16GB"
    found = reasons(body)
    assert any("should match" in reason for reason in found) and any("even number" in reason for reason in found)
    assert str(CEL_SKIPPED) not in found


def test_int32_and_the_scale_subresource_bound_pxc_size():
    body = copy.deepcopy(PXC)
    body["spec"]["pxc"]["size"] = 2**31
    found = reasons(body, api_version="pxc.percona.com/v1", kind="PerconaXtraDBCluster")
    assert '<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.pxc.size' in found
    assert ".spec.pxc.size: Invalid value: 2147483648: should be less than or equal to 2147483647" in found
    body["spec"]["pxc"]["size"] = 2**31 - 1
    assert answer(body, "pxc.percona.com/v1", "PerconaXtraDBCluster").errors == ()


def test_list_maps_and_sets_refuse_repeats():
    sidecar = {"name": "s", "image": "busybox", "env": [{"name": "A"}, {"name": "B"}, {"name": "A"}, {"name": "A"}]}
    found = reasons(ps(mysql=mysql(sidecars=[sidecar])))
    assert found == ['spec.mysql.sidecars[0].env[2]: Duplicate value: {"name":"A"}']


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("2026-11-23T10:15:00Z", True),
        ("2026-11-23t10:15:00.5+01:00", True),
        ("2026-02-30T10:15:00Z", False),
        ("2026-11-23T24:00:00Z", False),
        ("2026-11-23 10:15:00", False),
        ("2026-11-23T10:15:00", False),
    ],
)
def test_date_time_is_strfmt_is_date_time(text, valid):
    assert date_time(text) is valid


def test_a_value_unknown_at_preview_is_neither_refused_nor_judged_by_the_rules_that_read_it():
    class Unknown:  # a preview's marker (the pack's values.Unknown); copies stay markers
        pass

    body = ps(secretsName=Unknown(), mysql=mysql(image=Unknown()))
    result = admit("ps.percona.com/v1", "PerconaServerMySQL", body, lambda value: isinstance(value, Unknown))
    # the twelve rules on spec and the two on spec.mysql have a self that holds a marker: none is judged yet
    assert not result.refused and [item.path for item in result.unjudged] == ["spec"] * 12 + ["spec.mysql"] * 2


def test_the_scale_subresources_replicas_unknown_at_preview_are_not_refused():
    """The replicas the scale subresource reads (``spec.mysql.size``) may be another resource's output: the
    int32 check waits for the value, the rest of the resource is still admitted (found by the unknowns' tests)."""

    class Unknown:
        pass

    body = ps(mysql=mysql(size=Unknown()))
    result = admit("ps.percona.com/v1", "PerconaServerMySQL", body, lambda value: isinstance(value, Unknown))
    assert not result.refused, result.errors
    refused = admit("ps.percona.com/v1", "PerconaServerMySQL", ps(mysql=mysql(size="3")))
    assert refused.refused  # known, a string is still refused: the check is only deferred


INTEGER_FIELDS = ("mysql.size", "proxy.haproxy.size", "proxy.router.size", "orchestrator.size")


@given(
    st.sampled_from(INTEGER_FIELDS), st.integers(-(2**31), 2**31 - 1).map(str) | st.sampled_from(["3 ", "+3", "03", "٣", "3.0"])
)
def test_a_string_where_the_crd_wants_an_integer_is_always_refused(field, text):
    """Issue 28 item 7: whatever digits a string holds, the API server refuses it for an integer field."""
    body = copy.deepcopy(PS)
    node = body["spec"]
    *parents, leaf = field.split(".")
    for step in parents:
        node = node[step]
    node[leaf] = text
    found = reasons(body)
    assert (
        f'spec.{field}: Invalid value: {json.dumps(text, ensure_ascii=False)}: spec.{field} in body must be of type integer: "string"'
        in found
    )


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=12,
    )
)
def test_any_json_anywhere_in_the_spec_gets_an_answer_never_an_exception(value):
    for where in ("mysql", "proxy", "backup", "unsafeFlags"):
        body = ps(**{where: value})
        result = answer(body)
        assert result.refused or result.stored is not None
