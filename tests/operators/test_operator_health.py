"""An operator that panics fails the tier at once, in its own words, not as a render wait's timeout (issue 34).

No control plane: a stand-in operator (a shell script that logs the PS operator's ready line, then a Go runtime panic,
and exits 2) runs exactly as the tier runs the real ones (operator_process.OperatorProcess: a private mount namespace,
its log captured), and a render wait polls with the tier's health check (operator_health, conftest.Tier).
"""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest
from operator_cluster import wait_for
from operator_health import operator_failure, panic_lines
from operator_process import PS, OperatorProcess

GO_PANIC = """panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1a2b3c]

goroutine 312 [running]:
github.com/percona/percona-server-mysql-operator/pkg/controller/ps.(*PerconaServerMySQLReconciler).reconcileDatabase(...)
"""
RECOVERED = (
    '2026-11-29T02:00:00.000Z\tERROR\tReconciler error\t{"controller": "ps-controller", "namespace": "op-eks-gr", '
    '"error": "panic: assignment to entry in nil map [recovered]"}\n'
    "2026-11-29T02:00:00.000Z\tERROR\tObserved a panic in reconciler: assignment to entry in nil map\t"
    '{"controller": "ps-controller", "namespace": "op-eks-gr", "name": "eks-mysql"}\n'
)


class Alive:
    def __init__(self, log: str, running: bool = True):
        self._log, self._running = log, running

    def running(self) -> bool:
        return self._running

    def log(self) -> str:
        return self._log

    def tail(self, lines: int = 20) -> str:
        return "\n".join(self._log.splitlines()[-lines:])


def test_a_crash_and_a_recovered_panic_are_told_from_a_healthy_log():
    healthy = '2026-11-29T02:00:00.000Z\tINFO\tStarting workers\t{"controller": "ps-controller", "worker count": 4}\n'
    assert operator_failure({"ps": Alive(healthy)}) is None
    crashed = operator_failure({"ps": Alive(healthy + GO_PANIC, running=False)})
    assert crashed.startswith("the ps operator exited: panic: runtime error") and "goroutine" in crashed
    recovered = operator_failure({"ps": Alive(healthy + RECOVERED)})
    assert recovered.startswith("the ps operator panicked: ") and "Observed a panic" in recovered
    assert len(panic_lines(GO_PANIC)) == 2


def test_a_recovered_panic_a_test_provokes_is_passed_over_and_no_other():
    """C2's ps-cr-version case makes the PS operator panic on purpose: that cluster's recovered panic is expected; the
    same panic about another cluster, or a crash, still fails."""
    healthy = '2026-11-29T02:00:00.000Z\tINFO\tStarting workers\t{"controller": "ps-controller", "worker count": 4}\n'
    assert operator_failure({"ps": Alive(healthy + RECOVERED)}, {("op-eks-gr", "eks-mysql")}) is None
    other = operator_failure({"ps": Alive(healthy + RECOVERED)}, {("op-eks-gr", "other-mysql")})
    assert other is not None and "Observed a panic" in other
    crashed = operator_failure({"ps": Alive(healthy + RECOVERED + GO_PANIC, running=False)}, {("op-eks-gr", "eks-mysql")})
    assert crashed is not None and crashed.startswith("the ps operator exited")


def test_a_panicking_operator_fails_the_render_wait_at_once(tmp_path):
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("the tier runs operators in a private mount namespace (unshare -m), which this host does not allow")
    binary = tmp_path / "ps-operator"
    binary.write_text(
        "#!/bin/sh\n"
        'echo \'2026-11-29T02:00:00.000Z\tINFO\tStarting workers\t{"controller": "ps-controller"}\'\n'
        "sleep 1\n"
        f"cat >&2 <<'EOF'\n{GO_PANIC}EOF\n"
        "exit 2\n"
    )
    binary.chmod(0o755)
    process = OperatorProcess(PS, binary, tmp_path / "kubeconfig", ["op-eks-gr"], "ps-operator-test", tmp_path).start(10)
    try:
        started = time.monotonic()

        def rendered() -> bool:
            problem = operator_failure({"ps": process})
            assert problem is None, problem
            return False  # nothing renders here: only a failure ends the wait early

        with pytest.raises(AssertionError) as failure:
            wait_for("the operator renders eks-mysql-mysql", rendered, timeout=120)
        assert time.monotonic() - started < 15, "the panic surfaced only as a timeout"
        assert "the ps operator exited: panic: runtime error: invalid memory address" in str(failure.value)
    finally:
        process.stop()
