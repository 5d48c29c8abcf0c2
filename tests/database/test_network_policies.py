"""R6: the NetworkPolicies allow exactly the flows listed, to pods labelled as the operators label them.

The pods below carry the labels the operators and charts put on them (copied from their sources, not
from our selectors): PXC operator ``pkg/naming/labels.go`` (LabelsCluster + component; LabelsBackupJob;
LabelsRestoreJob), PS operator v1.2.0 ``naming.Labels(name, cr.Name, part-of, component)``, the
pxc-operator/ps-operator charts' Deployment template, the pmm chart's ``pmm.selectorLabels``. Each
pod also carries the labels its controller adds (StatefulSet, Job), which a selector must ignore.
"""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.database import DatabaseSpec
from percona_mysql_k8s.plan.database.network_policies import ClientAccess, client_access, network_policies

from .netpol_eval import Pod, allowed

NS = "mysql"
STS = {"controller-revision-hash": "db-pxc-7c9f", "statefulset.kubernetes.io/pod-name": "db-pxc-0"}
JOB = {"batch.kubernetes.io/job-name": "xb-daily", "job-name": "xb-daily", "batch.kubernetes.io/controller-uid": "u1"}
PXC_CLUSTER = {
    "app.kubernetes.io/name": "percona-xtradb-cluster",
    "app.kubernetes.io/instance": "db",
    "app.kubernetes.io/managed-by": "percona-xtradb-cluster-operator",
    "app.kubernetes.io/part-of": "percona-xtradb-cluster",
}
PXC_MEMBER = Pod(NS, {**PXC_CLUSTER, "app.kubernetes.io/component": "pxc", **STS})
PXC_HAPROXY = Pod(NS, {**PXC_CLUSTER, "app.kubernetes.io/component": "haproxy", **STS})
PXC_PROXYSQL = Pod(NS, {**PXC_CLUSTER, "app.kubernetes.io/component": "proxysql", **STS})
OTHER_CLUSTER_MEMBER = Pod(NS, {**PXC_CLUSTER, "app.kubernetes.io/instance": "other", "app.kubernetes.io/component": "pxc"})
PXC_BACKUP_JOB = Pod(
    NS,
    {
        **PXC_CLUSTER,
        "percona.com/backup-type": "xtrabackup",
        "percona.com/cluster": "db",
        "percona.com/backup-name": "daily",
        "percona.com/backup-job-name": "xb-daily",
        **JOB,
    },
)
PXC_RESTORE_JOB = Pod(NS, {**PXC_CLUSTER, "percona.com/restore-job-name": "restore-job-r1-db", **JOB})
PXC_OPERATOR = Pod(
    NS,
    {
        "app.kubernetes.io/component": "operator",
        "app.kubernetes.io/name": "pxc-operator",
        "app.kubernetes.io/instance": "pxc-operator",
        "app.kubernetes.io/part-of": "pxc-operator",
        "pod-template-hash": "5d8f",
    },
)
PMM_SERVER = Pod(
    NS,
    {
        "app.kubernetes.io/name": "pmm",
        "app.kubernetes.io/instance": "pmm",
        "app.kubernetes.io/component": "pmm-server",
        "app.kubernetes.io/part-of": "percona-platform",
    },
)
SYSBENCH = Pod(
    NS,
    {
        "app.kubernetes.io/name": "sysbench",
        "app.kubernetes.io/instance": "db",
        "app.kubernetes.io/part-of": "percona-mysql",
        "app.kubernetes.io/managed-by": "pulumi",
        "app.kubernetes.io/component": "load-generator",
        **JOB,
    },
)
NEIGHBOUR = Pod(NS, {"app.kubernetes.io/name": "pmm-token", "app.kubernetes.io/instance": "db"})
WEB = Pod("apps", {"app": "web"})
API = Pod("apps", {"app": "api"})

PS = {
    "app.kubernetes.io/instance": "gr",
    "app.kubernetes.io/managed-by": "percona-server-mysql-operator",
    "app.kubernetes.io/part-of": "percona-server",
}
PS_MEMBER = Pod(NS, {**PS, "app.kubernetes.io/name": "mysql", "app.kubernetes.io/component": "database", **STS})
PS_ROUTER = Pod(NS, {**PS, "app.kubernetes.io/name": "router", "app.kubernetes.io/component": "proxy"})
PS_HAPROXY = Pod(NS, {**PS, "app.kubernetes.io/name": "haproxy", "app.kubernetes.io/component": "proxy", **STS})
PS_BACKUP_JOB = Pod(
    NS,
    {
        "app.kubernetes.io/name": "xtrabackup",
        "app.kubernetes.io/instance": "daily",
        "app.kubernetes.io/managed-by": "percona-server-mysql-operator",
        "app.kubernetes.io/part-of": "percona-server-backup",
        "app.kubernetes.io/component": "backup",
        **JOB,
    },
)
PS_OPERATOR = Pod(NS, {"app.kubernetes.io/name": "ps-operator", "app.kubernetes.io/instance": "ps-operator"})
# PS v1.2.0 binlogserver.MatchLabels: cr.Labels("binlog-server", "pitr") (+ the StatefulSet's labels)
PS_BINLOG_SERVER = Pod(NS, {**PS, "app.kubernetes.io/name": "binlog-server", "app.kubernetes.io/component": "pitr", **STS})
OTHER_BINLOG_SERVER = Pod(NS, {**PS_BINLOG_SERVER.labels, "app.kubernetes.io/instance": "other"})
# PS v1.2.0 pkg/pitr: the PITR restore Job, restore.Labels("pitr", "pitr")
PS_PITR_RESTORE = Pod(
    NS,
    {
        "app.kubernetes.io/name": "pitr",
        "app.kubernetes.io/instance": "r1",
        "app.kubernetes.io/managed-by": "percona-server-mysql-operator",
        "app.kubernetes.io/part-of": "percona-server-restore",
        "app.kubernetes.io/component": "pitr",
        **JOB,
    },
)
# PXC v1.19.0 naming.LabelsPITR: LabelsCluster + component pitr (the binlog collector Deployment)
PXC_PITR_COLLECTOR = Pod(NS, {**PXC_CLUSTER, "app.kubernetes.io/component": "pitr", "pod-template-hash": "6b7c"})


def pxc(proxy="haproxy", clients=None, pmm=True):
    return network_policies(
        DatabaseSpec(name="db", namespace=NS, engine="pxc", proxy=proxy), clients or ClientAccess(), pmm_server=pmm
    )


def gr(proxy="router"):
    return network_policies(
        DatabaseSpec(name="gr", namespace=NS, engine="group-replication", proxy=proxy), ClientAccess(), pmm_server=True
    )


def test_two_ingress_policies_select_the_database_pods_and_the_proxies():
    policies = pxc()
    assert [p["metadata"]["name"] for p in policies] == ["db-mysqld", "db-proxy"]
    assert all(p["apiVersion"] == "networking.k8s.io/v1" and p["spec"]["policyTypes"] == ["Ingress"] for p in policies)
    # A source no rule names (a neighbour pod, on the MySQL port) shows which pods each policy fences.
    assert not allowed(policies, NEIGHBOUR, PXC_MEMBER, 3306)
    assert not allowed(policies, NEIGHBOUR, PXC_MEMBER, 4567)
    # Pods no policy selects (another cluster, the operator) stay open: the fence is this cluster's.
    assert allowed(policies, NEIGHBOUR, OTHER_CLUSTER_MEMBER, 3306)
    assert allowed(policies, NEIGHBOUR, PXC_OPERATOR, 8080)


@pytest.mark.parametrize("port", [3306, 4444, 4567, 4568, 33060, 33062])
def test_pxc_members_reach_each_other_on_the_galera_ports(port):
    assert allowed(pxc(), PXC_MEMBER, PXC_MEMBER, port)
    assert not allowed(pxc(), OTHER_CLUSTER_MEMBER, PXC_MEMBER, port)  # another cluster is not a member


def test_pxc_members_accept_no_other_port_from_each_other():
    assert not allowed(pxc(), PXC_MEMBER, PXC_MEMBER, 8080)


def test_proxies_reach_mysqld_on_client_and_admin_ports_only():
    for proxy, pod in (("haproxy", PXC_HAPROXY), ("proxysql", PXC_PROXYSQL)):
        policies = pxc(proxy)
        assert all(allowed(policies, pod, PXC_MEMBER, port) for port in (3306, 33060, 33062)), proxy
        assert not allowed(policies, pod, PXC_MEMBER, 4567), proxy  # a proxy is not a Galera member
    assert not allowed(pxc("haproxy"), PXC_PROXYSQL, PXC_MEMBER, 3306)  # only the proxy this cluster runs


def test_operator_reaches_mysqld_and_proxies_on_any_port():
    policies = pxc()
    assert allowed(policies, PXC_OPERATOR, PXC_MEMBER, 3306)
    assert allowed(policies, PXC_OPERATOR, PXC_MEMBER, 33062)
    assert allowed(policies, PXC_OPERATOR, PXC_HAPROXY, 8404)
    assert not allowed(policies, PS_OPERATOR, PXC_MEMBER, 3306)  # the other engine's operator is not ours


def test_backup_and_restore_jobs_reach_the_members():
    policies = pxc()
    assert allowed(policies, PXC_BACKUP_JOB, PXC_MEMBER, 4444)  # garbd's SST
    assert allowed(policies, PXC_BACKUP_JOB, PXC_MEMBER, 4567)
    assert allowed(policies, PXC_RESTORE_JOB, PXC_MEMBER, 3306)
    assert not allowed(policies, PXC_BACKUP_JOB, PXC_MEMBER, 8080)


def test_pmm_server_reaches_the_exporter_range_when_it_runs_here():
    # PMM's documented exporter range is 42000-51999: both ends in, the neighbours out.
    policies = pxc()
    for destination in (PXC_MEMBER, PXC_HAPROXY):
        assert allowed(policies, PMM_SERVER, destination, 42000)
        assert allowed(policies, PMM_SERVER, destination, 51999)
        assert not allowed(policies, PMM_SERVER, destination, 41999)
        assert not allowed(policies, PMM_SERVER, destination, 52000)
    assert not allowed(pxc(pmm=False), PMM_SERVER, PXC_MEMBER, 42000)


def test_sysbench_reaches_the_proxy_never_mysqld():
    policies = pxc()
    assert allowed(policies, SYSBENCH, PXC_HAPROXY, 3306)
    assert not allowed(policies, SYSBENCH, PXC_MEMBER, 3306)


def test_proxy_accepts_the_database_namespace_on_client_ports_only():
    policies = pxc()
    # HAProxy's frontends (INTERFACES §2.4): 3306 writer, 3307 replicas, 3309 proxy-protocol, 33060 X.
    assert all(allowed(policies, NEIGHBOUR, PXC_HAPROXY, port) for port in (3306, 3307, 3309, 33060))
    assert not allowed(policies, NEIGHBOUR, PXC_HAPROXY, 33062)  # admin: the operator's
    assert not allowed(policies, WEB, PXC_HAPROXY, 3306)  # another namespace, not listed


def test_client_namespaces_and_pod_labels_open_the_proxy_to_exactly_those_pods():
    by_namespace = pxc(clients=client_access(["apps"], []))
    assert allowed(by_namespace, WEB, PXC_HAPROXY, 3306)
    assert not allowed(by_namespace, WEB, PXC_MEMBER, 3306)  # clients never reach mysqld directly
    by_label = pxc(clients=client_access(["apps"], ["app=api"]))
    assert allowed(by_label, API, PXC_HAPROXY, 3306)
    assert not allowed(by_label, WEB, PXC_HAPROXY, 3306)
    assert not allowed(by_label, NEIGHBOUR, PXC_HAPROXY, 3306)  # the labels apply in the database namespace too
    assert allowed(by_label, SYSBENCH, PXC_HAPROXY, 3306)  # ... except for our own load generator


def test_proxysql_instances_sync_over_their_admin_port():
    policies = pxc("proxysql")
    assert allowed(policies, PXC_PROXYSQL, PXC_PROXYSQL, 6032)
    assert not allowed(policies, NEIGHBOUR, PXC_PROXYSQL, 6032)
    assert allowed(policies, NEIGHBOUR, PXC_PROXYSQL, 3306)


@pytest.mark.parametrize("port", [3306, 33061, 33060, 33062])
def test_group_replication_members_reach_each_other_on_xcom_and_clone(port):
    assert allowed(gr(), PS_MEMBER, PS_MEMBER, port)


def test_group_replication_flows():
    policies = gr()
    assert not allowed(policies, PS_MEMBER, PS_MEMBER, 4567)  # no Galera in GR
    assert allowed(policies, PS_ROUTER, PS_MEMBER, 3306)
    assert not allowed(policies, PS_ROUTER, PS_MEMBER, 33061)
    assert allowed(policies, PS_OPERATOR, PS_MEMBER, 6450)
    assert allowed(policies, PS_BACKUP_JOB, PS_MEMBER, 6450)  # the backup sidecar
    assert not allowed(policies, PXC_OPERATOR, PS_MEMBER, 3306)
    # Router's ports: 6446 rw, 6447 ro, 6448/6449 X (INTERFACES §3.2)
    assert all(allowed(policies, NEIGHBOUR, PS_ROUTER, port) for port in (3306, 6446, 6447, 6448, 6449, 33060))
    assert not allowed(policies, NEIGHBOUR, PS_ROUTER, 8443)
    assert not allowed(policies, SYSBENCH, PS_MEMBER, 3306)
    haproxy = gr("haproxy")
    assert allowed(haproxy, PS_HAPROXY, PS_MEMBER, 33062)
    assert not allowed(haproxy, PS_ROUTER, PS_MEMBER, 3306)


@pytest.mark.parametrize(
    ("namespaces", "labels", "key"),
    [
        (["Apps"], [], "clientNamespaces"),
        (["a" * 64], [], "clientNamespaces"),
        ([7], [], "clientNamespaces"),
        ([], ["app"], "clientPodLabels"),
        ([], ["app=we b"], "clientPodLabels"),
        ([], ["-app=web"], "clientPodLabels"),
        ([], ["app=web", "app=api"], "clientPodLabels"),
        ([], ["example.com/" + "n" * 64 + "=x"], "clientPodLabels"),
        ([], ["a" * 254 + "/app=x"], "clientPodLabels"),  # a prefix over 253 (taken until core.names read it)
    ],
)
def test_bad_client_settings_name_their_key_and_r6(namespaces, labels, key):
    with pytest.raises(InputError) as error:
        client_access(namespaces, labels)
    assert error.value.key == key and error.value.rule == "R6"


def test_client_settings_in_kubernetes_style():
    access = client_access(["apps", "team-a"], ["app.kubernetes.io/name=web", "tier=", "example.com/role=api"])
    assert access.namespaces == ("apps", "team-a")
    assert dict(access.pod_labels) == {"app.kubernetes.io/name": "web", "tier": "", "example.com/role": "api"}


def test_an_operator_installed_elsewhere_is_let_in_by_its_chart_or_bundle_name():
    # deploy/operator.yaml (PXC v1.19.0) labels its pod app.kubernetes.io/name=percona-xtradb-cluster-operator
    bundle = Pod(
        "percona-system",
        {
            "app.kubernetes.io/component": "operator",
            "app.kubernetes.io/instance": "percona-xtradb-cluster-operator",
            "app.kubernetes.io/name": "percona-xtradb-cluster-operator",
        },
    )
    chart_elsewhere = Pod("operators", dict(PXC_OPERATOR.labels))
    spec = DatabaseSpec(name="db", namespace=NS, engine="pxc", proxy="haproxy")
    elsewhere = network_policies(spec, ClientAccess(), pmm_server=False, operator_installed=False)
    assert allowed(elsewhere, bundle, PXC_MEMBER, 3306) and allowed(elsewhere, chart_elsewhere, PXC_MEMBER, 33062)
    assert not allowed(elsewhere, Pod("operators", {"app.kubernetes.io/name": "ps-operator"}), PXC_MEMBER, 3306)
    here = network_policies(spec, ClientAccess(), pmm_server=False)
    assert not allowed(here, bundle, PXC_MEMBER, 3306)  # installed here: only the release in this namespace
    assert not allowed(here, chart_elsewhere, PXC_MEMBER, 3306)
    ps_bundle = Pod("percona-system", {"app.kubernetes.io/name": "percona-server-mysql-operator"})  # PS v1.2.0
    ps = network_policies(
        DatabaseSpec(name="gr", namespace=NS, engine="group-replication", proxy="router"),
        ClientAccess(),
        pmm_server=False,
        operator_installed=False,
    )
    assert allowed(ps, ps_bundle, PS_MEMBER, 6450)


def test_ps_binlog_server_reaches_mysqld_on_the_mysql_port_only():
    # it replicates from the primary's Service on 3306 (pkg/binlogserver/config.go) for PITR (R2)
    policies = gr()
    assert allowed(policies, PS_BINLOG_SERVER, PS_MEMBER, 3306)
    assert not allowed(policies, PS_BINLOG_SERVER, PS_MEMBER, 33062)
    assert not allowed(policies, PS_BINLOG_SERVER, PS_MEMBER, 6450)  # not the backup sidecar
    assert not allowed(policies, OTHER_BINLOG_SERVER, PS_MEMBER, 3306)  # another cluster's
    assert not allowed(policies, PS_BINLOG_SERVER, PS_ROUTER, 8443)  # nor the proxy's admin port
    # the PITR restore Job applies binary logs to its own mysqld: no rule lets it in
    assert not allowed(policies, PS_PITR_RESTORE, PS_MEMBER, 3306)
    # PXC has no binlog server rule: its collector is covered by the Jobs' rule below
    assert not allowed(pxc(), PS_BINLOG_SERVER, PXC_MEMBER, 3306)


def test_pxc_pitr_collector_reaches_the_members():
    # the collector reads binary logs from the members over the MySQL port (cmd/pitr: PXC_SERVICE = <cluster>-pxc)
    policies = pxc()
    assert allowed(policies, PXC_PITR_COLLECTOR, PXC_MEMBER, 3306)
    other = Pod(NS, {**PXC_PITR_COLLECTOR.labels, "app.kubernetes.io/instance": "other"})
    assert not allowed(policies, other, PXC_MEMBER, 3306)
