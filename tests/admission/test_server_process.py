"""The server as a process: HTTPS only, its metrics over TLS, a clean stop on SIGTERM, the pack stopped with it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from admission_helpers import base, review
from server_process import Server, _children


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = Server(tmp_path_factory.mktemp("admission"), mode="enforce").start()
    yield running
    running.stop()


def test_it_answers_over_https_with_its_certificate(server):
    response = httpx.post(server.url, json=review(base("pxc")), verify=server.ca, timeout=30)
    assert response.status_code == 200 and response.json()["response"]["allowed"] is False


def test_plaintext_http_gets_no_answer(server):
    with pytest.raises(httpx.HTTPError):
        httpx.post(server.url.replace("https://", "http://"), json=review(base("pxc")), timeout=10)


def test_metrics_are_served_over_tls(server):
    httpx.post(server.url, json=review(base("pxc-backed-up")), verify=server.ca, timeout=30)
    text = httpx.get(f"https://127.0.0.1:{server.metrics_port}/metrics", verify=server.ca, timeout=10).text
    assert 'percona_mysql_admission_reviews_total{answer="denied",kind="PerconaXtraDBCluster",operation="CREATE"}' in text
    assert "percona_mysql_admission_review_seconds_bucket" in text
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_sigterm_stops_it_and_its_pack(tmp_path):
    running = Server(tmp_path, mode="warn").start()
    children = _children(running.process.pid)
    assert children  # the pack
    assert running.stop() == 0
    assert not any(_alive(child) for child in children)
