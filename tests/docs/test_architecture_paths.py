"""docs/architecture.md names files on a setting's way from config to policy: every path it names exists."""

from __future__ import annotations

import re
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
ARCHITECTURE = REPOSITORY / "docs" / "architecture.md"
# a backticked path with a directory and a file suffix, e.g. `modules/percona_mysql_k8s/core/cron.py`
PATH = re.compile(r"`((?:[\w.<>-]+/)+[\w.<>-]+\.(?:py|yaml|md|toml))`")


def named_paths(text: str) -> list[str]:
    return sorted(set(PATH.findall(text)))


def test_the_document_names_the_files_of_the_walk():
    paths = named_paths(ARCHITECTURE.read_text(encoding="utf-8"))
    assert "modules/percona_mysql_k8s/core/cron.py" in paths
    assert "modules/percona_mysql_k8s/policies/backup_schedule.py" in paths
    assert len(paths) >= 10, paths


def test_every_named_file_exists():
    missing = []
    for path in named_paths(ARCHITECTURE.read_text(encoding="utf-8")):
        if "<" in path:  # a pattern such as stacks/Pulumi.<stack>.yaml: at least one file matches it
            if not list(REPOSITORY.glob(re.sub(r"<[^>]+>", "*", path))):
                missing.append(path)
        elif not (REPOSITORY / path).is_file():
            missing.append(path)
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


def test_the_path_pattern_catches_a_missing_file():
    assert named_paths("see `modules/percona_mysql_k8s/plan/nowhere.py`") == ["modules/percona_mysql_k8s/plan/nowhere.py"]
    assert not (REPOSITORY / "modules/percona_mysql_k8s/plan/nowhere.py").exists()
