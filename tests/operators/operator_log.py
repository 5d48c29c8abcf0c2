"""Which of an operator's ERROR lines the operator tier counts against a namespace (conftest.Tier.errors)."""

from __future__ import annotations

# An error the PS operator logs whatever the custom resource, at most once, when it reconciles between the
# StatefulSet controller creating the pods and writing the StatefulSet's status (a window a loaded CI machine hits):
# PS v1.2.0 pkg/controller/ps/upgrade.go smartUpdate sees pods whose controller-revision-hash differs from the
# still empty status.updateRevision (stsChanged), passes "waiting for all replicas to be ready" since status
# readyReplicas and replicas are both 0, asks for the primary (getPrimaryFromGR, controller.go) and finds no ready
# pod. The next reconcile waits for the replicas, as it should. A second such line in a namespace is not excepted.
CREATION_RACE = {"ps": '"error": "reconcile: database: get ready mysql pod: no ready pods",'}


def operator_errors(operator: str, lines: list[str], namespace: str, name: str | None = None) -> list[str]:
    """The ERROR lines about ``namespace`` (and the cluster ``name`` in it), and those that name no namespace at
    all; the first of the operator's creation race in them excepted (:data:`CREATION_RACE`), never a second one."""
    mine = [f'"namespace": "{namespace}"', f'"namespace":"{namespace}"']  # zap's console and JSON encoders
    found = [line for line in lines if any(m in line for m in mine) or '"namespace"' not in line]
    if name is not None:
        found = [line for line in found if f'"name": "{name}"' in line or f'"name":"{name}"' in line]
    race = CREATION_RACE.get(operator)
    first_race = next((index for index, line in enumerate(found) if race and race in line), None)
    return [line for index, line in enumerate(found) if index != first_race]
