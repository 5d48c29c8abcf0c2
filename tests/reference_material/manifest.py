"""The manifest (manifest.toml): every item with where it comes from and the sums it must have."""

from __future__ import annotations

import datetime
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = Path(__file__).resolve().parent / "manifest.toml"
RAW_GITHUB = "https://raw.githubusercontent.com"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class ManifestError(ValueError):
    """The manifest itself is wrong (a maintainer's mistake, named with the offending entry and key)."""


@dataclass(frozen=True)
class Ref:
    """A commit of a public GitHub repository."""

    repository: str
    commit: str
    date: datetime.date
    ref: str  # the tag or branch it was read at, for people

    def raw_url(self, path: str, raw_base: str = RAW_GITHUB) -> str:
        return f"{raw_base.rstrip('/')}/{self.repository}/{self.commit}/{path}"


@dataclass(frozen=True)
class Item:
    """One file (``sha256``) or one chart archive (``chart_files``), named as tests and mirrors name it."""

    name: str  # the path in the cache, in a mirror and in ../shared/reference/percona/
    shared_path: str  # its path under ../shared
    ref: Ref | None = None
    path: str | None = None  # the file in ``ref`` (files); the chart's directory (charts)
    sha256: str | None = None
    chart_files: tuple[tuple[str, str], ...] = ()  # (path inside the chart, sha256), sorted
    mirror_only: str | None = None  # why no URL can provide it
    npm: str | None = None  # a file inside this npm package (``name@version``), fetched with ``npm pack``: ``path`` in it

    @property
    def is_chart(self) -> bool:
        return bool(self.chart_files)

    def url(self, raw_base: str = RAW_GITHUB) -> str:
        """Where the network copy comes from (a chart: its directory, whose files are fetched one by one)."""
        if self.npm:
            return f"npm pack {self.npm}: {self.path}"
        if self.ref is None:
            return "no public URL (mirror-only)"
        if self.is_chart:
            return f"https://github.com/{self.ref.repository}/tree/{self.ref.commit}/{self.path}"
        return self.ref.raw_url(self.path, raw_base)

    def file_urls(self, raw_base: str = RAW_GITHUB) -> list[tuple[str, str, str]]:
        """A chart's (path inside the chart, URL, sha256), one per file."""
        return [(inner, self.ref.raw_url(f"{self.path}/{inner}", raw_base), digest) for inner, digest in self.chart_files]


def _safe_relative(value: object, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ManifestError(f"{where}: a non-empty relative path is required, got {value!r}")
    path = PurePosixPath(value)
    if path.is_absolute() or ".." in path.parts or str(path) != value:
        raise ManifestError(f"{where}: {value!r} is not a plain relative path")
    return value


def _sum(value: object, where: str) -> str:
    if not isinstance(value, str) or not _SHA256.match(value):
        raise ManifestError(f"{where}: a sha256 is 64 lowercase hex digits, got {value!r}")
    return value


def _refs(table: dict) -> dict[str, Ref]:
    refs = {}
    for name, entry in table.items():
        if not _REPOSITORY.match(str(entry.get("repository"))) or not _COMMIT.match(str(entry.get("commit"))):
            raise ManifestError(f"refs.{name}: repository is owner/name and commit 40 hex digits, got {entry}")
        if not isinstance(entry.get("date"), datetime.date):
            raise ManifestError(f"refs.{name}: date is the commit's date (YYYY-MM-DD), got {entry.get('date')!r}")
        refs[name] = Ref(entry["repository"], entry["commit"], entry["date"], str(entry.get("ref", "")))
    return refs


def _ref(entry: dict, refs: dict[str, Ref], where: str) -> Ref:
    if entry.get("ref") not in refs:
        raise ManifestError(f"{where}: ref {entry.get('ref')!r} is not one of [refs] ({', '.join(sorted(refs))})")
    return refs[entry["ref"]]


def _file(entry: dict, refs: dict[str, Ref]) -> Item:
    name = _safe_relative(entry.get("name"), "[[file]] name")
    where = f"[[file]] {name}"
    known = {"name", "ref", "path", "sha256", "mirror_only", "shared_path", "npm"}
    if set(entry) - known:
        raise ManifestError(f"{where}: unknown key(s) {sorted(set(entry) - known)} (known: {sorted(known)})")
    shared = _safe_relative(entry.get("shared_path", f"reference/percona/{name}"), f"{where}: shared_path")
    if "mirror_only" in entry:
        if "ref" in entry or "path" in entry:
            raise ManifestError(f"{where}: a mirror-only item has no ref or path")
        return Item(name, shared, sha256=_sum(entry.get("sha256"), f"{where}: sha256"), mirror_only=str(entry["mirror_only"]))
    if "npm" in entry:  # the registries CI reaches include npm's: a file a pinned package ships
        if "ref" in entry or not re.match(r"^@?[a-z0-9._/-]+@\d[0-9A-Za-z.+-]*$", str(entry["npm"])):
            raise ManifestError(f"{where}: npm is name@version (pinned) and excludes ref, got {entry['npm']!r}")
        path = _safe_relative(entry.get("path"), f"{where}: path")
        return Item(name, shared, path=path, sha256=_sum(entry.get("sha256"), f"{where}: sha256"), npm=str(entry["npm"]))

    return Item(
        name,
        shared,
        _ref(entry, refs, where),
        _safe_relative(entry.get("path"), f"{where}: path"),
        _sum(entry.get("sha256"), f"{where}: sha256"),
    )


def _chart(entry: dict, refs: dict[str, Ref]) -> Item:
    name = _safe_relative(entry.get("name"), "[[chart]] name")
    where = f"[[chart]] {name}"
    if not name.endswith(".tgz"):
        raise ManifestError(f"{where}: a chart item is a .tgz archive")
    files = entry.get("files")
    if not isinstance(files, dict) or not files:
        raise ManifestError(f"{where}: [chart.files] lists every file of the chart with its sha256")
    pinned = tuple(
        sorted(
            (_safe_relative(inner, f"{where}: files"), _sum(digest, f"{where}: files.{inner}")) for inner, digest in files.items()
        )
    )
    return Item(
        name,
        f"reference/percona/{name}",
        _ref(entry, refs, where),
        _safe_relative(entry.get("directory"), f"{where}: directory"),
        chart_files=pinned,
    )


@dataclass(frozen=True)
class Manifest:
    items: dict[str, Item]

    def item(self, name: str) -> Item:
        if name not in self.items:
            raise KeyError(f"{name!r} is not in {MANIFEST.name} (items: {', '.join(sorted(self.items))})")
        return self.items[name]


def load(path: Path = MANIFEST) -> Manifest:
    try:
        document = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{path}: {error}") from error
    refs = _refs(document.get("refs", {}))
    items: dict[str, Item] = {}
    for item in [*(_file(e, refs) for e in document.get("file", [])), *(_chart(e, refs) for e in document.get("chart", []))]:
        if item.name in items:
            raise ManifestError(f"{path}: {item.name} is listed twice")
        items[item.name] = item
    return Manifest(items)
