"""The grader's tests' fixtures: the sizing command's JSON for the tier's member, and that JSON read back."""

from __future__ import annotations

import json

import pytest
from grade_readings import MEMBER
from percona_mysql_k8s.core.report import to_json
from percona_mysql_k8s.core.sizing import size
from percona_mysql_k8s.grade.sizing_file import read_sizing


@pytest.fixture(scope="session")
def sizing_text() -> str:
    return json.dumps(to_json(size(MEMBER)))


@pytest.fixture(scope="session")
def sizing(sizing_text):
    return read_sizing(sizing_text, "sizing.json")
