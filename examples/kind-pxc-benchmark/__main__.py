"""kind + a one-member PXC behind HAProxy, benchmarked by sysbench from the monitoring node. No PMM.

The smallest complete benchmark: an ephemeral kind cluster (the operator's unsafe size flags), the
member sized against a quarter of this machine, a data set sized against its buffer pool (B4), a
warm-up (B2) and a short thread ladder with B3's reporting. The results land in a ConfigMap.

The machine is the one running the program, or the one the stack config declares (``kindHostCpu`` and
``kindHostMemory``, e.g. a CI runner checking it for a workstation offline:
``percona-mysql-policy-check --program examples/kind-pxc-benchmark --stack dev --set kindHostCpu=8
--set kindHostMemory=32Gi``); ``kindHostShare`` overrides the quarter. A machine too small stops the program
with one line naming the setting to change.
"""

import pulumi
from percona_mysql_k8s.clusters import build_cluster, cluster_settings_from_config
from percona_mysql_k8s.core import monitoring
from percona_mysql_k8s.core.errors import InputError
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

config = pulumi.Config()
machine = {key: value for key in ("kindHostCpu", "kindHostMemory", "kindHostShare") if (value := config.get(key))}
try:
    settings = cluster_settings_from_config(
        {
            "target": "kind",
            "clusterName": "bench",
            "clusterSize": 1,
            "ephemeral": True,
            "kindHostShare": "0.25",
            **machine,
        }
    )
except InputError as error:
    raise pulumi.RunError(f"config: {error}") from None
spec = DatabaseSpec(
    name="bench",
    namespace="bench",
    engine="pxc",
    proxy="haproxy",
    cluster_size=1,
    ephemeral=True,
    log_collector=False,
    pmm_enabled=False,
    load="read-heavy",
    storage_size="16Gi",
)

target = build_cluster(settings)
namespace = create_namespace(spec.namespace, target)
try:
    plan = monitoring.plan(target.monitoring_pool.node, operator=True, pmm_server=False, sysbench=True)
except InputError as error:
    raise pulumi.RunError(f"config: {error}") from None
operator = PerconaOperator(
    "bench-operator", OperatorArgs(engine="pxc", namespace=spec.namespace, target=target, depends_on=[namespace])
)
cluster = DatabaseCluster("bench", DatabaseClusterArgs(spec=spec, target=target, operator=operator, depends_on=[namespace]))
bench = Sysbench(
    "bench-sysbench",
    SysbenchArgs(
        cluster=cluster, target=target, threads=(1, 2, 4, 8), duration_seconds=120, warmup_seconds=60, resources=plan.sysbench
    ),
)

pulumi.export("results", Sysbench.read_command(spec.namespace, bench.results_name))
pulumi.export(
    "dataset", {"tables": bench.plan.dataset.tables, "rows": bench.plan.dataset.table_size, "bound": bench.plan.dataset.bound}
)
