"""Manifests judged offline as kubectl and the API server judge them: the same bytes, two verdicts, equal.

The offline verdict is ``percona-mysql-policy-check --manifests``' own path: core.kube_yaml reads the text as
kubectl does, and the pack (started as the check starts it, client kubectl) reports C1 or not. The API server's
verdict is kubectl's: kubectl's own reading of the bytes (tests/core/go_kube_yaml, apimachinery's decoder; a
stream or an object it refuses never reaches the server), then what ``kubectl apply --server-side`` sends, a
server-side apply of the object's JSON to kube-apiserver 1.36 with the pinned operators' CRDs, as a dry run, or
as a real write for the cases about etcd's size limit (a dry run writes nothing, so etcd never sees it).

The corpus: at least 500 manifests hypothesis generates (YAML 1.1 scalars in every spelling, tags and quotes
written into typed fields of a PerconaServerMySQL and a PerconaXtraDBCluster; metadata names, labels,
annotations and finalizers; nulls; annotation sizes around 256 KiB), and the hand-picked classes of issue 38.
"""

from __future__ import annotations

import copy
import json
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from apiserver_cluster import Cluster
from apiserver_objects import from_manifests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kubectl_reader import KubectlReader, untagged
from percona_mysql_k8s.cli.check import check_manifests
from percona_mysql_k8s.cli.engine import Pack
from percona_mysql_k8s.cli.manifests import ManifestError, read_manifests
from percona_mysql_k8s.core.crd.limits import go_json
from reference_material.resolve import reference_path

pytestmark = pytest.mark.apiserver

NAMESPACE = "apiserver-tier-manifests"
CRDS = ("helm-pxc-operator-1.20.0-crds-crd.yaml", "ps-operator-v1.2.0-crd.yaml")
BASES = Path(__file__).resolve().parents[1] / "policies" / "_bases"
PLURALS = {"PerconaServerMySQL": "perconaservermysqls", "PerconaXtraDBCluster": "perconaxtradbclusters"}
GENERATED = 560
SLOT = "SLOT0VALUE"


def _base(name: str) -> dict:
    data = json.loads((BASES / f"{name}.json").read_text())
    body = {"apiVersion": data["type"].split(":")[1], "kind": data["type"].split(":")[2], **data["props"]}
    body["metadata"] = {**body["metadata"], "namespace": NAMESPACE}
    return body


PS, PXC = _base("ps-gr"), _base("pxc")
# (base, path of the field a scalar is written into): an int32, a bool, an int-or-string quantity, strings
FIELDS = [
    (PS, ("spec", "mysql", "size")),
    (PS, ("spec", "unsafeFlags", "mysqlSize")),
    (PS, ("spec", "mysql", "resources", "requests", "memory")),
    (PS, ("spec", "mysql", "configuration")),
    (PS, ("metadata", "labels", "app")),
    (PS, ("metadata", "annotations", "note")),
    (PXC, ("spec", "pxc", "size")),
    (PXC, ("spec", "pxc", "autoRecovery")),
    (PXC, ("spec", "haproxy", "enabled")),
    (PXC, ("spec", "crVersion")),
]
SCALARS = [
    *"y Y n N yes no on Off true True null ~ = << .inf -.Inf .nan 0 08 0777 0o17 0x1F 0b101 -0b11 +0x10".split(),
    *"1_000 1e5 1E3 1e+2 .5 5. 1:30 3.0 2.5 -1 9223372036854775807 9223372036854775808 -9223372036854775809".split(),
    *"18446744073709551615 1e400 1e21 4294967296 2147483647 2147483648 2001-12-14 16Gi 1.5 16GB 3 x -x".split(),
]
SCALAR = st.one_of(
    st.sampled_from(SCALARS),
    st.from_regex(r"\A[-+]?(0[xob])?[0-9_]{1,6}(\.[0-9]{0,3})?([eE][-+]?[0-9]{1,2})?\Z"),
    st.text(alphabet="yYnN01.e+-_:xo~=aZ", min_size=1, max_size=5),
)


@st.composite
def scalar_text(draw) -> str:
    text = draw(SCALAR)
    style = draw(st.sampled_from(["plain"] * 4 + ["single", "double"]))
    rendered = {"plain": text, "single": "'" + text.replace("'", "''") + "'", "double": json.dumps(text)}[style]
    return draw(st.sampled_from(["", "", "", "!!str ", "!!int ", "!!float ", "!!bool "])) + rendered


def _set(body: dict, path: tuple, value) -> dict:
    node = body
    for step in path[:-1]:
        node = node.setdefault(step, {}) if isinstance(node.get(step), dict) or step not in node else node[step]
    node[path[-1]] = value
    return body


def _text(body: dict, raw: str | None = None) -> str:
    text = yaml.safe_dump(body, sort_keys=False, width=10**9)
    return text.replace(SLOT, raw) if raw is not None else text


LABEL_KEYS = st.sampled_from(["app", "app.kubernetes.io/name", "Example.com/x", "a/b/c", "-x", "x" * 64, "k8s.io/", ""])
LABEL_VALUES = st.one_of(st.sampled_from(["db", "", "-db", "x" * 63, "x" * 64, "a_b.c-d", "a b", "é"]), SCALAR)


@st.composite
def generated(draw) -> str:
    kind = draw(st.sampled_from(["scalar", "scalar", "scalar", "metadata", "null", "annotations-size"]))
    if kind == "scalar":
        base, path = draw(st.sampled_from(FIELDS))
        return _text(_set(copy.deepcopy(base), path, SLOT), draw(scalar_text()))
    body = copy.deepcopy(draw(st.sampled_from([PS, PXC])))
    if kind == "metadata":
        meta = body["metadata"]
        meta["name"] = draw(st.sampled_from([meta["name"], "orders-db", "Orders", "a_b", "a." * 10 + "b", "x" * 64]))
        meta["labels"] = {draw(LABEL_KEYS): SLOT}
        if draw(st.booleans()):
            meta["finalizers"] = draw(
                st.lists(
                    st.sampled_from(["percona.com/delete-pxc-pods-in-order", "a b", "orphan", "foregroundDeletion"]), max_size=2
                )
            )
        return _text(body, draw(LABEL_VALUES).replace("\n", " ") if draw(st.booleans()) else json.dumps(draw(LABEL_VALUES)))
    if kind == "null":
        section = "mysql" if body["kind"] == "PerconaServerMySQL" else "pxc"
        target = draw(
            st.sampled_from(
                [("spec", "pmm"), ("spec", section, "size"), ("spec", section, "nodeSelector", "a"), ("spec", "backup")]
            )
        )
        return _text(_set(body, target, SLOT), draw(st.sampled_from(["null", "~", "", "Null"])))
    size = draw(st.sampled_from([256 * 1024 - 40, 256 * 1024 - 4, 256 * 1024 + 1, 200_000, 300_000]))
    body["metadata"]["annotations"] = {"n": "x" * size}
    return _text(body)


@dataclass
class Case:
    name: str
    text: str
    write: bool = False  # a real create: etcd's limit is seen only by a write


def _classes() -> list[Case]:
    """The hand-picked classes of issue 38, one or more manifests each."""
    ps_text = _text(_set(copy.deepcopy(PS), ("spec", "mysql", "size"), SLOT), SLOT)
    duplicate = _text(PS).replace("  mysql:\n", "  mysql:\n    size: 4\n", 1)
    merged = "defaults: &d {size: 5}\n" + _text(PS).replace("  mysql:\n", "  mysql:\n    <<: *d\n", 1)
    written = copy.deepcopy(PS)
    written["metadata"].pop("finalizers", None)  # written for real, then deleted: no operator runs to finalize it
    big = lambda size: _text(_set(copy.deepcopy(written), ("spec", "mysql", "configuration"), "x" * size))  # noqa: E731
    return [
        *[
            Case(f"scalar {raw}", ps_text.replace(SLOT, raw))
            for raw in ("y", "3", "1e0", "03", "0o3", "0x3", "3.0", "+3", "3_", "1:30", "=", "!!int '3'", "!!str 3")
        ],
        Case("yes and no", _text(_set(copy.deepcopy(PS), ("spec", "unsafeFlags", "mysqlSize"), SLOT), "n")),
        Case("a repeated key keeps the last", duplicate),
        Case("a merge key", merged),
        Case("an integer beyond int64", ps_text.replace(SLOT, "18446744073709551616")),
        Case("infinity", ps_text.replace(SLOT, ".inf")),
        Case("an annotation that is a number", _text(_set(copy.deepcopy(PS), ("metadata", "annotations", "n"), SLOT), "1")),
        Case("a label value that is a bool", _text(_set(copy.deepcopy(PS), ("metadata", "labels", "enabled"), SLOT), "yes")),
        Case("a null without a default", _text(_set(copy.deepcopy(PS), ("spec", "pmm"), SLOT), "null")),
        Case("a null with a default", _text(_set(copy.deepcopy(PS), ("spec", "mysql", "clusterType"), SLOT), "~")),
        Case("a JSON manifest", json.dumps(PS)),
        Case("an object etcd takes", big(1_400_000), write=True),
        Case("an object etcd refuses", big(1_700_000), write=True),
        Case("a request over 3 MiB", big(3_200_000), write=True),
    ]


class ApiServer:
    """Server-side apply of a JSON body, as ``kubectl apply --server-side`` sends it."""

    def __init__(self, cluster: Cluster):
        configuration = cluster.api.configuration
        self.host = configuration.host
        self.headers = {"Content-Type": "application/apply-patch+yaml", **cluster.api.default_headers}
        token = configuration.api_key.get("authorization") or configuration.api_key.get("BearerToken")
        if token:
            self.headers["Authorization"] = token if token.startswith("Bearer") else f"Bearer {token}"
        self.context = ssl.create_default_context()
        self.context.check_hostname = False
        self.context.verify_mode = ssl.CERT_NONE

    def _call(self, method: str, path: str, body: bytes | None = None) -> tuple[int, str]:
        request = urllib.request.Request(self.host + path, data=body, method=method, headers=self.headers)
        try:
            with urllib.request.urlopen(request, context=self.context, timeout=120) as response:
                return response.status, ""
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")[:400]

    def apply(self, obj: dict, *, write: bool) -> tuple[bool, str]:
        group_version, kind = obj["apiVersion"], obj["kind"]
        name = (obj.get("metadata") or {}).get("name", "")
        base = f"/apis/{group_version}/namespaces/{NAMESPACE}/{PLURALS.get(kind, kind.lower() + 's')}/{name}"
        query = "?fieldManager=kubectl&force=true&fieldValidation=Strict" + ("" if write else "&dryRun=All")
        status, message = self._call("PATCH", base + query, go_json(obj).encode())
        if write and status < 300:
            self._call("DELETE", base)
        return status < 300, f"{status} {message}"


def _kubectl_verdict(reader: KubectlReader, server: ApiServer, case: Case) -> tuple[bool, str]:
    answer = reader.read(case.text)
    if "error" in answer:
        return False, f"kubectl: {answer['error'][:200]}"
    verdicts = []
    for document in answer["documents"]:
        if "undecodable" in document or "object" in document:
            return False, f"kubectl: {document.get('undecodable') or document['object']}"[:300]
        verdicts.append(server.apply(untagged(document["value"]), write=case.write))
    return all(accepted for accepted, _ in verdicts), "; ".join(message for _, message in verdicts)


def _offline_verdict(pack: Pack, case: Case) -> tuple[bool, str]:
    try:
        objects = read_manifests(case.text, "manifest.yaml")
    except ManifestError as error:
        return False, f"reader: {error}"
    report = check_manifests(objects, pack=pack)
    c1 = [
        f.diagnostic.message.splitlines()[-1]
        for f in report.findings
        if f.diagnostic.policy == "crd-admission" and f.diagnostic.level == "mandatory"
    ]
    return not c1, "; ".join(c1)[:400]


def _generated_cases() -> list[Case]:
    texts: list[str] = []

    @settings(max_examples=GENERATED, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(generated())
    def collect(text):
        texts.append(text)

    collect()
    unique = list(dict.fromkeys(texts))
    return [Case(f"generated {index}", text) for index, text in enumerate(unique)]


def test_manifests_get_the_verdict_kubectl_and_the_api_server_give(cluster: Cluster, tmp_path):
    cluster.install_crds([reference_path(name, required=True) for name in CRDS])
    namespace = from_manifests([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}], source="ns")
    cluster.apply(namespace[0].body)
    reader = KubectlReader(tmp_path)
    server = ApiServer(cluster)
    generated_cases, classes = _generated_cases(), _classes()
    disagreements, tally = [], {"accepted": 0, "refused": 0}
    started = time.monotonic()
    try:
        with Pack(stack="", project="manifests", client="kubectl") as pack:
            pack.configure({})
            for case in generated_cases + classes:
                theirs, why = _kubectl_verdict(reader, server, case)
                ours, reason = _offline_verdict(pack, case)
                tally["accepted" if theirs else "refused"] += 1
                if theirs != ours:
                    disagreements.append(
                        f"{case.name}: kubectl+API server {'accept' if theirs else 'refuse: ' + why} | offline: {'accept' if ours else 'refuse: ' + reason}\n{case.text[:600]!r}"
                    )
    finally:
        reader.close()
        cluster.delete("v1", "Namespace", NAMESPACE, None)
    print(
        f"\n{len(generated_cases)} generated and {len(classes)} hand-picked manifests in {time.monotonic() - started:.0f} s: {tally}"
    )
    assert disagreements == [], f"{len(disagreements)} disagreements:\n" + "\n".join(disagreements[:25])
    assert len(generated_cases) >= 500, len(generated_cases)
    assert tally["accepted"] >= 100 and tally["refused"] >= 100, tally
