"""scripts/fetch-reference.sh and the tests' resolver: nothing unverified is ever used, and a missing item
skips naming the command (fails under PERCONA_REFERENCE_REQUIRED=1).

Most cases run on a small manifest written here (an operator file, a mirror-only file, a chart), with
mirrors and a cache in temporary directories and a stand-in for the network (a dict of URL -> bytes): they
need no reference material. The command itself runs on the real manifest.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import re
import socket
import subprocess
import tarfile
import threading
from pathlib import Path

import pytest
import yaml
from reference_material import charts, resolve, store
from reference_material.manifest import Manifest, ManifestError, load

REPOSITORY = Path(__file__).resolve().parents[2]
FETCH = REPOSITORY / "scripts" / "fetch-reference.sh"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
CRD = b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
CORPUS = b'{"entries": []}\n'
CHART = {
    "Chart.yaml": b"apiVersion: v2\nname: example\nversion: 1.0.0\n",
    "values.yaml": b"replicaCount: 1\n",
    "templates/deployment.yaml": b"kind: Deployment\n",
}
RAW = f"https://raw.githubusercontent.com/example/operator/{COMMIT}"
CHANGED_VALUES = b"replicaCount: 2\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _manifest(tmp_path: Path) -> Manifest:
    chart_files = "\n".join(f'"{inner}" = "{_sha(data)}"' for inner, data in CHART.items())
    path = tmp_path / "manifest.toml"
    path.write_text(f"""
[refs]
"operator@v1" = {{ repository = "example/operator", commit = "{COMMIT}", date = 2026-01-02, ref = "tag v1" }}

[[file]]
name = "operator-v1-crd.yaml"
ref = "operator@v1"
path = "deploy/crd.yaml"
sha256 = "{_sha(CRD)}"

[[file]]
name = "corpus.json"
sha256 = "{_sha(CORPUS)}"
mirror_only = "compiled on the project's machines"

[[chart]]
name = "charts/example-1.0.0.tgz"
ref = "operator@v1"
directory = "charts/example"
[chart.files]
{chart_files}
""")
    return load(path)


def _places(tmp_path: Path, *, mirror: bool = True) -> store.Places:
    mirrors = (("PERCONA_REFERENCE_DIR", tmp_path / "mirror"),) if mirror else ()
    return store.Places(tmp_path / "cache", mirrors, tmp_path / "shared")


def _put(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _archive(members: dict[str, bytes], symlink: str | None = None) -> bytes:
    """A chart archive as another packager would make it (its own order, times and compression)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in reversed(list(members.items())):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 1_700_000_000, 0o664
            tar.addfile(info, io.BytesIO(data))
        if symlink:
            info = tarfile.TarInfo(symlink)
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
    return buffer.getvalue()


def _network(files: dict[str, bytes]):
    """A stand-in for raw.githubusercontent.com that records what was asked."""
    asked = []

    def fetch(url: str) -> bytes:
        asked.append(url)
        if url not in files:
            raise store.MaterialError(f"cannot download {url}: HTTP 404 Not Found")
        return files[url]

    fetch.asked = asked
    return fetch


# ---- local copies: a user's mirror, ../shared, the cache ----


def test_a_users_mirror_is_verified_and_copied_into_the_cache(tmp_path):
    item = _manifest(tmp_path).item("operator-v1-crd.yaml")
    mirrored = _put(tmp_path / "mirror", item.name, CRD)
    path, source = store.materialize(item, _places(tmp_path), network=False)
    assert path == tmp_path / "cache" / item.name and path.read_bytes() == CRD
    assert source == str(mirrored)
    # the second time it is the cache's copy, verified again
    assert store.materialize(item, _places(tmp_path), network=False) == (path, "cache")


def test_a_tampered_mirror_file_is_refused_naming_the_item_the_url_and_both_sums(tmp_path):
    item = _manifest(tmp_path).item("operator-v1-crd.yaml")
    tampered = CRD + b"# one more line\n"
    _put(tmp_path / "mirror", item.name, tampered)
    _put(tmp_path / "shared", item.shared_path, CRD)  # a good copy further down the order is not a way around it
    with pytest.raises(store.MaterialError) as refused:
        store.materialize(item, _places(tmp_path), network=True, fetch=_network({f"{RAW}/deploy/crd.yaml": CRD}))
    message = str(refused.value)
    assert item.name in message and f"{RAW}/deploy/crd.yaml" in message
    assert f"sha256 {_sha(tampered)}, pinned {_sha(CRD)}" in message
    assert not (tmp_path / "cache" / item.name).exists()


def test_the_mirror_comes_before_shared_and_shared_is_used_without_one(tmp_path):
    item = _manifest(tmp_path).item("operator-v1-crd.yaml")
    shared = _put(tmp_path / "shared", item.shared_path, CRD)
    assert item.shared_path == "reference/percona/operator-v1-crd.yaml"
    assert store.materialize(item, _places(tmp_path, mirror=False), network=False)[1] == str(shared)


def test_a_damaged_cache_copy_is_replaced_never_used(tmp_path):
    item = _manifest(tmp_path).item("operator-v1-crd.yaml")
    _put(tmp_path / "cache", item.name, b"truncated")
    with pytest.raises(store.Unavailable):
        store.materialize(item, _places(tmp_path), network=False)
    _put(tmp_path / "mirror", item.name, CRD)
    path, _ = store.materialize(item, _places(tmp_path), network=False)
    assert path.read_bytes() == CRD


def test_the_environment_names_the_mirror_the_cache_and_a_raw_proxy(tmp_path):
    places = store.Places.from_environment(
        {
            "PERCONA_REFERENCE": str(tmp_path / "old-name"),
            "PERCONA_REFERENCE_CACHE": str(tmp_path / "c"),
            "PERCONA_REFERENCE_RAW_URL": "https://artifacts.corp.local/raw-github",
        },
        repository=tmp_path / "clone",
    )
    assert places.mirrors == (("PERCONA_REFERENCE", tmp_path / "old-name"),)  # the older variable still works
    assert places.cache == tmp_path / "c" and places.shared == tmp_path / "shared"
    item = _manifest(tmp_path).item("operator-v1-crd.yaml")
    assert item.url(places.raw_base) == f"https://artifacts.corp.local/raw-github/example/operator/{COMMIT}/deploy/crd.yaml"
    default = store.Places.from_environment({}, repository=tmp_path / "clone")
    assert default.cache == Path("~/.cache/percona-mysql-k8s/reference").expanduser() and default.mirrors == ()


# ---- the network ----


def test_a_download_is_verified_before_it_is_cached(tmp_path):
    item = _manifest(tmp_path).item("operator-v1-crd.yaml")
    fetch = _network({f"{RAW}/deploy/crd.yaml": CRD})
    path, source = store.materialize(item, _places(tmp_path, mirror=False), network=True, fetch=fetch)
    assert (source, path.read_bytes(), fetch.asked) == ("network", CRD, [f"{RAW}/deploy/crd.yaml"])
    with pytest.raises(store.MaterialError, match=f"refused the copy from {RAW}/deploy/crd.yaml: sha256 {_sha(b'x')}"):
        store.materialize(
            item, _places(tmp_path / "other", mirror=False), network=True, fetch=_network({f"{RAW}/deploy/crd.yaml": b"x"})
        )


def test_a_busy_server_is_retried_a_missing_file_and_an_unreachable_network_are_not(monkeypatch):
    monkeypatch.setattr(store, "RETRY_PAUSE_SECONDS", 0)
    for proxy in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):  # straight to the loopback server
        monkeypatch.delenv(proxy, raising=False)
    answers = {"/busy": [503, 200], "/missing": [404]}
    asked = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server interface
            asked.append(self.path)
            code = answers[self.path].pop(0)
            self.send_response(code)
            self.end_headers()
            self.wfile.write(b"body" if code == 200 else b"")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        assert store.download(f"{base}/busy") == b"body"
        with pytest.raises(store.MaterialError, match="HTTP 404") as missing:
            store.download(f"{base}/missing")
        assert not isinstance(missing.value, store.Unreachable)
        assert asked == ["/busy", "/busy", "/missing"]
    finally:
        server.shutdown()
        server.server_close()
    with socket.socket() as closed:  # a port nobody listens on: connection refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(store.Unreachable, match=f"cannot download http://127.0.0.1:{port}/x"):
        store.download(f"http://127.0.0.1:{port}/x")


def test_mirror_only_material_is_never_asked_of_the_network(tmp_path):
    item = _manifest(tmp_path).item("corpus.json")
    fetch = _network({})
    with pytest.raises(store.Unavailable, match="mirror-only material: compiled on the project's machines"):
        store.materialize(item, _places(tmp_path), network=True, fetch=fetch)
    assert fetch.asked == []


def test_a_chart_is_fetched_file_by_file_at_the_commit_and_packaged_reproducibly(tmp_path):
    item = _manifest(tmp_path).item("charts/example-1.0.0.tgz")
    fetch = _network({f"{RAW}/charts/example/{inner}": data for inner, data in CHART.items()})
    path, _ = store.materialize(item, _places(tmp_path, mirror=False), network=True, fetch=fetch)
    assert sorted(fetch.asked) == sorted(f"{RAW}/charts/example/{inner}" for inner in CHART)
    with tarfile.open(path) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        directories = [m.name for m in tar.getmembers() if m.isdir()]
    assert files == {f"example/{inner}": data for inner, data in CHART.items()}  # helm's layout: <chart>/<files>
    assert directories == ["example", "example/templates"]
    assert charts.package(item, dict(CHART)) == path.read_bytes()  # the same bytes every time
    tampered = dict(CHART, **{"values.yaml": b"replicaCount: 9\n"})
    with pytest.raises(store.MaterialError, match="values.yaml: sha256"):
        store.materialize(
            item,
            _places(tmp_path / "other", mirror=False),
            network=True,
            fetch=_network({f"{RAW}/charts/example/{inner}": data for inner, data in tampered.items()}),
        )


# ---- chart archives: the files are pinned, not the archive's bytes ----


def test_a_chart_archive_from_another_packager_with_the_same_files_is_accepted(tmp_path):
    item = _manifest(tmp_path).item("charts/example-1.0.0.tgz")
    _put(tmp_path / "mirror", item.name, _archive({f"example/{inner}": data for inner, data in CHART.items()}))
    path, _ = store.materialize(item, _places(tmp_path), network=False)
    assert charts.archive_problems(item, path.read_bytes()) == []


@pytest.mark.parametrize(
    ("members", "symlink", "problem"),
    [
        (
            {"example/Chart.yaml": CHART["Chart.yaml"], "example/values.yaml": CHART["values.yaml"]},
            None,
            "templates/deployment.yaml: missing",
        ),
        (
            {**{f"example/{i}": d for i, d in CHART.items()}, "example/templates/extra.yaml": b"kind: Job\n"},
            None,
            "templates/extra.yaml: not in the pinned chart",
        ),
        (
            {**{f"example/{i}": d for i, d in CHART.items()}, "example/values.yaml": CHANGED_VALUES},
            None,
            f"values.yaml: sha256 {hashlib.sha256(CHANGED_VALUES).hexdigest()}, pinned {hashlib.sha256(CHART['values.yaml']).hexdigest()}",
        ),
        ({f"example/{i}": d for i, d in CHART.items()}, "example/templates/link.yaml", "templates/link.yaml: a link"),
        ({**{f"example/{i}": d for i, d in CHART.items()}, "other/values.yaml": b""}, None, "outside the chart's directory"),
    ],
    ids=["missing-file", "extra-file", "changed-file", "symlink", "outside"],
)
def test_a_chart_archive_that_differs_in_its_files_is_refused(tmp_path, members, symlink, problem):
    item = _manifest(tmp_path).item("charts/example-1.0.0.tgz")
    _put(tmp_path / "mirror", item.name, _archive(members, symlink))
    with pytest.raises(store.MaterialError, match="charts/example-1.0.0.tgz: refused the copy from .*mirror") as refused:
        store.materialize(item, _places(tmp_path), network=False)
    assert problem in str(refused.value) and f"https://github.com/example/operator/tree/{COMMIT}/charts/example" in str(
        refused.value
    )
    _put(tmp_path / "mirror", item.name, b"not gzip")
    with pytest.raises(store.MaterialError, match="not a gzipped tar archive"):
        store.materialize(item, _places(tmp_path), network=False)


def test_a_wrong_manifest_names_the_entry_and_key(tmp_path):
    path = tmp_path / "manifest.toml"
    path.write_text('[[file]]\nname = "a.yaml"\nref = "nowhere"\npath = "a.yaml"\nsha256 = "' + "0" * 64 + '"\n')
    with pytest.raises(ManifestError, match=r"\[\[file\]\] a.yaml: ref 'nowhere' is not one of \[refs\]"):
        load(path)
    path.write_text('[[file]]\nname = "../a.yaml"\nsha256 = "' + "0" * 64 + '"\nmirror_only = "x"\n')
    with pytest.raises(ManifestError, match="not a plain relative path"):
        load(path)


# ---- the tests' side: skip naming the command, fail when required, fail when refused ----


@pytest.fixture
def small_manifest(tmp_path, monkeypatch):
    monkeypatch.setattr(resolve, "manifest", lambda: _manifest(tmp_path))
    for name in (*store.MIRROR_ENVS, store.REQUIRED_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(store, "REPOSITORY", tmp_path / "clone")  # no ../shared beside this "clone"
    return tmp_path


def test_a_missing_item_skips_with_a_reason_naming_the_fetch_command(small_manifest):
    with pytest.raises(pytest.skip.Exception) as skipped:
        resolve.reference_path("operator-v1-crd.yaml")
    assert "run `scripts/fetch-reference.sh` (pinned, sha256-checked downloads)" in str(skipped.value)
    assert f"{RAW}/deploy/crd.yaml" in str(skipped.value)
    with pytest.raises(pytest.skip.Exception) as skipped:
        resolve.reference_path("corpus.json")
    assert "mirror-only material" in str(skipped.value)
    assert "point $PERCONA_REFERENCE_DIR at a mirror holding it" in str(skipped.value)
    assert "scripts/fetch-reference.sh" in str(skipped.value)


def test_a_missing_item_fails_when_required(small_manifest, monkeypatch):
    monkeypatch.setenv(store.REQUIRED_ENV, "1")
    with pytest.raises(pytest.fail.Exception, match="scripts/fetch-reference.sh.*PERCONA_REFERENCE_REQUIRED=1"):
        resolve.reference_path("operator-v1-crd.yaml")
    monkeypatch.delenv(store.REQUIRED_ENV)
    with pytest.raises(pytest.fail.Exception, match="a required tier"):
        resolve.reference_path("operator-v1-crd.yaml", required=True)


def test_the_resolver_uses_a_users_mirror_and_refuses_a_tampered_one(small_manifest, monkeypatch):
    _put(small_manifest / "mirror", "operator-v1-crd.yaml", CRD)
    monkeypatch.setenv("PERCONA_REFERENCE_DIR", str(small_manifest / "mirror"))
    path = resolve.reference_path("operator-v1-crd.yaml")
    assert path.read_bytes() == CRD and path.parent == small_manifest / "cache"
    assert resolve.reference_dir(["operator-v1-crd.yaml"]) == small_manifest / "cache"
    _put(small_manifest / "mirror2", "corpus.json", b'{"entries": ["edited"]}\n')
    monkeypatch.setenv("PERCONA_REFERENCE_DIR", str(small_manifest / "mirror2"))
    with pytest.raises(
        pytest.fail.Exception,
        match=r"corpus.json: refused the copy from \$PERCONA_REFERENCE_DIR \(.*/mirror2/corpus.json\): sha256",
    ):
        resolve.reference_path("corpus.json")


# ---- the command on the real manifest ----


def _command(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PERCONA_REFERENCE")}
    return subprocess.run(["bash", str(FETCH), *args], capture_output=True, text=True, timeout=120, env={**clean, **env})


def test_the_command_refuses_a_tampered_mirror_file(tmp_path):
    name = "ps-operator-v1.2.0-secrets.yaml"
    _put(tmp_path / "mirror", name, b"apiVersion: v1\nkind: Secret\nstringData:\n  root: changed\n")
    result = _command(
        "--offline",
        name,
        env={"PERCONA_REFERENCE_DIR": str(tmp_path / "mirror"), "PERCONA_REFERENCE_CACHE": str(tmp_path / "cache")},
    )
    item = load().item(name)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        f"FAILED   {name}: refused the copy from $PERCONA_REFERENCE_DIR ({tmp_path / 'mirror' / name}): sha256" in result.stdout
    )
    assert item.url() in result.stdout and f"pinned {item.sha256}" in result.stdout
    assert (
        "https://raw.githubusercontent.com/percona/percona-server-mysql-operator/71fec83da870c47c3d75165ca36b848ce86fdb73/deploy/secrets.yaml"
        in result.stdout
    )
    assert not (tmp_path / "cache" / name).exists()


def test_the_command_refuses_an_unknown_name_and_lists_the_items(tmp_path):
    result = _command("pxc-operator-v9-crd.yaml", env={"PERCONA_REFERENCE_CACHE": str(tmp_path)})
    assert result.returncode == 2 and "not in manifest.toml: pxc-operator-v9-crd.yaml (see --list)" in result.stderr
    listed = _command("--list", env={}).stdout
    assert all(name in listed for name in load().items) and "no public URL (mirror-only)" in listed


# ---- CI: the material first, and no skipping for it ----


def test_ci_fetches_the_material_before_the_suite_and_forbids_skipping_for_it():
    lines = [
        line.strip()
        for line in (REPOSITORY / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    required = next(i for i, line in enumerate(lines) if line.startswith("export ") and "PERCONA_REFERENCE_REQUIRED=1" in line)
    fetch = lines.index("bash scripts/fetch-reference.sh")
    assert required < fetch < next(i for i, line in enumerate(lines) if line.startswith("bash scripts/test.sh"))
    # a GitHub runner has no ../shared: it downloads what has a URL, and the mirror-only items' tests skip
    workflow = yaml.safe_load((REPOSITORY / ".github" / "workflows" / "policy-check.yml").read_text())
    runs = [step.get("run", "") for step in workflow["jobs"]["tests"]["steps"]]
    fetched = runs.index("bash scripts/fetch-reference.sh")
    assert fetched < next(index for index, run in enumerate(runs) if "scripts/test.sh" in run)
    assert "PERCONA_REFERENCE_REQUIRED" not in str(workflow)


# ---- the real manifest ----


def test_the_manifest_pins_every_item_the_tests_name():
    manifest = load()
    upstream_bases = {
        case_base
        for path in (REPOSITORY / "tests" / "policies").glob("*/*.json")
        for case_base in _bases(json.loads(path.read_text()))
        if case_base.startswith("shared:")
    }
    assert upstream_bases and {base.removeprefix("shared:") for base in upstream_bases} <= set(manifest.items)
    from percona_mysql_k8s.plan.database import versions

    assert {versions.PXC.reference_crd, versions.PS.reference_crd} <= set(manifest.items)
    for item in manifest.items.values():
        if item.mirror_only:
            continue
        if item.npm:  # a file of an npm package: pinned by the package's exact version and the file's checksum
            name, _, version = item.npm.rpartition("@")
            assert name and re.fullmatch(r"\d+\.\d+\.\d+", version) and re.fullmatch(r"[0-9a-f]{64}", item.sha256 or ""), item
            continue
        assert item.url().startswith(
            ("https://raw.githubusercontent.com/percona/", "https://github.com/percona/percona-helm-charts/tree/")
        )
        assert item.ref.commit in item.url(), item.name


def _bases(case: dict):
    for entry in [case, *case.get("resources", [])]:
        if "base" in entry:
            yield entry["base"]
