"""The Node cache keeps what the Node reading needs, and changes its generation only when that changes."""

from __future__ import annotations

from percona_mysql_k8s.admission.nodes import NodeCache, trimmed
from test_node_pools import node


def full_node(name: str, **kwargs) -> dict:
    found = node(name, **kwargs)
    found["metadata"].update({"resourceVersion": "7", "managedFields": [{"manager": "kubelet"}]})
    found["status"].update({"images": [{"names": ["a" * 100]}], "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]})
    found["status"]["conditions"].append({"type": "MemoryPressure", "status": "False"})
    return found


def test_a_node_is_trimmed_to_what_the_reading_needs():
    kept = trimmed(full_node("db-0"))
    assert set(kept["status"]) == {"allocatable", "conditions"} and kept["status"]["conditions"] == [
        {"type": "Ready", "status": "True"}
    ]
    assert "managedFields" not in kept["metadata"] and kept["spec"]["taints"]


def test_the_generation_follows_changes_not_heartbeats():
    cache = NodeCache()
    cache.replace([full_node("db-0"), full_node("db-1")])
    assert cache.listed.is_set()
    generation, nodes = cache.snapshot()
    assert [n["metadata"]["name"] for n in nodes] == ["db-0", "db-1"]
    beat = full_node("db-0")
    beat["metadata"]["resourceVersion"] = "8"
    cache.apply("MODIFIED", beat)
    assert cache.snapshot()[0] == generation  # nothing the rules read changed
    cache.apply("MODIFIED", full_node("db-0", memory="12Gi"))
    assert cache.snapshot()[0] == generation + 1
    cache.apply("DELETED", full_node("db-1"))
    cache.apply("ADDED", full_node("db-2"))
    generation, nodes = cache.snapshot()
    assert [n["metadata"]["name"] for n in nodes] == ["db-0", "db-2"] and nodes[0]["status"]["allocatable"]["memory"] == "12Gi"
