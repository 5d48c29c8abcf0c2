"""The admission server's objects: one plan, rendered as YAML by ``percona-mysql-admission manifests`` and as resources
by the component (tests/stacks: the kind stack with admission on)."""

from __future__ import annotations

import pytest
import yaml
from percona_mysql_k8s.admission import cli
from percona_mysql_k8s.plan import admission as plan

SETTINGS = plan.AdmissionSettings(
    mode="enforce",
    image="registry.example/percona-mysql-admission:0.2.0",
    api_server_cidrs=("172.16.0.0/28",),
    metrics_namespaces=("mysql",),
    placement={"nodeSelector": {"mysql.percona.com/pool": "monitoring"}},
)
TLS = plan.Tls("CA", "CERT", "KEY", "Q0E=", "sum")


def by_kind(objects) -> dict:
    return {o["kind"]: o for o in objects}


def test_the_webhook_covers_the_percona_kinds_only_and_never_kube_system():
    webhook = by_kind(plan.admission_objects(SETTINGS, TLS))["ValidatingWebhookConfiguration"]["webhooks"][0]
    resources = sorted(r for rule in webhook["rules"] for r in rule["resources"])
    assert resources == sorted(k.plural for k in plan.PERCONA_KINDS) and all("/" not in r for r in resources)
    assert all(rule["operations"] == ["CREATE", "UPDATE"] for rule in webhook["rules"])
    assert webhook["failurePolicy"] == "Fail" and webhook["sideEffects"] == "None"
    excluded = webhook["namespaceSelector"]["matchExpressions"][0]
    assert excluded["operator"] == "NotIn" and {"kube-system", plan.NAMESPACE} <= set(excluded["values"])
    assert webhook["clientConfig"]["caBundle"] == "Q0E=" and webhook["clientConfig"]["service"]["path"] == "/validate"


def test_an_ephemeral_stack_ignores_failures_and_audit_registers_no_webhook():
    import dataclasses

    ignore = by_kind(plan.admission_objects(dataclasses.replace(SETTINGS, failure_policy="Ignore"), TLS))
    assert ignore["ValidatingWebhookConfiguration"]["webhooks"][0]["failurePolicy"] == "Ignore"
    assert "ValidatingWebhookConfiguration" not in by_kind(
        plan.admission_objects(dataclasses.replace(SETTINGS, mode="audit"), TLS)
    )


def test_two_guaranteed_replicas_on_the_monitoring_pool_with_a_budget():
    objects = by_kind(plan.admission_objects(SETTINGS, TLS))
    spec = objects["Deployment"]["spec"]
    assert spec["replicas"] == 2 and objects["PodDisruptionBudget"]["spec"]["minAvailable"] == 1
    pod = spec["template"]["spec"]
    assert pod["nodeSelector"] == {"mysql.percona.com/pool": "monitoring"}
    (container,) = pod["containers"]
    assert container["resources"]["requests"] == container["resources"]["limits"] == {"cpu": "500m", "memory": "384Mi"}
    assert container["securityContext"]["readOnlyRootFilesystem"] and container["securityContext"]["capabilities"] == {
        "drop": ["ALL"]
    }
    assert (
        spec["template"]["metadata"]["annotations"]["mysql.percona.com/tls-checksum"] == "sum"
    )  # a new certificate rolls the pods


def test_rbac_reads_nodes_and_the_percona_kinds_and_writes_events_only():
    role = by_kind(plan.admission_objects(SETTINGS, TLS))["ClusterRole"]
    granted = {
        (group, resource, verb)
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }
    reads = {("", "nodes")} | {(k.group, k.plural) for k in plan.PERCONA_KINDS}
    wanted = {(g, r, v) for g, r in reads for v in ("get", "list", "watch")} | {("", "events", "create"), ("", "events", "patch")}
    assert granted == wanted


def test_the_network_policy_admits_the_api_server_to_the_webhook_and_scrapers_to_the_metrics():
    policy = by_kind(plan.admission_objects(SETTINGS, TLS))["NetworkPolicy"]["spec"]
    webhook, metrics = policy["ingress"]
    assert webhook == {
        "from": [{"ipBlock": {"cidr": "172.16.0.0/28"}}],
        "ports": [{"protocol": "TCP", "port": plan.WEBHOOK_PORT}],
    }
    assert metrics["ports"] == [{"protocol": "TCP", "port": plan.METRICS_PORT}]
    assert metrics["from"] == [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "mysql"}}}]


def test_manifests_prints_the_plan(tmp_path, capsys):
    argv = [
        "manifests",
        "--mode",
        "warn",
        "--image",
        SETTINGS.image,
        "--tls-dir",
        str(tmp_path / "tls"),
        "--node-selector",
        "pool=mon",
    ]
    assert cli.main(argv) == 0
    printed = [o for o in yaml.safe_load_all(capsys.readouterr().out) if o]
    ca = (tmp_path / "tls" / "ca.crt").read_text()
    settings = plan.AdmissionSettings(mode="warn", image=SETTINGS.image, placement={"nodeSelector": {"pool": "mon"}})
    material = cli.tls_for(
        type(
            "M",
            (),
            {
                "ca_pem": ca,
                "cert_pem": (tmp_path / "tls" / "tls.crt").read_text(),
                "key_pem": (tmp_path / "tls" / "tls.key").read_text(),
            },
        )()
    )
    assert printed == plan.admission_objects(settings, material)
    assert (tmp_path / "tls" / "tls.key").stat().st_mode & 0o777 == 0o600
    # run again: the CA and the certificate are kept (nothing to roll)
    assert cli.main(argv) == 0
    assert (tmp_path / "tls" / "ca.crt").read_text() == ca


def test_manifests_refuses_bad_input_in_one_line(capsys):
    assert cli.main(["manifests", "--mode", "enforce", "--image", ""]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert cli.main(["manifests", "--mode", "strict", "--image", "x"]) == 2
    assert cli.main(["manifests", "--mode", "warn", "--image", "x", "--toleration", "a=b"]) == 2
    assert "KEY=VALUE:EFFECT" in capsys.readouterr().err


def test_the_kinds_are_the_ones_the_carried_crds_define():
    from percona_mysql_k8s.core.crd import catalog

    for kind in plan.PERCONA_KINDS:
        versions = catalog.versions(kind.group, kind.kind)
        assert versions and kind.version in versions and versions[kind.version].served, kind
        assert kind.plural == kind.kind.lower() + "s"  # the operators' CRDs name their plurals so (tests/apiserver applies them)


def test_serve_refuses_bad_input_in_one_line(tmp_path, capsys):
    from percona_mysql_k8s.admission import tls

    tls.kept(tmp_path / "tls", ["localhost"])
    cert, key = str(tmp_path / "tls" / "tls.crt"), str(tmp_path / "tls" / "tls.key")
    assert cli.main(["serve", "--mode", "enforce", "--cert", str(tmp_path / "none.crt"), "--key", key]) == 2
    assert "no such file (the server answers over HTTPS only)" in capsys.readouterr().err
    (tmp_path / "config.json").write_text("[1]")
    assert (
        cli.main(["serve", "--mode", "enforce", "--cert", cert, "--key", key, "--policy-config", str(tmp_path / "config.json")])
        == 2
    )
    assert "must be a JSON object" in capsys.readouterr().err
    assert cli.main(["serve", "--mode", "audit", "--cert", cert, "--key", key, "--no-cluster"]) == 2
    assert cli.main(["serve", "--mode", "enforce", "--cert", cert]) == 2  # --key missing
    assert capsys.readouterr().err.count("\n") == 2


@pytest.mark.parametrize(
    ("command", "blocked"),
    [("serve", "starlette"), ("serve", "uvicorn"), ("serve", "kubernetes"), ("manifests", "cryptography")],
)
def test_without_the_extra_the_command_names_it(tmp_path, command, blocked):
    import subprocess
    import sys

    from percona_mysql_k8s.admission import tls

    tls.kept(tmp_path / "tls", ["localhost"])
    args = {
        "serve": [
            "serve",
            "--mode",
            "enforce",
            "--cert",
            str(tmp_path / "tls" / "tls.crt"),
            "--key",
            str(tmp_path / "tls" / "tls.key"),
        ],
        "manifests": ["manifests", "--mode", "enforce", "--image", "x/y:1"],
    }[command]
    code = (
        f"import sys\nsys.modules[{blocked!r}] = None\nfrom percona_mysql_k8s.admission.cli import main\nsys.exit(main({args!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and 'pip install "percona-mysql-k8s[admission]"' in done.stderr, done.stderr
