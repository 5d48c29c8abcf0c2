"""Every policy of the pack, in the order the engine lists them."""

from __future__ import annotations

from importlib import import_module

from . import PACK_DESCRIPTION, PACK_NAME  # noqa: F401 - the pack's name, here as before

# Resource policies, then stack policies; one module each.
POLICY_MODULES = (
    "crd_admission",  # first: the other policies read only what the API server accepts
    "operator_validation",  # C2: what the operator refuses before it renders anything
    "gr_flow_control",
    "failover_brownout",
    "replica_parallel_workers",
    "galera_flow_control",
    "memory_split",
    "container_budgets",
    "cluster_size",
    "proxy_choice",
    "dedicated_pools",
    "load_generator_placement",
    "tls_on",
    "data_protection",
    "plaintext_passwords",
    "public_endpoints",
    "pmm_client_version",
    "semi_sync",
    "writer_endpoint",
    "backup_schedule",
    "backup_pitr",
    "backup_retention",
    "backup_endpoints",
    "data_volume",
    "zone_spread",
    # advisory
    "gr_flow_control_quota",
    "gr_consistency",
    "galera_applier_threads",
    "galera_sync_wait",
    "derived_connections",
    "proxy_backend_connections",
    "cpu_requests",
    "probe_timeouts",
    "sysbench_warmup",
    "sysbench_reporting",
    # stack policies
    "pool_capacity",
    "pool_placement",
    "load_generator_pool",
    "pmm_versions_match",
    "benchmark_requests",
    "network_fence",
    "backup_buckets",
    "data_volume_size",
    "zone_loss",
)

# The rules of the catalogue (core.rules.RULES) that no policy decides, and why: what they judge is not in the
# resources. tests/policies/test_registries.py fails when a rule has neither a policy nor a line here.
NOT_DECIDED_FROM_RESOURCES = {
    "K1": "the allocatable model itself: sizing applies it, and pool-capacity (K5) judges the pods against it",
    "B4": "data size against the buffer pool needs the load (the data a benchmark writes), not the resources",
}

MODULES = tuple(import_module(f"{__package__}.{name}") for name in POLICY_MODULES)
SPECS = tuple(module.SPEC for module in MODULES)
ALL_POLICIES = [module.POLICY for module in MODULES]
POLICIES_BY_NAME = {policy.name: policy for policy in ALL_POLICIES}  # the pack's stand-ins find theirs here (_lazy)
