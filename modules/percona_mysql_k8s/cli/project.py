"""Where the Pulumi project and the policy pack are: found from a path the caller gives, never from where
this package happens to be installed.

An installed (non-editable) package lives in site-packages, far from any project, so the project is
looked up the way the Pulumi CLI looks it up: from the working directory (or ``pulumi -C DIR``) up through
its parents to the first ``Pulumi.yaml`` (``Pulumi.yml`` is accepted too; pulumi
sdk/go/common/workspace/paths.go, DetectProjectPathFrom). The policy pack is a directory with a
``PulumiPolicy.yaml``, named explicitly, or the project's own ``policies/``.
"""

from __future__ import annotations

from pathlib import Path

from percona_mysql_k8s.core.errors import InputError

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")
POLICY_PACK_FILE = "PulumiPolicy.yaml"
PROJECT_POLICY_PACK = "policies"  # the project's own pack, relative to its root


def find_project(start: Path | str | None = None) -> Path:
    """The directory holding ``Pulumi.yaml``: ``start`` (default: the working directory) or its nearest parent."""
    origin = Path(start if start is not None else Path.cwd()).resolve()
    if not origin.exists():
        raise InputError("project directory", f"{origin} does not exist; pass the directory of Pulumi.yaml (or one inside it)")
    for directory in (origin, *origin.parents):
        if any((directory / name).is_file() for name in PROJECT_FILES):
            return directory
    raise InputError(
        "project directory",
        f"no Pulumi.yaml in {origin} or any parent directory; run from inside the "
        "Pulumi project or pass its directory (--cwd DIR)",
    )


def project_file(root: Path) -> Path:
    """The project file of a project root found by :func:`find_project`."""
    for name in PROJECT_FILES:
        if (root / name).is_file():
            return root / name
    raise InputError("project directory", f"no Pulumi.yaml in {root}")


def policy_pack_dir(explicit: Path | str | None = None, *, project: Path | str | None = None) -> Path:
    """The pack to run: ``explicit`` (as ``pulumi preview --policy-pack DIR``), else the project's ``policies/``."""
    if explicit is not None:
        pack = Path(explicit).resolve()
        if not (pack / POLICY_PACK_FILE).is_file():
            raise InputError("policy pack", f"{pack} has no {POLICY_PACK_FILE}; --policy-pack names the pack's directory")
        return pack
    root = find_project(project)
    pack = root / PROJECT_POLICY_PACK
    if not (pack / POLICY_PACK_FILE).is_file():
        raise InputError(
            "policy pack",
            f"the project {root} has no {PROJECT_POLICY_PACK}/{POLICY_PACK_FILE}; pass the pack's directory (--policy-pack DIR)",
        )
    return pack
