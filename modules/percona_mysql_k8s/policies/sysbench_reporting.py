"""B3 (advisory): measured sysbench runs report every second with --histogram, --mysql-ignore-errors=all and
--db-ps-mode=disable (CSV stats, thread ladders and --rate runs are the benchmark module's job)."""

from __future__ import annotations

from ._framework import Context, Spec, resource_policy
from ._readers.sysbench import invocations, literal_env
from ._readers.workloads import LOAD_GENERATOR
from ._subjects import workload, workload_types

SPEC = Spec(
    name="sysbench-reporting",
    rules=("B3",),
    applies_to=workload_types,
    description="sysbench runs use --report-interval=1, --histogram, --mysql-ignore-errors=all and --db-ps-mode=disable",
)
WANTED = (
    ("report-interval", ("1",), "--report-interval=1"),
    ("histogram", ("", "on", "true", "1"), "--histogram=on"),
    ("mysql-ignore-errors", ("all",), "--mysql-ignore-errors=all"),
    ("db-ps-mode", ("disable",), "--db-ps-mode=disable"),
)


def check(ctx: Context) -> None:
    subject = workload(ctx, "B3")
    if subject is None:
        return
    with ctx.checking("B3"):
        if subject.role() != LOAD_GENERATOR:
            return
        for run in (i for i in invocations(subject.script(), literal_env(subject)) if i.subcommand == "run"):
            missing = [flag for key, values, flag in WANTED if run.options.get(key, None) not in values]
            if missing:
                ctx.violation(
                    "B3",
                    f"{subject.kind} {subject.name} runs sysbench {run.test or ''} without {', '.join(missing)}".replace(
                        "  ", " "
                    ),
                    "the rule reports every second with a histogram, ignores errors and disables prepared statements",
                    f"add {' '.join(missing)} to the run",
                    field=f"{subject.path}.containers",
                )


POLICY = resource_policy(SPEC, check)
