"""EKS + Percona XtraDB Cluster (Galera) behind ProxySQL, with PMM.

The modules used directly: cluster settings -> EKS cluster -> operator -> PMM -> PXC. The database pool is
three r6i.2xlarge (memory-optimized: a larger buffer pool per core), sized by the engine for their
allocatable; the ProxySQL pods get their own sizes and a 2Gi volume.
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
settings = cluster_settings_from_config({
    "target": "eks",
    "clusterName": "pxc-proxysql",
    "awsRegion": config.get("awsRegion") or "eu-west-1",
    "databaseNodeType": "r6i.2xlarge",
    "databaseNodeCount": 3,
    "monitoringNodeType": "m6i.xlarge",
    "clusterSize": 3,
})
spec = DatabaseSpec(
    name="pxc-proxysql",
    namespace="pxc",
    engine="pxc",
    proxy="proxysql",  # L7: query rules and read/write split; HAProxy stays the default elsewhere (T2)
    load="heavy-oltp",
    mysql_version="8.0",
    storage_size="200Gi",
    disk_iops=3000,  # gp3 baseline
)

target = build_cluster(settings)
namespace = create_namespace(spec.namespace, target, protect=True)
plan = monitoring.plan(target.monitoring_pool.node, operator=True, pmm_server=True, sysbench=False)
operator = PerconaOperator("pxc-operator", OperatorArgs(engine="pxc", namespace=spec.namespace, target=target,
                                                        depends_on=[namespace]))
pmm = PmmServer("pxc-pmm", PmmServerArgs(namespace=spec.namespace, target=target, resources=plan.pmm_server,
                                         protect=True, depends_on=[namespace]))
cluster = DatabaseCluster("pxc-proxysql", DatabaseClusterArgs(spec=spec, target=target, operator=operator, pmm=pmm,
                                                             depends_on=[namespace]))

pulumi.export("writer", f"{cluster.writer.host}:{cluster.writer.port}")
pulumi.export("proxysql", {"cpu": cluster.sizing.containers["proxysql"].cpu_millicores,
                           "memoryBytes": cluster.sizing.containers["proxysql"].memory_bytes})
pulumi.export("maxConnections", cluster.sizing.connections)
