"""`python -m percona_mysql_k8s.cli.check --manifests`: Kubernetes objects judged by the pack over gRPC.

Reading (percona_mysql_k8s.cli.manifests) is tested on streams in kubectl's, helm's and kustomize's
style; the check on a `helm template` rendering of pxc-db (tests/policies/_manifests/), the operators'
own example CRs (reference material: skipped, naming scripts/fetch-reference.sh, when not here) and the
hand-written compliant bases.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import percona_mysql_k8s
import pytest
import yaml
from harness import load_case, resolve_resource
from percona_mysql_k8s.cli import check
from percona_mysql_k8s.cli.engine import Resource
from percona_mysql_k8s.cli.manifests import ManifestError, read_manifests, type_token
from reference_material.resolve import reference_path


def _findings(out: str) -> list[dict]:
    """The diagnostics of the --json document, each resource shown as "type: name" as the text output does."""
    document = json.loads(out)
    assert set(document) == {"manifests", "pack", "resources", "diagnostics", "summary"}
    return [
        {**d, "resource": f"{d['resource']['type']}: {d['resource']['name']}" if d["resource"] else None}
        for d in document["diagnostics"]
    ]


HERE = Path(__file__).resolve().parent
HELM_TEMPLATE = HERE / "_manifests" / "helm-template-pxc-db.yaml"


# ---- type tokens: what pulumi-kubernetes registers each object as --------------------------------


@pytest.mark.parametrize(
    ("api_version", "kind", "token"),
    [
        # the core group is spelled "core" in tokens (pulumi_kubernetes.core.v1.Secret)
        ("v1", "Secret", "kubernetes:core/v1:Secret"),
        ("v1", "Service", "kubernetes:core/v1:Service"),
        ("apps/v1", "Deployment", "kubernetes:apps/v1:Deployment"),
        ("batch/v1", "CronJob", "kubernetes:batch/v1:CronJob"),
        ("rbac.authorization.k8s.io/v1", "Role", "kubernetes:rbac.authorization.k8s.io/v1:Role"),
        # apiextensions.CustomResource: f"kubernetes:{api_version}:{kind}"
        ("pxc.percona.com/v1", "PerconaXtraDBCluster", "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster"),
        ("ps.percona.com/v1", "PerconaServerMySQL", "kubernetes:ps.percona.com/v1:PerconaServerMySQL"),
    ],
)
def test_type_tokens_are_pulumi_kubernetes_ones(api_version, kind, token):
    assert type_token(api_version, kind) == token


def _registered_token(cls) -> str:
    """The type a pulumi_kubernetes class registers its resources with: its ``pulumi_type`` where the SDK declares
    one (newer releases), else the literal its ``_internal_init`` passes to ``super().__init__`` (every release)."""
    import inspect
    import re

    from pulumi.type_token import get_type_token

    declared = get_type_token(cls)
    if declared:
        return declared
    (literal,) = re.findall(r"super\(\w+, __self__\).__init__\(\s*'([^']+)'", inspect.getsource(cls._internal_init))
    return literal


def test_the_tokens_match_the_sdk_classes():
    """The same tokens as the SDK's own classes (read from pulumi_kubernetes, which the pack never imports)."""
    import pulumi_kubernetes as k8s

    assert type_token("v1", "Secret") == _registered_token(k8s.core.v1.Secret)
    assert type_token("apps/v1", "StatefulSet") == _registered_token(k8s.apps.v1.StatefulSet)
    assert type_token("rbac.authorization.k8s.io/v1", "ClusterRole") == _registered_token(k8s.rbac.v1.ClusterRole)


# ---- reading streams ----------------------------------------------------------------------------

KUSTOMIZE_STYLE = """\
# kustomize build overlays/prod (no leading separator, comments, an empty document, a List)
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: db
data:
  started: 2024-05-01
  1: one
---
---
# nothing but a comment
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec: {replicas: 2}
  status: {readyReplicas: 2}
- apiVersion: v1
  kind: ServiceList
  items:
  - {apiVersion: v1, kind: Service, metadata: {name: web}}
"""


def test_documents_lists_comments_and_empty_documents():
    objects = read_manifests(KUSTOMIZE_STYLE, "prod.yaml")
    assert [(o.type, o.name, o.document) for o in objects] == [
        ("kubernetes:core/v1:ConfigMap", "db/settings", 1),
        # two `---` in a row open no document (apimachinery's YAMLReader), nor does a comment alone
        ("kubernetes:apps/v1:Deployment", "web", 2),
        ("kubernetes:core/v1:Service", "web", 2),  # a List inside a List: flattened as pulumi-kubernetes does
    ]
    config_map = objects[0].props
    # sigs.k8s.io/yaml: a date stays the string written, a key is always a string
    assert config_map["data"] == {"started": "2024-05-01", "1": "one"}
    assert "status" not in objects[1].props and objects[1].props["spec"] == {"replicas": 2}
    assert objects[1].origin == "prod.yaml, document 2"


def test_helm_source_comments_name_the_template():
    objects = read_manifests(HELM_TEMPLATE.read_text(), "out.yaml")
    assert [(o.type, o.name, o.helm_source) for o in objects] == [
        ("kubernetes:core/v1:Secret", "shop-pxc-db", "pxc-db/templates/cluster-secret.yaml"),
        ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "db/shop-pxc-db", "pxc-db/templates/cluster.yaml"),
    ]


def test_a_source_comment_belongs_to_its_own_document_only():
    """helm template prints `# Source:` for templates that render nothing too: such a comment names that empty
    document, not the next object."""
    text = (
        "---\n# Source: x/templates/empty.yaml\n---\n# Source: x/templates/secret.yaml\n"
        "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\n# Source: x/templates/nothing.yaml\n---\n"
        "apiVersion: v1\nkind: Secret\nmetadata: {name: b}\n"
    )
    assert [(o.name, o.document, o.helm_source) for o in read_manifests(text)] == [
        ("a", 1, "x/templates/secret.yaml"),  # a document of comments alone is none (kubectl reads nothing there)
        ("b", 2, None),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: Secret\nmetadata: {name: a}\n", "stdin: document 1 (line 1): apiVersion is missing"),
        ("apiVersion: v1\nkind: Secret\nmetadata: {generateName: a-}\n", "stdin: document 1 (line 1): metadata.name is missing"),
        (
            "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\n- 1\n- 2\n",
            "stdin: document 2 (line 5): a Kubernetes object is a mapping",
        ),
        (
            "apiVersion: v1\nkind: Secret\nmetadata: {name: a, labels: {app: 1}}\n",
            "stdin: document 1 (line 1): kubectl cannot decode the object: json: cannot unmarshal number into Go struct "
            "field ObjectMeta.metadata.labels of type string",
        ),
        ("apiVersion: v1\nkind: Secret\nmetadata: {name: a}\ndata: {x: .inf}\n", "stdin: document 1 is not valid YAML at line 4"),
        ("apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n--- junk\n", "stdin: document 1 is not valid YAML at line 4"),
        ("apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\nspec: [\n", "stdin: document 2 is not valid YAML at line 6"),
        (
            "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret}\n",
            "stdin: document 1 (line 1), items[0]: metadata.name is missing",
        ),
    ],
)
def test_unreadable_input_names_the_file_and_the_document(text, expected):
    with pytest.raises(ManifestError) as error:
        read_manifests(text, "-")
    assert str(error.value).startswith(expected), str(error.value)


# ---- the check ----------------------------------------------------------------------------------


def _run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = check.main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _messages(findings) -> list[tuple[str, str, str]]:
    return sorted((f["policy"], f["rule"], f["message"]) for f in findings)


def test_helm_template_output_gets_the_verdict_of_the_chart_release(capsys, monkeypatch):
    """The CR helm renders from the chart defaults is judged exactly as the pxc-db release of those defaults:
    the same policies, rules and messages, with the CR's paths (spec.*) for the values' (values.*). The
    passwords went into the rendered Secret, where they belong (no finding); in a release's values they
    would be S1, so the release compared is the one of the chart defaults alone."""
    code, out, _ = _run(["--manifests", "-", "--json"], capsys, HELM_TEMPLATE.read_text(), monkeypatch)
    assert code == 1
    rendered = _findings(out)
    release = Resource(
        urn="urn:pulumi:s::p::kubernetes:helm.sh/v3:Release::shop",
        type="kubernetes:helm.sh/v3:Release",
        name="shop",
        properties={"chart": "pxc-db", "version": "1.20.0", "values": {}},
    )
    with check.Pack(stack="", project=check.MANIFESTS) as pack:
        pack.configure({})
        by_values = check.analyze(pack, [release], [release], {release.urn: (release.type, "shop")})
    expected = [
        {"policy": f.diagnostic.policy, "rule": f.diagnostic.rule, "message": f.diagnostic.message.replace("values.", "spec.")}
        for f in by_values
    ]
    # R6 (advisory) judges custom resources only: a release names its cluster from templates the pack does
    # not render, so the rendered cluster alone gets it (no NetworkPolicy in this rendering)
    fence = [f for f in rendered if f["rule"] == "R6"]
    assert [f["policy"] for f in fence] == ["database-network-policy"]
    assert _messages([f for f in rendered if f["rule"] != "R6"]) == _messages(expected)
    # chart defaults: no memory limits (K2, M1), auto-tuned buffer pool (M2), no pool placement (K4)
    assert {"K2", "M1", "M2", "K4"} <= {f["rule"] for f in rendered}
    assert {f["resource"] for f in rendered} == {
        "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: db/shop-pxc-db [stdin, document 2, pxc-db/templates/cluster.yaml]"
    }


def test_the_stdin_pipe_of_a_real_process(tmp_path):
    """`helm template ... | python -m percona_mysql_k8s.cli.check --manifests -`: the engine's Policies: output."""
    result = subprocess.run(
        [sys.executable, "-m", "percona_mysql_k8s.cli.check", "--manifests", "-"],
        input=HELM_TEMPLATE.read_text(),
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(Path(percona_mysql_k8s.__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("Policies:\n    ❌ percona-mysql@v")
    assert (
        "- [mandatory]  memory-split  (kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: db/shop-pxc-db "
        "[stdin, document 2, pxc-db/templates/cluster.yaml])"
    ) in result.stdout
    assert result.stdout.rstrip().endswith("in 2 resources.")


def test_the_operators_example_crs_with_kubectl_style_files(capsys):
    files = [
        reference_path(name)
        for name in ("pxc-operator-v1.19.0-cr.yaml", "pxc-operator-v1.19.0-secrets.yaml", "ps-operator-v1.2.0-cr.yaml")
    ]
    code, out, _ = _run(["--manifests", *map(str, files), "--json"], capsys)
    assert code == 1
    findings = _findings(out)
    judged = {f["resource"].split(" [")[0] for f in findings}
    assert judged == {
        "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: cluster1",
        "kubernetes:ps.percona.com/v1:PerconaServerMySQL: ps-cluster1",
    }
    ps_rules = {f["rule"] for f in findings if "ps-cluster1" in f["resource"]}
    # the example leaves group replication flow control at the server defaults (25000): F2, F3
    assert {"F2", "F3"} <= ps_rules


def test_compliant_objects_pass(tmp_path, capsys):
    """The hand-written bases (a sized PXC and a sized group-replication cluster placed on the database pool,
    a sysbench Job on the monitoring pool) pass every policy, also as one kubectl-style directory."""
    # production databases back up daily off the cluster with PITR (R1-R4): the bases' backed-up variants
    for name in ("pxc-backed-up", "ps-gr-backed-up"):
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(resolve_resource({"base": name})["props"]))
    # kubectl -f reads JSON as well
    # production databases are fenced (R6): an ingress NetworkPolicy selecting each cluster's pods by the
    # label the operators put on them
    fences = [
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": f"{name}-mysqld", "namespace": "db"},
            "spec": {
                "podSelector": {"matchLabels": {"app.kubernetes.io/instance": name}},
                "policyTypes": ["Ingress"],
                "ingress": [{"from": [{"podSelector": {"matchLabels": {"app.kubernetes.io/instance": name}}}]}],
            },
        }
        for name in ("shop", "orders")
    ]
    (tmp_path / "fences.yaml").write_text(yaml.safe_dump_all(fences))
    # a benchmark beside production databases is compliant as an explicit one-off request (R5)
    sysbench = resolve_resource({"base": "sysbench-job"})["props"]
    sysbench["metadata"]["annotations"] = {"percona-mysql/run-request": "capacity-q4"}
    (tmp_path / "sysbench.json").write_text(json.dumps(sysbench, indent=2))
    (tmp_path / "README.md").write_text("not a manifest: kubectl -f DIR reads only .yaml, .yml and .json")
    code, out, _ = _run(["--manifests", str(tmp_path)], capsys)
    assert code == 0, out
    assert out.startswith("Policies:\n    ✅ percona-mysql@v")
    assert out.rstrip().endswith("0 mandatory and 0 advisory violation(s) in 5 resources.")


def test_stack_policies_see_all_objects(tmp_path, capsys):
    """AnalyzeStack gets every object: a PMM 2 client in the cluster against the PMM 3 server a StatefulSet
    runs is S5 (pmm-versions-match, a stack policy), found only when both are in the input."""
    cluster = resolve_resource({"base": "pxc", "patch": {"spec": {"pmm": {"image": "percona/pmm-client:2.44.1-1"}}}})["props"]
    server = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "pmm", "namespace": "monitoring"},
        "spec": {
            "replicas": 1,
            "template": {
                "spec": {
                    "nodeSelector": {"mysql.percona.com/pool": "monitoring"},
                    "containers": [
                        {
                            "name": "pmm",
                            "image": "percona/pmm-server:3.8.1",
                            "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "2Gi"}},
                        }
                    ],
                }
            },
        },
    }
    (tmp_path / "all.yaml").write_text(yaml.safe_dump_all([cluster, server]))
    code, out, _ = _run(["--manifests", str(tmp_path / "all.yaml"), "--json"], capsys)
    s5 = [f for f in _findings(out) if f["policy"] == "pmm-versions-match"]
    assert [f["rule"] for f in s5] == ["S5"]
    assert "PMM 2.x client" in s5[0]["message"] and s5[0]["resource"].startswith(
        "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: db/shop ["
    )
    assert code == 1  # S5 is mandatory
    (tmp_path / "all.yaml").write_text(yaml.safe_dump(cluster))
    code, out, _ = _run(["--manifests", str(tmp_path / "all.yaml"), "--json"], capsys)
    assert "pmm-versions-match" not in {f["policy"] for f in _findings(out)}


def test_the_same_object_twice_is_judged_twice(tmp_path, capsys):
    """Two files with the same object (an overlay and its base, say): kubectl would apply the last; the
    check judges both and names each by its file."""
    bad = resolve_resource({"base": "pxc", "patch": {"spec": {"tls": {"enabled": False}}}})["props"]
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(bad))
    (tmp_path / "b.yaml").write_text(yaml.safe_dump(bad))
    code, out, _ = _run(["--manifests", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--json"], capsys)
    s2 = [f["resource"] for f in _findings(out) if f["rule"] == "S2"]
    assert code == 1
    assert sorted(name.rsplit("/", 1)[-1] for name in s2) == ["a.yaml, document 1]", "b.yaml, document 1]"]


@pytest.mark.parametrize(
    ("argv", "stdin", "expected"),
    [
        (["--manifests", "/nonexistent/cluster.yaml"], None, "error: /nonexistent/cluster.yaml: cannot be read: No such file"),
        (["--manifests", "-"], "apiVersion: v1\nkind: Secret\n", "error: stdin: document 1 (line 1): metadata.name is missing"),
        (["--manifests", "-"], "a: [\n", "error: stdin: document 1 is not valid YAML"),
        (
            ["--manifests", "-", "--stack", "kind"],
            "",
            "error: --manifests judges the objects given, not a stack program: --stack",
        ),
    ],
)
def test_bad_input_exits_2_with_one_clear_line(argv, stdin, expected, capsys, monkeypatch):
    code, out, err = _run(argv, capsys, stdin if stdin is not None else "", monkeypatch)
    assert code == 2
    assert out == ""
    assert err.startswith(expected), err
    assert "Traceback" not in err


@pytest.mark.parametrize("where", ["stdin", "file", "directory", "directory without manifests"])
def test_an_input_without_objects_is_refused_unless_allowed(where, tmp_path, capsys, monkeypatch):
    """A failed `kustomize build | ... --manifests -` sends nothing: that is no pass (exit 2, one line), unless
    --allow-empty says no object is expected; then it is an empty stack (exit 0)."""
    text = "# nothing rendered\n---\n"
    if where == "stdin":
        given = "-"
    elif where == "file":
        given = str(tmp_path / "empty.yaml")
        (tmp_path / "empty.yaml").write_text(text)
    else:
        given = str(tmp_path)
        (tmp_path / ("empty.yaml" if where == "directory" else "README.md")).write_text(text)
    code, out, err = _run(["--manifests", given], capsys, text, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("error: --manifests: ") and "--allow-empty" in err and err.count("\n") == 1, err
    code, out, _ = _run(["--manifests", given, "--allow-empty"], capsys, text, monkeypatch)
    assert code == 0
    assert out.rstrip().endswith("0 mandatory and 0 advisory violation(s) in 0 resources.")


def test_an_empty_input_beside_objects_is_named(tmp_path, capsys, monkeypatch):
    (tmp_path / "empty.yaml").write_text("")
    code, _, err = _run(
        ["--manifests", "-", str(tmp_path / "empty.yaml")],
        capsys,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
        monkeypatch,
    )
    assert code == 2 and f"{tmp_path / 'empty.yaml'}: no object in the file" in err


# ---- chart values: --chart with --values --------------------------------------------------------


def test_values_files_are_judged_as_a_release_of_the_chart(tmp_path, capsys):
    """`--chart pxc-db --values base.yaml --values prod.yaml`: merged as helm -f merges them (later files win,
    maps key by key), judged as the pxc-db release the pack already reads (values over chart defaults)."""
    (tmp_path / "base.yaml").write_text(
        "pxc:\n  size: 3\n  configuration: |\n    [mysqld]\n    wsrep_sync_wait=1\ntls:\n  enabled: true\n"
    )
    (tmp_path / "prod.yaml").write_text("# the overlay turns TLS off\ntls:\n  enabled: false\n")
    code, out, _ = _run(
        [
            "--chart",
            "pxc-db",
            "--values",
            str(tmp_path / "base.yaml"),
            "--values",
            str(tmp_path / "prod.yaml"),
            "--release",
            "shop",
            "--json",
        ],
        capsys,
    )
    findings = _findings(out)
    assert code == 1
    assert {f["resource"] for f in findings} == {
        f"kubernetes:helm.sh/v3:Release: shop [pxc-db values: {tmp_path / 'base.yaml'}, {tmp_path / 'prod.yaml'}]"
    }
    rules = {f["rule"] for f in findings}
    assert "S2" in rules  # prod.yaml's tls.enabled: false won over base.yaml's true
    assert "G4" not in rules  # base.yaml's configuration survived the merge (wsrep_sync_wait=1)
    assert {"K2", "M2"} <= rules  # chart defaults fill what neither file sets: no memory limit, auto-tuned buffer pool


def test_values_with_manifests_are_one_stack(tmp_path, capsys):
    """A pmm chart release from its values and a rendered PXC CR with a PMM 2 client: S5 across the two."""
    cluster = resolve_resource({"base": "pxc", "patch": {"spec": {"pmm": {"image": "percona/pmm-client:2.44.1-1"}}}})["props"]
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump(cluster))
    (tmp_path / "pmm.yaml").write_text("image:\n  tag: 3.8.1\n")
    code, out, _ = _run(
        ["--manifests", str(tmp_path / "cluster.yaml"), "--chart", "pmm", "--values", str(tmp_path / "pmm.yaml"), "--json"],
        capsys,
    )
    assert code == 1
    assert [f["rule"] for f in _findings(out) if f["policy"] == "pmm-versions-match"] == ["S5"]


@pytest.mark.parametrize(
    ("argv", "content", "expected"),
    [
        (["--chart", "pxc-db"], None, "error: --chart and --values go together"),
        (["--chart", "pxc-db", "--values", "VALUES"], "- a\n- b\n", "error: VALUES: values are a mapping of keys, not list"),
        (
            ["--chart", "pxc-db", "--values", "VALUES"],
            "pxc:\n  size: .nan\n",
            "error: VALUES: document 1 is not valid YAML at line 2, column 9: json: unsupported value: NaN",
        ),
    ],
)
def test_bad_values_exit_2(argv, content, expected, tmp_path, capsys):
    path = tmp_path / "values.yaml"
    if content is not None:
        path.write_text(content)
    code, out, err = _run([str(path) if arg == "VALUES" else arg for arg in argv], capsys)
    assert code == 2 and out == ""
    assert err.startswith(expected.replace("VALUES", str(path))), err


def test_kubectl_get_json_output(capsys, monkeypatch):
    """`kubectl get pxc -o json | ... --manifests -`: a JSON v1 List of live objects, each with its status (output
    only, dropped) and server-set metadata; the cluster is judged as its spec says."""
    live = resolve_resource({"base": "pxc-backed-up", "patch": {"spec": {"tls": {"enabled": False}}}})["props"]
    live = dict(
        live,
        status={"state": "ready", "pxc": {"ready": 3}},
        metadata=dict(live["metadata"], uid="0b7d…", resourceVersion="4711", creationTimestamp="2025-01-02T03:04:05Z"),
    )
    listed = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [live]}
    code, out, _ = _run(["--manifests", "-", "--json"], capsys, json.dumps(listed, indent=4), monkeypatch)
    assert code == 1
    # the TLS breach (S2), which the operator refuses too without unsafeFlags.tls (C2), and no NetworkPolicy came
    # with the cluster (R6, advisory)
    assert sorted((f["rule"], f["resource"]) for f in _findings(out)) == [
        ("C2", "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: db/shop [stdin, document 1]"),
        ("R6", "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: db/shop [stdin, document 1]"),
        ("S2", "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: db/shop [stdin, document 1]"),
    ]


def test_a_rendering_with_proxysql_has_no_haproxy_to_judge(capsys, monkeypatch):
    """pxc-db renders `haproxy: {enabled: false}` whenever proxysql.enabled is true (templates/cluster.yaml:
    `if or (not .Values.haproxy.enabled) .Values.proxysql.enabled`); judged as rendered, nothing is said about
    HAProxy and T2 sees one proxy kind. (The chart release of the same values is read from the values; see the
    corpus verdict of charts/pxc-db/tests/values/proxysql-changed-defaults.yaml.)"""
    secret, cluster = yaml.safe_load_all(HELM_TEMPLATE.read_text())
    cluster["spec"]["haproxy"] = {"enabled": False}
    cluster["spec"]["proxysql"] = {
        "enabled": True,
        "size": 3,
        "image": "percona/proxysql2:2.7.3-1.3",
        "resources": {"requests": {"memory": "1G", "cpu": "600m"}, "limits": {}},
        "sidecarResources": {"requests": {}, "limits": {}},
        "affinity": {"antiAffinityTopologyKey": "kubernetes.io/hostname"},
        "volumeSpec": {
            "persistentVolumeClaim": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "8Gi"}}}
        },
    }
    stream = "".join(
        f"---\n# Source: pxc-db/templates/{template}\n{yaml.safe_dump(doc)}"
        for template, doc in (("cluster-secret.yaml", secret), ("cluster.yaml", cluster))
    )
    code, out, _ = _run(["--manifests", "-", "--json"], capsys, stream, monkeypatch)
    findings = _findings(out)
    assert code == 1
    assert [f["message"] for f in findings if "haproxy" in f["message"].split("\n", 1)[1]] == []
    assert "T2" not in {f["rule"] for f in findings}
    assert any("spec.proxysql" in f["message"] for f in findings if f["rule"] == "K2")  # the proxy that runs is judged


def test_backup_fixes_speak_of_the_cluster_not_a_stack_in_manifest_mode(tmp_path, capsys):
    """Objects judged without a stack: R1-R3's way out is T1's mark on the cluster, never a stack setting."""
    no_backups = resolve_resource({"base": "pxc", "patch": {"metadata": {"name": "nobackup"}}})["props"]
    short = load_case(Path(__file__).parent / "backup-retention" / "daily-keep-7.json")
    short = resolve_resource({"base": short["base"], "patch": {**short["patch"], "metadata": {"name": "short"}}})["props"]
    (tmp_path / "clusters.yaml").write_text(yaml.safe_dump_all([no_backups, short]))
    code, out, _ = _run(["--manifests", str(tmp_path / "clusters.yaml"), "--json"], capsys)
    fixes = {f["rule"]: f["message"].split("Fix: ", 1)[1] for f in _findings(out) if f["rule"] in ("R1", "R2", "R3")}
    assert set(fixes) == {"R1", "R2", "R3"}, fixes
    for rule, fix in fixes.items():
        assert "stack" not in fix, (rule, fix)
        assert "set spec.unsafeFlags.pxcSize: true" in fix, (rule, fix)


def test_objects_are_read_as_kubectl_reads_them_with_their_positions():
    """YAML 1.1 as go-yaml v2 resolves it (core.kube_yaml, held to kubectl's own code by its oracle test): a key
    defined twice keeps the last value, and every value keeps its line and column for the reports that name them."""
    text = (
        "apiVersion: ps.percona.com/v1\nkind: PerconaServerMySQL\nmetadata: {name: db}\n"
        "spec:\n  unsafeFlags: {mysqlSize: y}\n  mysql:\n    size: 1e0\n    size: 3\n    autoRecovery: 0o1\n"
    )
    (obj,) = read_manifests(text, "db.yaml")
    assert obj.props["spec"] == {"unsafeFlags": {"mysqlSize": True}, "mysql": {"size": 3, "autoRecovery": 1}}
    assert obj.marks[("spec", "mysql", "size")] == (8, 11)
    assert obj.marks[("metadata", "name")] == (3, 18)


def test_integers_keep_their_int64_reading_on_the_analyzer_protocol():
    """The protocol's Struct carries doubles: an int64 near either end of the range goes as the double next to it
    towards zero, never as +-2^63, which reads as a float (kubectl sends the int64 exactly)."""
    top, bottom = 2**63 - 1, -(2**63)
    wired = check.wire_numbers({"a": [top, bottom, 2**60, 3]})
    assert wired["a"][0] < 2**63 and wired["a"][1] > -(2**63)
    assert wired["a"][2:] == [float(2**60), 3]
