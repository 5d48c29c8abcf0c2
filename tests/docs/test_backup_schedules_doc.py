"""docs/backup-schedules.md: every row of the table names an owner, a citation and tests that exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "backup-schedules.md"
TEST_FILES = {"oracle": ROOT / "tests/core/test_cron_oracle.py", "test_cron.py": ROOT / "tests/core/test_cron.py"}


def _rows() -> list[list[str]]:
    table = PAGE.read_text().split("## The table", 1)[1]
    rows = [line.strip("|").split(" | ") for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    return rows[1:]  # the header


def test_every_row_has_an_owner_a_citation_and_a_test():
    rows = _rows()
    assert len(rows) >= 20
    for behaviour, owner, citation, tests in rows:
        assert behaviour.strip() and citation.strip(), behaviour
        assert re.search(r"robfig|operator|project", owner), (behaviour, owner)
        assert tests.strip(), behaviour


def test_every_cited_test_exists():
    cited = 0
    for *_, tests in _rows():
        folder = None
        for part in (p.strip() for p in tests.split(";")):
            names = re.findall(r"`([^`]+)`", part)
            if part.startswith(("oracle", "test_cron.py")):
                assert TEST_FILES[part.split()[0]].is_file()
                cited += 1
                continue
            for name in names:
                if "/" in name:
                    folder, name = name.split("/", 1)
                assert folder, part
                assert (ROOT / "tests" / "policies" / folder / f"{name}.json").is_file(), (folder, name)
                cited += 1
    assert cited >= 30
