"""B2 (advisory): measured sysbench runs are preceded by a warm-up (--warmup-time, or an earlier run)."""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.sysbench import invocations, literal_env
from ._readers.workloads import LOAD_GENERATOR
from ._subjects import workload, workload_types

SPEC = Spec(
    name="sysbench-warmup",
    rules=("B2",),
    applies_to=workload_types,
    description="measured sysbench runs are preceded by a warm-up",
)


def check(ctx: Context) -> None:
    subject = workload(ctx, "B2")
    if subject is None:
        return
    with ctx.checking("B2"):
        if subject.role() != LOAD_GENERATOR or "warm" in subject.name.lower():
            return
        runs = [i for i in invocations(subject.script(), literal_env(subject)) if i.subcommand == "run"]
        warmup = runs[0].options.get("warmup-time", "0").strip("'\"") if len(runs) == 1 else "1"
        if not (warmup.isascii() and warmup.isdigit() and int(warmup) > 0):
            ctx.violation(
                "B2",
                f"{subject.kind} {subject.name} measures sysbench {runs[0].test} without a warm-up",
                "the rule warms the buffer pool up before measured runs",
                "add --warmup-time=300 (sizing's stacks warm up for sysbenchWarmup seconds) or a warm-up run first",
                field=f"{subject.path}.containers",
            )


POLICY = resource_policy(SPEC, check)
