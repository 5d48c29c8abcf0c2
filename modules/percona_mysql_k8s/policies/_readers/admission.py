"""The API server's answer for a custom resource the pack reads (rule C1), through the core's one CRD reader.

Every reader of a PerconaXtraDBCluster or PerconaServerMySQL goes through :func:`admission` first: a resource
the API server would refuse is C1's to report and no other rule's to judge, and an accepted one is read as
the API server stores it (pruned, defaulted: what the operator reads). The answers are kept for the process,
keyed by the resource's content, so the resource policies (one answer per request) and each stack policy
(which reads every resource again) share them; a resource's answer is computed once.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections import OrderedDict
from typing import Any

from percona_mysql_k8s.core.crd import KUBECTL, PULUMI, Admission, admit, kinds

from .values import Unknown

# Answers kept: every custom resource of a stack, or AnalyzeStack, which reads them in the order Analyze answered
# them, finds none (least recently used goes first: each miss evicts the next one it reads). 2,048 holds the
# engine benchmark's largest program (1,000 clusters) twice over, at ~5 KB an answer (a cluster's stored props).
_KEPT = 2048
_answers: OrderedDict[str, Admission | None] = OrderedDict()
_lock = threading.Lock()


@functools.lru_cache(maxsize=1024)
def custom_resource_kind(resource_type: str) -> tuple[str, str] | None:
    """``(apiVersion, kind)`` of a resource type token (``kubernetes:pxc.percona.com/v1:PerconaXtraDBCluster``)
    whose kind a carried CRD defines; None for any other type."""
    parts = resource_type.split(":")
    if len(parts) != 3 or parts[0] != "kubernetes" or "/" not in parts[1]:
        return None
    group = parts[1].rsplit("/", 1)[0]
    return (parts[1], parts[2]) if (group, parts[2]) in set(kinds()) else None


def client() -> str:
    """Who sends the resources: kubectl when the offline check judges manifests (it starts the pack with
    ``PERCONA_POLICY_CLIENT=kubectl``, percona_mysql_k8s.cli.engine), else pulumi-kubernetes (the engine sets no
    such variable)."""
    return KUBECTL if os.environ.get("PERCONA_POLICY_CLIENT") == KUBECTL else PULUMI


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown)


def _key(resource_type: str, props: dict) -> str:
    return (
        resource_type
        + "\0"
        + client()
        + "\0"
        + json.dumps(props, sort_keys=True, default=lambda value: f"<{type(value).__name__}>")
    )


def admission(resource_type: str, props: Any) -> Admission | None:
    """The API server's answer for the resource, or None when it is no custom resource of a carried CRD."""
    kind = custom_resource_kind(resource_type)
    if kind is None or not isinstance(props, dict):
        return None
    key = _key(resource_type, props)
    with _lock:
        if key in _answers:
            _answers.move_to_end(key)
            return _answers[key]
    answer = admit(kind[0], kind[1], props, is_unknown, client=client())
    with _lock:
        _answers[key] = answer
        while len(_answers) > _KEPT:
            _answers.popitem(last=False)
    return answer


def refusal_note(answer: Admission) -> str:
    """Why a rule other than C1 gives no verdict on a refused resource (the engine shows it as not applicable)."""
    return (
        f"C1: the API server refuses this {answer.kind} ({answer.errors[0]}); no other rule judges it until it is "
        "one the API server accepts"
    )
