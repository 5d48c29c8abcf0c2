"""The orders team's database: Percona XtraDB Cluster on a new GKE cluster, from the percona-mysql-k8s package.

The whole stack is one component, ``MysqlOnGke``: its inputs are the gke target's settings (docs/clusters.md and
docs/database.md of the package), validated as the package's own stack program validates them, and every size is
computed from the nodes. This program reads its settings from the stack's config (Pulumi.prod.yaml), so the offline
check (``percona-mysql-policy-check --stack prod``) and ``pulumi preview --policy-pack`` judge exactly what ``pulumi up``
creates.
"""

import pulumi
from percona_mysql_k8s.stack.components import MysqlOnGke

config = pulumi.Config()
database = MysqlOnGke(
    "orders",
    {
        "cluster_name": "orders",
        "gcp_project": config.require("gcpProject"),
        "gcp_region": config.require("gcpRegion"),
        "gcp_zones": config.require_object("gcpZones"),
        "database_node_type": config.require("databaseNodeType"),
        "gke_master_authorized_networks": config.get_object("gkeMasterAuthorizedNetworks") or [],
    },
)
pulumi.export("kubeconfig", database.kubeconfig)
pulumi.export("writer", database.writer_endpoint)
