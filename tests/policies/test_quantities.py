"""Quantities in messages are the user's own, or the shortest exact Kubernetes form."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.units import Schema
from percona_mysql_k8s.policies._readers.resources import mem, read_resources
from percona_mysql_k8s.policies._readers.values import Malformed


def test_mem_prefers_the_shortest_exact_notation():
    assert mem(2_000_000_000) == "2G"  # not 1953125Ki (2e9 / 1024 is whole, but 2G is what people write)
    assert mem(16 * 2**30) == "16Gi"  # binary wins when decimal is not exact
    assert mem(1024) == "1Ki"  # tie-free: 1Ki is shorter than 1024
    assert mem(1000) == "1k"
    assert mem(5_694_000_123).startswith("~")  # neither is exact: an approximation, marked as such


def test_resources_keep_the_text_the_user_wrote():
    block = {"requests": {"memory": "2G", "cpu": 1.5}, "limits": {"memory": "2000M", "cpu": "1500m"}}
    resources = read_resources(block, "spec.template.spec.containers[0].resources", Schema.BUILTIN)
    assert resources.memory_request == resources.memory_limit == 2_000_000_000
    assert (resources.written("memory_request"), resources.written("memory_limit")) == ("2G", "2000M")
    assert (resources.written("cpu_request"), resources.written("cpu_limit")) == ("1.5", "1500m")
    assert read_resources({"limits": {"memory": 17179869184}}, "x").written("memory_limit") == "17179869184"
    assert read_resources({}, "x").written("memory_limit") == "unset"


def test_a_custom_resource_quantity_is_read_as_its_crd_takes_it():
    """The CRDs' quantities are int-or-string: 1.5 as a JSON number is refused by the API server, so it
    is Malformed in a custom resource (and in chart values rendered into one), while a Pod takes it. A malformed
    quantity is raised to the judgement that reads it (the block's other quantities are read)."""
    with pytest.raises(Malformed, match="int-or-string"):
        _ = read_resources({"requests": {"cpu": 1.5}}, "spec.pxc.resources").cpu_request
    with pytest.raises(Malformed, match="pattern"):
        _ = read_resources({"limits": {"memory": " 2Gi"}, "requests": {"cpu": "1"}}, "spec.pxc.resources").memory_limit
    assert read_resources({"limits": {"memory": " 2Gi"}, "requests": {"cpu": "1"}}, "spec.pxc.resources").cpu_request == 1000
    assert (
        read_resources({"limits": {"memory": " 2Gi"}}, "spec.template.spec.containers[0].resources", Schema.BUILTIN).memory_limit
        == 2 * 2**30
    )
