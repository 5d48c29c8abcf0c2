"""Every shipped stack, with each engine it can select, reconciled by the real operator: read back from the cluster.

For each stack case (operator_inputs.STACK_CASES: gke, eks, kind, existing x PXC, group replication) the stack
program's own custom resource and Secrets go to the tier's control plane, onto Nodes shaped like the stack's pools
plus an untainted third pool (stack_deployment.deploy), with the real operator, kube-scheduler and kwok running.
What the operator rendered is then compared with what the stack's sizing decided (read from the program's own
decoding of the config, ``StackSettings.sizing``, never from the custom resource):

* every database and proxy pod is Guaranteed (``status.qosClass``, computed by the API server);
* every container, init containers and sidecars included, has the requests and limits the sizing gave it;
* the my.cnf in the operator's ConfigMaps, read as mysqld reads it, is the sizing's;
* kube-scheduler puts each member on its own database-pool Node, and no pod of the stack anywhere else;
* the PMM client runs where PMM is on; the proxy StatefulSet (PXC) and the PodDisruptionBudgets exist;
* the operator logs no ERROR and leaves the custom resource ``initializing`` (its own status, read, never written);
* the pack's model of the render agrees with it field by field (render_compare);
* a size change in the stack config re-renders in place: the same StatefulSet, new resources.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from operator_cluster import POOL_LABEL, wait_for
from operator_inputs import PXC, RESIZE, STACK_CASES, StackCase
from percona_mysql_k8s.core.mycnf import effective_options, render
from percona_mysql_k8s.core.qos import GUARANTEED
from percona_mysql_k8s.policies._readers.operator_pods import PXC_INIT_DEFAULT
from render_compare import (
    amounts,
    auto_config_name,
    compare_pod,
    expected_auto_config,
    expected_statefulsets,
    rendered_auto_config,
)
from render_spread import compare_spread
from stack_deployment import Deployment, deploy, live_cr, resize

pytestmark = pytest.mark.operators
REPOSITORY = Path(__file__).resolve().parents[2]
CASES = [pytest.param(case, id=case.id) for case in STACK_CASES]
# What the sizing calls each container of the mysqld pod and what the operator names it (PXC pxc, PS mysql).
MYSQLD = {"pxc": "pxc", "ps": "mysql"}


def deployed(tier, case: StackCase) -> Deployment:
    """The case on the cluster, deployed once (cases deploy one after another: stack_deployment)."""
    return tier.deployed.get(case.id) or deploy(tier, case)


def statefulset_pods(tier, deployment: Deployment) -> dict[str, list]:
    pods = tier.core.list_namespaced_pod(deployment.namespace).items
    found: dict[str, list] = {name: [] for name in deployment.statefulsets}
    for pod in pods:
        for ref in pod.metadata.owner_references or []:
            if ref.kind == "StatefulSet" and ref.name in found:
                found[ref.name].append(pod)
    return found


def template(tier, deployment: Deployment, name: str) -> dict:
    sts = tier.apps.read_namespaced_stateful_set(name, deployment.namespace)
    return tier.api.sanitize_for_serialization(sts.spec.template)


def sizing_budgets(deployment: Deployment, statefulset: str) -> dict[str, tuple[int, int, int, int]]:
    """Container name -> (cpu request, cpu limit, memory request, memory limit) the sizing decided for the pods of
    one StatefulSet: the sizing's pod composition (``SizingResult.pods``: mysqld's pod, one proxy pod) with its
    containers' request = limit (plan.database.pods.resources writes both)."""
    sizing = deployment.settings.sizing
    pod = "mysqld" if statefulset.endswith(("-pxc", "-mysql")) else "proxy"
    budgets = {}
    for name in sizing.pods[pod]:
        size = sizing.containers[name]
        rendered = MYSQLD[deployment.case.operator] if name == "mysqld" else name
        budgets[rendered] = (size.cpu_millicores, size.cpu_millicores, size.memory_bytes, size.memory_bytes)
    return budgets


def init_budgets(deployment: Deployment, statefulset: str, containers: dict) -> dict[str, tuple]:
    """The sizing budgets no init container: the operators decide them. PXC gives each one its default limits (50M /
    50m, the requests defaulted to them: pxc_types.go CheckNSetDefaults); PS gives mysql-init the mysqld container's
    resources (pkg/k8s/init_image.go InitContainer). Neither adds to the member's budget: a pod reserves the larger of
    its containers' sum and its largest init container."""
    if deployment.case.operator == "ps":
        return {"mysql-init": containers["mysql"]}
    default = amounts(PXC_INIT_DEFAULT)
    default = (default[1], default[1], default[3], default[3])
    names = ["pxc-init"] if statefulset.endswith("-pxc") else ["pxc-init", f"{statefulset.rsplit('-', 1)[1]}-init"]
    return dict.fromkeys(names, default)


# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_every_database_and_proxy_pod_is_guaranteed(tier, case):
    deployment = deployed(tier, case)
    pods = [pod for members in statefulset_pods(tier, deployment).values() for pod in members]
    assert pods
    classes = {pod.metadata.name: pod.status.qos_class for pod in pods}
    print(f"{case.id}: {classes}")
    assert set(classes.values()) == {GUARANTEED}, classes


@pytest.mark.parametrize("case", CASES)
def test_every_container_has_the_sizings_budget(tier, case):
    deployment = deployed(tier, case)
    for name, members in statefulset_pods(tier, deployment).items():
        expected = sizing_budgets(deployment, name)
        for pod in members:
            spec = tier.api.sanitize_for_serialization(pod.spec)
            got = {c["name"]: amounts(c.get("resources")) for c in spec["containers"]}
            assert got == expected, f"{pod.metadata.name}: containers {got} != the sizing's {expected}"
            init = {c["name"]: amounts(c.get("resources")) for c in spec.get("initContainers") or []}
            assert init == init_budgets(deployment, name, got), f"{pod.metadata.name}: init containers {init}"
            total = (sum(c[0] for c in got.values()), sum(c[2] for c in got.values()))
            assert all(a[0] <= total[0] and a[2] <= total[1] for a in init.values()), f"an init container outgrows {total}"


@pytest.mark.parametrize("case", CASES)
def test_the_operators_mycnf_is_the_sizings(tier, case):
    deployment = deployed(tier, case)
    operator, name, namespace = case.operator, deployment.name, deployment.namespace
    component = "pxc" if operator == "pxc" else "mysql"
    key = "init.cnf" if operator == "pxc" else "my.cnf"
    user = wait_for(f"ConfigMap {name}-{component}", lambda: _configmap(tier, namespace, f"{name}-{component}"))
    # the auto-tuning layer: PXC writes auto-config.cnf (pkg/pxc/app/config/configmap.go NewAutoTuneConfigMap), PS my.cnf
    auto_name, auto_key = auto_config_name(deployment.cr)
    auto = _configmap(tier, namespace, auto_name)
    if auto is not None:
        assert set(auto.data or {}) == {auto_key}, f"{auto_name} holds {sorted(auto.data or {})}, read as {auto_key}"
    version = deployment.settings.database.mysql_version
    auto_text = (auto.data or {}).get(auto_key) if auto else None
    rendered = effective_options(operator, user.data[key], version, auto_config=auto_text)
    sizing = deployment.settings.sizing.mysqld
    expected = effective_options(operator, render(sizing, "mysqld" if operator == "pxc" else None), version)
    assert expected.values(), "the sizing wrote no option"
    assert not rendered.undecided and not expected.undecided
    wrong = {k: (v, rendered.values().get(k)) for k, v in expected.values().items() if rendered.values().get(k) != v}
    assert not wrong, f"{case.id}: option -> (the sizing's, mysqld reads from the operator's ConfigMaps): {wrong}"


def _configmap(tier, namespace: str, name: str):
    from kubernetes.client.rest import ApiException

    try:
        return tier.core.read_namespaced_config_map(name, namespace)
    except ApiException as error:
        if error.status == 404:
            return None
        raise


@pytest.mark.parametrize("case", CASES)
def test_each_member_runs_on_its_own_database_node_and_nothing_elsewhere(tier, case):
    """The members and proxies (the operator's StatefulSets) on the database pool, one per Node; any other pod of the
    stack (the PXC binlog collector, backup Jobs) on the monitoring pool, where the plan places it (K4, K5); none on
    the third pool, which nothing of the stack selects."""
    deployment = deployed(tier, case)
    pools = {node.name: node.pool for node in deployment.nodes}
    members = statefulset_pods(tier, deployment)
    for name, pods in members.items():
        nodes = [pod.spec.node_name for pod in pods]
        replicas = tier.apps.read_namespaced_stateful_set(name, deployment.namespace).spec.replicas
        assert len(pods) == replicas, f"{name}: {len(pods)} pods for {replicas} members"
        assert {pools.get(node) for node in nodes} == {"database"}, f"{name}: pods on {nodes}, pools {pools}"
        assert len(set(nodes)) == len(nodes), f"{name}: two members share a Node: {nodes}"
        for pod in pods:  # the Node as the cluster holds it, not as the tier meant it
            assert tier.core.read_node(pod.spec.node_name).metadata.labels[POOL_LABEL] == "database"
    placed = {pod.metadata.name for pods in members.values() for pod in pods}
    others = [pod for pod in tier.core.list_namespaced_pod(deployment.namespace).items if pod.metadata.name not in placed]
    wrong = [
        (pod.metadata.name, pools.get(pod.spec.node_name)) for pod in others if pools.get(pod.spec.node_name) != "monitoring"
    ]
    assert not wrong, f"pods of {case.id} outside the monitoring pool: {wrong}"


@pytest.mark.parametrize("case", CASES)
def test_the_pmm_client_runs_where_pmm_is_on(tier, case):
    deployment = deployed(tier, case)
    assert deployment.settings.database.pmm_enabled, f"{case.id}: the stack runs PMM (the variants turn it off)"
    for members in statefulset_pods(tier, deployment).values():
        for pod in members:
            assert "pmm-client" in [c.name for c in pod.spec.containers], f"{pod.metadata.name} has no pmm-client"


@pytest.mark.parametrize("case", CASES)
def test_the_proxy_statefulset_and_the_disruption_budgets_exist(tier, case):
    deployment = deployed(tier, case)
    name, namespace = deployment.name, deployment.namespace
    budgets = {}
    if case.engine == PXC:
        proxy = f"{name}-{deployment.settings.database.proxy}"
        assert proxy in deployment.statefulsets
        assert tier.apps.read_namespaced_stateful_set(proxy, namespace).spec.replicas == deployment.settings.database.proxy_size
        wanted = {f"{name}-pxc", proxy}
    else:  # the PS operator renders the proxy once mysql-0 is Ready: docs/operators.md
        wanted = {f"{name}-mysql"}

    def all_there():  # a PDB follows its StatefulSet into the operator's cache: one reconcile later at most
        budgets.update({pdb.metadata.name: pdb for pdb in tier.policy.list_namespaced_pod_disruption_budget(namespace).items})
        return wanted <= set(budgets)

    try:
        wait_for(f"PodDisruptionBudgets {sorted(wanted)}", all_there, timeout=60)
    except TimeoutError:
        pytest.fail(f"PodDisruptionBudgets {sorted(budgets)}, wanted {sorted(wanted)}")
    for budget in wanted:
        assert budgets[budget].spec.max_unavailable == 1  # the plan's podDisruptionBudget: {maxUnavailable: 1}


@pytest.mark.parametrize("case", CASES)
def test_the_operator_logs_no_error_and_leaves_the_cluster_initializing(tier, case):
    deployment = deployed(tier, case)
    cr = live_cr(tier, deployment)
    assert (cr.get("status") or {}).get("state") == "initializing", cr.get("status")
    assert not tier.errors(case.operator, deployment.namespace)


@pytest.mark.parametrize("case", CASES)
def test_the_packs_model_of_the_render_agrees(tier, case):
    deployment = deployed(tier, case)
    expected = expected_statefulsets(deployment.cr)
    assert sorted(expected) == sorted(deployment.statefulsets)
    differences, compared = [], 0
    for name, model in expected.items():
        pods = statefulset_pods(tier, deployment)[name]
        comparison = compare_pod(model, template(tier, deployment, name), pods[0].status.qos_class, name)
        differences += comparison.differences
        compared += len(comparison.compared)
        spread = compare_spread(deployment.cr, model, template(tier, deployment, name), name)  # K7's fields
        differences += spread.differences
        compared += len(spread.compared)
    configmap, key = auto_config_name(deployment.cr)
    auto = _configmap(tier, deployment.namespace, configmap)
    rendered = rendered_auto_config((auto.data or {}).get(key) if auto else None)
    if rendered != expected_auto_config(deployment.cr):
        differences.append(f"{configmap}: the pack says {expected_auto_config(deployment.cr)}, the operator wrote {rendered}")
    print(f"{case.id}: {compared + 1} fields compared")
    assert not differences, "\n".join(differences)


# ---------------------------------------------------------------------------------------------------------
# docs/operators.md shows one rendered pod of each stack, as the operator rendered it


DOCS = REPOSITORY / "docs" / "operators.md"
BEGIN, END = (
    "<!-- BEGIN RENDERED PODS (scripts/operators.sh run-tier -k docs; OPERATOR_TIER_WRITE_DOCS=1 rewrites) -->",
    "<!-- END RENDERED PODS -->",
)


def _quantity(resources: dict, kind: str, name: str) -> str:
    return str(((resources or {}).get(kind) or {}).get(name, "-"))


def rendered_pod_section(tier, case: StackCase) -> str:
    """The first database pod of a stack as the cluster holds it: containers with their requests and limits, QoS
    class, placement (taken from the pod the operator's StatefulSet made and the API server defaulted)."""
    deployment = deployed(tier, case)
    name = f"{deployment.name}-{MYSQLD[case.operator]}-0"
    pod = tier.api.sanitize_for_serialization(tier.core.read_namespaced_pod(name, deployment.namespace))
    spec = pod["spec"]
    rows = [
        f"| {c['name']} | {kind} | {_quantity(c.get('resources'), 'requests', 'cpu')} | {_quantity(c.get('resources'), 'limits', 'cpu')} "
        f"| {_quantity(c.get('resources'), 'requests', 'memory')} | {_quantity(c.get('resources'), 'limits', 'memory')} |"
        for kind, containers in (("init", spec.get("initContainers") or []), ("container", spec["containers"]))
        for c in containers
    ]
    tolerations = ", ".join(
        f"{t['key']}={t.get('value', '')}:{t.get('effect', '')}"
        for t in spec.get("tolerations") or []
        if t.get("key") == POOL_LABEL
    )
    terms = ((spec.get("affinity") or {}).get("podAntiAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or []
    engine = "PXC" if case.engine == PXC else "group replication (Percona Server)"
    return "\n".join(
        [
            f"#### {case.stack}: {engine}, pod `{pod['metadata']['name']}`, QoS class **{pod['status']['qosClass']}**",
            "",
            "| container | kind | CPU request | CPU limit | memory request | memory limit |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            f"nodeSelector `{', '.join(f'{k}={v}' for k, v in (spec.get('nodeSelector') or {}).items())}`; toleration "
            f"`{tolerations}`; required anti-affinity on `{', '.join(t['topologyKey'] for t in terms)}`; "
            f"placed by kube-scheduler on a {tier.core.read_node(spec['nodeName']).metadata.labels[POOL_LABEL]}-pool Node.",
        ]
    )


def test_the_docs_show_each_stacks_rendered_pod(tier):
    """Each stack with the engine its stack file selects."""
    from percona_mysql_k8s.cli.offline import stack_config

    sections = []
    for stack in sorted({case.stack for case in STACK_CASES}):
        engine = stack_config(stack, REPOSITORY)["percona-mysql:engine"]
        sections.append(rendered_pod_section(tier, StackCase(stack, engine)))
    block = "\n\n".join(sections)
    text = DOCS.read_text()
    assert BEGIN in text and END in text, f"{DOCS} has no {BEGIN} ... {END} block"
    current = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    if os.environ.get("OPERATOR_TIER_WRITE_DOCS") == "1":
        DOCS.write_text(text.replace(current, block) if current else text.replace(BEGIN + "\n", BEGIN + "\n" + block + "\n"))
        return
    assert current == block, (
        "docs/operators.md shows other pods than the operator renders now: rerun with OPERATOR_TIER_WRITE_DOCS=1 "
        "(scripts/operators.sh run-tier -k docs) and review the diff"
    )


@pytest.mark.parametrize("case", CASES)
def test_a_size_change_rerenders_in_place(tier, case):
    deployment = deployed(tier, case)
    name = f"{deployment.name}-{MYSQLD[case.operator]}"
    before = tier.apps.read_namespaced_stateful_set(name, deployment.namespace)
    settings, _ = resize(tier, deployment, RESIZE)
    old, new = deployment.settings.sizing.containers["mysqld"], settings.sizing.containers["mysqld"]
    assert (new.cpu_millicores, new.memory_bytes) != (old.cpu_millicores, old.memory_bytes), "RESIZE changed no size"
    want = (new.cpu_millicores, new.cpu_millicores, new.memory_bytes, new.memory_bytes)

    def rerendered():
        sts = tier.apps.read_namespaced_stateful_set(name, deployment.namespace)
        spec = tier.api.sanitize_for_serialization(sts.spec.template.spec)
        container = next(c for c in spec["containers"] if c["name"] == MYSQLD[case.operator])
        return sts if amounts(container.get("resources")) == want else None

    after = wait_for(f"{name} re-rendered with {want}", rerendered, timeout=60)
    assert after.metadata.uid == before.metadata.uid, "the StatefulSet was replaced, not updated"
    assert after.metadata.generation > before.metadata.generation
    assert not tier.errors(case.operator, deployment.namespace)
    assert (live_cr(tier, deployment).get("status") or {}).get("state") == "initializing"
    deployment.settings = settings
