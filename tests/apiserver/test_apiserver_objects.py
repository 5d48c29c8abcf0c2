"""The pure half of the API-server tier (no API server needed): collecting, ordering, matching, comparing."""

from __future__ import annotations

import base64
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest
from apiserver_objects import (
    KubeObject,
    api_version_kind,
    apply_order,
    collect,
    crd_files,
    defaulted,
    differences,
    expected_readback,
    from_manifests,
    quantity,
    wire_value,
)
from percona_mysql_k8s.cli.offline import run_program

PROGRAM = textwrap.dedent("""
    import pulumi, pulumi_kubernetes as k8s, pulumi_random as random

    class Database(pulumi.ComponentResource):
        def __init__(self, name, opts=None):
            super().__init__("tier:index:Database", name, None, opts)
            self.secret = k8s.core.v1.Secret("secrets", metadata={"namespace": "db"}, string_data={"root": "x"},
                                             opts=pulumi.ResourceOptions(parent=self))
            self.register_outputs({})

    provider = k8s.Provider("k8s", kubeconfig="offline", namespace="from-provider")
    ns = k8s.core.v1.Namespace("ns", metadata={"name": "db"})
    operator = k8s.helm.v3.Release("op", chart="percona/ps-operator", version="1.1.0", namespace="ops",
                                   create_namespace=True, opts=pulumi.ResourceOptions(depends_on=[ns]))
    crds = k8s.yaml.v2.ConfigFile("crds", file="https://raw.githubusercontent.com/percona/percona-server-mysql-operator/v1.2.0/deploy/crd.yaml")
    database = Database("db", opts=pulumi.ResourceOptions(depends_on=[operator]))
    k8s.apiextensions.CustomResource("ps", api_version="ps.percona.com/v1", kind="PerconaServerMySQL",
        metadata={"name": "c1", "namespace": "db"}, spec={"crVersion": "1.2.0", "mysql": {"size": 3}},
        opts=pulumi.ResourceOptions(depends_on=[database]))
    k8s.core.v1.ConfigMap("settings", data={"a": "b"}, opts=pulumi.ResourceOptions(provider=provider, depends_on=[operator]))
    random.RandomPassword("pw", length=12)
""")


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    program = tmp_path_factory.mktemp("program")
    (program / "__main__.py").write_text(PROGRAM)
    return collect(run_program(program, stack="t", project="p", config={}))


def by_kind(collected, kind) -> KubeObject:
    return next(obj for obj in collected.objects if obj.kind == kind)


def test_type_tokens_give_api_version_and_kind():
    assert api_version_kind("kubernetes:core/v1:Secret", {}) == ("v1", "Secret")
    assert api_version_kind("kubernetes:apps/v1:Deployment", {}) == ("apps/v1", "Deployment")
    assert api_version_kind("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", {}) == (
        "pxc.percona.com/v1",
        "PerconaXtraDBCluster",
    )
    legacy = {"apiVersion": "ps.percona.com/v1", "kind": "PerconaServerMySQL"}
    assert api_version_kind("kubernetes:apiextensions.k8s.io:CustomResource", legacy) == (
        "ps.percona.com/v1",
        "PerconaServerMySQL",
    )
    assert api_version_kind("kubernetes:apiextensions.k8s.io:CustomResource", {}) is None
    assert api_version_kind("random:index/randomPassword:RandomPassword", {}) is None


def test_collect_keeps_objects_and_records_what_it_skips(collected):
    assert sorted(obj.kind for obj in collected.objects) == ["ConfigMap", "Namespace", "PerconaServerMySQL", "Secret"]
    reasons = {item.type: item.reason for item in collected.skipped}
    assert "recorded, not rendered" in reasons["kubernetes:helm.sh/v3:Release"]
    assert "not rendered" in reasons["kubernetes:yaml/v2:ConfigFile"]
    assert reasons["pulumi:providers:kubernetes"] == "provider"
    assert reasons["random:index/randomPassword:RandomPassword"] == "not a Kubernetes object"
    assert reasons["tier:index:Database"] == "not a Kubernetes object"
    assert collected.helm_releases[0] | {"type": None} == {
        "type": None,
        "name": "op",
        "chart": "ps-operator",
        "version": "1.1.0",
        "namespace": "ops",
        "repo": None,
        "createNamespace": True,
        "skipCrds": False,
    }
    assert collected.manifest_sources == [
        "https://raw.githubusercontent.com/percona/percona-server-mysql-operator/v1.2.0/deploy/crd.yaml"
    ]
    assert "4 Kubernetes objects to apply" in collected.summary()


def test_bodies_are_what_the_provider_would_send(collected):
    cr = by_kind(collected, "PerconaServerMySQL")
    assert cr.body["spec"]["mysql"]["size"] == 3 and type(cr.body["spec"]["mysql"]["size"]) is int  # not 3.0
    assert cr.body["apiVersion"] == "ps.percona.com/v1" and cr.body["kind"] == "PerconaServerMySQL"
    config = by_kind(collected, "ConfigMap")
    assert config.name.startswith("settings-") and config.notes == [f"auto-named {config.name}"]
    assert config.namespace is None and config.default_namespace == "from-provider"
    assert by_kind(collected, "Secret").default_namespace == "default"


def test_dependencies_go_through_components_and_releases(collected):
    keys = {obj.key: obj.kind for obj in collected.objects}
    cr, secret, config = (by_kind(collected, kind) for kind in ("PerconaServerMySQL", "Secret", "ConfigMap"))
    # depending on a component means depending on its children (the SDK expands it; children do not
    # inherit the component's own depends_on, so the Secret waits for nothing)
    assert [keys[key] for key in cr.depends_on] == ["Secret"]
    assert secret.depends_on == []
    # depending on a Helm release (not applied) means depending on what the release depends on
    assert [keys[key] for key in config.depends_on] == ["Namespace"]
    order = [obj.kind for obj in apply_order(collected.objects)]
    assert order[0] == "Namespace" and order.index("PerconaServerMySQL") > order.index("Secret")


def _object(key, kind="ConfigMap", api_version="v1", namespace=None, depends_on=(), spec=None):
    body = {"apiVersion": api_version, "kind": kind, "metadata": {"name": key}}
    if namespace:
        body["metadata"]["namespace"] = namespace
    if spec:
        body["spec"] = spec
    return KubeObject(key=key, api_version=api_version, kind=kind, body=body, source="test", depends_on=list(depends_on))


def test_order_puts_namespaces_and_crds_first_and_finds_cycles():
    crd = _object(
        "crd", "CustomResourceDefinition", "apiextensions.k8s.io/v1", spec={"group": "x.io", "names": {"kind": "Thing"}}
    )
    thing = _object("thing", "Thing", "x.io/v1", namespace="ns")
    config = _object("config", namespace="ns")
    ns = _object("ns", "Namespace")
    assert [obj.key for obj in apply_order([thing, config, crd, ns])] == ["ns", "crd", "thing", "config"]
    with pytest.raises(ValueError, match="cycle"):
        apply_order([_object("a", depends_on=["b"]), _object("b", depends_on=["a"])])


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    for name in (
        "ps-operator-v1.2.0-crd.yaml",
        "helm-ps-operator-1.1.0-crds-crd.yaml",
        "pxc-operator-v1.19.0-crd.yaml",
        "helm-pxc-operator-1.20.0-crds-crd.yaml",
    ):
        (tmp_path / name).write_text("")
    return tmp_path


def test_crd_files_follow_what_the_stack_installs(collected, reference):
    # a manifest URL naming the operator version wins over the Helm chart and the crVersion
    assert [(p.name, why.split(" ")[0]) for p, why in crd_files(collected, reference)] == [
        ("ps-operator-v1.2.0-crd.yaml", "manifest")
    ]
    collected.manifest_sources, sources = [], collected.manifest_sources
    try:
        assert [p.name for p, _ in crd_files(collected, reference)] == ["helm-ps-operator-1.1.0-crds-crd.yaml"]
        (reference / "helm-ps-operator-1.1.0-crds-crd.yaml").unlink()
        with pytest.raises(FileNotFoundError, match="Helm chart ps-operator 1.1.0 needs"):
            crd_files(collected, reference)
    finally:
        collected.manifest_sources = sources


def test_crd_files_from_a_chart_crds_url(reference):
    from apiserver_objects import Collected

    url = "https://raw.githubusercontent.com/percona/percona-helm-charts/pxc-operator-1.20.0/charts/pxc-operator/crds/crd.yaml"
    pxc = from_manifests(
        [
            {
                "apiVersion": "pxc.percona.com/v1",
                "kind": "PerconaXtraDBCluster",
                "metadata": {"name": "c"},
                "spec": {"crVersion": "1.19.0"},
            }
        ],
        source="t",
    )
    assert [(p.name, why) for p, why in crd_files(Collected(pxc, [], [], [url]), reference)] == [
        ("helm-pxc-operator-1.20.0-crds-crd.yaml", f"manifest {url}")
    ]


def test_crd_files_from_cr_version_or_newest(reference):
    from apiserver_objects import Collected

    pxc = from_manifests(
        [
            {
                "apiVersion": "pxc.percona.com/v1",
                "kind": "PerconaXtraDBCluster",
                "metadata": {"name": "c"},
                "spec": {"crVersion": "1.19.0"},
            }
        ],
        source="t",
    )
    assert [p.name for p, _ in crd_files(Collected(pxc, [], [], []), reference)] == ["pxc-operator-v1.19.0-crd.yaml"]
    del pxc[0].body["spec"]["crVersion"]
    assert [p.name for p, _ in crd_files(Collected(pxc, [], [], []), reference)] == ["helm-pxc-operator-1.20.0-crds-crd.yaml"]
    crd = _object(
        "crd", "CustomResourceDefinition", "apiextensions.k8s.io/v1", spec={"group": "pxc.percona.com", "names": {"kind": "X"}}
    )
    assert crd_files(Collected(pxc + [crd], [], [], []), reference) == []  # the stack brings its own


def test_quantities():
    assert quantity("1Gi") == quantity("1073741824") == quantity("1024Mi")
    assert quantity(0.5) == quantity("500m") == Decimal("0.5")
    assert quantity("1e3") == quantity("1k") == 1000
    assert quantity("percona/haproxy") is None and quantity(True) is None and quantity(None) is None


def test_differences_allow_defaults_and_normalised_quantities_only():
    sent = {"spec": {"cpu": 0.5, "memory": "1024Mi", "size": 3, "items": [{"a": 1}], "name": "x"}}
    live = {
        "spec": {"cpu": "500m", "memory": "1Gi", "size": 3, "items": [{"a": 1, "b": 2}], "name": "x", "extra": True},
        "status": {},
    }
    assert differences(sent, live) == []
    assert defaulted(sent, live) == [".spec.items[0].b", ".spec.extra", ".status"]
    assert differences({"spec": {"size": 3, "gone": 1}}, {"spec": {"size": 5}}) == [
        ".spec.size: sent 3, stored 5",
        ".spec.gone: sent 1, not stored (pruned or dropped)",
    ]
    assert differences({"a": [1, 2]}, {"a": [1]}) == [".a: sent 2 items, stored 1"]
    assert differences({"a": "3"}, {"a": "three"}) == [".a: sent '3', stored 'three'"]
    assert differences({"a": True}, {"a": 1}) == [".a: sent True, stored 1"]


def test_a_secret_is_read_back_with_string_data_in_data():
    body = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"root": "pw"}, "data": {"x": "eA=="}}
    assert expected_readback(body)["data"] == {"x": "eA==", "root": base64.b64encode(b"pw").decode()}
    assert "stringData" not in expected_readback(body) and "stringData" in body


def test_wire_values_drop_unknowns_and_integral_floats():
    assert wire_value({"a": 3.0, "b": 0.5, "c": None, "d": [1.0, None, {"e": None}], "f": True}) == {
        "a": 3,
        "b": 0.5,
        "d": [1, {}],
        "f": True,
    }
