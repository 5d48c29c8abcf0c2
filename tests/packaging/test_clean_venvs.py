"""The distribution and its pack, each in a clean virtualenv built from PyPI (slow: marker ``clean_venv``).

Issue 12: ``pip install .`` gave a package that did not run (no dependencies declared, the pack's files
missing, the repository found as the package's parent folder); the pack's requirements were ``-e ..``,
which breaks a published pack; the stack program did not start under the real engine, whose language host
puts nothing of the project on ``sys.path``. Issue 22: every install had every cloud's SDK; now the base install
has the commands and each target is an extra. Each test here starts the thing the way its real user does.
"""

from __future__ import annotations

import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import yaml
from percona_mysql_k8s.cli import offline
from percona_mysql_k8s.cli.engine import Pack
from percona_mysql_k8s.policies._catalog import PACK_NAME, SPECS
from percona_mysql_k8s.sizing import cli as sizing_cli

pytestmark = pytest.mark.clean_venv

REPOSITORY = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
KIND_HOST = {"kindHostCpu": "8", "kindHostMemory": "32Gi"}  # the kind sizing's machine, fixed (K1)
SIZING_ARGS = ("--engine", "pxc", "--node-type", "n2-standard-16", "--provider", "gke", "--format", "json")


def _site_packages(venv) -> Path:
    return Path(venv.run(venv.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").stdout.strip())


def test_bundled_pack_starts_on_its_requirements_alone(pack_venv, bundle_dir):
    # The venv has what requirements.txt names and nothing else: neither the library nor a provider, so
    # the pack ran its _vendor copy, and that copy needs no component (import-linter contract too).
    assert not pack_venv.has("percona_mysql_k8s") and not pack_venv.has("pulumi_kubernetes")
    with Pack(bundle_dir, python=pack_venv.python, stack="dev", project="percona-mysql") as pack:
        info = pack.info()
    assert info.name == PACK_NAME
    assert [policy.name for policy in info.policies] == [spec.name for spec in SPECS]


def test_the_checkouts_pack_without_the_library_says_what_to_install(pack_venv):
    # policies/ has no _vendor: in a venv of requirements.txt alone the pack stops with the two ways out.
    with pytest.raises(RuntimeError, match="percona-mysql-policy-bundle DIR.*pip install -r requirements.txt -e"):
        Pack(REPOSITORY / "policies", python=pack_venv.python)


def test_installed_sizing_command_prints_the_cores_answer(library_venv):
    result = library_venv.run(library_venv.bin("percona-mysql-sizing"), *SIZING_ARGS)
    assert result.returncode == 0, result.stderr
    # Expected: the same command run in this process on the checkout's code; the installed one must agree.
    here = io.StringIO()
    with redirect_stdout(here):
        assert sizing_cli.main(list(SIZING_ARGS)) == 0
    assert json.loads(result.stdout) == json.loads(here.getvalue())


def test_plot_without_the_plot_extra_names_the_extra(library_venv, tmp_path):
    # matplotlib is the `plot` extra, not a runtime dependency: the plain install says how to get it.
    result = library_venv.run(library_venv.bin("percona-mysql-sizing"), *SIZING_ARGS, "--plot", str(tmp_path / "split.png"))
    assert not library_venv.has("matplotlib")
    assert result.returncode == 2 and "percona-mysql-k8s[plot]" in result.stderr and "Traceback" not in result.stderr


def test_grade_without_the_grade_extra_names_the_extra(library_venv, tmp_path):
    # PyMySQL is the `grade` extra: the plain install reads the sizing, then says how to get the driver.
    sizing = tmp_path / "sizing.json"
    sizing.write_text(library_venv.run(library_venv.bin("percona-mysql-sizing"), *SIZING_ARGS).stdout)
    result = library_venv.run(library_venv.bin("percona-mysql-grade"), "--sizing", str(sizing), "--user", "root", MYSQL_PWD="")
    assert not library_venv.has("pymysql")
    assert result.returncode == 2 and "percona-mysql-k8s[grade]" in result.stderr and "Traceback" not in result.stderr


PROVIDERS = ("pulumi_kubernetes", "pulumi_random", "pulumi_gcp", "pulumi_aws", "pulumi_eks", "pulumi_command")
# target -> (the providers its extra installs, the offline check's arguments as the pull-request workflow runs them)
TARGETS = {
    "gke": ({"pulumi_kubernetes", "pulumi_random", "pulumi_gcp"}, ()),
    "eks": ({"pulumi_kubernetes", "pulumi_random", "pulumi_aws", "pulumi_eks"}, ()),
    "kind": ({"pulumi_kubernetes", "pulumi_random", "pulumi_command"}, tuple(f"--set={k}={v}" for k, v in KIND_HOST.items())),
    "existing": (
        {"pulumi_kubernetes", "pulumi_random"},
        (
            "--set=existingNodeSource=config",
            "--set=existingNodeCpu=7910m",
            "--set=existingNodeMemory=28Gi",
            "--set=existingNodeZones=us-east-1a,us-east-1b,us-east-1c",
        ),
    ),
}


def test_the_base_install_has_the_commands_and_no_provider(library_venv):
    assert [module for module in PROVIDERS if library_venv.has(module)] == []
    assert all(library_venv.has(module) for module in ("pulumi", "pulumi_policy", "yaml", "rich", "cel_expr_python"))
    assert not library_venv.has("kubernetes")  # the API client is the existing and restore extras' (issue 36)
    restore = library_venv.run(
        library_venv.bin("percona-mysql-restore"),
        "--engine",
        "pxc",
        "--cluster",
        "db1",
        "--namespace",
        "mysql",
        "--backup",
        "cron-db1-1",
    )
    assert restore.returncode == 0 and "kind: PerconaXtraDBClusterRestore" in restore.stdout, restore.stderr
    manifests = library_venv.run(
        library_venv.bin("percona-mysql-policy-check"), "--manifests", str(REPOSITORY / "tests" / "policies" / "_manifests")
    )
    assert manifests.returncode in (0, 1) and "violation(s) in" in manifests.stdout, manifests.stderr[-2000:]
    applied = library_venv.run(
        library_venv.bin("percona-mysql-restore"),
        *("--engine", "pxc", "--cluster", "db1", "--namespace", "mysql", "--backup", "cron-db1-1", "--apply"),
    )
    assert applied.returncode == 1 and 'pip install "percona-mysql-k8s[restore]"' in applied.stderr, applied.stderr
    assert "Traceback" not in applied.stderr
    # a component of a target: one line naming the extra, not a traceback
    component = library_venv.run(library_venv.python, "-c", "import percona_mysql_k8s.clusters.gke")
    assert 'pip install "percona-mysql-k8s[gke]"' in component.stderr
    stack = library_venv.run(library_venv.bin("percona-mysql-policy-check"), "--stack", "kind", cwd=REPOSITORY)
    assert stack.returncode == 2 and "percona-mysql-k8s[<target>]" in stack.stderr and "Traceback" not in stack.stderr


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_each_targets_extra_installs_its_providers_alone_and_runs_its_stack(installed, target):
    venv = installed(target)
    providers, arguments = TARGETS[target]
    assert {module for module in PROVIDERS if venv.has(module)} == providers
    imported = venv.run(venv.python, "-c", f"import percona_mysql_k8s.clusters.{target}, percona_mysql_k8s.database.cluster")
    assert imported.returncode == 0, imported.stderr[-3000:]
    checked = venv.run(venv.bin("percona-mysql-policy-check"), "--stack", target, *arguments, cwd=REPOSITORY, timeout=600)
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "0 mandatory" in checked.stdout


def test_installed_package_is_not_the_checkout_and_ships_the_packs_shell(library_venv):
    site = _site_packages(library_venv)
    assert (site / "percona_mysql_k8s" / "py.typed").is_file()
    where = library_venv.run(
        library_venv.python, "-c", "import percona_mysql_k8s; print(percona_mysql_k8s.__file__)", cwd=HERE
    ).stdout.strip()
    assert Path(where).parent == site / "percona_mysql_k8s"
    shipped = yaml.safe_load((site / "percona_mysql_k8s" / "policies" / "pack" / "PulumiPolicy.yaml").read_text())
    assert shipped == yaml.safe_load((REPOSITORY / "policies" / "PulumiPolicy.yaml").read_text())


def test_installed_policy_check_finds_the_project_from_its_working_directory(installed):
    library_venv = installed("kind")
    assert library_venv.run(library_venv.bin("percona-mysql-policy-check"), "--help").returncode == 0
    sets = [arg for key, value in KIND_HOST.items() for arg in ("--set", f"{key}={value}")]
    # From a directory inside the project (stacks/): found by walking up to Pulumi.yaml, as the CLI does.
    inside = library_venv.run(library_venv.bin("percona-mysql-policy-check"), "--stack", "kind", *sets, cwd=REPOSITORY / "stacks")
    assert inside.returncode == 0, inside.stdout[-3000:] + inside.stderr[-3000:]
    assert "0 mandatory" in inside.stdout
    # From outside any project: a clear error naming the way out, not a traceback.
    outside = library_venv.run(
        library_venv.bin("percona-mysql-policy-check"), "--stack", "kind", cwd=_site_packages(library_venv)
    )
    assert outside.returncode == 2
    assert "no Pulumi.yaml" in outside.stderr and "--cwd" in outside.stderr and "Traceback" not in outside.stderr


def test_installed_bundler_builds_a_pack_that_starts(library_venv, pack_venv, tmp_path):
    out = tmp_path / "pack"
    built = library_venv.run(library_venv.bin("percona-mysql-policy-bundle"), str(out))
    assert built.returncode == 0, built.stderr
    with Pack(out, python=pack_venv.python) as pack:
        assert pack.info().name == PACK_NAME


def _start_like_the_language_host(venv, tmp_path, stack: str):
    """``<venv>/bin/python <bin>/pulumi-language-python-exec --pwd <project>/stacks ... .`` with the stack's config."""
    bin_dir = tmp_path / "cli-bin"
    bin_dir.mkdir()
    shutil.copyfile(HERE / "language_host.py", bin_dir / "pulumi-language-python-exec")
    config = offline.stack_config(stack, REPOSITORY)
    config.update({f"percona-mysql:{key}": value for key, value in KIND_HOST.items()})
    return venv.run(
        venv.python,
        str(bin_dir / "pulumi-language-python-exec"),
        "--project",
        "percona-mysql",
        "--stack",
        stack,
        "--root_directory",
        str(REPOSITORY),
        "--pwd",
        str(REPOSITORY / "stacks"),
        "--dry_run",
        "true",
        ".",
        cwd=REPOSITORY,
        PULUMI_CONFIG=json.dumps(config),
        PULUMI_CONFIG_SECRET_KEYS="[]",
    )


def test_stack_program_starts_as_the_language_host_starts_it(installed, tmp_path):
    library_venv = installed("kind")
    result = _start_like_the_language_host(library_venv, tmp_path, "kind")
    assert result.returncode == 0, result.stderr[-4000:]
    started = json.loads(result.stdout.strip().splitlines()[-1])
    assert started["cwd"] == str(REPOSITORY / "stacks")
    assert not {str(REPOSITORY), str(REPOSITORY / "modules")} & {
        str(Path(entry).resolve()) for entry in started["sys_path"] if entry
    }
    assert Path(started["library"]).parent.parent == _site_packages(library_venv)
    # Expected: what the same program registers in this process (percona_mysql_k8s.cli.offline), same config;
    # the SDK's mocks see components as well as custom resources, as the offline runner records them.
    expected = [r.type for r in offline.run_stack("kind", repository=REPOSITORY, overrides=KIND_HOST, preview=True)]
    assert sorted(started["types"]) == sorted(expected)
    assert "kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster" in started["types"]


def test_language_host_start_fails_without_the_library_installed(pack_venv, tmp_path):
    # The defect this guards against: a venv with Pulumi but without the project installed (the test
    # runner's own path would have hidden it).
    result = _start_like_the_language_host(pack_venv, tmp_path, "kind")
    assert result.returncode != 0
    assert "No module named 'percona_mysql_k8s'" in result.stderr


BASE_INSTALL_MAX_MB = 300  # issue 36: the base install was 314 MB with the kubernetes client in it


def test_the_base_install_stays_within_its_size(library_venv):
    """What ``pip install percona-mysql-k8s`` puts into a new virtualenv, byte code included (pip compiles what it
    installs; the fixture does not, so it is compiled here), the venv's own pip and setuptools with it.
    benchmarks/install_bench.py prints every install's figure; docs say what the megabytes are."""
    site = _site_packages(library_venv)
    compiled = library_venv.run(library_venv.python, "-m", "compileall", "-q", "-j", "2", str(site), timeout=900)
    assert compiled.returncode == 0, compiled.stdout[-2000:]
    root = library_venv.root
    size = sum(path.stat().st_size for path in root.rglob("*") if path.is_file() and not path.is_symlink())
    assert size <= BASE_INSTALL_MAX_MB * 10**6, f"the base install is {size / 10**6:.0f} MB"
