"""The webhook as an ASGI application (Starlette): ``POST /validate`` answers AdmissionReviews, ``/healthz`` says the
process lives, ``/readyz`` that it can judge (its packs run, the Node cache is listed).

Modes:

* ``enforce``: a mandatory finding refuses the object, with the rules' messages; advisory ones come back as warnings;
* ``warn``: the object is admitted and every finding comes back as a warning, which kubectl prints;
* ``audit``: reviews are admitted unjudged (no webhook is registered in this mode; the sweep records findings).

A CREATE or UPDATE is judged; DELETE and CONNECT, and an UPDATE that changes nothing the rules read (admission.review.
spec_unchanged: an operator's finalizer, an object being deleted) are admitted unjudged. A dry run (``kubectl apply
--dry-run=server``) is judged like any request: the API server sends the same review, with ``dryRun: true``.

Logs name the request (uid, kind, namespace/name, operation), the answer and the rules, never the object: a custom
resource may carry a password in plain text (S1), and the review of a Secret never comes here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route

from .judge import Judge, Verdict, finding_line
from .metrics import Metrics
from .review import MAX_BODY_BYTES, Review, ReviewError, answer, read_review, spec_unchanged

LOG = logging.getLogger("percona_mysql_k8s.admission")
JUDGED_OPERATIONS = ("CREATE", "UPDATE")


def decide(mode: str, review: Review, verdict: Verdict | None) -> dict:
    """The AdmissionReview answer for ``review`` in ``mode`` given the judge's ``verdict`` (None: not judged)."""
    if verdict is None or mode == "audit":
        return answer(review.uid, True)
    if mode == "warn":
        return answer(review.uid, True, warnings=[finding_line(f) for f in verdict.findings])
    advisory = [finding_line(f) for f in verdict.advisory]
    if verdict.mandatory:
        rules = ", ".join(sorted({f.diagnostic.rule for f in verdict.mandatory}))
        lines = [finding_line(f) for f in verdict.mandatory]
        message = f"{review.subject} breaks {rules} (percona-mysql policy pack): " + " | ".join(lines)
        return answer(review.uid, False, message=message, code=403, warnings=advisory)
    return answer(review.uid, True, warnings=advisory)


def _invalid(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _body(request: Request) -> bytes:
    """The request body, refused past MAX_BODY_BYTES before it is all read."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise ReviewError(413, f"the review is {declared} bytes, more than the {MAX_BODY_BYTES} an AdmissionReview can be")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ReviewError(413, f"the review is more than the {MAX_BODY_BYTES} bytes an AdmissionReview can be")
        chunks.append(chunk)
    return b"".join(chunks)


def build_app(judge: Judge, *, mode: str, metrics: Metrics, ready: Callable[[], bool] = lambda: True) -> Starlette:
    async def validate(request: Request):
        started = time.perf_counter()
        try:
            review = read_review(await _body(request))
        except ReviewError as error:
            metrics.reviews.labels("", "", "invalid").inc()
            LOG.warning("review refused: %s", error.message)
            return _invalid(error.status, error.message)
        if review.operation in JUDGED_OPERATIONS and not isinstance(review.object, dict):
            metrics.reviews.labels(review.kind, review.operation, "invalid").inc()
            kind = type(review.object).__name__
            return JSONResponse(
                answer(review.uid, False, code=400, message=f"request.object is a JSON {kind}, not a Kubernetes object")
            )
        verdict = None
        judged = mode != "audit" and review.operation in JUDGED_OPERATIONS and not spec_unchanged(review)
        if judged:
            try:
                verdict = await run_in_threadpool(judge.judge, review.object, namespace=review.namespace, name=review.name)
            except Exception as error:  # noqa: BLE001 - answered as a failure: the failurePolicy decides
                metrics.reviews.labels(review.kind, review.operation, "error").inc()
                LOG.error("review %s %s: not judged: %s", review.uid, review.subject, type(error).__name__)
                return _invalid(500, f"the policy pack could not judge {review.subject}: {type(error).__name__}")
        body = decide(mode, review, verdict)
        response = body["response"]
        outcome = "denied" if not response["allowed"] else ("warned" if response.get("warnings") else "allowed")
        metrics.reviews.labels(review.kind, review.operation, outcome).inc()
        metrics.review_seconds.labels(review.kind).observe(time.perf_counter() - started)
        LOG.info(
            "review uid=%s %s %s%s: %s%s",
            review.uid,
            review.operation,
            review.subject,
            " (dry run)" if review.dry_run else "",
            outcome if judged else "admitted unjudged",
            f" rules={','.join(verdict.rules)}" if verdict and verdict.findings else "",
        )
        return JSONResponse(body)

    async def healthz(_request: Request):
        return PlainTextResponse("ok")

    async def readyz(_request: Request):
        if judge.alive() and ready():
            return PlainTextResponse("ok")
        return PlainTextResponse("not ready: the policy pack or the Node cache is not up", status_code=503)

    return Starlette(
        routes=[
            Route("/validate", validate, methods=["POST"]),
            Route("/healthz", healthz, methods=["GET"]),
            Route("/readyz", readyz, methods=["GET"]),
        ]
    )
