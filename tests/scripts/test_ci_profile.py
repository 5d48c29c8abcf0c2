"""CI's property tests draw the same examples on every run (.ci/run sets HYPOTHESIS_PROFILE=ci, tests/conftest.py
registers it): a CI verdict changes only with the code. Elsewhere each run draws anew."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import settings

REPOSITORY = Path(__file__).resolve().parents[2]


def test_the_loaded_profile_follows_the_environment():
    assert settings.default.derandomize is (os.environ.get("HYPOTHESIS_PROFILE") == "ci")
    assert settings.default.deadline is None  # both profiles: speed is the benchmarks' business


def test_ci_sets_the_profile():
    lines = (REPOSITORY / ".ci" / "run").read_text().splitlines()
    assert any(line.split("#")[0].split() == ["export", "HYPOTHESIS_PROFILE=ci"] for line in lines)


# Hypothesis loads its own derandomized profile when it sees a CI variable (hypothesis/_settings.py, is_in_ci);
# the CI machine sets one, and a profile that inherited it drew alike under "project" there and only there.
CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TF_BUILD", "TEAMCITY_VERSION")
MACHINES = {"a workstation": {}, "a CI runner": {"CI": "true"}}


@pytest.mark.parametrize("machine", MACHINES)
def test_under_the_ci_profile_two_runs_draw_the_same_examples(tmp_path, machine):
    # a property that records what it was given: with the ci profile both runs record the same draws
    (tmp_path / "conftest.py").write_text((REPOSITORY / "tests" / "conftest.py").read_text())
    (tmp_path / "test_draws.py").write_text(
        textwrap.dedent(
            """
            import os
            from hypothesis import given, strategies as st

            @given(st.text())
            def test_draws(text):
                with open(os.environ["DRAWS"], "a") as out:
                    out.write(repr(text) + "\\n")
            """
        )
    )

    def draws(run: int, profile: str) -> list[str]:
        out = tmp_path / f"{profile}-{run}.txt"
        inherited = {name: value for name, value in os.environ.items() if name not in CI_VARIABLES}
        env = {**inherited, **MACHINES[machine], "HYPOTHESIS_PROFILE": profile, "DRAWS": str(out)}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "test_draws.py"]
        result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout + result.stderr
        return out.read_text().splitlines()

    assert draws(1, "ci") == draws(2, "ci")
    assert draws(1, "project") != draws(2, "project")  # 100 random texts twice alike: not in this universe
