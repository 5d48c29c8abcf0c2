"""C1's answers are computed once per custom resource of a stack: the resource policies (Analyze) and the stack
policies (AnalyzeStack, which reads every resource again in the same order) share them."""

import copy

from percona_mysql_k8s.policies._readers import admission as memo

from benchmarks.engine_programs import FINDINGS_CLUSTER

PXC = "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster"


def test_a_stack_of_a_thousand_clusters_is_admitted_once_per_cluster(monkeypatch):
    calls = []
    real = memo.admit
    monkeypatch.setattr(memo, "admit", lambda *args, **kw: calls.append(args[2]["metadata"]["name"]) or real(*args, **kw))
    monkeypatch.setattr(memo, "_answers", type(memo._answers)())
    stack = []
    for index in range(1000):  # the engine benchmark's largest program
        cluster = copy.deepcopy(FINDINGS_CLUSTER)
        cluster["metadata"]["name"] = f"cluster-{index}"
        stack.append(cluster)
    first = [memo.admission(PXC, cluster) for cluster in stack]  # Analyze, one request per resource
    again = [memo.admission(PXC, cluster) for cluster in stack]  # AnalyzeStack, the same order
    assert len(calls) == 1000
    assert all(a is b for a, b in zip(first, again, strict=True))


def test_a_changed_cluster_is_admitted_again(monkeypatch):
    monkeypatch.setattr(memo, "_answers", type(memo._answers)())
    cluster = copy.deepcopy(FINDINGS_CLUSTER)
    before = memo.admission(PXC, cluster)
    cluster["spec"]["pxc"]["size"] = "three"  # the API server refuses a string where the schema has an integer
    after = memo.admission(PXC, cluster)
    assert not before.refused and after.refused
