"""docs/backups.md's tables are generated (docs/backups_example.py): stale numbers fail here.

Regenerate with `.venv/bin/python docs/backups_example.py --write` after changing core/cron.py or core/backup.py.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "backups.md"
_spec = importlib.util.spec_from_file_location("backups_example", ROOT / "docs" / "backups_example.py")
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)


def test_the_generated_tables_are_current():
    current = PAGE.read_text()
    assert example.page(current) == current, "docs/backups.md is stale: run .venv/bin/python docs/backups_example.py --write"


def test_a_stale_number_is_put_back():
    current = PAGE.read_text()
    stale = current.replace("| keep (backups kept) | 8 |", "| keep (backups kept) | 7 |")
    assert stale != current
    assert example.page(stale) == current


def test_the_worked_example_matches_its_derivation():
    # daily, 7 days: keep 8; 9 x 100 GiB at the peak; 8 days x 86,400 s x 1 MiB/s = 675 GiB; 1,575 GiB in all
    block = re.search(r"<!-- BEGIN GENERATED: cost -->\n(.*?)<!-- END GENERATED", PAGE.read_text(), re.S).group(1)
    assert "| full backups, GiB (9 × 100) | 900 |" in block
    assert "| binary logs, GiB (days × 86,400 s × 1 MiB/s) | 675 |" in block
    assert "| **total, GiB** | **1,575** |" in block


def test_database_md_quotes_the_generated_pitr_cost():
    # docs/database.md summarises the worked example: its total must be the generated table's
    total = re.search(r"\| \*\*total, GiB\*\* \| \*\*([\d,]+)\*\* \|", PAGE.read_text()).group(1)
    assert f"≈ {total} GiB" in (ROOT / "docs" / "database.md").read_text()
