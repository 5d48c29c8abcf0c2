"""A verified copy of an item in the cache: from the cache, a mirror, ../shared beside the clone, or the network.

Standard library only (``scripts/fetch-reference.sh`` runs it with the system's Python 3.11+). Bytes are
checked against the manifest's sums before they are written to the cache, and a cache copy is checked
again before it is handed out: nothing unverified is ever returned. A copy that does not match is refused
with an error naming the item, where it came from, its URL and both sums; a damaged cache copy is
replaced (the cache is ours), a damaged mirror copy is an error (the mirror is the user's or CI's).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from . import charts
from .manifest import MANIFEST, RAW_GITHUB, Item

REPOSITORY = Path(__file__).resolve().parents[2]
CACHE_ENV = "PERCONA_REFERENCE_CACHE"  # where verified copies live (default below)
MIRROR_ENVS = ("PERCONA_REFERENCE_DIR", "PERCONA_REFERENCE")  # a mirror laid out like ../shared/reference/percona/
REQUIRED_ENV = "PERCONA_REFERENCE_REQUIRED"  # "1": a missing item is an error, not a skip (CI)
RAW_URL_ENV = "PERCONA_REFERENCE_RAW_URL"  # a proxy of raw.githubusercontent.com (same paths), e.g. an artifact server
DEFAULT_CACHE = Path("~/.cache/percona-mysql-k8s/reference")
PINNED_IN = MANIFEST.relative_to(REPOSITORY)
MAX_FILE_BYTES = 64 * 2**20  # the largest item is 0.7 MB
DOWNLOAD_TIMEOUT_SECONDS = 30
DOWNLOAD_ATTEMPTS = 3  # raw.githubusercontent.com answers 429/5xx now and then (nothing else is retried)
RETRY_PAUSE_SECONDS = 2


class MaterialError(Exception):
    """A copy was refused (sums differ), or could not be downloaded or written."""


class Unreachable(MaterialError):
    """The network could not be reached at all (no DNS, no route, refused): no use trying the next item."""


class Unavailable(Exception):
    """No verified copy here, and the network was not asked (or cannot provide it: mirror-only)."""

    def __init__(self, item: Item, looked: list[str]):
        self.item, self.looked = item, looked
        origin = f"mirror-only material: {item.mirror_only}" if item.mirror_only else f"pinned URL {item.url()}"
        super().__init__(f"{item.name}: no verified copy here (looked in {', '.join(looked)}); {origin}")


@dataclass(frozen=True)
class Places:
    """Where copies are looked for and kept."""

    cache: Path
    mirrors: tuple[tuple[str, Path], ...]  # (environment variable, directory)
    shared: Path  # ../shared beside the clone
    raw_base: str = RAW_GITHUB

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None, repository: Path | None = None) -> Places:
        environ = os.environ if environ is None else environ
        repository = repository or REPOSITORY
        cache = Path(environ.get(CACHE_ENV) or DEFAULT_CACHE).expanduser()
        mirrors = tuple((name, Path(environ[name]).expanduser()) for name in MIRROR_ENVS if environ.get(name))
        return cls(cache, mirrors, repository.parent / "shared", environ.get(RAW_URL_ENV) or RAW_GITHUB)

    def candidates(self, item: Item) -> list[tuple[str, Path]]:
        """(label, path) of every local copy to try after the cache, in order."""
        return [
            *((f"${name}", directory / item.name) for name, directory in self.mirrors),
            ("../shared", self.shared / item.shared_path),
        ]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def problems(item: Item, data: bytes) -> list[str]:
    """How ``data`` differs from what the manifest pins for ``item`` (empty: it is the item)."""
    if item.is_chart:
        return charts.archive_problems(item, data)
    digest = sha256(data)
    return [] if digest == item.sha256 else [f"sha256 {digest}, pinned {item.sha256}"]


def _refused(item: Item, source: str, found: list[str]) -> MaterialError:
    return MaterialError(
        f"{item.name}: refused the copy from {source}: {'; '.join(found)} (item URL: {item.url()}; pinned in {PINNED_IN})"
    )


def _verified_local(item: Item, label: str, path: Path) -> bytes:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise _refused(item, f"{label} ({path})", [f"{size} bytes, more than the {MAX_FILE_BYTES} any item may have"])
    data = path.read_bytes()
    found = problems(item, data)
    if found:
        raise _refused(item, f"{label} ({path})", found)
    return data


def cached(item: Item, places: Places) -> Path | None:
    """The cache's copy when it is verified now; a damaged one is left to be replaced."""
    path = places.cache / item.name
    if path.is_file() and path.stat().st_size <= MAX_FILE_BYTES and not problems(item, path.read_bytes()):
        return path
    return None


def install(item: Item, places: Places, data: bytes) -> Path:
    """Write verified bytes into the cache atomically (parallel test workers may do the same)."""
    target = places.cache / item.name
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", delete=False) as handle:
            handle.write(data)
        os.chmod(handle.name, 0o644)  # as any downloaded file (a temporary file is 0600)
        os.replace(handle.name, target)
    except OSError as error:
        raise MaterialError(
            f"{item.name}: cannot write the cache {places.cache} ({error}); set {CACHE_ENV} to a writable directory"
        ) from error
    return target


def local_copy(item: Item, places: Places) -> tuple[Path, str] | None:
    """(cache path, source) from the cache or a mirror; None when no local copy exists."""
    path = cached(item, places)
    if path:
        return path, "cache"
    for label, candidate in places.candidates(item):
        if candidate.is_file():
            return install(item, places, _verified_local(item, label, candidate)), str(candidate)
    return None


def looked_in(item: Item, places: Places) -> list[str]:
    mirrors = [str(path) for _, path in places.candidates(item)]
    unset = [] if places.mirrors else [f"${MIRROR_ENVS[0]} (unset)"]
    return [str(places.cache / item.name), *unset, *mirrors]


def download(url: str) -> bytes:
    """The body of ``url``, bounded; an HTTP 429/5xx is retried, a network that cannot be reached is not."""
    for attempt in range(1, DOWNLOAD_ATTEMPTS + 1):
        try:
            with urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_SECONDS) as response:  # noqa: S310 - https URLs from the manifest
                data = response.read(MAX_FILE_BYTES + 1)
        except urllib.error.HTTPError as error:
            if error.code not in (429, 500, 502, 503, 504) or attempt == DOWNLOAD_ATTEMPTS:
                raise MaterialError(f"cannot download {url}: HTTP {error.code} {error.reason}") from error
        except (urllib.error.URLError, OSError) as error:  # DNS, routing, TLS, a timeout
            raise Unreachable(f"cannot download {url}: {getattr(error, 'reason', error)}") from error
        else:
            if len(data) > MAX_FILE_BYTES:
                raise MaterialError(f"{url}: more than {MAX_FILE_BYTES} bytes")
            return data
        time.sleep(RETRY_PAUSE_SECONDS * attempt)
    raise AssertionError("unreachable")


def npm_file(package: str, inner: str) -> bytes:
    """``inner`` of the npm package ``package`` (name@version), as ``npm pack`` downloads it from the registry."""
    if shutil.which("npm") is None:
        raise Unreachable(f"npm pack {package}: npm is not installed (apt-get install npm, or Node.js)")
    with tempfile.TemporaryDirectory() as work:
        done = subprocess.run(
            ["npm", "pack", package, "--pack-destination", work, "--silent"], capture_output=True, text=True, timeout=600
        )
        archives = list(Path(work).glob("*.tgz"))
        if done.returncode != 0 or not archives:
            raise Unreachable(f"npm pack {package}: {(done.stderr or done.stdout).strip()[-300:]}")
        with tarfile.open(archives[0]) as archive:
            member = archive.extractfile(inner)
            if member is None:
                raise MaterialError(f"npm pack {package}: no {inner} in the package")
            return member.read(MAX_FILE_BYTES + 1)


def network_copy(item: Item, places: Places, fetch=download) -> Path:
    """Download the item (a chart: each of its files, then packaged here), verify, install."""
    if item.mirror_only:
        raise Unavailable(item, looked_in(item, places))
    if item.npm:
        data = npm_file(item.npm, item.path)
        found = problems(item, data)
        if found:
            raise _refused(item, item.url(), found)
        return install(item, places, data)
    if not item.is_chart:
        url = item.url(places.raw_base)
        data = fetch(url)
        found = problems(item, data)
        if found:
            raise _refused(item, url, found)
        return install(item, places, data)
    files = {}
    for inner, url, pinned in item.file_urls(places.raw_base):
        data = fetch(url)
        if sha256(data) != pinned:
            raise _refused(item, url, [f"{inner}: sha256 {sha256(data)}, pinned {pinned}"])
        files[inner] = data
    archive = charts.package(item, files)
    found = problems(item, archive)  # the packaging itself, checked like any other archive
    if found:
        raise _refused(item, "the archive packaged here", found)
    return install(item, places, archive)


def materialize(item: Item, places: Places, *, network: bool, fetch=download) -> tuple[Path, str]:
    """(verified cache path, where it came from). Raises Unavailable, or MaterialError for a refused copy."""
    found = local_copy(item, places)
    if found:
        return found
    if not network:
        raise Unavailable(item, looked_in(item, places))
    return network_copy(item, places, fetch), "network"
