"""The operator tier's reading of an operator's ERROR lines (operator_log.operator_errors): the PS operator's
creation race is excepted once per namespace and never twice; every other error counts. Needs no tier."""

from __future__ import annotations

from operator_log import CREATION_RACE, operator_errors

RACE = (
    '2026-11-27T22:09:32.547Z\tERROR\tReconciler error\t{"controller": "ps-controller", "namespace": "op-eks-gr", '
    '"name": "eks-mysql", ' + CREATION_RACE["ps"] + ' "errorVerbose": "..."}'
)
OTHER = (
    '2026-11-27T22:09:40.000Z\tERROR\tReconciler error\t{"controller": "ps-controller", "namespace": "op-eks-gr", '
    '"name": "eks-mysql", "error": "reconcile: database: ensure component: failed", "errorVerbose": "..."}'
)
ELSEWHERE = RACE.replace("op-eks-gr", "op-gke-gr")


def test_the_creation_race_is_excepted_once_per_namespace():
    assert operator_errors("ps", [RACE, ELSEWHERE], "op-eks-gr") == []
    assert operator_errors("ps", [ELSEWHERE, RACE], "op-gke-gr") == []
    assert operator_errors("ps", [RACE, RACE], "op-eks-gr") == [RACE]


def test_every_other_error_counts():
    assert operator_errors("ps", [RACE, OTHER], "op-eks-gr") == [OTHER]
    assert operator_errors("ps", [OTHER], "op-eks-gr", "eks-mysql") == [OTHER]
    assert operator_errors("ps", [OTHER], "op-eks-gr", "another") == []


def test_the_pxc_operator_has_no_exception():
    assert operator_errors("pxc", [RACE], "op-eks-gr") == [RACE]
