"""What the admission tests share: the policy test corpus' objects and AdmissionReviews of them (also imported by
the API-server tier, tests/apiserver/test_apiserver_admission.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "policies"))  # the policy test corpus' harness (tests/policies/harness.py)

from harness import resolve_resource  # noqa: E402

BASES = HERE.parent / "policies" / "_bases"


def base(name: str) -> dict:
    """A hand-written custom resource of the policy test corpus, as an object."""
    return resolve_resource(json.loads((BASES / f"{name}.json").read_text()))["props"]


def review(obj, *, operation: str = "CREATE", old=None, uid: str = "u-1", dry_run: bool = False, kind=None) -> dict:
    api_version = obj.get("apiVersion", "pxc.percona.com/v1") if isinstance(obj, dict) else "pxc.percona.com/v1"
    group, _, version = api_version.rpartition("/")
    metadata = obj.get("metadata", {}) if isinstance(obj, dict) else {}
    request = {
        "uid": uid,
        "kind": kind or {"group": group, "version": version, "kind": obj.get("kind") if isinstance(obj, dict) else "X"},
        "operation": operation,
        "namespace": metadata.get("namespace", "db"),
        "name": metadata.get("name", ""),
        "object": obj,
        "dryRun": dry_run,
    }
    if old is not None:
        request["oldObject"] = old
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
