"""Kubernetes object names and label keys and values as the API server validates them.

``IsDNS1123Label`` (namespaces: at most 63 characters), ``IsDNS1123Subdomain`` (most object names: at
most 253), ``IsQualifiedName`` (label and taint keys: ``[prefix/]name``) and ``IsValidLabelValue`` (label and
taint values) from kubernetes/apimachinery pkg/util/validation/validation.go (commit
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


# IsQualifiedName: qualifiedNameFmt, at most qualifiedNameMaxLength (63); IsValidLabelValue: the same form or "".
LABEL_NAME_MAX_LENGTH = 63
LABEL_VALUE_MAX_LENGTH = 63
_QUALIFIED_NAME_RE = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]", re.ASCII)


def label_key_problem(value: object) -> str | None:
    """Why ``value`` is not a label (or taint) key, or None: ``IsQualifiedName`` splits on every "/", so more than
    one is refused, and a prefix before it must be a non-empty DNS-1123 subdomain."""
    if not isinstance(value, str):
        return f"{value!r} is not a label key"
    parts = value.split("/")
    if len(parts) > 2:
        return f"{value!r} has more than one '/': a label key is [prefix/]name"
    if len(parts) == 2:
        if not parts[0]:
            return f"{value!r} has an empty prefix before '/'"
        problem = dns1123_subdomain_problem(parts[0])
        if problem:
            return f"the prefix of {value!r}: {problem}"
    name = parts[-1]
    if len(name) > LABEL_NAME_MAX_LENGTH:
        return f"the name part of {value!r} is {len(name)} characters long: at most {LABEL_NAME_MAX_LENGTH}"
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        return f"the name part of {value!r} is not letters, digits, '-', '_' or '.' starting and ending with a letter or digit"
    return None


def label_value_problem(value: object) -> str | None:
    """Why ``value`` is not a label (or taint) value, or None; the empty value is one."""
    if not isinstance(value, str):
        return f"{value!r} is not a label value"
    if len(value) > LABEL_VALUE_MAX_LENGTH:
        return f"{value!r} is {len(value)} characters long: a label value has at most {LABEL_VALUE_MAX_LENGTH}"
    if value and not _QUALIFIED_NAME_RE.fullmatch(value):
        return f"{value!r} is not letters, digits, '-', '_' or '.' starting and ending with a letter or digit"
    return None
