"""The distribution's metadata, the project and pack lookup, and the pack builder (fast: no venv, no network)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import percona_mysql_k8s
import pytest
import yaml
from packaging.requirements import Requirement
from percona_mysql_k8s.cli import bundle, check
from percona_mysql_k8s.cli.project import find_project, policy_pack_dir
from percona_mysql_k8s.core.errors import InputError
from percona_mysql_k8s.policies import SHELL, SHELL_FILES

REPOSITORY = Path(__file__).resolve().parents[2]
PACKAGE = REPOSITORY / "modules" / "percona_mysql_k8s"
PYPROJECT = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+-]+)$")


def _pins(path: Path) -> dict[str, str]:
    """name -> version of every ``name==version`` line (comments and blanks skipped)."""
    lines = [line.split("#", 1)[0].strip() for line in path.read_text().splitlines()]
    return {match[1].lower(): match[2] for line in lines if line and (match := PIN.match(line))}


def _requirement_lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_dependency_ranges_hold_the_programs_lock():
    # requirements.txt stays the pinned lock of the program; each pin must satisfy pyproject's range.
    lock = _pins(REPOSITORY / "requirements.txt")
    every = PROJECT["dependencies"] + [text for extra in PROJECT["optional-dependencies"].values() for text in extra]
    checked = 0
    for text in every:
        requirement = Requirement(text)
        name = requirement.name.lower()
        if name in lock:
            assert requirement.specifier.contains(lock[name]), f"{name}=={lock[name]} (requirements.txt) is outside {text}"
            checked += 1
    # every runtime dependency and every target's provider is pinned in the lock
    assert checked >= len(PROJECT["dependencies"]) + len(
        {"pulumi-kubernetes", "pulumi-random", "pulumi-gcp", "pulumi-aws", "pulumi-eks", "pulumi-command"}
    )


def test_extras_console_scripts_version_and_license():
    assert set(PROJECT["optional-dependencies"]) >= {
        "gke",
        "eks",
        "kind",
        "existing",
        "all",
        "plot",
        "grade",
        "admission",
        "test",
        "dev",
    }
    assert PROJECT["scripts"] == {
        "percona-mysql-sizing": "percona_mysql_k8s.sizing.cli:main",
        "percona-mysql-policy-check": "percona_mysql_k8s.cli.check:main",
        "percona-mysql-policy-bundle": "percona_mysql_k8s.cli.bundle:main",
        "percona-mysql-restore": "percona_mysql_k8s.cli.restore:main",
        "percona-mysql-grade": "percona_mysql_k8s.grade.cli:main",
        "percona-mysql-admission": "percona_mysql_k8s.admission.cli:main",
    }
    for target in PROJECT["scripts"].values():
        module, function = target.split(":")
        assert callable(getattr(__import__(module, fromlist=[function]), function))
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "percona_mysql_k8s.__version__"}
    assert f"## [{percona_mysql_k8s.__version__}] - " in (REPOSITORY / "CHANGELOG.md").read_text()
    license_text = (REPOSITORY / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text  # the full text, not a pointer to it


def test_the_pack_carries_the_librarys_version():
    pack = yaml.safe_load((REPOSITORY / "policies" / "PulumiPolicy.yaml").read_text())
    assert str(pack["version"]) == percona_mysql_k8s.__version__


def test_the_checkouts_pack_shell_is_the_one_the_package_ships():
    # One source: policies/ holds links to the package data (relative, so a clone anywhere keeps them), not copies.
    assert sorted(path.name for path in SHELL.iterdir() if path.is_file()) == sorted(SHELL_FILES)
    for name in SHELL_FILES:
        link = REPOSITORY / "policies" / name
        assert link.is_symlink(), (
            f"policies/{name} is a copy: make it a link to ../modules/percona_mysql_k8s/policies/pack/{name}"
        )
        assert not Path(link.readlink()).is_absolute(), link.readlink()
        assert link.resolve() == (PACKAGE / "policies" / "pack" / name).resolve() == (SHELL / name).resolve()


def test_pack_requirements_are_pinned_pypi_packages_only():
    # The defect: `-e ..` resolves against wherever the CLI installs a published pack, not this repository.
    lines = _requirement_lines(REPOSITORY / "policies" / "requirements.txt")
    assert lines and all(PIN.match(line) for line in lines), lines
    pins = _pins(REPOSITORY / "policies" / "requirements.txt")
    lock = _pins(REPOSITORY / "requirements.txt")
    for name in ("pulumi-policy", "pulumi"):
        assert pins[name] == lock[name], f"{name}: the pack pins {pins[name]}, the program {lock[name]}"
    ranges = {Requirement(text).name.lower(): Requirement(text).specifier for text in PROJECT["dependencies"]}
    assert ranges["pulumi-policy"].contains(pins["pulumi-policy"])


def test_examples_benchmarks_and_the_pack_import_the_installed_package():
    scripts = [
        *REPOSITORY.glob("examples/*/__main__.py"),
        *REPOSITORY.glob("benchmarks/*.py"),
        REPOSITORY / "stacks" / "__main__.py",
    ]
    for script in scripts:
        assert "sys.path" not in script.read_text(), f"{script.relative_to(REPOSITORY)} edits sys.path"


def test_project_is_found_by_walking_up_to_pulumi_yaml(tmp_path):
    assert find_project(REPOSITORY / "stacks") == REPOSITORY
    assert find_project(REPOSITORY / "modules" / "percona_mysql_k8s" / "core") == REPOSITORY
    (tmp_path / "app" / "deep").mkdir(parents=True)
    (tmp_path / "app" / "Pulumi.yml").write_text("name: app\nruntime: python\n")
    assert find_project(tmp_path / "app" / "deep") == tmp_path / "app"


def test_outside_a_project_the_error_says_what_to_pass(tmp_path):
    with pytest.raises(InputError, match=r"no Pulumi.yaml in .* or any parent directory.*--cwd DIR"):
        find_project(tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        find_project(tmp_path / "missing")


def test_the_pack_is_named_or_the_projects_own(tmp_path):
    assert policy_pack_dir(project=REPOSITORY) == REPOSITORY / "policies"
    assert policy_pack_dir(REPOSITORY / "policies") == REPOSITORY / "policies"
    with pytest.raises(InputError, match="has no PulumiPolicy.yaml; --policy-pack"):
        policy_pack_dir(tmp_path)
    (tmp_path / "Pulumi.yaml").write_text("name: other\n")
    with pytest.raises(InputError, match="has no policies/PulumiPolicy.yaml.*--policy-pack DIR"):
        policy_pack_dir(project=tmp_path)


def test_policy_check_outside_a_project_is_an_error_not_a_traceback(tmp_path, capsys):
    assert check.main(["--stack", "kind", "--cwd", str(tmp_path)]) == 2
    assert "error: project directory: no Pulumi.yaml" in capsys.readouterr().err


def test_bundle_vendors_the_pure_code_and_no_tooling(tmp_path):
    out = bundle.build(tmp_path / "pack")
    assert sorted(path.name for path in out.iterdir()) == sorted([*SHELL_FILES, "_vendor"])
    vendored = {path.relative_to(out / "_vendor" / "percona_mysql_k8s").as_posix() for path in (out / "_vendor").rglob("*.py")}
    expected = {path.relative_to(PACKAGE).as_posix() for name in ("core", "policies") for path in (PACKAGE / name).rglob("*.py")}
    tooling = {"policies/check.py", "policies/bundle.py", "policies/pack/__main__.py"}  # the tools' old paths; the shell
    single = {"plan/__init__.py", "plan/database/__init__.py", "plan/database/versions.py"}  # C2's fixes name its images
    assert vendored == (expected - tooling) | {"__init__.py"} | single
    assert not {path.name for path in (out / "_vendor").rglob("*") if path.suffix == ".pyc" or path.name == "__pycache__"}
    # A second build replaces the first (no stale module survives), a foreign directory is refused.
    (out / "_vendor" / "percona_mysql_k8s" / "core" / "stale.py").write_text("")
    bundle.build(out)
    assert not (out / "_vendor" / "percona_mysql_k8s" / "core" / "stale.py").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(bundle.BundleError, match="not empty and holds no pack"):
        bundle.build(tmp_path / "other")
    with pytest.raises(bundle.BundleError, match="holds a pack this command did not build"):
        bundle.build(REPOSITORY / "policies")  # the checkout's shell stays as it is, running the installed library
    assert not (REPOSITORY / "policies" / "_vendor").exists()


def test_bundle_refuses_a_directory_publish_would_leave_out(tmp_path):
    # `pulumi policy publish` skips files any .gitignore in the pack's directory or a parent ignores
    # (pulumi sdk/go/common/util/archive/archive.go): a bundle there would upload without its code.
    if subprocess.run(["git", "--version"], capture_output=True, check=False).returncode != 0:
        pytest.skip("git is not installed: the builder cannot ask which files a .gitignore excludes")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("/dist/\n")
    with pytest.raises(bundle.BundleError, match="ignored by a .gitignore.*leaves ignored files out of the upload"):
        bundle.build(tmp_path / "dist" / "pack")
    assert not (tmp_path / "dist" / "pack" / "_vendor").exists()
    assert bundle.build(tmp_path / "published" / "pack").is_dir()  # not ignored: built


@pytest.mark.parametrize("script", sorted(PROJECT["scripts"]))
def test_each_console_script_names_itself_in_its_usage(script, capsys):
    # The usage line is what a user copies from: it names the installed command, not `python -m ...`.
    module, function = PROJECT["scripts"][script].split(":")
    main = getattr(__import__(module, fromlist=[function]), function)
    with pytest.raises(SystemExit) as exit_status:
        main(["--help"])
    assert exit_status.value.code == 0
    help_text = capsys.readouterr().out
    assert help_text.startswith(f"usage: {script} ")
    assert "python -m" not in help_text


@pytest.mark.parametrize("script", sorted(PROJECT["scripts"]))
def test_each_console_script_refuses_an_abbreviated_flag_in_one_error_line(script, capsys):
    # Every command parses with core.command_line.Parser: --hel is not --help (a flag is spelled out), and words
    # it cannot read are one error line with exit status 2 like any other bad input, never the usage block.
    module, function = PROJECT["scripts"][script].split(":")
    main = getattr(__import__(module, fromlist=[function]), function)
    assert main(["--hel", "a\nb"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("error: "), err


def test_the_package_ships_its_type_hints():
    assert (PACKAGE / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["percona_mysql_k8s"]


CHANGE_TYPES = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")  # keepachangelog.com/en/1.1.0


def test_the_changelog_follows_keep_a_changelog():
    from packaging.version import Version

    text = (REPOSITORY / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n")
    assert "[Keep a Changelog](https://keepachangelog.com/en/1.1.0/)" in text
    assert "[Semantic Versioning](https://semver.org/spec/v2.0.0.html)" in text
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    headings = [section.split("\n", 1)[0] for section in sections]
    assert headings[0] == "[Unreleased]"
    released = [re.fullmatch(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", heading) for heading in headings[1:]]
    assert all(released), headings
    versions = [Version(match[1]) for match in released]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    dates = [match[2] for match in released]
    assert dates == sorted(dates, reverse=True)
    for heading, section in zip(headings, sections, strict=True):
        kinds = re.findall(r"^### (.+)$", section, re.M)
        assert kinds and set(kinds) <= set(CHANGE_TYPES) and len(kinds) == len(set(kinds)), (heading, kinds)
        for kind, body in zip(kinds, re.split(r"^### .+$", section, flags=re.M)[1:], strict=True):
            assert re.search(r"^- ", body, re.M), f"{heading} {kind}: an empty section"
    assert percona_mysql_k8s.__version__ in {str(version) for version in versions}
