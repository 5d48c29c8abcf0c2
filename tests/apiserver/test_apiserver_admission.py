"""The admission server in the loop of a real kube-apiserver: the server runs as a process on loopback, a
ValidatingWebhookConfiguration from the plan (percona_mysql_k8s.plan.admission, the URL form) points the API server
at it, and kubectl applies custom resources through it.

* enforce: a breaching PXC custom resource is refused with the rules' messages, a good one is admitted, and
  ``--dry-run=server`` is judged the same; with the cluster's own Nodes (made here, their status written as a kubelet
  would) too small for the members, the same good resource is refused under K5;
* warn: the breaching resource is admitted and kubectl prints the findings as ``Warning:`` lines;
* audit: the sweep records the findings as Events on the custom resource already there, and as metrics;
* with the server killed under ``failurePolicy: Fail``, Percona kinds are refused and a ConfigMap still applies, and a
  Percona resource in kube-system (which the namespace selector never covers) still applies.
"""

from __future__ import annotations

import base64
import datetime
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml
from kubernetes import client as k8s_client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "admission"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "policies"))

from admission_helpers import base  # noqa: E402
from percona_mysql_k8s.plan import admission as plan  # noqa: E402
from server_process import Server  # noqa: E402

pytestmark = pytest.mark.apiserver

NAMESPACE = "admission-tier"
CRD_FILES = ("helm-pxc-operator-1.20.0-crds-crd.yaml", "ps-operator-v1.2.0-crd.yaml")
POOL = "mysql.percona.com/pool"


def kubectl_binary() -> str:
    found = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if not found:
        message = "no kubectl: scripts/apiserver.sh run-tier finds or builds one (KUBECTL names it)"
        if os.environ.get("K8S_APISERVER_REQUIRED") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return found


def kubectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [kubectl_binary(), "--kubeconfig", os.environ["K8S_APISERVER_KUBECONFIG"], *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def apply(obj: dict, *extra: str) -> subprocess.CompletedProcess:
    return kubectl("apply", "-f", "-", *extra, stdin=yaml.safe_dump(obj))


def cluster_cr(name: str, good: bool, namespace: str = NAMESPACE) -> dict:
    obj = base("pxc-backed-up" if good else "pxc")
    obj["metadata"] = {"name": name, "namespace": namespace}
    return obj


@pytest.fixture(scope="module")
def crds(cluster, reference):
    cluster.install_crds([reference / name for name in CRD_FILES])
    core = k8s_client.CoreV1Api(cluster.api)
    core.create_namespace({"metadata": {"name": NAMESPACE}})
    yield
    core.delete_namespace(NAMESPACE)
    cluster.wait_namespace_gone(NAMESPACE)


def webhook(server: Server, failure_policy: str = "Fail") -> dict:
    settings = plan.AdmissionSettings(mode="enforce", image="unused", failure_policy=failure_policy)
    ca = (server.tls_dir / "ca.crt").read_bytes()
    return plan.webhook_configuration(settings, base64.b64encode(ca).decode(), url=server.url)


@pytest.fixture
def registered(cluster, crds):
    """Registers a server's webhook; removed after the test."""
    registered_names = []

    def register(server: Server, failure_policy: str = "Fail") -> None:
        body = webhook(server, failure_policy)
        cluster.apply(body)
        registered_names.append(body["metadata"]["name"])
        time.sleep(1)  # the API server's webhook informer picks it up

    yield register
    for name in registered_names:
        cluster.delete("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", name, None)
    time.sleep(1)


def _server(tmp_path: Path, mode: str, *extra: str) -> Server:
    kubeconfig = os.environ["K8S_APISERVER_KUBECONFIG"]
    return Server(tmp_path, mode=mode, extra=("--kubeconfig", kubeconfig, *extra)).start()


def _delete_all(cluster) -> None:
    """Unregister the webhook (its server is stopped: under Fail, removing a finalizer would be refused), then delete
    the custom resources the test made."""
    if cluster.get("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", plan.NAME, None):
        cluster.delete("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", plan.NAME, None)
        time.sleep(1)
    for item in cluster.list("pxc.percona.com/v1", "PerconaXtraDBCluster", NAMESPACE):
        cluster.set_finalizers(item, [])
        cluster.delete("pxc.percona.com/v1", "PerconaXtraDBCluster", item["metadata"]["name"], NAMESPACE)


def test_enforce_refuses_a_breach_and_admits_a_good_cluster(cluster, registered, tmp_path):
    server = _server(tmp_path, "enforce", "--audit-seconds", "0")
    try:
        registered(server)
        refused = apply(cluster_cr("breach", good=False))
        assert refused.returncode != 0, refused.stdout
        assert "denied the request" in refused.stderr and "R1: no scheduled backup" in refused.stderr, refused.stderr
        dry = apply(cluster_cr("breach", good=False), "--dry-run=server")
        assert dry.returncode != 0 and "R1: no scheduled backup" in dry.stderr, dry.stderr
        assert cluster.get("pxc.percona.com/v1", "PerconaXtraDBCluster", "breach", NAMESPACE) is None
        admitted = apply(cluster_cr("good", good=True))
        assert admitted.returncode == 0, admitted.stderr
        assert "perconaxtradbcluster.pxc.percona.com/good created" in admitted.stdout
    finally:
        server.stop()
        _delete_all(cluster)


def _heartbeat(core, name: str, memory: str) -> None:
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    condition = {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "tier"}
    core.patch_node_status(
        name,
        {
            "status": {
                "capacity": {"cpu": "8", "memory": memory, "pods": "110"},
                "allocatable": {"cpu": "7910m", "memory": memory, "pods": "110"},
                "conditions": [{**condition, "lastHeartbeatTime": now, "lastTransitionTime": now}],
            }
        },
    )


@pytest.fixture
def small_nodes(cluster):
    core = k8s_client.CoreV1Api(cluster.api)
    taint = {"key": POOL, "value": "database", "effect": "NoSchedule"}
    names = [f"admission-db-{i}" for i in range(3)]
    for name in names:
        core.create_node({"metadata": {"name": name, "labels": {POOL: "database"}}, "spec": {"taints": [taint]}})
        _heartbeat(core, name, "12Gi")
        core.patch_node(name, {"spec": {"taints": [taint]}})  # the not-ready taint lifted, as the lifecycle controller does
    yield names
    for name in names:
        core.delete_node(name)


def test_the_node_rules_read_the_clusters_nodes(cluster, registered, small_nodes, tmp_path):
    server = _server(tmp_path, "enforce", "--audit-seconds", "0")
    try:
        registered(server)
        refused = apply(cluster_cr("good-on-small-nodes", good=True))
        assert refused.returncode != 0 and "K5" in refused.stderr and "admission-db-0" in refused.stderr, refused.stderr
    finally:
        server.stop()
        _delete_all(cluster)


def test_warn_admits_and_kubectl_prints_the_findings(cluster, registered, tmp_path):
    server = _server(tmp_path, "warn", "--audit-seconds", "0")
    try:
        registered(server)
        admitted = apply(cluster_cr("warned", good=False))
        assert admitted.returncode == 0, admitted.stderr
        warnings = [line for line in admitted.stderr.splitlines() if line.startswith("Warning: ")]
        assert any(line.startswith("Warning: R1: ") for line in warnings), admitted.stderr
        assert any(line.startswith("Warning: R2: ") for line in warnings), admitted.stderr
        dry = apply(cluster_cr("warned-dry", good=False), "--dry-run=server")
        assert dry.returncode == 0 and "Warning: R1: " in dry.stderr, dry.stderr
    finally:
        server.stop()
        _delete_all(cluster)


def test_audit_records_events_and_metrics_on_what_is_there(cluster, crds, tmp_path):
    assert apply(cluster_cr("already-there", good=False)).returncode == 0  # no webhook registered: admitted
    server = _server(tmp_path, "audit", "--audit-seconds", "2")
    try:
        core = k8s_client.CoreV1Api(cluster.api)
        deadline = time.monotonic() + 60
        events = []
        while time.monotonic() < deadline and not events:
            events = [
                e
                for e in core.list_namespaced_event(NAMESPACE).items
                if e.involved_object.name == "already-there" and e.reason == "PolicyViolation"
            ]
            time.sleep(1)
        assert events and any(e.message.startswith("R1: ") for e in events), events
        described = kubectl("describe", "perconaxtradbcluster", "already-there", "-n", NAMESPACE)
        assert "PolicyViolation" in described.stdout, described.stdout
        metrics = httpx.get(f"https://127.0.0.1:{server.metrics_port}/metrics", verify=server.ca, timeout=10).text
        series = 'percona_mysql_admission_audit_findings{kind="PerconaXtraDBCluster",level="mandatory",name="already-there",namespace="admission-tier",rule="R1"} 1.0'
        assert series in metrics, metrics[-3000:]
        # the sweep counts the same finding again on the same Event
        first = events[0]
        time.sleep(5)
        again = core.read_namespaced_event(first.metadata.name, NAMESPACE)
        assert again.count > first.count
    finally:
        server.stop()
        _delete_all(cluster)


def test_with_the_server_killed_only_percona_kinds_are_blocked(cluster, registered, tmp_path):
    server = _server(tmp_path, "enforce", "--audit-seconds", "0")
    registered(server)
    assert apply(cluster_cr("before-the-kill", good=True)).returncode == 0
    server.kill()
    try:
        refused = apply(cluster_cr("after-the-kill", good=True))
        assert refused.returncode != 0 and "failed calling webhook" in refused.stderr, refused.stderr
        config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "still-applies", "namespace": NAMESPACE}}
        applied = apply({**config_map, "data": {"a": "b"}})
        assert applied.returncode == 0, applied.stderr
        # kube-system is never covered: a Percona resource there is not sent to the (dead) webhook
        system = apply(cluster_cr("in-kube-system", good=False, namespace="kube-system"))
        assert system.returncode == 0, system.stderr
    finally:
        item = cluster.get("pxc.percona.com/v1", "PerconaXtraDBCluster", "in-kube-system", "kube-system")
        if item:
            cluster.set_finalizers(item, [])
            cluster.delete("pxc.percona.com/v1", "PerconaXtraDBCluster", "in-kube-system", "kube-system")
        _delete_all(cluster)


def test_the_answer_is_json_the_api_server_reads(tmp_path):
    """The server's answer to a review the API server's shape: admission.k8s.io/v1 with the uid (a guard for the
    tests above: a malformed answer would fail them as a failed call, not as a refusal)."""
    server = Server(tmp_path, mode="enforce").start()
    try:
        review = {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "x",
                "kind": {"group": "pxc.percona.com", "version": "v1", "kind": "PerconaXtraDBCluster"},
                "operation": "CREATE",
                "namespace": NAMESPACE,
                "object": cluster_cr("x", good=True),
            },
        }
        answer = httpx.post(server.url, json=review, verify=server.ca, timeout=30).json()
        assert answer["apiVersion"] == "admission.k8s.io/v1" and answer["response"]["uid"] == "x"
        json.dumps(answer)
    finally:
        server.stop()


def test_the_manifests_a_gitops_user_applies_are_accepted(cluster, tmp_path):
    """README's three commands, the last two here: `percona-mysql-admission manifests ... > file`, `kubectl apply -f`.
    Every object is accepted (the Deployment in a namespace enforcing the restricted Pod Security level, the webhook
    pointing at its Service), then deleted; nothing runs it here (no kubelet), so the webhook fails closed on Percona
    kinds until it goes."""
    printed = subprocess.run(
        [
            sys.executable,
            "-m",
            "percona_mysql_k8s.admission",
            "manifests",
            "--mode",
            "enforce",
            "--image",
            "registry.example/percona-mysql-admission:0.2.0",
            "--api-server-cidr",
            "127.0.0.1/32",
            "--metrics-namespace",
            "mysql",
            "--node-selector",
            f"{POOL}=monitoring",
            "--tls-dir",
            str(tmp_path / "tls"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    path = tmp_path / "admission.yaml"
    path.write_text(printed)
    try:
        applied = kubectl("apply", "-f", str(path))
        assert applied.returncode == 0, applied.stderr
        assert "deployment.apps/percona-mysql-admission created" in applied.stdout
        assert "validatingwebhookconfiguration.admissionregistration.k8s.io/percona-mysql-admission created" in applied.stdout
        assert "Warning" not in applied.stderr, applied.stderr  # e.g. a Pod Security warning on the Deployment
        stored = cluster.get("apps/v1", "Deployment", plan.NAME, plan.NAMESPACE)
        pod = stored["spec"]["template"]["spec"]
        assert pod["containers"][0]["resources"]["limits"] == pod["containers"][0]["resources"]["requests"]
    finally:
        kubectl("delete", "-f", str(path), "--wait=false")
        cluster.wait_namespace_gone(plan.NAMESPACE)
