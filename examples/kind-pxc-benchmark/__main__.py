"""kind + a one-member PXC behind HAProxy, benchmarked by sysbench from the monitoring node. No PMM.

The smallest complete benchmark: an ephemeral kind cluster (the operator's unsafe size flags), the
member sized against a quarter of this machine, a data set sized against its buffer pool (B4), a
warm-up (B2) and a short thread ladder with B3's reporting. The results land in a ConfigMap.
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
    Sysbench,
    SysbenchArgs,
    create_namespace,
)

settings = cluster_settings_from_config({
    "target": "kind",
    "clusterName": "bench",
    "clusterSize": 1,
    "ephemeral": True,
    "kindHostShare": "0.25",
})
spec = DatabaseSpec(name="bench", namespace="bench", engine="pxc", proxy="haproxy", cluster_size=1, ephemeral=True,
                    log_collector=False, pmm_enabled=False, load="read-heavy", storage_size="10Gi")

target = build_cluster(settings)
namespace = create_namespace(spec.namespace, target)
plan = monitoring.plan(target.monitoring_pool.node, operator=True, pmm_server=False, sysbench=True)
operator = PerconaOperator("bench-operator", OperatorArgs(engine="pxc", namespace=spec.namespace, target=target,
                                                          depends_on=[namespace]))
cluster = DatabaseCluster("bench", DatabaseClusterArgs(spec=spec, target=target, operator=operator, depends_on=[namespace]))
bench = Sysbench("bench-sysbench", SysbenchArgs(cluster=cluster, target=target, threads=(1, 2, 4, 8),
                                                duration_seconds=120, warmup_seconds=60, resources=plan.sysbench))

pulumi.export("results", Sysbench.read_command(spec.namespace, bench.results_name))
pulumi.export("dataset", {"tables": bench.plan.dataset.tables, "rows": bench.plan.dataset.table_size,
                          "bound": bench.plan.dataset.bound})
