"""kubectl's reading of a manifest stream, run by kubectl's own code: tests/core/go_kube_yaml (apimachinery v0.36.3,
sigs.k8s.io/yaml v1.6.0, go.yaml.in/yaml/v2 v2.4.3), built once per session from the module cache that
``(cd tests/core/go_kube_yaml && go mod download)`` fills. The unit suite compares core.kube_yaml with it; the
API-server tier sends what it reads to the real API server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from oracles import oracle_missing

GO_ORACLE = Path(__file__).resolve().parent / "core" / "go_kube_yaml"


class KubectlReader:
    def __init__(self, workdir: Path):
        go = shutil.which("go")
        reason = f"the kubectl YAML oracle needs Go and k8s.io/apimachinery v0.36.3 (cd {GO_ORACLE} && go mod download)"
        if go is None:
            oracle_missing(reason)
        binary = workdir / "kubectl-reader"
        built = subprocess.run(
            [go, "build", "-o", str(binary), "."],
            cwd=GO_ORACLE,
            capture_output=True,
            text=True,
            env={**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off"},
            timeout=600,
        )
        if built.returncode != 0:
            oracle_missing(f"{reason}: {built.stderr.strip()[:200]}")
        self.process = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def read(self, stream: str) -> dict:
        """{"error": ...} or {"documents": [{"value": <tagged>, "object": <kubectl's refusal>?}, ...]}."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps(stream) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)


def untagged(value):
    """The oracle's tagged value (a float64 as {"$f": text}) as Python, floats and ints kept apart."""
    if isinstance(value, dict):
        if set(value) == {"$f"}:
            return float(value["$f"])
        return {key: untagged(item) for key, item in value.items()}
    if isinstance(value, list):
        return [untagged(item) for item in value]
    return value
