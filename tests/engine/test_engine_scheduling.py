"""A pod that fits no Node fails the tier: every `pulumi up` of the tier runs under a watch of the real
scheduler's verdicts (engine_stack.up), so a stack whose pod the scheduler cannot place stops at once with the
scheduler's own message instead of Pulumi waiting out a Deployment's or a Helm release's timeout (10-15 min)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from engine_stack import SchedulingFailed, set_config, tear_down, up
from kubernetes.client.rest import ApiException

pytestmark = pytest.mark.engine

PROGRAM = Path(__file__).resolve().parent / "programs" / "unschedulable"
NAMESPACE = "engine-tier-unschedulable"


def test_a_pod_that_fits_no_node_fails_the_run_with_the_schedulers_message(project, kubeconfig, core, pool_nodes, tmp_path):
    cli = project.program(PROGRAM, tmp_path / "unschedulable", "engine-tier-unschedulable")
    core.create_namespace({"metadata": {"name": NAMESPACE}})
    try:
        cli.run("stack", "init", "test", "--secrets-provider", "passphrase", timeout=120)
        set_config(cli, "test", {"kubeconfig": kubeconfig, "namespace": NAMESPACE}, project="engine-tier-unschedulable")
        start = time.monotonic()
        with pytest.raises(SchedulingFailed) as failed:
            up(cli, "test", core, timeout=600)
        seconds = time.monotonic() - start
        print(f"\n{failed.value}"[:1500] + f"\nstopped after {seconds:.0f} s")
        assert f"{NAMESPACE}/too-big-" in str(failed.value)
        assert "Insufficient memory" in str(failed.value)  # the scheduler's reason: 64Gi asked, 28Gi allocatable
        assert seconds < 240, "the run was not stopped when the pod could not be placed"
    finally:
        problems = tear_down(cli, "test")
        try:
            core.delete_namespace(NAMESPACE)
        except ApiException as error:
            if error.status != 404:
                raise
    assert not problems, problems
