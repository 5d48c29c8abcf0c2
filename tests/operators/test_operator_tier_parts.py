"""The operator tier's own parts, without a cluster (these run in the unit suite): its inputs come from the stack
program, its Nodes from the stacks' pools, its StatefulSet members as the controller makes them, and its comparison
of the pack's model with a render can fail."""

from __future__ import annotations

import copy

import pytest
from kubernetes import client as k8s_client
from operator_cluster import POOL_LABEL, THIRD_POOL, member_claims, member_pod, pool_nodes
from operator_inputs import PMM_TOKEN_KEY, STACK_CASES, STACKS, StackCase, cluster_secret, custom_resource, with_pmm_token
from render_compare import compare_pod, expected_statefulsets
from stack_deployment import expected_statefulsets as rendered_here


def test_every_shipped_stack_is_a_case_with_each_engine():
    assert set(STACKS) == {"gke", "eks", "kind", "existing"}
    assert {(case.stack, case.engine) for case in STACK_CASES} == {
        (stack, engine) for stack in STACKS for engine in ("pxc", "group-replication")
    }
    assert len({case.namespace for case in STACK_CASES}) == len(STACK_CASES)


@pytest.mark.parametrize("case", [StackCase("gke", "pxc"), StackCase("eks", "group-replication")], ids=lambda c: c.id)
def test_the_inputs_are_the_stack_programs_own_custom_resource_and_secrets(case):
    objects = case.objects()
    cr = custom_resource(objects)
    assert cr["kind"] == ("PerconaXtraDBCluster" if case.engine == "pxc" else "PerconaServerMySQL")
    assert {body["metadata"]["namespace"] for body in objects} == {case.namespace}
    assert cluster_secret(objects)["metadata"]["name"] == cr["spec"]["secretsName"]
    # the sizing the tier expects is the program's own decoding of the same config
    sizing = case.settings().sizing
    mysqld = cr["spec"]["pxc" if case.engine == "pxc" else "mysql"]["resources"]["limits"]["memory"]
    assert mysqld.endswith("Mi") and int(mysqld[:-2]) * 2**20 == sizing.containers["mysqld"].memory_bytes


def test_the_pmm_token_stands_in_for_the_token_job_once():
    case = StackCase("kind", "pxc")
    objects = case.objects()
    assert PMM_TOKEN_KEY not in (cluster_secret(objects).get("data") or {})
    patched = with_pmm_token(objects, case.id)
    assert PMM_TOKEN_KEY in cluster_secret(patched)["data"]
    assert with_pmm_token(patched, case.id) == patched
    off = copy.deepcopy(objects)
    custom_resource(off)["spec"]["pmm"]["enabled"] = False
    assert with_pmm_token(off, case.id) == off


def test_the_nodes_are_the_pools_the_sizing_assumes_plus_an_untainted_third_pool():
    settings = StackCase("gke", "pxc").settings()
    nodes = pool_nodes("t", settings)
    database = [n for n in nodes if n.pool == "database"]
    assert len(database) == settings.cluster.database_pool.node_count == 3
    assert all(n.taints and n.labels[POOL_LABEL] == "database" for n in database)
    assert database[0].cpu_millicores == settings.cluster.database_pool.node.allocatable.cpu_millicores
    third = [n for n in nodes if n.pool == THIRD_POOL]
    assert len(third) == 1 and not third[0].taints and third[0].labels[POOL_LABEL] == THIRD_POOL


def _statefulset() -> k8s_client.V1StatefulSet:
    labels = {"app.kubernetes.io/instance": "c1", "app.kubernetes.io/component": "pxc"}
    return k8s_client.V1StatefulSet(
        metadata=k8s_client.V1ObjectMeta(name="c1-pxc", namespace="ns", uid="u-1"),
        spec=k8s_client.V1StatefulSetSpec(
            replicas=3,
            service_name="c1-pxc",
            selector=k8s_client.V1LabelSelector(match_labels=labels),
            template=k8s_client.V1PodTemplateSpec(
                metadata=k8s_client.V1ObjectMeta(labels=labels),
                spec=k8s_client.V1PodSpec(
                    containers=[k8s_client.V1Container(name="pxc", image="pxc")],
                    volumes=[k8s_client.V1Volume(name="tmp", empty_dir={})],
                ),
            ),
            volume_claim_templates=[k8s_client.V1PersistentVolumeClaim(metadata=k8s_client.V1ObjectMeta(name="datadir"))],
        ),
        status=k8s_client.V1StatefulSetStatus(replicas=1, update_revision="c1-pxc-abc"),
    )


def test_a_member_is_the_pod_the_statefulset_controller_makes():
    api = k8s_client.ApiClient()
    pod = member_pod(_statefulset(), 2, api)
    assert pod["metadata"]["name"] == "c1-pxc-2"
    assert pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] == "c1-pxc-2"
    assert pod["metadata"]["labels"]["controller-revision-hash"] == "c1-pxc-abc"
    assert pod["metadata"]["ownerReferences"][0] | {"uid": "u-1", "controller": True} == pod["metadata"]["ownerReferences"][0]
    assert (pod["spec"]["hostname"], pod["spec"]["subdomain"]) == ("c1-pxc-2", "c1-pxc")
    claims = {v["name"]: v.get("persistentVolumeClaim") for v in pod["spec"]["volumes"]}
    assert claims == {"tmp": None, "datadir": {"claimName": "datadir-c1-pxc-2"}}
    assert [c["metadata"]["name"] for c in member_claims(_statefulset(), 2, api)] == ["datadir-c1-pxc-2"]


def _rendered_template(cr: dict, name: str) -> dict:
    """A template exactly as the pack models the pod: the comparison's starting point."""
    model = expected_statefulsets(cr)[name]
    spec = {
        "containers": [{"name": c.name, "resources": c.raw} for c in model.containers],
        "initContainers": [{"name": c.name, "resources": c.raw} for c in model.init_containers],
        "nodeSelector": dict(model.placement.node_selector),
        "tolerations": [dict(t) for t in model.placement.tolerations],
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": model.anti_affinity_key}
                ]
            }
        },
    }
    return {"metadata": {"labels": {"app": "x"}}, "spec": spec}


def test_the_comparison_finds_each_kind_of_difference():
    cr = custom_resource(StackCase("gke", "pxc").objects())
    name = f"{cr['metadata']['name']}-pxc"
    model = expected_statefulsets(cr)[name]
    template = _rendered_template(cr, name)
    assert compare_pod(model, template, "Guaranteed", name).differences == []
    changes = {
        "containers": lambda t: t["spec"]["containers"].pop(),
        "container pxc requests/limits": lambda t: t["spec"]["containers"][0].update(resources={}),
        "init containers": lambda t: t["spec"]["initContainers"].clear(),
        "nodeSelector": lambda t: t["spec"]["nodeSelector"].clear(),
        "tolerations": lambda t: t["spec"]["tolerations"].clear(),
        "required anti-affinity": lambda t: t["spec"].pop("affinity"),
    }
    for what, change in changes.items():
        broken = copy.deepcopy(template)
        change(broken)
        found = compare_pod(model, broken, "Guaranteed", name).differences
        assert found and what in found[0], (what, found)
    assert "QoS class" in compare_pod(model, template, "Burstable", name).differences[0]


def test_what_the_operators_render_here():
    assert rendered_here(custom_resource(StackCase("gke", "pxc").objects())) == ["gke-mysql-pxc", "gke-mysql-haproxy"]
    assert rendered_here(custom_resource(StackCase("eks", "group-replication").objects())) == ["eks-mysql-mysql"]
