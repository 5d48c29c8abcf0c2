"""scripts/up.sh, the README's first command: prerequisites before any install, the stack name checked,
the fallback it prints working as printed, and the local backend's passphrase never empty by surprise.

Each test runs the script in a copy of the repository with a PATH holding only the tools named here,
so what is "missing" is decided by the test, not by the machine running it.
"""

from __future__ import annotations

import hashlib
import shutil
import site
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
# What the script and env.sh call besides the tools under test (coreutils, sed, the shell itself).
BASE_TOOLS = (
    *("bash", "env", "dirname", "sed", "head", "ls", "paste", "cat", "sha256sum", "cut", "mkdir", "printf"),
    *("grep", "cp", "mktemp", "rm"),
)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """The repository as a fresh clone has it: no .venv, no state."""
    target = tmp_path / "clone"
    # what git would check out (tracked, or new and not ignored): never a local venv, cache or state
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPOSITORY,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\0")
    for name in filter(None, listed):
        source = REPOSITORY / name
        if name.startswith("tests/") or not source.is_file():  # the suite itself; a file deleted but not staged
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name, follow_symlinks=False)
    return target


def tools(tmp_path: Path, *extra: str, fakes: dict[str, str] | None = None) -> Path:
    """A bin directory with BASE_TOOLS, python3 (this interpreter: 3.11+) and fake scripts."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in (*BASE_TOOLS, *extra):
        found = shutil.which(name)
        assert found, f"{name} is needed to run the script under test"
        if not (bin_dir / name).exists():
            (bin_dir / name).symlink_to(found)
    if not (bin_dir / "python3").exists():
        (bin_dir / "python3").symlink_to(sys.executable)
    for name, body in (fakes or {}).items():
        script = bin_dir / name
        script.write_text("#!/usr/bin/env bash\n" + body)
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def ready_venv(clone: Path) -> None:
    """The .venv that `scripts/env.sh` (PROJECT_ENV=runtime) leaves behind, without downloading it again:
    this interpreter's packages and the clone's modules on the path, and the requirements stamp env.sh
    writes after `pip install -r requirements.txt` (sha256 of the file, as `cat requirements.txt | sha256sum`)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(clone / ".venv")], check=True)
    packages = next((clone / ".venv" / "lib").glob("python3.*/site-packages"))
    (packages / "clone.pth").write_text(f"{clone / 'modules'}\n{site.getsitepackages()[0]}\n")
    digest = hashlib.sha256((clone / "requirements.txt").read_bytes()).hexdigest()
    (clone / ".venv" / ".requirements.txt.sha256").write_text(digest + "\n")


def run(clone: Path, bin_dir: Path, *args: str, env: dict[str, str] | None = None, command: str | None = None):
    environment = {"PATH": str(bin_dir), "HOME": str(clone.parent), **(env or {})}  # no PYTHONPATH: the venv decides
    argv = ["bash", "-c", command] if command else ["bash", "scripts/up.sh", *args]
    return subprocess.run(
        [shutil.which("bash"), *argv[1:]], cwd=clone, env=environment, capture_output=True, text=True, timeout=300
    )


def test_missing_tools_stop_it_before_any_install_and_its_fallback_works_as_printed(clone, tmp_path):
    bin_dir = tools(tmp_path)
    first = run(clone, bin_dir)
    assert first.returncode == 1, first.stderr
    assert "Missing (nothing was installed):" in first.stderr
    for what in (
        "pulumi: the Pulumi CLI: https://www.pulumi.com/docs/iac/download-install/",
        "kind: kind: https://kind.sigs.k8s.io/",
        "docker: Docker Engine: https://docs.docker.com/engine/install/",
    ):
        assert f"  - {what}" in first.stderr
    assert not (clone / ".venv").exists()  # stopped before env.sh
    lines = first.stderr.splitlines()
    printed = lines[lines.index(next(line for line in lines if line.startswith("Install what is missing"))) + 1].strip()
    assert printed == "scripts/up.sh --offline"

    # The printed command, run as printed in the same clone and PATH (env.sh's install replaced by its result).
    ready_venv(clone)
    second = run(clone, bin_dir, command=printed)
    assert second.returncode == 0, second.stdout + second.stderr
    # the program's notes first (each node pool: the kind workers), then the resources
    assert second.stdout.startswith("note: node pool kind-mysql-database: 1 x kind worker, each ")
    assert "\nResources the stack would create (" in second.stdout
    assert "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster" in second.stdout
    assert "spec.pxc: size 1, cpu " in second.stdout  # the kind stack: one member, sized (stacks/Pulumi.kind.yaml)
    assert "0 mandatory and" in second.stdout
    assert "the kind stack as on a 8-CPU / 32Gi machine" in second.stderr


def test_an_unknown_stack_is_refused_with_the_valid_names(clone, tmp_path):
    bin_dir = tools(tmp_path)
    completed = run(clone, bin_dir, env={"STACK": "nosuch"})
    assert completed.returncode == 2
    valid = " ".join(sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (clone / "stacks").glob("Pulumi.*.yaml")))
    assert completed.stderr.strip() == f"error: STACK=nosuch: no stacks/Pulumi.nosuch.yaml; valid stacks: {valid}"
    assert not (clone / ".venv").exists()
    assert run(clone, bin_dir, env={"STACK": "../stacks/Pulumi.kind"}).returncode == 2  # a name, not a path


def test_a_cloud_stack_needs_no_kind_or_docker(clone, tmp_path):
    completed = run(clone, tools(tmp_path), env={"STACK": "gke"})
    assert completed.returncode == 1
    assert "  - pulumi: " in completed.stderr
    assert "  - gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin" in completed.stderr
    assert "kind" not in completed.stderr.split("Install what is missing")[0]
    assert "  - aws: the AWS CLI" in run(clone, tools(tmp_path), env={"STACK": "eks"}).stderr
    assert "STACK=gke scripts/up.sh --offline" in completed.stderr


FAKE_PULUMI = 'echo "$* | backend=$PULUMI_BACKEND_URL | passphrase=${PULUMI_CONFIG_PASSPHRASE-<unset>} | file=${PULUMI_CONFIG_PASSPHRASE_FILE-<unset>}" >> "$HOME/pulumi.log"\n'
FAKES = {"pulumi": FAKE_PULUMI, "kind": "exit 0\n", "docker": "exit 0\n"}  # docker info succeeds: a running engine


def test_with_every_tool_it_runs_pulumi_up_on_a_local_backend_with_a_generated_passphrase(clone, tmp_path):
    bin_dir = tools(tmp_path, fakes=FAKES)
    ready_venv(clone)
    completed = run(clone, bin_dir)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    passphrase = clone / ".pulumi-state" / "passphrase"
    assert len(passphrase.read_text().strip()) >= 32
    assert stat.S_IMODE(passphrase.stat().st_mode) == 0o600  # umask 077: only the owner reads it
    calls = (tmp_path / "pulumi.log").read_text().splitlines()
    expected_tail = f" | backend=file://{clone}/.pulumi-state | passphrase=<unset> | file={passphrase}"
    run_config = clone / ".pulumi-state" / "stacks" / "Pulumi.kind.yaml"
    assert calls == [
        "stack select kind --non-interactive" + expected_tail,  # the stack exists (the fake says so)
        f"up --stack kind --config-file {run_config} --yes --non-interactive" + expected_tail,
    ]
    assert run_config.read_text() == (clone / "stacks" / "Pulumi.kind.yaml").read_text()
    assert f"secrets encrypted with the passphrase in {passphrase}" in completed.stderr

    # Run again: the same passphrase (the state's secrets stay readable).
    before = passphrase.read_text()
    assert run(clone, bin_dir).returncode == 0
    assert passphrase.read_text() == before


# `stack select` fails until `stack init` ran (in a scratch project, which gets the salt the real CLI writes)
CREATING_PULUMI = FAKE_PULUMI + (
    'if [ "$1 $2" = "stack select" ] && [ ! -f "$HOME/created" ]; then exit 1; fi\n'
    'if [ "$1" = -C ] && [ "$3 $4" = "stack init" ]; then\n'
    '  printf "encryptionsalt: v1:c2FsdA==:v1:check\\n" >> "$2/stacks/Pulumi.$5.yaml"; : > "$HOME/created"; fi\n'
)


def test_a_new_stack_is_created_without_writing_the_tracked_stack_file(clone, tmp_path):
    bin_dir = tools(tmp_path, fakes={**FAKES, "pulumi": CREATING_PULUMI})
    ready_venv(clone)
    tracked = (clone / "stacks" / "Pulumi.kind.yaml").read_bytes()
    completed = run(clone, bin_dir, "--destroy")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    calls = [call.split(" | ")[0] for call in (tmp_path / "pulumi.log").read_text().splitlines()]
    assert calls[0] == "stack select kind --non-interactive" and calls[1].endswith(" stack init kind --non-interactive")
    assert calls[1].startswith("-C ") and not calls[1].startswith(f"-C {clone}")  # a scratch project
    run_config = clone / ".pulumi-state" / "stacks" / "Pulumi.kind.yaml"
    assert calls[2:] == [
        "stack select kind --non-interactive",
        f"destroy --stack kind --config-file {run_config} --yes --non-interactive",
    ]
    assert (clone / "stacks" / "Pulumi.kind.yaml").read_bytes() == tracked
    assert run_config.read_text() == tracked.decode() + "encryptionsalt: v1:c2FsdA==:v1:check\n"
    # the next command keeps the salt, and the tracked file stays as it was
    assert run(clone, bin_dir).returncode == 0
    assert run_config.read_text().endswith("encryptionsalt: v1:c2FsdA==:v1:check\n")
    assert (clone / "stacks" / "Pulumi.kind.yaml").read_bytes() == tracked


def test_an_empty_passphrase_is_a_stated_choice(clone, tmp_path):
    bin_dir = tools(tmp_path, fakes=FAKES)
    ready_venv(clone)
    completed = run(clone, bin_dir, env={"PULUMI_CONFIG_PASSPHRASE": ""})
    assert completed.returncode == 0, completed.stderr
    assert "warning: PULUMI_CONFIG_PASSPHRASE is set but empty" in completed.stderr
    assert not (clone / ".pulumi-state" / "passphrase").exists()


def test_a_stopped_docker_engine_is_named(clone, tmp_path):
    fakes = {**FAKES, "docker": 'if [ "$1" = info ]; then echo "Cannot connect to the Docker daemon" >&2; exit 1; fi\n'}
    completed = run(clone, tools(tmp_path, fakes=fakes))
    assert completed.returncode == 1
    assert "  - a running Docker engine: 'docker info' failed" in completed.stderr
    assert "  - pulumi" not in completed.stderr and "  - kind" not in completed.stderr


def test_an_old_python_is_named_by_up_and_by_env(clone, tmp_path):
    bin_dir = tools(tmp_path)
    (bin_dir / "python3").unlink()
    old = bin_dir / "python3"
    old.write_text("#!/usr/bin/env bash\nexit 1\n")  # `python3 -c 'sys.version_info >= (3, 11)'` says no
    old.chmod(0o755)
    from_up = run(clone, bin_dir)
    assert from_up.returncode == 1
    assert "  - Python 3.11 or newer (python3): https://www.python.org/downloads/" in from_up.stderr
    completed = run(clone, bin_dir, command="PROJECT_ENV=runtime source scripts/env.sh")
    assert completed.returncode == 1
    assert "python3 is missing or older than 3.11" in completed.stderr
    assert not (clone / ".venv").exists()


def fake_pip_venv(clone: Path, log: Path) -> None:
    """A ready .venv whose `python -m pip ...` only logs its arguments (env.sh's installs, observed)."""
    ready_venv(clone)
    (clone / ".venv" / ".requirements.txt.sha256").unlink()
    python = clone / ".venv" / "bin" / "python"
    real = python.with_name("python-real")  # still inside the venv, so it keeps the venv's site-packages
    python.rename(real)
    python.write_text(
        f'#!/usr/bin/env bash\nif [ "$1 $2" = "-m pip" ]; then shift 2; echo "pip $*" >> {log}; exit 0; fi\nexec {real} "$@"\n'
    )
    python.chmod(0o755)


def test_env_sh_installs_each_requirements_file_once_and_again_when_it_changes(clone, tmp_path):
    log = tmp_path / "pip.log"
    fake_pip_venv(clone, log)
    bin_dir = tools(tmp_path)

    def source(mode: str) -> list[str]:
        log.write_text("")
        completed = run(clone, bin_dir, command=f"PROJECT_ENV={mode} source scripts/env.sh")
        assert completed.returncode == 0, completed.stderr
        return log.read_text().splitlines()

    # pip upgrades itself before installing a requirements file; the library is already importable
    # from this clone's modules/ (ready_venv), so no editable install follows
    assert source("runtime") == ["pip install --quiet --upgrade pip", "pip install --quiet -r requirements.txt"]
    assert source("runtime") == []  # the stamp matches: nothing to do
    assert source("dev") == ["pip install --quiet --upgrade pip", "pip install --quiet -r requirements-dev.txt"]
    assert source("runtime") == [] and source("dev") == []  # a dev install covers the runtime
    with (clone / "requirements.txt").open("a") as requirements:
        requirements.write("# changed\n")
    assert source("runtime")[-1] == "pip install --quiet -r requirements.txt"
    assert source("dev")[-1] == "pip install --quiet -r requirements-dev.txt"  # dev includes requirements.txt
    (clone / "requirements-dev.txt").write_text((clone / "requirements-dev.txt").read_text() + "# changed\n")
    assert source("runtime") == []
    assert source("dev")[-1] == "pip install --quiet -r requirements-dev.txt"


def test_env_sh_reinstalls_the_library_when_the_venv_points_at_another_clone(clone, tmp_path):
    log = tmp_path / "pip.log"
    fake_pip_venv(clone, log)
    digest = hashlib.sha256((clone / "requirements.txt").read_bytes()).hexdigest()
    (clone / ".venv" / ".requirements.txt.sha256").write_text(digest + "\n")
    packages = next((clone / ".venv" / "lib").glob("python3.*/site-packages"))
    # percona_mysql_k8s importable, but from this repository's modules/, not the clone's
    (packages / "clone.pth").write_text(f"{REPOSITORY / 'modules'}\n{site.getsitepackages()[0]}\n")
    completed = run(clone, tools(tmp_path), command="PROJECT_ENV=runtime source scripts/env.sh")
    assert completed.returncode == 0, completed.stderr
    assert log.read_text().splitlines() == [f"pip install --quiet --no-deps -e {clone}"]
