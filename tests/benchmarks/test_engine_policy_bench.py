"""The engine benchmark's reading of a preview's output: the pack's verdict is the ``Policies:`` section, and only
it (its digest is how the benchmark shows that every variant of the pack says the same, byte for byte)."""

from benchmarks.engine_policy_bench import policies_section, policy_lines

# the shape `pulumi preview --policy-pack` (v3.260) prints when the pack fails the preview: the section, then the
# Diagnostics with the interrupted program's traceback, which varies with the moment the program was cancelled
VERDICT = """\
    ❌ percona-mysql@v0.2.0 (local: /work/main/policies)
        - [mandatory] [severity: high]  backup-pitr  (kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: pxc-0)
          R2: point-in-time recovery is on for production databases [R2 Point-in-time recovery]
          R2: spec.backup is absent: the operator runs no backups.
        - [advisory] [severity: low]  proxy-backend-connections  (kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster: pxc-0)
          T5: the proxy pods open no more backend connections than mysqld's max_connections leaves"""


def preview_output(traceback: str) -> str:
    return (
        "Previewing update (bench):\n"
        " +  pulumi:pulumi:Stack bench create 1 error; 5 warnings\n"
        f"Policies:\n{VERDICT}\n\n"
        "Diagnostics:\n  pulumi:pulumi:Stack (bench):\n    error: preview failed\n\n"
        f"    Traceback (most recent call last):\n{traceback}\n"
    )


def test_the_section_is_the_verdict_and_not_what_follows_it():
    early = preview_output('      File "selectors.py", line 468, in select\n    KeyboardInterrupt')
    late = preview_output('      File "threading.py", line 1139, in _wait_for_tstate_lock\n    KeyboardInterrupt')
    assert policies_section(early) == policies_section(late) == VERDICT


def test_a_different_verdict_is_a_different_section():
    other = preview_output("    KeyboardInterrupt").replace("pxc-0)\n          R2", "pxc-1)\n          R2")
    assert policies_section(other) != VERDICT


def test_findings_are_counted_one_per_bullet():
    assert policy_lines(VERDICT) == 2
    assert policies_section("Previewing update (bench):\nResources:\n    + 2 to create\n") == ""
