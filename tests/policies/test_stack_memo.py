"""Within one AnalyzeStack request the stack policies share one reading of the stack (its inputs and read_stack's
view): the engine benchmark's findings mix spent a fifth of the pack's stack time reading it once per policy."""

from __future__ import annotations

from harness import load_case, resolve_resource, run_stack
from percona_mysql_k8s.policies import _sdk
from percona_mysql_k8s.policies._catalog import MODULES
from percona_mysql_k8s.policies._readers import stack as stack_reader
from pulumi_policy import StackValidationPolicy

from tests.conftest import REPOSITORY

STACK_POLICIES = [module.POLICY for module in MODULES if isinstance(module.POLICY, StackValidationPolicy)]
CASE = REPOSITORY / "tests" / "policies" / "benchmark-requests" / "two-production-databases.json"


def _reads(monkeypatch, in_a_request: bool) -> tuple[int, list[str]]:
    reads = []
    real = stack_reader._read_stack
    monkeypatch.setattr(stack_reader, "_read_stack", lambda resources: reads.append(1) or real(resources))
    monkeypatch.setenv("PULUMI_STACK", "prod")
    resources = [resolve_resource(resource) for resource in load_case(CASE)["resources"]]
    monkeypatch.setattr(_sdk._local, "cache", {} if in_a_request else None, raising=False)
    messages = [message for policy in STACK_POLICIES for message in run_stack(policy, resources).messages]
    return len(reads), messages


def test_one_request_reads_the_stack_once_and_says_the_same(monkeypatch):
    shared, shared_messages = _reads(monkeypatch, in_a_request=True)
    every_time, messages = _reads(monkeypatch, in_a_request=False)
    assert shared == 1
    # outside a request (the SDK's own path): once per policy that reads it, the eight of pool-capacity,
    # pool-placement, load-generator-pool, pmm-versions-match, benchmark-requests, network-fence, data-volume-size,
    # zone-loss
    assert every_time == 8
    assert shared_messages == messages and any(message.startswith("R5:") for message in messages)
