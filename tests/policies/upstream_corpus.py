"""The upstream corpus through the pack: 184 custom resources and chart values the Percona projects wrote.

``upstream-corpus.json`` (mirror-only reference material, see tests/reference_material/manifest.toml; read
at test time, never copied) holds the
operators' deploy examples and e2e CRs and the charts' values and test values, each with its source
file and commit, as the resource the engine would send (type + props). Every entry is judged alone, as
its own stack (``Analyze``, then ``AnalyzeStack`` with it alone), by one pack process, with no stack name
(as ``--manifests`` does: a GitOps object has no Pulumi ``protect``).

The verdicts are compared with ``upstream_verdicts.yaml``, reviewed by hand: entry id -> the expected
diagnostics (policy, rule, level, count) and the reason they are right (or, marked "known wrong: issue 10
§N", why they are not yet). Regenerate after a deliberate change and review the diff it prints:

    PYTHONPATH=modules python tests/policies/upstream_corpus.py --write-verdicts

Entries whose verdict changed keep their old reason prefixed with "CHANGED, review:"; new entries get
"UNREVIEWED"; the test fails on both markers until a reviewer rewrites the reason.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent.parent
CORPUS_ITEM = "upstream-corpus.json"  # in tests/reference_material/manifest.toml
VERDICTS = HERE / "upstream_verdicts.yaml"
CHANGED, UNREVIEWED = "CHANGED, review:", "UNREVIEWED"
REPOSITORIES = {
    "pxc-op": "percona/percona-xtradb-cluster-operator",
    "ps-op": "percona/percona-server-mysql-operator",
    "charts": "percona/percona-helm-charts",
}
# A policy that could not evaluate a resource says so (percona_mysql_k8s.policies._framework._internal_error).
CRASH_MARKERS = ("could not evaluate", "Traceback")


def load_corpus(path: Path) -> list[dict]:
    return json.loads(path.read_text())["entries"]


def corpus_path() -> Path:
    """The verified corpus for the command line (tests use reference_material.resolve, which skips)."""
    sys.path.insert(0, str(HERE.parent))  # tests/: the reference material's store (standard library only)
    from reference_material import store
    from reference_material.manifest import load

    try:
        path, _ = store.materialize(load().item(CORPUS_ITEM), store.Places.from_environment(), network=False)
    except (store.Unavailable, store.MaterialError) as error:
        print(f"error: {error} (scripts/fetch-reference.sh puts a verified copy in the cache)", file=sys.stderr)
        raise SystemExit(2) from None
    return path


def is_object(entry: dict) -> bool:
    """A custom resource (a Kubernetes object, for --manifests), not a Helm release's inputs."""
    return "apiVersion" in entry["props"] and "kind" in entry["props"]


def entry_resource(index: int, entry: dict):
    from percona_mysql_k8s.cli.engine import Resource

    name = (entry["props"].get("metadata") or {}).get("name") or entry["id"]
    return Resource(
        urn=f"urn:pulumi:manifests::manifests::{entry['type']}::{index}-{name}",
        type=entry["type"],
        name=str(name),
        properties=entry["props"],
    )


def summarize(diagnostics) -> list[dict[str, Any]]:
    """Diagnostics as the verdict file lists them: one line per (policy, rule, level) with its count."""
    counts = Counter((d.policy, d.rule, d.level) for d in diagnostics)
    rows = []
    for (policy, rule, level), count in sorted(counts.items()):
        row: dict[str, Any] = {"policy": policy, "rule": rule, "level": level}
        if count > 1:
            row["count"] = count
        rows.append(row)
    return rows


def crashes(diagnostics) -> list[str]:
    return [d.message for d in diagnostics if any(marker in d.message for marker in CRASH_MARKERS)]


def judge(pack, index: int, entry: dict) -> list:
    """Every diagnostic for one entry judged alone over gRPC (Analyze, then AnalyzeStack)."""
    resource = entry_resource(index, entry)
    return pack.analyze(resource) + pack.analyze_stack([resource])


def start_pack():
    """The pack as --manifests starts it: no stack name (no Pulumi ``protect`` to judge), the default config."""
    from percona_mysql_k8s.cli.engine import Pack

    pack = Pack(stack="", project="manifests")
    pack.configure({})
    return pack


def judge_all(entries: list[dict], pack=None) -> dict[str, list]:
    owned = pack is None
    pack = pack or start_pack()
    try:
        return {entry["id"]: judge(pack, index, entry) for index, entry in enumerate(entries)}
    finally:
        if owned:
            pack.close()


def load_verdicts() -> dict[str, dict]:
    return yaml.safe_load(VERDICTS.read_text()) if VERDICTS.exists() else {}


def _source(entry: dict) -> str:
    return f"{REPOSITORIES.get(entry['repo'], entry['repo'])}@{entry['commit'][:12]} {entry['file']}" + (
        f" ({entry['how']})" if entry.get("how") else ""
    )


def updated_verdicts(entries: list[dict], judged: dict[str, list], old: dict[str, dict]) -> dict[str, dict]:
    new = {}
    for entry in entries:
        expected = summarize(judged[entry["id"]])
        previous = old.get(entry["id"])
        if previous is None:
            reason = UNREVIEWED
        elif previous.get("diagnostics", []) == expected:
            reason = previous.get("reason", UNREVIEWED)
        else:
            reason = previous.get("reason", "")
            reason = reason if reason.startswith(CHANGED) else f"{CHANGED} {reason}"
        new[entry["id"]] = {"source": _source(entry), "diagnostics": expected, "reason": reason}
    return new


HEADER = """\
# Reviewed verdicts of the policy pack on the upstream corpus (../shared/reference/percona/upstream-corpus.json).
# Each entry: where it comes from, the diagnostics the pack gives it judged alone (policy, rule, level, count)
# and why that verdict is right, or "known wrong: issue 10 §N" where it is not yet. A change of verdict is a
# decision: regenerate with `PYTHONPATH=modules python tests/policies/upstream_corpus.py --write-verdicts`,
# review the printed diff and rewrite the reasons marked CHANGED or UNREVIEWED.
"""


def dump(verdicts: dict[str, dict]) -> str:
    return HEADER + yaml.safe_dump(verdicts, sort_keys=False, allow_unicode=True, width=110, default_flow_style=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write-verdicts", action="store_true", help=f"rewrite {VERDICTS.name} and print the diff")
    args = parser.parse_args(argv)
    entries = load_corpus(corpus_path())
    judged = judge_all(entries)
    broken = {entry_id: crashes(diagnostics) for entry_id, diagnostics in judged.items() if crashes(diagnostics)}
    for entry_id, messages in broken.items():
        print(f"CRASH {entry_id}: {messages[0]}", file=sys.stderr)
    old_text = VERDICTS.read_text() if VERDICTS.exists() else ""
    new_text = dump(updated_verdicts(entries, judged, load_verdicts()))
    sys.stdout.writelines(
        difflib.unified_diff(old_text.splitlines(True), new_text.splitlines(True), str(VERDICTS.relative_to(REPOSITORY)), "now")
    )
    if args.write_verdicts:
        VERDICTS.write_text(new_text)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
