"""Resource references in recorded properties: as the engine hands them to a policy pack (ID, else URN)."""

import pulumi
from percona_mysql_k8s.cli.offline import _plain


def test_a_resource_reference_becomes_its_id_or_urn():
    rpc = pulumi.runtime.rpc
    reference = {
        rpc._special_sig_key: rpc._special_resource_sig,
        "urn": "urn:pulumi:s::p::aws:eks/cluster:Cluster::c",
        "id": "c-id",
        "packageVersion": "",
    }
    assert _plain({"eksCluster": reference}) == {"eksCluster": "c-id"}
    assert _plain([{**reference, "id": ""}]) == ["urn:pulumi:s::p::aws:eks/cluster:Cluster::c"]
    secret = {rpc._special_sig_key: rpc._special_secret_sig, "value": reference}
    assert _plain(secret) == "c-id"
