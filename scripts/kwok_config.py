"""kwok's --config for the tiers that run pods: kwok's own stages, with the operators' database pods kept unready.

    python3 scripts/kwok_config.py STAGE_DIR LOGS_FILE > kwok.yaml

STAGE_DIR is ``kustomize/stage`` of kwok's module source (v0.8.0). The output holds, in order:

* ``node/fast/node-initialize.yaml`` as kwok ships it (Nodes become Ready);
* ``pod/fast/pod-ready.yaml`` for every pod but the operators' database pods: scheduled pods go Running and Ready;
* ``pod-running-unready``: the same stage for the pods a Percona operator owns through a StatefulSet (mysqld, the
  proxies): Running, every container started, but Ready and ContainersReady ``False``. A real kubelet would keep them
  unready too: no mysqld answers their readiness probe. The PXC operator dials mysqld in a Ready pod
  (``<pod>.<cluster>-pxc:33062``, "retrieving pxc version") and stops at ``state: error`` before it renders a CR
  change; the PS operator reads a Ready pod's topology through ``pods/exec``, which kwok does not implement. Kept
  unready, both stay ``initializing`` and re-render every change of the custom resource
  (../shared/tools/percona-operators/README.md, where this was found);
* ``pod/fast/pod-complete.yaml`` and ``pod-delete.yaml`` as shipped (Job pods succeed, deleted pods go);
* a ``ClusterLogs`` rule serving LOGS_FILE as every container's log: the PXC operator reads the pxc container's log
  through the kubelet API, which kwok serves (with its TLS endpoint) from this file.

The two pod stages split the pods by one jq key (kwok evaluates selector keys as gojq queries, as its own stages do):
``<managed-by label>/<owner kinds>``; a pod of the operators' StatefulSets reads
``percona-xtradb-cluster-operator/StatefulSet`` or ``percona-server-mysql-operator/StatefulSet``.
"""

from __future__ import annotations

import sys
from pathlib import Path

OPERATORS = ("percona-xtradb-cluster-operator", "percona-server-mysql-operator")  # their app.kubernetes.io/managed-by
OWNER_KEY = (
    '[(.metadata.labels["app.kubernetes.io/managed-by"] // ""), '
    '((.metadata.ownerReferences // []) | map(.kind) | join(","))] | join("/")'
)
UNREADY_KEYS = [f"{operator}/StatefulSet" for operator in OPERATORS]


def _selector_line(operator: str) -> str:
    values = "".join(f"\n      - '{value}'" for value in UNREADY_KEYS)
    return f"    - key: '{OWNER_KEY}'\n      operator: '{operator}'\n      values:{values}\n"


def _split(ready: str) -> tuple[str, str]:
    """(pod-ready for every other pod, pod-running-unready for the operators' StatefulSet pods)."""
    anchor = "  selector:\n    matchExpressions:\n"
    if ready.count(anchor) != 1:
        raise SystemExit("kwok's pod-ready stage has no single selector.matchExpressions: update scripts/kwok_config.py")
    others = ready.replace(anchor, anchor + _selector_line("NotIn"), 1)
    unready = ready.replace(anchor, anchor + _selector_line("In"), 1).replace("name: pod-ready", "name: pod-running-unready", 1)
    replacements = (
        ('status: "True"\n        type: Ready', 'status: "False"\n        type: Ready'),
        ('status: "True"\n        type: ContainersReady', 'status: "False"\n        type: ContainersReady'),
        (
            "name: {{ .name | Quote }}\n        ready: true\n        restartCount: 0\n        state:\n          running",
            "name: {{ .name | Quote }}\n        ready: false\n        restartCount: 0\n        state:\n          running",
        ),
    )
    for old, new in replacements:
        if unready.count(old) != 1:
            raise SystemExit(f"kwok's pod-ready stage changed ({old.splitlines()[0]!r}): update scripts/kwok_config.py")
        unready = unready.replace(old, new, 1)
    return others, unready


def main(stage_dir: str, logs_file: str) -> None:
    stages = Path(stage_dir)
    others, unready = _split((stages / "pod/fast/pod-ready.yaml").read_text())
    documents = [
        (stages / "node/fast/node-initialize.yaml").read_text(),
        others,
        unready,
        (stages / "pod/fast/pod-complete.yaml").read_text(),
        (stages / "pod/fast/pod-delete.yaml").read_text(),
        "kind: ClusterLogs\napiVersion: kwok.x-k8s.io/v1alpha1\nmetadata:\n  name: all\n"
        f"spec:\n  logs:\n  - logsFile: {logs_file}\n",
    ]
    sys.stdout.write("".join("---\n" + (doc if doc.endswith("\n") else doc + "\n") for doc in documents))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: kwok_config.py STAGE_DIR LOGS_FILE")
    main(*sys.argv[1:])
