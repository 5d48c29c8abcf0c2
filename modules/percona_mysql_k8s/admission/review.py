"""``AdmissionReview`` v1 read and answered as the API server writes and reads it (pure: no server, no pack).

The API server POSTs an ``admission.k8s.io/v1`` ``AdmissionReview`` whose ``request`` holds the ``uid`` the answer
must repeat, the ``kind`` and ``resource`` reviewed, the ``operation``, the ``object`` (and ``oldObject`` on UPDATE)
and ``dryRun`` (k8s.io/api admission/v1 types.go). The answer is an ``AdmissionReview`` of the same apiVersion
whose ``response`` holds that ``uid``, ``allowed``, a ``status`` whose ``message`` kubectl prints after "denied the
request:", and ``warnings``, which kubectl prints as ``Warning: ...`` lines. The API server keeps a warning whole up to
256 characters and drops warnings past 4096 characters in all (Kubernetes' "Dynamic Admission Control", Response:
warnings), so each warning is one finding's first sentence, cut there.

What cannot be answered (a body that is no JSON, another apiVersion, no ``request.uid``) is a :class:`ReviewError`
with the HTTP status to answer with; the API server then applies the webhook's failurePolicy. A request that can be
answered but not judged (an ``object`` that is no mapping) is answered: refused, naming why.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

API_VERSION = "admission.k8s.io/v1"
KIND = "AdmissionReview"
# kube-apiserver refuses a request body over 3 MiB (its MaxRequestBodyBytes), so a review the API server sends
# holds at most an object that size, twice on UPDATE (object and oldObject), plus the envelope.
MAX_BODY_BYTES = 7 * 1024 * 1024
WARNING_CHARACTERS = 256  # kept whole by the API server
WARNINGS_TOTAL = 4096  # past this, the API server ignores further warnings


class ReviewError(Exception):
    """A body that is no answerable AdmissionReview: answered with ``status`` and this message, never a traceback."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Review:
    uid: str
    group: str
    version: str
    kind: str
    operation: str  # CREATE, UPDATE, DELETE, CONNECT
    namespace: str
    name: str
    object: Any  # the object as sent (None on DELETE)
    old_object: Any
    dry_run: bool

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def subject(self) -> str:
        """``kind namespace/name`` for logs and metrics: never the object's content."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where or '(name not set yet)'}"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def read_review(body: bytes) -> Review:
    """The review in ``body``; raises :class:`ReviewError` (400, or 413 past MAX_BODY_BYTES) naming what is wrong."""
    if len(body) > MAX_BODY_BYTES:
        raise ReviewError(413, f"the review is {len(body)} bytes, more than the {MAX_BODY_BYTES} an AdmissionReview can be")
    try:
        document = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReviewError(
            400, f"the body is not JSON ({type(error).__name__}: {error}); expected an {API_VERSION} {KIND}"
        ) from None
    if not isinstance(document, dict):
        raise ReviewError(400, f"the body is a JSON {type(document).__name__}, not an {API_VERSION} {KIND} object")
    if document.get("apiVersion") != API_VERSION or document.get("kind") != KIND:
        raise ReviewError(
            400,
            f"apiVersion {document.get('apiVersion')!r}, kind {document.get('kind')!r}: this webhook answers "
            f"{API_VERSION} {KIND} only (admissionReviewVersions: [v1])",
        )
    request = document.get("request")
    if not isinstance(request, dict):
        raise ReviewError(400, f"the {KIND} has no request object")
    uid = request.get("uid")
    if not isinstance(uid, str) or not uid:
        raise ReviewError(400, "request.uid is missing: the answer must repeat it, so the review cannot be answered")
    kind = request.get("kind") if isinstance(request.get("kind"), dict) else {}
    return Review(
        uid=uid,
        group=_text(kind.get("group")),
        version=_text(kind.get("version")),
        kind=_text(kind.get("kind")),
        operation=_text(request.get("operation")),
        namespace=_text(request.get("namespace")),
        name=_text(request.get("name")),
        object=request.get("object"),
        old_object=request.get("oldObject"),
        dry_run=request.get("dryRun") is True,
    )


def warning(text: str) -> str:
    """One warning line as the API server keeps it: one line, at most WARNING_CHARACTERS."""
    line = " ".join(text.split())
    return line if len(line) <= WARNING_CHARACTERS else line[: WARNING_CHARACTERS - 1] + "…"


def warnings_within(lines: Iterable[str]) -> list[str]:
    """``lines`` as warnings, as many as the API server keeps (WARNINGS_TOTAL); the last says how many were left out."""
    kept: list[str] = []
    lines = [warning(line) for line in lines]
    total = 0
    for index, line in enumerate(lines):
        rest = len(lines) - index - 1
        note = warning(f"... and {rest + 1} more finding(s): percona-mysql-policy-check --manifests lists them all")
        if total + len(line) + (len(note) if rest else 0) > WARNINGS_TOTAL:
            kept.append(note)
            break
        kept.append(line)
        total += len(line)
    return kept


def answer(
    uid: str, allowed: bool, *, message: str | None = None, code: int | None = None, warnings: Iterable[str] = ()
) -> dict[str, Any]:
    """The AdmissionReview the API server reads back for request ``uid``."""
    response: dict[str, Any] = {"uid": uid, "allowed": allowed}
    if not allowed or message:
        response["status"] = {"code": code or (200 if allowed else 403), "message": message or ""}
        if not allowed:
            response["status"]["reason"] = "Forbidden" if (code or 403) == 403 else "BadRequest"
    kept = warnings_within(warnings)
    if kept:
        response["warnings"] = kept
    return {"apiVersion": API_VERSION, "kind": KIND, "response": response}


def spec_unchanged(review: Review) -> bool:
    """An UPDATE that leaves everything the rules read as it was: ``spec`` (operators add finalizers, annotations and
    labels; a CR made before the webhook must still be able to take them) or an object already being deleted."""
    new, old = review.object, review.old_object
    if not isinstance(new, Mapping) or not isinstance(old, Mapping):
        return False
    deleting = isinstance(new.get("metadata"), Mapping) and bool(new["metadata"].get("deletionTimestamp"))
    return deleting or new.get("spec") == old.get("spec")
