"""Plain values out of what the engine hands a policy, with unknowns and malformed fields made explicit.

The SDK wraps resource properties in proxies that raise when an unknown (preview-time) value is read.
Policies here first turn them into plain Python (:func:`plain`), with every unknown replaced by an
:class:`Unknown` marker, and then read fields with the typed getters below. A getter never raises
anything but :class:`Malformed` (the field is there but has the wrong type or an unreadable value:
reported as a violation of the rule being checked) and :class:`NotKnown` (the field is unknown at
preview: the judgement that needs it is not made, and the rule names the field in the preview's advisory
note, _framework). Absent fields return the caller's default.

A reader that builds a structure from many fields keeps each field's unknown to itself (_readers/deferred.py):
a field's :class:`NotKnown` is stored as a :class:`Pending` value, raised only when a judgement reads that field.
The judgements that need other fields go on (docs/preview-unknowns.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pulumi_policy.proxy import (
    UNKNOWN_ARCHIVE_VALUE,
    UNKNOWN_ARRAY_VALUE,
    UNKNOWN_ASSET_VALUE,
    UNKNOWN_BOOLEAN_VALUE,
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_OBJECT_VALUE,
    UNKNOWN_STRING_VALUE,
    _DictProxy,
    _ListProxy,
)
from pulumi_policy.secret import Secret

UNKNOWN_SENTINELS = frozenset(
    {
        UNKNOWN_BOOLEAN_VALUE,
        UNKNOWN_NUMBER_VALUE,
        UNKNOWN_STRING_VALUE,
        UNKNOWN_ARRAY_VALUE,
        UNKNOWN_ASSET_VALUE,
        UNKNOWN_ARCHIVE_VALUE,
        UNKNOWN_OBJECT_VALUE,
    }
)


# What each sentinel stands for, named as the SDK names them in its own preview message (pulumi_policy/proxy.py
# ``_unknown_to_str``).
UNKNOWN_KINDS = {
    UNKNOWN_BOOLEAN_VALUE: "boolean",
    UNKNOWN_NUMBER_VALUE: "number",
    UNKNOWN_STRING_VALUE: "string",
    UNKNOWN_ARRAY_VALUE: "array",
    UNKNOWN_ASSET_VALUE: "asset",
    UNKNOWN_ARCHIVE_VALUE: "archive",
    UNKNOWN_OBJECT_VALUE: "object",
}


class Unknown:
    """A value the engine cannot know during preview (it comes from another resource's output).

    ``origin`` names where it came from when that is not where it is read: a chart value rendered into the
    custom resource (chart_render) is read at the rendered path but named by the value the user set."""

    __slots__ = ("sentinel", "origin")

    def __init__(self, sentinel: str = UNKNOWN_STRING_VALUE, origin: str | None = None):
        self.sentinel = sentinel
        self.origin = origin

    def error(self, path: str) -> NotKnown:
        return NotKnown(self.origin or path, self.sentinel)

    def __repr__(self) -> str:
        return "<unknown at preview>"


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<absent>"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


class Malformed(Exception):
    """A field that is present but cannot be read as what the operator expects."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path} {problem}")
        self.path = path
        self.problem = problem


class NotKnown(Exception):
    """A field whose value is unknown at preview: the judgement that needs it cannot be made yet."""

    def __init__(self, path: str, sentinel: str = UNKNOWN_STRING_VALUE, subject: str | None = None):
        super().__init__(f"{path} is unknown at preview")
        self.path = path
        self.sentinel = sentinel
        self.subject = subject  # the resource the field belongs to, where a stack policy reads many

    @property
    def kind(self) -> str:
        return UNKNOWN_KINDS.get(self.sentinel, "value")

    def placeholder(self, what: str = "") -> str:
        """How a message shows a detail (``what``) that depends on this field, the breach itself being known:
        ``[whether it also lacks X: spec.y is unknown at preview]``. Always of this form, and nothing else is,
        so a message can be matched against the one it becomes when the field is known."""
        return f"[{what + ': ' if what else ''}{self.path} is unknown at preview]"


class Pending:
    """A field of a reader's structure that cannot be read yet: unknown at preview (its NotKnown), or malformed
    (its Malformed, kept for the judgement that reads the field: the rule that needs it reports it)."""

    __slots__ = ("error",)

    def __init__(self, error: NotKnown | Malformed):
        self.error = error

    def __repr__(self) -> str:
        return f"<pending: {self.error.path}>"

    def raise_error(self):
        """Raise a fresh copy of the error (the stored one keeps no traceback of another reader)."""
        if isinstance(self.error, Malformed):
            raise Malformed(self.error.path, self.error.problem)
        raise NotKnown(self.error.path, self.error.sentinel, self.error.subject)


def known(value: Any, path: str) -> Any:
    """``value`` itself, or :class:`NotKnown` when it is unknown at preview (for readers that test types); a
    :class:`Pending` raises what it holds."""
    if isinstance(value, Unknown):
        raise value.error(path)
    if isinstance(value, Pending):
        value.raise_error()
    return value


def ascii_integer(text: str) -> bool:
    """An optionally signed run of ASCII digits: what Go's strconv and mysqld accept as an integer
    (``str.isdigit`` also says yes to ``'²'``, which ``int`` then refuses)."""
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isascii() and digits.isdigit()


_ascii_integer = ascii_integer


def plain(value: Any, _depth: int = 0) -> Any:
    """Proxied (or plain) properties as plain dicts/lists, unknowns as :class:`Unknown`."""
    if _depth > 200:  # protobuf Structs cannot nest this deep; a cycle in a hand-made object can
        return MISSING
    if isinstance(value, _DictProxy | _ListProxy):
        value = value["__target"]
    if isinstance(value, Secret):
        value = value.value
    if isinstance(value, str):
        return Unknown(value) if value in UNKNOWN_SENTINELS else value
    if isinstance(value, Mapping):
        return {str(key): plain(item, _depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item, _depth + 1) for item in value]
    return value


def describe(value: Any) -> str:
    """A short rendering of a found value for messages."""
    if value is MISSING:
        return "absent"
    if isinstance(value, Unknown):
        return "unknown at preview"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def at(root: Any, path: str, *, base: str = "") -> Any:
    """The value at dotted ``path`` below ``root`` (MISSING when any step is absent or not an object).

    Raises :class:`NotKnown` when a step is unknown at preview. ``base`` names ``root`` in messages.
    """
    current = root
    walked = base
    for key in path.split(".") if path else ():
        known(current, walked)
        _renderable(current, walked)
        if not isinstance(current, dict):
            return MISSING
        walked = join(walked, key)
        current = current.get(key, MISSING)
    known(current, walked)
    _renderable(current, walked)
    return current


class Unrenderable:
    """A chart value whose rendering the pack cannot compute (helm_template); reading it is Malformed."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"<unrenderable: {self.reason}>"


def _renderable(value: Any, path: str) -> None:
    if isinstance(value, Unrenderable):
        raise Malformed(path, f"cannot be judged as the chart renders it: {value.reason}")


def _known(value: Any, path: str) -> Any:
    known(value, path)
    _renderable(value, path)
    return value


def as_int(value: Any, path: str, default: int | None = None, *, text: bool = False) -> int | None:
    """An integer field. A custom resource's integer is a JSON number (a whole float is one: numbers cross the
    engine's protobuf Structs as floats); a string there is no number to the API server, which refuses the
    resource (rule C1), so it is Malformed here, never read as one (issue 28 item 7). A chart value reaches
    this reader rendered as the chart renders it (chart_render: ``{{ x }}`` printing makes ``"3"`` the YAML
    integer 3, ``toYaml`` keeps a string). ``text`` accepts a decimal string: only for inputs that are no
    custom resource's (node pools, workloads), read as before."""
    value = _known(value, path)
    if value is MISSING or value is None:
        return default
    if isinstance(value, bool):
        raise Malformed(path, f"is {describe(value)}, not a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)  # numbers cross the engine's protobuf Structs as floats
    if text and isinstance(value, str) and _ascii_integer(value.strip()):
        return int(value.strip())
    if isinstance(value, str):
        raise Malformed(path, f"is {describe(value)}, a string where the CRD wants an integer (not a whole number)")
    raise Malformed(path, f"is {describe(value)}, not a whole number")


def _of_type(value: Any, path: str, kind: type, noun: str) -> Any:
    """``value`` when it is a ``kind``, None when absent or null; anything else is Malformed."""
    value = _known(value, path)
    if value is MISSING or value is None:
        return None
    if isinstance(value, kind):
        return value
    raise Malformed(path, f"is {describe(value)}, not {noun}")


def as_bool(value: Any, path: str, default: bool | None = None) -> bool | None:
    found = _of_type(value, path, bool, "a boolean")
    return default if found is None else found


def as_str(value: Any, path: str, default: str | None = None) -> str | None:
    found = _of_type(value, path, str, "a string")
    return default if found is None else found


def as_map(value: Any, path: str) -> dict:
    """An object (``{}`` when absent or null)."""
    found = _of_type(value, path, dict, "an object")
    return {} if found is None else found


def as_list(value: Any, path: str) -> list:
    """A list (``[]`` when absent or null)."""
    found = _of_type(value, path, list, "a list")
    return [] if found is None else found


def deep_merge(base: Any, override: Any) -> Any:
    """Helm's values merge: maps merge key by key, anything else in ``override`` wins."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = deep_merge(base.get(key, MISSING), value) if key in base else value
        return merged
    return override
