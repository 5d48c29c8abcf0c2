"""Every document cites what exists: links and file references in README.md, CHANGELOG.md, docs/, examples/ and
provider/ resolve in this repository (issue 22: the pack cited a RULES.md that is not in it).

* a Markdown link to a local file resolves from the page's directory, and its ``#anchor`` names a heading (GitHub's
  slug of it) or an ``id`` of the page it points to;
* a path in backticks whose first segment is a tracked top-level entry of the repository (``modules/...``,
  ``stacks/Pulumi.gke.yaml``, ``scripts/test.sh``) exists, from the root or from the page's directory (a glob matches
  something); paths git ignores (``policies/venv``, made at run time) and placeholders (``<...>``) are not checked.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    {
        ROOT / "README.md",
        ROOT / "CHANGELOG.md",
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("examples/*/README.md"),
        *ROOT.glob("provider/*.md"),
    }
)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
PATHLIKE = re.compile(r"^\.?[\w-]+(?:\.\w+)?(?:/[\w.*{}-]+)*/?$")


def _tracked_top_level() -> set[str]:
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True, check=False).stdout
    names = {line.split("/", 1)[0] for line in listed.splitlines() if line}
    return names or {path.name for path in ROOT.iterdir() if not path.name.startswith(".venv")}


TOP_LEVEL = _tracked_top_level()


def _ignored(path: str) -> bool:
    """Git ignores it (as a file, or as a directory: ``policies/venv/`` matches only a directory)."""
    return any(
        subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", candidate], check=False).returncode == 0
        for candidate in (path, f"{path}/")
    )


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation other than - and _ dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[`*_~]", lambda m: "_" if m.group() == "_" else "", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    found = {slug(match) for match in re.findall(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}
    return found | set(re.findall(r'id="([^"]+)"', text))


def _page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_local_link_resolves(page):
    problems = []
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            problems.append(f"{target}: {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked} does not exist")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{target}: no heading or id '{anchor}' in {linked.relative_to(ROOT)}")
    assert problems == [], f"{_page_id(page)}: " + "; ".join(problems)


def _file_references(page: Path) -> list[str]:
    references = []
    for code in CODE.findall(FENCE.sub("", page.read_text())):
        token = code.strip().split()[0] if code.strip() else ""
        if "<" in token or not PATHLIKE.match(token) or "/" not in token.strip("/"):
            continue
        if token.split("/", 1)[0] in TOP_LEVEL:
            references.append(token)
    return references


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_file_reference_exists(page):
    missing = []
    for reference in _file_references(page):
        if _ignored(reference.rstrip("/")):
            continue
        candidates = [ROOT, page.parent]
        if "*" in reference or "{" in reference:
            found = any(list(base.glob(reference.replace("{", "").replace("}", ""))) for base in candidates)
        else:
            found = any((base / reference).exists() for base in candidates)
        if not found:
            missing.append(reference)
    assert missing == [], f"{_page_id(page)} cites what is not in the repository: {missing}"


def test_the_references_are_found():
    # the check reads what it should: the README cites stack configs, scripts and modules in backticks
    cited = _file_references(ROOT / "README.md")
    assert "stacks/Pulumi.existing.yaml" in cited and any(ref.startswith("modules/") for ref in cited)
    assert LINK.findall((ROOT / "README.md").read_text())


def test_the_slug_is_githubs():
    assert (
        slug("Any manifests, with the same rules (GitOps: Argo CD, Flux)")
        == "any-manifests-with-the-same-rules-gitops-argo-cd-flux"
    )
    assert slug("`percona-mysql-sizing` and `--plot`") == "percona-mysql-sizing-and---plot"


def test_the_policy_pack_cites_pages_of_this_repository():
    # The pack's description is what `pulumi policy publish` shows: every page it names is one of ours.
    for shell in (
        ROOT / "policies" / "PulumiPolicy.yaml",
        ROOT / "modules" / "percona_mysql_k8s" / "policies" / "pack" / "PulumiPolicy.yaml",
    ):
        cited = re.findall(r"[\w./-]+\.md\b", shell.read_text())
        assert cited, f"{shell.relative_to(ROOT)} names no page"
        assert [page for page in cited if not (ROOT / page).is_file()] == [], f"{shell.relative_to(ROOT)} cites {cited}"
