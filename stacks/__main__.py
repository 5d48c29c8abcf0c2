"""The stack program: Percona MySQL on Kubernetes, sized from the nodes, monitored and benchmarked.

1. Read every config key and validate the whole stack (percona_mysql_k8s.stack.settings): a bad value stops the
   program with one line naming the key and the rule, before any resource is registered. So does a protected
   stack's change of engine, cluster name or namespace (S4, percona_mysql_k8s.stack.identity).
2. Cluster target (GKE, EKS, kind or an existing cluster) with a database and a monitoring pool.
3. Namespace, CRDs and the Percona operator (unless ``installOperator: false``).
4. PMM server on the monitoring pool (unless ``installPmm: false``).
5. NetworkPolicies around the database pods and proxies (unless ``networkPolicies: false``, R6); the
   backup storage (gke: a GCS bucket and a service account scoped to it; eks: an S3 bucket, KMS key and an IAM
   user scoped to them; each key only in a Kubernetes Secret; kind/existing: the S3-compatible endpoint in
   config; unless ``backup: false``, R1-R4); then the database
   cluster: passwords, Secret, PMM token, the custom resource with every size from the sizing engine, its
   proxy, its backup schedule and point-in-time recovery.
6. the sysbench Job on the monitoring pool: schema, prepare, warm-up, thread ladder (unless
   ``sysbenchEnabled: false``).

Steps 2-6 are percona_mysql_k8s.stack.program, which the package's components (provider/, for TypeScript, YAML,
Go, C#) deploy too. See docs/database.md.
"""

from __future__ import annotations

import pulumi
from percona_mysql_k8s._extras import MissingExtraError
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.stack.identity import check_identity, own_previous_outputs
from percona_mysql_k8s.stack.settings import PMM_TOKEN_KEY, all_keys, check_config_keys, stack_settings_from_config
from pulumi.runtime import config as runtime_config

try:  # the components need a target's extra (pip install "percona-mysql-k8s[gke]"): one line naming it, no traceback
    from percona_mysql_k8s.stack.program import deploy, outputs
except MissingExtraError as error:
    raise pulumi.RunError(str(error)) from None

config = pulumi.Config()
# every config key the engine handed over, and which of them it holds encrypted
engine_config = {
    key: runtime_config.get_config(key) for key in set(runtime_config.CONFIG.get()) | set(runtime_config.get_config_env())
}
secret_keys = {key for key in engine_config if runtime_config.is_config_secret(key)} | set(
    runtime_config.get_config_secret_keys_env()
)
try:
    check_config_keys(engine_config, project=pulumi.get_project(), secret_keys=secret_keys)
    raw = {key: value for key in all_keys() if (value := config.get(key)) is not None}
    # read without Config.get, which would log the secret's use in plain text
    token_set = bool(runtime_config.get_config(f"{pulumi.get_project()}:{PMM_TOKEN_KEY}"))
    settings = stack_settings_from_config(raw, pmm_token_set=token_set)
except InputError as error:
    raise pulumi.RunError(f"stack config: {error}") from error

database = settings.database
persistent = not database.ephemeral

# S4: on a protected stack, a new engine, cluster name or namespace would replace the database; stop here,
# before anything is registered, if the config changed one since the last deployment
try:
    check_identity(
        own_previous_outputs().get("database") if persistent else None,
        {"engine": database.engine, "name": database.name, "namespace": database.namespace, "storageSize": database.storage_size},
        ephemeral=database.ephemeral,
    )
except InputError as error:
    raise pulumi.RunError(f"stack config: {error}") from error

external_pmm = settings.pmm.enabled and not settings.pmm.install
try:  # the kind target checks for kind and Docker on this machine before creating anything
    deployment = deploy(settings, pmm_token=config.require_secret(PMM_TOKEN_KEY) if external_pmm else None)
except InputError as error:
    raise pulumi.RunError(f"stack config: {error}") from error
except MissingExtraError as error:  # the target's providers are an extra of the distribution
    raise pulumi.RunError(str(error)) from None

for name, value in outputs(deployment).items():
    pulumi.export(name, value)
