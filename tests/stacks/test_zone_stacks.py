"""K7 in every stack program: the members and proxies are spread over the database pool's zones so that losing one
leaves a majority; a production stack whose zones cannot is refused with one line naming acceptZoneLoss, a test stack
(or one that accepts the risk) gets a warning. The custom resources are read back through the policy pack's model of
the operators (policies/_readers/pod_spread.py) and judged by the zone arithmetic on the stack's own zones."""

from __future__ import annotations

import pulumi
import pytest
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.core.units import GIB
from percona_mysql_k8s.core.zones import ZoneLayout, worst_case
from percona_mysql_k8s.plan.clusters import kind as kind_plan
from percona_mysql_k8s.plan.database.zones import zone_decision
from percona_mysql_k8s.policies._readers.database import database_view
from percona_mysql_k8s.policies._readers.pod_spread import component_zone_placement
from percona_mysql_k8s.policies.zone_spread import judged_components
from percona_mysql_k8s.stack.settings import stack_settings_from_config
from stack_configs import EKS, EXISTING, GKE, HOST, KIND, with_

CR_TYPES = ("kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster", "kubernetes:ps.percona.com/v1:PerconaServerMySQL")


def settings(values):
    return stack_settings_from_config(values, host=lambda: HOST)


@pytest.fixture
def run(monkeypatch):
    monkeypatch.setattr(kind_plan, "host_resources", lambda: (8000, 32 * GIB))
    return lambda stack, overrides=None: offline.run_stack(stack, overrides=overrides)


def _cr(registrations):
    return next(r for r in registrations if r.type in CR_TYPES)


@pytest.mark.parametrize(("stack", "engine"), [(s, e) for s in ("gke", "eks", "existing") for e in ("pxc", "group-replication")])
def test_the_shipped_stacks_keep_a_majority_through_a_zones_loss(run, stack, engine):
    """Every component the operator renders, read as kube-scheduler reads it, on three zones of the stack's nodes."""
    cr = _cr(run(stack, {"engine": engine}))
    view = database_view(cr.type, {"metadata": cr.inputs["metadata"], "spec": cr.inputs["spec"]}, "subject")
    components = judged_components(view)
    assert len(components) == 2  # the members and the proxy
    for component, quorum in components:
        placement = component_zone_placement(view, component)
        for layout in (ZoneLayout((1, 1, 1)), ZoneLayout((2, 2, 2)), ZoneLayout((3, 1, 1))):
            verdict = worst_case(view.size(component.rel), layout, placement, quorum)
            assert verdict.keeps, verdict.explain()
        spread = cr.inputs["spec"][component.rel.split(".")[0]]
        spread = spread[component.rel.split(".")[1]] if "." in component.rel else spread
        assert spread["affinity"] == {"antiAffinityTopologyKey": "kubernetes.io/hostname"}  # one member per node (K5)
        assert spread["topologySpreadConstraints"] == [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": 3}
        ]


def test_two_gke_zones_are_refused_on_production_with_the_setting_that_accepts_it():
    with pytest.raises(InputError) as error:
        settings(with_(GKE, gcpZones=["europe-west1-b", "europe-west1-c"]))
    assert (error.value.key, error.value.rule) == ("gcpZones", "K7")
    message = str(error.value)
    assert "\n" not in message and "acceptZoneLoss: true" in message
    assert "2 of 3 pods in one zone" in message and "a majority is 2" in message, message


def test_one_gke_zone_is_refused_too():
    with pytest.raises(InputError) as error:
        settings(with_(GKE, gcpZones=["europe-west1-b"]))
    assert error.value.key == "gcpZones" and "3 of 3 pods in one zone" in str(error.value)


@pytest.mark.parametrize("overrides", [{"acceptZoneLoss": True}, {"ephemeral": True}])
def test_accepted_or_ephemeral_two_zones_warn_and_only_balance(overrides):
    result = settings(with_(GKE, gcpZones=["europe-west1-b", "europe-west1-c"], **overrides))
    assert [note for note in result.placement.notes if note.startswith("K7: ")], result.placement.notes
    assert result.placement.spread == (
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
    )


def test_a_warning_reaches_the_engine(run, monkeypatch):
    warned = []
    monkeypatch.setattr(pulumi.log, "warn", lambda message, resource=None, *args, **kwargs: warned.append(message))
    run("gke", {"gcpZones": ["europe-west1-b", "europe-west1-c"], "acceptZoneLoss": True})
    assert any(message.startswith("K7: ") and "acceptZoneLoss: true" in message for message in warned), warned


def test_five_members_keep_a_majority_on_three_zones():
    result = settings(with_(GKE, clusterSize=5, databaseNodeCount=5))
    assert result.placement.spread[0]["minDomains"] == 3 and not result.placement.notes


def test_eks_subnets_in_fewer_than_three_zones_are_refused_before_the_plan_is_done():
    with pytest.raises(InputError) as error:
        settings(with_(EKS, eksVpcId="vpc-0a1b", eksSubnetIds=["subnet-0a", "subnet-0b"]))
    assert (error.value.key, error.value.rule) == ("eksSubnetIds", "K7") and "acceptZoneLoss" in str(error.value)


def test_eks_subnets_the_component_finds_in_two_zones_stop_the_program(run):
    """Three subnets, two in one zone as EC2 reports them (the offline mocks' getSubnet: the zone follows the ID)."""
    zones = {f"subnet-0{c}": "abc"[sum(map(ord, f"subnet-0{c}")) % 3] for c in "0123456789"}
    same = sorted(subnet for subnet in zones if zones[subnet] == "a")[:2]
    other = next(subnet for subnet in zones if zones[subnet] != "a")
    with pytest.raises(Exception) as error:
        run("eks", {"eksVpcId": "vpc-0a1b", "eksSubnetIds": [*same, other]})
    assert "K7: eksSubnetIds" in str(error.value) and "acceptZoneLoss: true" in str(error.value)
    registrations = run("eks", {"eksVpcId": "vpc-0a1b", "eksSubnetIds": [*same, other], "acceptZoneLoss": True})
    assert _cr(registrations).inputs["spec"]["mysql"]["topologySpreadConstraints"][0].get("minDomains") is None


@pytest.mark.parametrize(("zones", "refused"), [([], True), (["us-east-1a", "us-east-1b"], True), (["a", "b", "c"], False)])
def test_an_existing_cluster_planned_offline_declares_its_zones(zones, refused):
    values = with_(EXISTING, existingNodeZones=zones or None, backup=False)  # R1 asks for a bucket first otherwise
    if refused:
        with pytest.raises(InputError) as error:
            settings(values)
        assert (error.value.key, error.value.rule) == ("existingNodeZones", "K7")
    else:
        assert settings(values).placement.spread[0]["minDomains"] == 3


def test_existing_zones_in_config_are_refused_where_the_nodes_tell():
    with pytest.raises(InputError) as error:
        settings(with_(EXISTING, existingNodeSource="cluster", existingNodeCpu=None, existingNodeMemory=None))
    assert error.value.key == "existingNodeZones"


def test_kind_notes_its_one_machine_and_writes_no_zone_spread():
    """kind's nodes carry no zone label: a zone spread would leave every member Pending there. One machine is what
    the kind target is, so K7 says so in a note, never a warning (a warning on every kind run would hide the one
    that changes the stack: PMM off on a small host)."""
    result = settings(with_(KIND, clusterSize=3, ephemeral=True))
    assert result.placement.spread == () and "topologySpreadConstraints" not in result.placement.scheduling()
    assert result.placement.notes == ()
    assert any(note.startswith("K7: ") and "one failure domain for all 3 members" in note for note in result.placement.remarks)


def test_the_spread_follows_the_zones_the_target_learns_at_run_time():
    pool = settings(EKS).cluster.database_pool
    assert pool.zones is None  # the component reads the subnets' zones
    assert zone_decision(3, pool, ephemeral=False, accepted=False).spread[0]["minDomains"] == 3
    assert "minDomains" not in zone_decision(3, pool, ephemeral=False, accepted=True).spread[0]
