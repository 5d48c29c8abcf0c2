"""Kubernetes object names as the API server validates them.

``IsDNS1123Label`` (namespaces: at most 63 characters) and ``IsDNS1123Subdomain`` (most object names: at
most 253) from kubernetes/apimachinery pkg/util/validation/validation.go (commit
eed236ceee2c19c2753a3d93ac0631dc20750454). Go's ``$`` is the end of the text, so a trailing newline is
refused: matched here with ``fullmatch``, never with Python's ``$``.
"""

from __future__ import annotations

import re

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_LABEL_RE = re.compile(_LABEL, re.ASCII)
_SUBDOMAIN_RE = re.compile(rf"{_LABEL}(\.{_LABEL})*", re.ASCII)


def _problem(value: object, kind: str, max_length: int, pattern: re.Pattern[str], form: str) -> str | None:
    """Why ``value`` is not a ``kind`` (at most ``max_length`` characters, all of ``pattern``), or None."""
    if not isinstance(value, str):
        return f"{value!r} is not a name"
    if len(value) > max_length:
        return f"{value!r} is {len(value)} characters long: a {kind} has at most {max_length}"
    if not pattern.fullmatch(value):
        return f"{value!r} is not a {kind}: {form}"
    return None


def dns1123_label_problem(value: object) -> str | None:
    """Why ``value`` is not a DNS-1123 label (a namespace's name), or None."""
    return _problem(
        value,
        "DNS-1123 label",
        DNS1123_LABEL_MAX_LENGTH,
        _LABEL_RE,
        "lowercase letters, digits and '-', starting and ending with a letter or digit (e.g. my-name)",
    )


def dns1123_subdomain_problem(value: object) -> str | None:
    """Why ``value`` is not a DNS-1123 subdomain (most objects' names), or None."""
    return _problem(
        value,
        "DNS-1123 subdomain",
        DNS1123_SUBDOMAIN_MAX_LENGTH,
        _SUBDOMAIN_RE,
        "lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or "
        "digit (e.g. example.com)",
    )
