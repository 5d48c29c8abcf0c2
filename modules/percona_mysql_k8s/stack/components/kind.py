"""MysqlOnKind: the stack program on the kind target as one component (percona_mysql_k8s.stack.components).

Generated from Pulumi.yaml by `.venv/bin/python provider/generate.py`: do not edit here
(tests/packaging/test_component_package.py fails when this module is stale).
No `from __future__ import annotations` here: the provider host reads the annotations as objects.
"""

from typing import Any, TypedDict

import pulumi

from percona_mysql_k8s._tokens import token
from percona_mysql_k8s.stack.package import build


class MysqlOnKindArgs(TypedDict, total=False):
    """The inputs of MysqlOnKind: the kind stack's config keys (Pulumi.yaml, docs/clusters.md,
    docs/database.md), with their defaults."""

    cluster_name: str
    """Name of the Kubernetes cluster (and prefix of its node pools). Default: percona-mysql."""

    cluster_size: int
    """Database members (T1 - PXC 3/5, group replication 3/5/7). Default: 3."""

    ephemeral: bool
    """An ephemeral stack (kind) - allows fewer members and small proxies with the operator's unsafe flags, and no data protection. Default: false."""

    monitoring_node_count: int
    """Nodes in the monitoring pool. Default: 1."""

    daemonset_cpu: str
    """CPU requested per node by DaemonSets (Kubernetes quantity), subtracted from allocatable (K1); "" = the provider's default."""

    daemonset_memory: str
    """Memory requested per node by DaemonSets (Kubernetes quantity), subtracted from allocatable (K1); "" = the provider's default."""

    kind_host_share: str
    """auto: the kind workers split this machine (as Docker sees it) after its own and the control plane's share, and the sizing engine picks the richest layout it holds (members, PMM); or a fixed share (0-1] each kind node is modeled as (K1). Default: auto."""

    kind_host_cpu: str
    """CPUs of the machine the kind nodes share: a whole number from 1 to 8192 (e.g. 8 or 8000m; empty = this machine's)."""

    kind_host_memory: str
    """Memory of the machine the kind nodes share (Kubernetes quantity, at most 4Pi; empty = this machine's)."""

    kind_node_image: str
    """kindest/node image of the kind cluster. Default: kindest/node:v1.33.1."""

    accept_zone_loss: bool
    """Accept that losing one zone may stop the database: a production stack whose pools cannot keep a majority of the members through a zone's loss (fewer than three zones, nodes without zone labels) is refused unless this is true (K7). Default: false."""

    engine: str
    """pxc (XtraDB Cluster, Galera) or group-replication (Percona Server); fixed once a persistent stack is deployed (S4). Default: pxc."""

    proxy: str
    """haproxy (default), proxysql (PXC only) or router (group replication only). Default: haproxy."""

    load: str
    """Load profile - read-heavy, light-oltp, heavy-oltp or write-heavy. Default: light-oltp."""

    connections: int
    """max_connections per member; 0 derives the largest that fits (M6). Default: 0."""

    mysql_version: str
    """MySQL major version, 8.0 or 8.4. Default: 8.4."""

    namespace: str
    """Namespace of the database cluster; fixed once a persistent stack is deployed (S4). Default: mysql."""

    storage_class: str
    """Storage class of the data volumes (empty = the cluster default)."""

    storage_size: str
    """Data volume size per member: a Kubernetes quantity in whole bytes, ASCII digits, 1Gi to 64Ti. Default: 100Gi."""

    disk_iops: int
    """IOPS of one data volume (sizes innodb_io_capacity), 100 to 350000. Default: 3000."""

    log_collector: bool
    """PXC log collector sidecars. Default: true."""

    database_await: str
    """What pulumi up waits for on the database custom resource: ready (the operator reports status.state ready: every member joined, the proxies up) or reconciled (the operator has reconciled it once and written any status.state; an update returns once stored). Deletion always waits for the operator to remove its finalizer. Default: ready."""

    backup: bool
    """R1: scheduled backups (and PITR, see pitr) to object storage outside the cluster. gke/eks create the bucket and its identity; kind/existing need backupEndpoint, backupBucket and backupCredentialsSecret. false turns backups off, explicitly (the policy pack rejects that on production stacks). Default: true."""

    backup_schedule: str
    """R1: when full backups run, a cron expression as the operators read it (5 fields, UTC; @daily etc.; not @every); runs at least as far apart as a full backup of storageSize takes at 1200 MB/s. Default: 0 3 * * *."""

    backup_retention_days: int
    """R3: days of restore points to keep (production stacks: at least the pack's min_backup_retention_days, 7; at most 3650); the number of backups kept is derived from it and the schedule. Default: 7."""

    pitr: bool
    """R2: point-in-time recovery (PXC binlog collector, PS binlog server) on the backup storage. Default: true."""

    pitr_upload_seconds: int
    """R2: how often binary logs are uploaded (seconds): the most writes a restore can lose; at most backupRetentionDays. Default: 60."""

    backup_bucket: str
    """R1: the backup bucket. gke/eks: empty = <gcpProject>-<clusterName>-mysql-backups (GCS) or <clusterName>-<awsRegion>-mysql-backups (S3), created by the stack; kind/existing: the bucket at backupEndpoint."""

    backup_endpoint: str
    """R1 (kind/existing): an S3-compatible endpoint, e.g. https://minio.example.com:9000 (production: https and outside the cluster)."""

    backup_region: str
    """R1 (kind/existing): the region the S3-compatible endpoint signs with. Empty = us-east-1."""

    backup_credentials_secret: str
    """R4 (kind/existing): a Secret in the database namespace holding AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for backupEndpoint (created by you: the keys never enter the stack config)."""

    install_operator: bool
    """Install the Percona operator (false when the cluster already has it). Default: true."""

    create_namespace: bool
    """Create the database namespace with the operator. false: it exists already (made by you or your platform team, e.g. holding the backup credentials Secret of an existing cluster); the Kubernetes provider refuses to create an object that exists. Default: true."""

    install_pmm: bool
    """Install the PMM server (false when the cluster already has it). Default: true."""

    pmm_enabled: bool
    """Wire PMM clients into the database pods. Default: true."""

    pmm_server_host: str
    """PMM server host when installPmm is false (e.g. monitoring-service.pmm)."""

    sysbench_enabled: bool
    """Run the sysbench Job (prepare, warm-up, thread ladder). Off by default: a production stack runs a benchmark only on an explicit request (sysbenchRunId, sysbenchDataSize; R5); the kind stack turns it on. Default: false."""

    sysbench_run_id: str
    """A production stack's benchmark request (lowercase letters, digits, hyphens; at most 16): the Job runs once per id, never again because the database changed; a new id is a new run. Ephemeral stacks rerun on every change."""

    sysbench_data_size: str
    """Most data a production benchmark may prepare (Kubernetes quantity, e.g. 50Gi): the B4 data set is capped there. Required with sysbenchRunId on a production stack."""

    sysbench_threads: list[int]
    """The thread ladder (B3). Default: [1, 4, 16, 64, 256, 1024]."""

    sysbench_duration: int
    """Seconds per ladder step (B3). Default: 600."""

    sysbench_warmup: int
    """Warm-up seconds before the ladder (B2). Default: 300."""

    sysbench_rate: int
    """sysbench --rate (0 = unlimited), to find the ceiling without flow control (B3). Default: 0."""

    sysbench_cleanup: bool
    """Drop the sysbench schema after the run. Default: false."""

    operator_chart: str
    """Air-gapped installs: where the operator chart comes from. Empty = the pinned chart from the public Percona repository; an https:// Helm repository mirror; an https://....tgz archive; oci://registry/path/<chart>; or an absolute path to the chart's .tgz or directory (it must be the pinned chart and version)."""

    pmm_chart: str
    """Air-gapped installs: where the pmm chart comes from (same forms as operatorChart)."""

    operator_crds: str
    """Air-gapped installs: the operator's CRDs. Empty = the pinned public crd.yaml URL; an https:// mirror URL; or an absolute path to the release's crd.yaml."""

    image_registry: str
    """Air-gapped installs: a registry mirroring Docker Hub (host[:port][/path], no scheme); every image the stack names (operator, custom resource, PMM server, sysbench, helper jobs) is pulled as <imageRegistry>/<image>. Empty = Docker Hub."""

    network_policies: bool
    """R6: NetworkPolicies so database pods accept only their members, proxies, operator, PMM and backup Jobs, and proxies only clients. Default: true."""

    client_namespaces: list[str]
    """R6: namespaces besides the database namespace whose pods may reach the proxies."""

    client_pod_labels: list[str]
    """R6: only pods with these labels (key=value items) may reach the proxies; empty = any pod of those namespaces."""

    admission: str
    """The admission server: empty (none), enforce (refuse Percona custom resources that break a mandatory rule), warn (admit them with the findings as warnings) or audit (no webhook: judge the existing ones every admissionAuditSeconds, as Events and metrics). failurePolicy is Fail on production stacks, Ignore on ephemeral ones."""

    admission_image: str
    """The server's image, built from modules/percona_mysql_k8s/admission/Dockerfile (required with admission)."""

    admission_audit_seconds: int
    """Seconds between two audit sweeps of the existing Percona custom resources (30 to 86400). Default: 300."""

    admission_api_server_cidrs: list[str]
    """CIDR blocks the API server calls webhooks from: the server's NetworkPolicy admits only them to the webhook port (required on production stacks with enforce or warn; empty on an ephemeral stack admits any address to that port)."""

    db_cluster_name: str
    """Name of the database custom resource, at most 22 characters (empty = clusterName); fixed once a persistent stack is deployed (S4)."""

    pmm_storage_size: str
    """Data volume of the PMM server (Kubernetes quantity in whole bytes): at least ~1 GB per member per week of PMM's 30-day retention (12Gi for 3, 20Gi for 5, 28Gi for 7 members). Default: 20Gi."""

    pmm_server_token: pulumi.Input[str]
    """PMM 3 service-account token when installPmm is false (set it with pulumi config set --secret). Pass a secret."""


class MysqlOnKind(pulumi.ComponentResource):
    """Percona MySQL on a kind cluster made on the machine running the program (kind and Docker needed there): an ephemeral test bed sized to fit that machine."""

    kubeconfig: pulumi.Output[str]
    """A kubeconfig for the cluster the component made (a secret). It holds no token: kubectl runs the cloud's exec credential plugin (gke-gcloud-auth-plugin, aws eks get-token) with your own login."""

    cluster_name: pulumi.Output[str]
    """The Kubernetes cluster's name."""

    namespace: pulumi.Output[str]
    """The namespace of the database cluster."""

    writer_endpoint: pulumi.Output[str]
    """host:port of the writer endpoint (the proxy's Service) inside the cluster."""

    secret_name: pulumi.Output[str]
    """The Secret holding the database users' generated passwords."""

    database: pulumi.Output[dict[str, Any]]
    """The database cluster: name, namespace, engine, members, proxy, crVersion, writerEndpoint, secret, storageSize."""

    sizing: pulumi.Output[dict[str, Any]]
    """What the sizing engine decided for one member (resources, my.cnf, limits)."""

    monitoring_pool: pulumi.Output[dict[str, Any]]
    """How one monitoring node is shared (CPU and memory of each part)."""

    backups: pulumi.Output[dict[str, Any]] | None
    """Where the backups go, their schedule and retention, and the commands that list and restore them (absent when backups are off)."""

    pmm: pulumi.Output[dict[str, Any]] | None
    """The PMM server (installed here, or the existing one named)."""

    sysbench: pulumi.Output[dict[str, Any]] | None
    """Where the benchmark's results are (absent when sysbench is off)."""

    def __init__(self, name: str, args: MysqlOnKindArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(token("MysqlOnKind"), name, None, opts)
        build(self, "kind", args)
