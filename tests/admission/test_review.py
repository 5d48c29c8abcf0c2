"""The protocol's limits: warnings as the API server keeps them."""

from __future__ import annotations

from percona_mysql_k8s.admission.review import WARNING_CHARACTERS, WARNINGS_TOTAL, answer, warning, warnings_within


def test_a_warning_is_one_line_within_what_the_api_server_keeps_whole():
    line = warning("F2: gcs.fc_limit is 500\nfar above " + "x" * 1000)
    assert "\n" not in line and len(line) == WARNING_CHARACTERS and line.endswith("…")
    assert warning("short  one") == "short one"


def test_warnings_past_the_total_are_counted_in_a_last_line():
    kept = warnings_within(f"R{i}: " + "y" * 300 for i in range(40))
    assert sum(len(w) for w in kept) <= WARNINGS_TOTAL
    assert kept[-1].startswith("... and ") and "more finding(s)" in kept[-1]
    assert len(kept) < 40


def test_an_answer_repeats_the_uid_and_refuses_with_a_status():
    body = answer("u", False, message="K5: no", code=403)
    assert body["apiVersion"] == "admission.k8s.io/v1" and body["kind"] == "AdmissionReview"
    assert body["response"] == {"uid": "u", "allowed": False, "status": {"code": 403, "message": "K5: no", "reason": "Forbidden"}}
