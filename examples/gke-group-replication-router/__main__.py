"""GKE + group replication (Percona Server) behind MySQL Router, monitored by PMM. No benchmark.

The modules used directly, without the stack program: cluster settings -> cluster -> operator -> PMM ->
database cluster. Every size comes from the sizing engine for an n2-standard-8 database node.
"""

import pulumi
from percona_mysql_k8s.clusters import build_cluster, cluster_settings_from_config
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.database import (
    DatabaseCluster,
    DatabaseClusterArgs,
    DatabaseSpec,
    OperatorArgs,
    PerconaOperator,
    PmmServer,
    PmmServerArgs,
    create_namespace,
)

config = pulumi.Config()
region = config.get("gcpRegion") or "europe-west1"
settings = cluster_settings_from_config({
    "target": "gke",
    "clusterName": "gr-router",
    "gcpProject": config.require("gcpProject"),
    "gcpRegion": region,
    "gcpZones": [f"{region}-b", f"{region}-c", f"{region}-d"],
    "databaseNodeType": "n2-standard-8",
    "databaseNodeCount": 3,
    "monitoringNodeType": "n2-standard-4",
    "clusterSize": 3,
})
spec = DatabaseSpec(
    name="gr-router",
    namespace="mysql",
    engine="group-replication",
    proxy="router",  # T2: Router saturates near 16 client threads; fine for a modest application
    load="read-heavy",
    storage_class="premium-rwo",
    storage_size="100Gi",
    disk_iops=3000,
)

target = build_cluster(settings)
namespace = create_namespace(spec.namespace, target, protect=True)
plan = monitoring.plan(target.monitoring_pool.node, operator=True, pmm_server=True, sysbench=False)
operator = PerconaOperator("gr-operator", OperatorArgs(engine=spec.engine, namespace=spec.namespace, target=target,
                                                       depends_on=[namespace]))
pmm = PmmServer("gr-pmm", PmmServerArgs(namespace=spec.namespace, target=target, resources=plan.pmm_server,
                                        storage_class="premium-rwo", protect=True, depends_on=[namespace]))
cluster = DatabaseCluster("gr-router", DatabaseClusterArgs(spec=spec, target=target, operator=operator, pmm=pmm,
                                                          depends_on=[namespace]))

pulumi.export("writer", f"{cluster.writer.host}:{cluster.writer.port}")  # the router's read-write port
pulumi.export("mysqldMemory", cluster.sizing.containers["mysqld"].memory_bytes)
pulumi.export("pmm", pmm.url)
