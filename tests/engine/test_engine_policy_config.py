"""The offline check's policy config equals the real CLI's: the files of tests/policies/policy_config_cases.py marked
``engine`` (one per path of the CLI's code; the unit test runs them all offline) go
through `pulumi preview --policy-pack policies --policy-pack-config FILE` and through
`percona-mysql-policy-check --program ... --policy-config FILE` on the same program, and both must refuse it, or
both report the same findings at the same levels with the same exit status.

The program registers one custom resource through a provider that renders YAML, so no cluster is involved: this
needs the real CLI and the pack installed as the README says, nothing of the tier's control plane.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from percona_mysql_k8s.cli import check

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "policies"))
from policy_config_cases import CASES, CLUSTER, POLICY  # noqa: E402 - the shared case table

pytestmark = pytest.mark.engine

PROGRAM = Path(__file__).resolve().parent / "programs" / "flow_control_cluster"
PROJECT = "engine-tier-policy-config"
# how the CLI stops on a config it refuses (update.go loadPolicyPlugins, analyzer/config.go) before any Policies:
CLI_REFUSALS = (
    "error: parsing ",
    "error: json: ",
    "error: invalid character",
    "error: unexpected end of JSON input",
    "error: validating policy config",
    "error: configuring policy pack",
    "error: policy pack at ",
    '"environments" must be',
)


def _findings(section: str, header: str) -> Counter:
    """(level, policy) of every finding of a Policies: section, from its ``- [level] ... policy  (...)`` lines."""
    found = Counter()
    for line in section.splitlines():
        match = re.match(header, line)
        if match:
            found[(match.group(1), match.group(2))] += 1
    return found


def _cli_findings(output: str) -> Counter:
    if "\nPolicies:\n" not in output:
        return Counter()
    section = output.split("\nPolicies:\n", 1)[1].split("\n\n", 1)[0]
    # the CLI adds "[severity: high]" between the level and the policy name
    return _findings(section, r"\s+- \[(\w+)\](?: \[severity: \w+\])?\s+(\S+)\s")


ENGINE_CASES = [case for case in CASES if case.engine]  # each path of the CLI's code once
PREVIEWS_AT_ONCE = 2  # one preview keeps about one core busy (program, pack, engine): the tier's machine has two


@pytest.fixture(scope="module")
def program(project, pack, tmp_path_factory):
    cli = project.program(PROGRAM, tmp_path_factory.mktemp("policy-config"), PROJECT)
    (cli.project / "cluster.json").write_text(json.dumps(CLUSTER))
    for index in range(len(ENGINE_CASES)):  # a stack per case, so the previews can run side by side
        cli.run("stack", "init", f"case-{index}", "--secrets-provider", "passphrase", timeout=120)
    yield cli
    for index in range(len(ENGINE_CASES)):
        cli.run("stack", "rm", "--yes", "--force", stack=f"case-{index}", timeout=120, check=False)


@pytest.fixture(scope="module")
def previews(program, project, pack, tmp_path_factory):
    """Every case's `pulumi preview --policy-pack-config` (about 30 s each), PREVIEWS_AT_ONCE at a time: the case's
    name -> (its stack, its config file, the CLI's result)."""
    directory = tmp_path_factory.mktemp("policy-configs")
    pack_dir = project.project / pack

    def preview(index: int):
        case = ENGINE_CASES[index]
        config = directory / f"case-{index}.json"
        config.write_text(case.text)
        stack = f"case-{index}"
        result = program.run(
            "preview", "--policy-pack", str(pack_dir), "--policy-pack-config", str(config), stack=stack, timeout=600, check=False
        )
        return case.name, (stack, config, result)

    with ThreadPoolExecutor(PREVIEWS_AT_ONCE) as pool:
        return dict(pool.map(preview, range(len(ENGINE_CASES))))


@pytest.mark.parametrize("case", ENGINE_CASES, ids=[case.name for case in ENGINE_CASES])
def test_the_offline_check_applies_policy_config_as_the_cli_does(case, previews, program, project, pack, capsys):
    stack, config, result = previews[case.name]
    pack_dir = project.project / pack
    output = result.stdout + result.stderr
    status = check.main(
        ["--program", str(program.project), "--stack", stack, "--policy-pack", str(pack_dir), "--policy-config", str(config)]
    )
    offline = capsys.readouterr()
    cli_refused = "\nPolicies:\n" not in result.stdout and any(refusal in output for refusal in CLI_REFUSALS)
    assert cli_refused == bool(case.refused), output[-3000:]
    if case.refused:
        assert status == 2 and offline.err.count("\n") == 1, offline.err
        assert result.returncode != 0
        print(
            f"\n{case.name}: CLI {next(line for line in output.splitlines() if 'error:' in line)!r}; offline {offline.err.strip()!r}"
        )
        return
    by_cli = _cli_findings(result.stdout)
    by_check = _findings(offline.out, r"\s+- \[(\w+)\]\s+(\S+)\s")
    assert by_cli == by_check, (sorted(by_cli.items()), sorted(by_check.items()))
    assert [level for level, policy in by_cli if policy == POLICY] == ([case.g1] if case.g1 else [])
    mandatory = any(level == "mandatory" for level, _ in by_cli)
    assert (result.returncode != 0) == mandatory and status == (1 if mandatory else 0), (result.returncode, status)
