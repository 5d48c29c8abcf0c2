"""The generated blocks of docs/backups.md: keep per schedule, container sizes, what a PITR window costs.

Every number is computed by the core (percona_mysql_k8s.core.cron and .backup); tests/docs/test_backups_doc.py
fails when the page's blocks differ from what this prints.

    .venv/bin/python docs/backups_example.py           # print the blocks
    .venv/bin/python docs/backups_example.py --write   # rewrite them in docs/backups.md
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from percona_mysql_k8s.core import backup
from percona_mysql_k8s.core.backup import S3, BackupStorage, backup_plan, storage_estimate
from percona_mysql_k8s.core.cron import longest_span_seconds, parse_schedule, retention_window_seconds
from percona_mysql_k8s.core.memory import PXC

PAGE = Path(__file__).resolve().parent / "backups.md"
MIB, GIB = 2**20, 2**30
DAY = 86400
BLOCK = re.compile(r"(<!-- BEGIN GENERATED: (\w+) -->\n)(.*?)(<!-- END GENERATED: \2 -->)", re.S)

# The worked example: a PXC cluster with 100 GiB of data writing 1 MiB/s of binary log (86,400 MiB, about
# 84 GiB, a day), backed up daily at 03:00 UTC, 7 days of restore points, PITR uploads every 60 s.
EXAMPLE_STORAGE = BackupStorage(kind=S3, bucket="prod-db-backups", region="eu-west-1", service_account="backup")
EXAMPLE = dict(engine=PXC, retention_days=7, min_retention_days=7, pitr=True, pitr_upload_seconds=60)
EXAMPLE_DATA_BYTES = 100 * GIB
EXAMPLE_BINLOG_BYTES_PER_SECOND = 1 * MIB
SCHEDULES = ("0 3 * * *", "0 */6 * * *", "0 1 * * 1-5", "@weekly", "0 0 1 * *")


def _days(seconds: float) -> str:
    return f"{seconds / DAY:g}"


def _gib(num_bytes: int) -> str:
    return f"{num_bytes / GIB:,.0f}"


def keep_table() -> str:
    lines = ["| schedule | keep for 7 days | window with that keep (days) | longest reach back (days) |", "|---|---:|---:|---:|"]
    for text in SCHEDULES:
        parsed = parse_schedule(text)
        plan = backup_plan(EXAMPLE_STORAGE, schedule=parsed, **EXAMPLE)
        lines.append(
            f"| `{text}` | {plan.keep} | {_days(retention_window_seconds(parsed, plan.keep))} | "
            f"{_days(longest_span_seconds(parsed, plan.keep))} |"
        )
    return "\n".join(lines) + "\n"


def containers_table() -> str:
    rows = [
        ("PXC", "backup Job `xtrabackup` (garbd, socat, xbcloud)", backup.PXC_BACKUP_JOB),
        ("PXC", "PITR collector `pitr`", backup.PXC_PITR_COLLECTOR),
        ("PS (group replication)", "backup Job (`run-backup.sh`, and the delete Job's `xbcloud delete`)", backup.PS_BACKUP_JOB),
        ("PS (group replication)", "binlog server", backup.PS_BINLOG_SERVER),
    ]
    lines = ["| engine | container | CPU (request = limit) | memory (request = limit) |", "|---|---|---:|---:|"]
    for engine, name, size in rows:
        lines.append(f"| {engine} | {name} | {size.cpu_millicores}m | {size.memory_bytes // MIB} MiB |")
    return "\n".join(lines) + "\n"


def cost_table() -> str:
    plan = backup_plan(EXAMPLE_STORAGE, schedule=parse_schedule(SCHEDULES[0]), **EXAMPLE)
    estimate = storage_estimate(plan, data_bytes=EXAMPLE_DATA_BYTES, binlog_bytes_per_second=EXAMPLE_BINLOG_BYTES_PER_SECOND)
    return (
        "\n".join(
            [
                "| term | value |",
                "|---|---:|",
                f"| keep (backups kept) | {plan.keep} |",
                f"| full backups at the peak (keep + 1) | {estimate.full_backups} |",
                f"| full backups, GiB ({estimate.full_backups} × {_gib(estimate.full_backup_bytes)}) | "
                f"{_gib(estimate.full_backups * estimate.full_backup_bytes)} |",
                f"| binary logs kept, days (longest span of {plan.keep} gaps) | {_days(estimate.binlog_seconds)} |",
                f"| binary logs, GiB (days × 86,400 s × 1 MiB/s) | {_gib(estimate.binlog_bytes)} |",
                f"| **total, GiB** | **{_gib(estimate.total_bytes)}** |",
            ]
        )
        + "\n"
    )


def blocks() -> dict[str, str]:
    return {"keep": keep_table(), "containers": containers_table(), "cost": cost_table()}


def page(current: str) -> str:
    generated = blocks()
    found = {match.group(2) for match in BLOCK.finditer(current)}
    if found != set(generated):
        raise SystemExit(f"docs/backups.md: generated blocks {sorted(found)} differ from {sorted(generated)}")
    return BLOCK.sub(lambda m: m.group(1) + generated[m.group(2)] + m.group(4), current)


def main(argv: list[str]) -> int:
    if "--write" in argv:
        PAGE.write_text(page(PAGE.read_text()))
        return 0
    for name, text in blocks().items():
        print(f"<!-- {name} -->\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
