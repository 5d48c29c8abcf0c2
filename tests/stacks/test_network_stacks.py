"""R6 in every stack program: the database pods and proxies are fenced before they exist, on every target."""

from __future__ import annotations

import pulumi
import pytest
from database.harness import SecretAwareMonitor, depends_on
from database.netpol_eval import Pod, allowed
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.units import GIB
from percona_mysql_k8s.plan.clusters import kind as kind_plan

NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")
PMM_SERVER = {"app.kubernetes.io/name": "pmm", "app.kubernetes.io/component": "pmm-server"}


@pytest.fixture
def run(monkeypatch):
    monkeypatch.setattr(kind_plan, "host_resources", lambda: (8000, 32 * GIB))
    monkeypatch.setattr(offline, "RecordingMonitor", SecretAwareMonitor)

    def go(stack: str, overrides=None, secrets=None):
        SecretAwareMonitor.instances.clear()
        return offline.run_stack(stack, overrides=overrides, secrets=secrets)

    return go


def _bodies(registrations):
    return [{"metadata": r.inputs["metadata"], "spec": r.inputs["spec"]} for r in registrations if r.type == NETWORK_POLICY]


def _member(cr) -> Pod:
    """A database pod of this CR, labelled as its operator labels it (see tests/database/test_network_policies.py)."""
    meta = cr.inputs["metadata"]
    if cr.type.endswith("PerconaXtraDBCluster"):
        labels = {
            "app.kubernetes.io/name": "percona-xtradb-cluster",
            "app.kubernetes.io/instance": meta["name"],
            "app.kubernetes.io/managed-by": "percona-xtradb-cluster-operator",
            "app.kubernetes.io/part-of": "percona-xtradb-cluster",
            "app.kubernetes.io/component": "pxc",
        }
    else:
        labels = {
            "app.kubernetes.io/name": "mysql",
            "app.kubernetes.io/instance": meta["name"],
            "app.kubernetes.io/managed-by": "percona-server-mysql-operator",
            "app.kubernetes.io/part-of": "percona-server",
            "app.kubernetes.io/component": "database",
        }
    return Pod(meta["namespace"], labels)


@pytest.mark.parametrize("stack", ["kind", "gke", "eks", "existing"])
def test_every_stack_fences_its_database_before_the_custom_resource(stack, run):
    registrations = run(stack)
    policies = [r for r in registrations if r.type == NETWORK_POLICY]
    cr = next(r for r in registrations if r.type in CR_TYPES)
    assert len(policies) == 2
    assert all(depends_on(registrations, cr, policy) for policy in policies)
    member = _member(cr)
    bodies = _bodies(registrations)
    # Selects this CR's pods: a stranger in the namespace is refused, a member is let in on the member ports.
    assert not allowed(bodies, Pod(member.namespace, {"app": "stranger"}), member, 3306)
    assert allowed(bodies, member, member, 3306)
    # The in-cluster PMM server scrapes the exporters (every shipped stack installs one).
    assert allowed(bodies, Pod(member.namespace, PMM_SERVER), member, 42000)


def test_no_pmm_rule_without_an_in_cluster_pmm_server(run):
    registrations = run(
        "existing",
        overrides={"installPmm": False, "pmmServerHost": "monitoring-service.pmm"},
        secrets={"pmmServerToken": "offline0123456789abcdef"},
    )
    cr = next(r for r in registrations if r.type in CR_TYPES)
    member = _member(cr)
    assert not allowed(_bodies(registrations), Pod(member.namespace, PMM_SERVER), member, 42000)


def test_an_operator_the_stack_does_not_install_is_let_in_from_its_own_namespace(run):
    registrations = run("existing", overrides={"installOperator": False})
    cr = next(r for r in registrations if r.type in CR_TYPES)
    operator = Pod("percona-system", {"app.kubernetes.io/name": "percona-xtradb-cluster-operator"})
    assert allowed(_bodies(registrations), operator, _member(cr), 3306)
    installed = run("existing")
    assert not allowed(_bodies(installed), operator, _member(next(r for r in installed if r.type in CR_TYPES)), 3306)


def test_client_namespaces_reach_the_proxy(run):
    registrations = run("gke", overrides={"clientNamespaces": ["apps"], "clientPodLabels": ["app=web"]})
    proxy = next(r for r in registrations if r.type == NETWORK_POLICY and r.inputs["metadata"]["name"].endswith("-proxy"))
    bodies = [{"metadata": proxy.inputs["metadata"], "spec": proxy.inputs["spec"]}]
    target = Pod(proxy.inputs["metadata"]["namespace"], proxy.inputs["spec"]["podSelector"]["matchLabels"])
    assert allowed(bodies, Pod("apps", {"app": "web"}), target, 3306)
    assert not allowed(bodies, Pod("apps", {"app": "batch"}), target, 3306)


def test_network_policies_off_registers_none(run):
    registrations = run("kind", overrides={"networkPolicies": False})
    assert not [r for r in registrations if r.type == NETWORK_POLICY]
    assert [r for r in registrations if r.type in CR_TYPES]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"clientNamespaces": ["Bad_NS"]}, "R6: clientNamespaces"),
        ({"clientPodLabels": ["app"]}, "R6: clientPodLabels"),
        ({"networkPolicies": False, "clientNamespaces": ["apps"]}, "R6: networkPolicies"),
        ({"networkPolicies": "sometimes"}, "networkPolicies"),
    ],
)
def test_bad_network_config_stops_before_any_resource(overrides, message, run):
    with pytest.raises(pulumi.RunError, match=message):
        run("gke", overrides)
    assert SecretAwareMonitor.instances[-1].registrations == []
