"""GKE under mocks: the cluster, the two node pools, and the kubeconfig."""

from __future__ import annotations

import json

import pytest
from percona_mysql_k8s.clusters import cluster_from_config
from percona_mysql_k8s.clusters.gke import pool_name
from percona_mysql_k8s.clusters.target import GcpFacts
from percona_mysql_k8s.core.allocatable import node_budget
from percona_mysql_k8s.core.pools import DATABASE_TAINT, POOL_LABEL, PoolShape, Taint
from stack_configs import FAKE_CA, GKE, GKE_ZONES, with_

CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
ROUTER = "gcp:compute/router:Router"
NAT = "gcp:compute/routerNat:RouterNat"
ACCOUNT = "gcp:serviceaccount/account:Account"
IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"


def deploy(mocked, values=GKE):
    return mocked.run(
        lambda: cluster_from_config(values),
        lambda target: {"kubeconfig": target.kubeconfig, "secret": target.kubeconfig.is_secret()},
    )


def test_resources(mocked):
    deploy(mocked)
    # private nodes by default: the Cloud Router and NAT they reach registries through; the node service account
    assert sorted(r.type for r in mocked.resources()) == sorted(
        [
            "percona-mysql:index:GkeCluster",
            CLUSTER,
            NODE_POOL,
            NODE_POOL,
            "pulumi:providers:kubernetes",
            ROUTER,
            NAT,
            ACCOUNT,
            IAM_MEMBER,
        ]
    )
    assert all(
        r.parent_type == "percona-mysql:index:GkeCluster"
        for r in mocked.resources()
        if r.type != "percona-mysql:index:GkeCluster"
    )


def test_cluster(mocked):
    deploy(mocked)
    cluster = mocked.one(CLUSTER).state
    assert cluster["name"] == "perf"
    assert cluster["project"] == "perf-project-1"
    assert cluster["location"] == "europe-west1"
    assert cluster["nodeLocations"] == GKE_ZONES
    assert cluster["removeDefaultNodePool"] is True
    assert cluster["initialNodeCount"] == 1
    assert cluster["releaseChannel"] == {"channel": "REGULAR"}
    assert cluster["networkingMode"] == "VPC_NATIVE"
    assert "ipAllocationPolicy" in cluster  # VPC-native: alias IP ranges picked by GKE
    assert cluster["network"] == "default"
    assert cluster["workloadIdentityConfig"] == {"workloadPool": "perf-project-1.svc.id.goog"}
    assert cluster["enableShieldedNodes"] is True
    assert cluster["privateClusterConfig"] == {"enablePrivateNodes": True, "enablePrivateEndpoint": False}  # the default
    assert cluster["deletionProtection"] is True


def test_private_nodes_subnetwork_channel_and_ephemeral(mocked):
    deploy(mocked, with_(GKE, gkePrivateNodes=True, gkeSubnetwork="db-subnet", gkeReleaseChannel="stable", ephemeral=True))
    cluster = mocked.one(CLUSTER).state
    assert cluster["privateClusterConfig"] == {"enablePrivateNodes": True, "enablePrivateEndpoint": False}
    assert cluster["subnetwork"] == "db-subnet"
    assert cluster["releaseChannel"] == {"channel": "STABLE"}
    assert cluster["deletionProtection"] is False


def test_database_pool(mocked):
    deploy(mocked)
    registered = mocked.one(NODE_POOL, "perf-database")
    assert registered.options["deleteBeforeReplace"] is False  # a replacement pool comes up before the old one goes
    pool = registered.state
    assert pool["name"].startswith("perf-database-") and len(pool["name"]) <= 40
    assert pool["cluster"] == "perf"
    assert pool["location"] == "europe-west1"
    assert pool["nodeLocations"] == GKE_ZONES
    assert pool["nodeCount"] == 1  # per zone: 3 nodes
    config = pool["nodeConfig"]
    assert config["machineType"] == "n2-standard-16"
    assert config["diskType"] == "pd-ssd"
    assert config["diskSizeGb"] == 100
    assert config["labels"] == {POOL_LABEL: "database"}
    assert config["taints"] == [{"key": POOL_LABEL, "value": "database", "effect": "NO_SCHEDULE"}]
    assert config["shieldedInstanceConfig"] == {"enableSecureBoot": True, "enableIntegrityMonitoring": True}
    assert config["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    assert config["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert pool["management"] == {"autoRepair": True, "autoUpgrade": True}
    # surge upgrades: never take a database node down before its replacement is up
    assert pool["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 1, "maxUnavailable": 0}


def test_monitoring_pool(mocked):
    deploy(mocked)
    pool = mocked.one(NODE_POOL, "perf-monitoring").state
    assert pool["name"].startswith("perf-monitoring-") and len(pool["name"]) <= 40
    assert pool["nodeConfig"]["machineType"] == "n2-standard-8"
    assert pool["nodeConfig"]["labels"] == {POOL_LABEL: "monitoring"}
    assert pool["nodeConfig"]["taints"] == []
    assert pool["nodeConfig"]["diskType"] == "pd-ssd"
    assert pool["nodeLocations"] == ["europe-west1-b"]
    assert pool["nodeCount"] == 1


def test_node_count_is_per_zone(mocked):
    target, _ = deploy(mocked, with_(GKE, databaseNodeCount=5, monitoringNodeCount=2, databaseDiskSizeGb=500))
    database = mocked.one(NODE_POOL, "perf-database").state
    assert database["nodeCount"] == 2 and database["nodeLocations"] == GKE_ZONES
    assert database["nodeConfig"]["diskSizeGb"] == 500
    assert target.database_pool.node_count == 6  # what the database layer is told: 2 per zone × 3 zones
    monitoring = mocked.one(NODE_POOL, "perf-monitoring").state
    assert monitoring["nodeCount"] == 1 and monitoring["nodeLocations"] == GKE_ZONES[:2]
    assert target.monitoring_pool.node_count == 2


def test_target(mocked):
    target, values = deploy(mocked)
    assert target.kind == "gke" and target.name == "perf"
    assert target.database_pool.node == node_budget("n2-standard-16", "gke")
    assert target.database_pool.taints == (DATABASE_TAINT,)
    assert target.monitoring_pool.node == node_budget("n2-standard-8", "gke")
    assert len(target.ready) == 2
    kubeconfig = json.loads(values["kubeconfig"])
    assert values["secret"] is True
    assert kubeconfig["clusters"][0]["cluster"] == {"server": "https://203.0.113.10", "certificate-authority-data": FAKE_CA}
    # gke-gcloud-auth-plugin takes no arguments: the exec entry has no "args" key
    assert kubeconfig["users"] == [
        {
            "name": "perf",
            "user": {
                "exec": {
                    "apiVersion": "client.authentication.k8s.io/v1beta1",
                    "command": "gke-gcloud-auth-plugin",
                    "installHint": "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin",
                    "provideClusterInfo": True,
                }
            },
        }
    ]
    assert kubeconfig["contexts"] == [{"name": "perf", "context": {"cluster": "perf", "user": "perf"}}]
    assert kubeconfig["current-context"] == "perf"


def _pool(**changes) -> PoolShape:
    base = {
        "name": "perf-database",
        "labels": {POOL_LABEL: "database"},
        "node_count": 3,
        "node": node_budget("n2-standard-16", "gke"),
        "taints": (DATABASE_TAINT,),
        "machine_type": "n2-standard-16",
    }
    return PoolShape(**{**base, **changes})


@pytest.mark.parametrize(
    "changed",
    [
        _pool(machine_type="n2-highmem-16"),
        _pool(taints=(Taint(POOL_LABEL, "database", "NoExecute"),)),
        _pool(taints=()),
    ],
)
def test_pool_name_changes_with_what_recreates_the_pool(changed):
    """A new name lets Pulumi create the replacement pool before deleting the old one."""
    assert pool_name(changed, 100) != pool_name(_pool(), 100)
    assert pool_name(_pool(), 200) != pool_name(_pool(), 100)


def test_pool_name_is_stable():
    assert pool_name(_pool(node_count=6), 100) == pool_name(_pool(), 100)


# ---- hardening (issue 11) ---------------------------------------------------------------------------


def test_private_nodes_reach_registries_through_cloud_nat(mocked):
    deploy(mocked)
    router, nat = mocked.one(ROUTER).state, mocked.one(NAT).state
    assert router["network"] == "default" and router["region"] == "europe-west1" and router["project"] == "perf-project-1"
    assert nat["router"] == router["name"]
    assert nat["sourceSubnetworkIpRangesToNat"] == "ALL_SUBNETWORKS_ALL_IP_RANGES"
    assert nat["natIpAllocateOption"] == "AUTO_ONLY"
    nat_urn = mocked.one(NAT).urn
    assert all(nat_urn in pool.dependencies for pool in mocked.of_type(NODE_POOL))  # nodes start once NAT exists


def test_no_nat_when_the_network_has_one_or_nodes_are_public(mocked):
    deploy(mocked, with_(GKE, gkeCloudNat=False))
    assert not mocked.of_type(NAT) and not mocked.of_type(ROUTER)
    assert mocked.one(CLUSTER).state["privateClusterConfig"]["enablePrivateNodes"] is True


def test_public_nodes_need_no_nat(mocked):
    deploy(mocked, with_(GKE, gkePrivateNodes=False))
    assert not mocked.of_type(NAT)
    assert "privateClusterConfig" not in mocked.one(CLUSTER).state


def test_dataplane_v2_enforces_network_policies(mocked):
    deploy(mocked)
    assert mocked.one(CLUSTER).state["datapathProvider"] == "ADVANCED_DATAPATH"


def test_nodes_run_as_a_dedicated_least_privilege_account(mocked):
    deploy(mocked)
    account = mocked.one(ACCOUNT).state
    assert account["accountId"] == "perf-nodes" and account["project"] == "perf-project-1"
    # Google's address of a user-managed account: <id>@<project>.iam.gserviceaccount.com
    email = "perf-nodes@perf-project-1.iam.gserviceaccount.com"
    grants = [r.state for r in mocked.of_type(IAM_MEMBER)]
    assert [(g["role"], g["member"], g["project"]) for g in grants] == [
        ("roles/container.defaultNodeServiceAccount", f"serviceAccount:{email}", "perf-project-1")
    ]
    role_urn = mocked.one(IAM_MEMBER).urn
    for pool in mocked.of_type(NODE_POOL):
        assert pool.state["nodeConfig"]["serviceAccount"] == email  # never the Compute Engine default account
        assert role_urn in pool.dependencies


def test_master_authorized_networks_and_kms(mocked):
    key = "projects/perf-project-1/locations/europe-west1/keyRings/gke/cryptoKeys/secrets"
    deploy(mocked, with_(GKE, gkeMasterAuthorizedNetworks=["203.0.113.0/24", "198.51.100.7/32"], gkeSecretsKmsKey=key))
    cluster = mocked.one(CLUSTER).state
    blocks = cluster["masterAuthorizedNetworksConfig"]["cidrBlocks"]
    assert [b["cidrBlock"] for b in blocks] == ["203.0.113.0/24", "198.51.100.7/32"]
    assert cluster["databaseEncryption"] == {"state": "ENCRYPTED", "keyName": key}


def test_no_authorized_networks_or_kms_unless_configured(mocked):
    deploy(mocked)
    cluster = mocked.one(CLUSTER).state
    assert "masterAuthorizedNetworksConfig" not in cluster and "databaseEncryption" not in cluster


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"gkeMasterAuthorizedNetworks": ["203.0.113.1/24"]}, "not an IPv4 CIDR"),  # host bits set
        ({"gkeMasterAuthorizedNetworks": ["office"]}, "not an IPv4 CIDR"),
        ({"gkeMasterAuthorizedNetworks": ["0.0.0.0/0"]}, "every address"),
        ({"gkeMasterAuthorizedNetworks": [f"10.0.{i}.0/24" for i in range(51)]}, "at most 50"),
        ({"gkeSecretsKmsKey": "my-key"}, "not a Cloud KMS key name"),
        ({"gkeSecretsKmsKey": "projects/perf-project-1/locations/us-central1/keyRings/r/cryptoKeys/k"}, "europe-west1"),
        ({"gkeCloudNat": "maybe"}, "true or false"),
    ],
)
def test_bad_hardening_config_names_its_key(changes, fragment):
    from percona_mysql_k8s.core.errors import InputError
    from percona_mysql_k8s.plan.clusters import cluster_settings_from_config

    with pytest.raises(InputError) as error:
        cluster_settings_from_config(with_(GKE, **changes))
    assert error.value.key == next(iter(changes)) and fragment in str(error.value)


def test_an_open_control_plane_on_production_is_said():
    from percona_mysql_k8s.plan.clusters import cluster_settings_from_config

    def notes(**changes):
        return [n for n in cluster_settings_from_config(with_(GKE, **changes)).notes if "gkeMasterAuthorizedNetworks" in n]

    assert notes() and "any address" in notes()[0]
    assert notes(gkeMasterAuthorizedNetworks=["203.0.113.0/24"]) == []
    assert notes(ephemeral=True) == []  # an ephemeral stack may stay open


def test_target_carries_the_project_and_region_the_backup_bucket_is_created_in(mocked):
    target, _ = deploy(mocked)
    assert target.gcp == GcpFacts(project="perf-project-1", region="europe-west1")  # gcpProject, gcpRegion
    assert target.aws is None
