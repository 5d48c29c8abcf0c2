"""Fields a reader could not read yet, kept for the judgement that reads them (docs/preview-unknowns.md).

A reader that builds a structure from many fields (a container's resources, a backup storage, a pod group) reads
each field with :func:`deferred`: a field that is unknown at preview (:class:`~.values.NotKnown`) or malformed
(:class:`~.values.Malformed`) becomes a :class:`~.values.Pending` value, and a :class:`KnownOnRead` structure raises
what it holds when, and only when, that field is read. So one unknown endpoint stops R4's judgement of that endpoint,
not R1's of the schedule next to it, and a malformed value is reported by the rule that reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .values import Malformed, NotKnown, Pending

__all__ = ["KnownOnRead", "Pending", "deferred"]


def deferred(build: Callable[[], Any]) -> Any:
    """``build()``, or a :class:`Pending` holding the :class:`NotKnown` or :class:`Malformed` it raised."""
    try:
        return build()
    except (NotKnown, Malformed) as error:
        return Pending(error)


class KnownOnRead:
    """A reader's structure whose fields may be :class:`Pending`: reading one raises its NotKnown (or Malformed),
    so only the judgements that read that field stop, each naming it (or reporting it)."""

    __slots__ = ()

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if type(value) is Pending:
            value.raise_error()
        return value
