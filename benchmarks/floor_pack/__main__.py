"""A policy pack that evaluates nothing (benchmarks/engine_policy_bench.py ``--floor``).

It reports, on every PerconaXtraDBCluster, as many findings as percona-mysql reports on the ``findings`` mix's
cluster, at the same levels and of about the same length (eleven mandatory, six advisory; ~165 characters of
description and ~320 of message each, the mean of percona-mysql's there), and nothing on any other resource, nor
on the stack. It runs in the checkout pack's virtualenv on percona-mysql's server and call speed-ups (the same
transport and deserialization), so what it adds to a preview is what the engine, the language host's proxy and the
two Python starts cost any pack: the floor under percona-mysql's figures.
"""

from percona_mysql_k8s.policies._fastpath import speed_up_calls
from percona_mysql_k8s.policies._sdk import share_deserialization
from percona_mysql_k8s.policies._server import serve_lean
from pulumi_policy import EnforcementLevel, PolicyPack, ResourceValidationPolicy, StackValidationPolicy

CLUSTER = "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster"
MANDATORY, ADVISORY = 17, 4  # tests/policies/test_engine_bench_programs.py: percona-mysql's count on that cluster
# as long as percona-mysql's on that cluster, on average (165 and 320 characters as the CLI prints them)
DESCRIPTION = "F0: a finding of the floor pack, which reads nothing of the resource " + "and reports it anyway, " * 4
MESSAGE = "F0: " + "a finding the floor pack reports without reading anything of the resource; " * 4 + "x" * 12


def _reporting(args, report_violation) -> None:
    if args.resource_type == CLUSTER:
        report_violation(MESSAGE)


def _policy(name: str, level: EnforcementLevel) -> ResourceValidationPolicy:
    return ResourceValidationPolicy(name=name, description=DESCRIPTION, enforcement_level=level, validate=_reporting)


speed_up_calls()
share_deserialization()
serve_lean()
PolicyPack(
    name="floor",
    policies=[
        *(_policy(f"floor-mandatory-{n}", EnforcementLevel.MANDATORY) for n in range(1, MANDATORY + 1)),
        *(_policy(f"floor-advisory-{n}", EnforcementLevel.ADVISORY) for n in range(1, ADVISORY + 1)),
        StackValidationPolicy(
            name="floor-stack",
            description="the stack, read and not judged",
            enforcement_level=EnforcementLevel.MANDATORY,
            validate=lambda args, report_violation: None,
        ),
    ],
)
