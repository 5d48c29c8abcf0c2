"""R6 through the whole pack on the shipped GKE stack: fenced by default, reported (advisory) when the
stack turns its NetworkPolicies off."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.cli import check, offline

POLICY = "database-network-policy"


@pytest.mark.parametrize(("overrides", "reported"), [({}, False), ({"networkPolicies": False}, True)])
def test_gke_stack_and_r6(overrides, reported):
    registrations = offline.run_stack("gke", preview=True, overrides=overrides)
    report = check.check_registrations(registrations, stack="gke", project="percona-mysql")
    findings = [f for f in report.findings if f.diagnostic.policy == POLICY]
    assert bool(findings) is reported, [f.diagnostic.message for f in findings]
    assert all(f.diagnostic.level == "advisory" and f.diagnostic.message.startswith("R6:") for f in findings)
