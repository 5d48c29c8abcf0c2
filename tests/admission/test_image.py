"""The image's Dockerfile, checked where no Docker engine runs (none does on the CI machines): what it copies exists,
its entrypoint is the package's console script and imports, its command is one the server accepts, its user and
ports are the ones the Deployment expects (plan.admission)."""

from __future__ import annotations

import importlib
import json
import re
import tomllib
from pathlib import Path

from percona_mysql_k8s.admission import cli
from percona_mysql_k8s.plan import admission as plan

REPOSITORY = Path(__file__).resolve().parents[2]
DOCKERFILE = REPOSITORY / "modules" / "percona_mysql_k8s" / "admission" / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    return [tuple(line.split(None, 1)) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_what_it_copies_is_in_the_repository():
    for word, rest in instructions():
        if word == "COPY" and not rest.startswith("--from"):
            *sources, _ = rest.split()
            for source in sources:
                assert (REPOSITORY / source).exists(), source


def test_it_installs_the_admission_extra_and_runs_its_console_script():
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]
    assert "admission" in project["optional-dependencies"]
    assert any(word == "RUN" and '".[admission]"' in rest for word, rest in instructions())
    entrypoint = json.loads(dict(instructions())["ENTRYPOINT"])
    assert entrypoint == ["percona-mysql-admission"]
    module, _, function = project["scripts"]["percona-mysql-admission"].partition(":")
    assert callable(getattr(importlib.import_module(module), function))


def test_its_command_user_and_ports_are_the_deployments():
    found = dict(instructions())
    command = json.loads(found["CMD"])
    cli._parser().parse_args(command)  # a command the server accepts
    assert found["USER"] == "10001:10001"
    deployment = next(o for o in plan.admission_objects(_settings(), _tls()) if o["kind"] == "Deployment")
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == 10001
    assert found["EXPOSE"].split() == [str(plan.WEBHOOK_PORT), str(plan.METRICS_PORT)]
    cli._parser().parse_args(deployment["spec"]["template"]["spec"]["containers"][0]["args"])  # the Deployment's too


def _settings():
    return plan.AdmissionSettings(mode="enforce", image="x/y:1")


def _tls():
    return plan.Tls("", "", "", "", "")
