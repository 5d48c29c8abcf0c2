"""Version strings as both Percona operators read ``spec.crVersion``: hashicorp/go-version ``NewVersion`` and
``Compare`` (v1.8.0 in PXC 1.20.0, v1.9.0 in PS v1.2.0; the regular expression and the comparison are the same).

``NewVersion`` matches ``^v?([0-9]+(\\.[0-9]+)*?)(-(prerelease)|(-?(prerelease)))?(\\+(metadata))?$`` (version.go
``VersionRegexpRaw``; Go's ``$`` is the end of the text, so a trailing newline is refused: ``fullmatch`` here),
then reads each segment with ``strconv.ParseInt(s, 10, 64)`` and pads the segments to three. ``Compare`` orders
the segments (a shorter list's missing segments count as zeros), and on equal segments of equal length a release
above any prerelease of it (version.go ``Compare``, ``comparePrereleases``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .go_text import GoSyntaxError, go_atoi

_VERSION = re.compile(
    r"v?([0-9]+(\.[0-9]+)*?)"
    r"(-([0-9]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)|(-?([A-Za-z\-~]+[0-9A-Za-z\-~]*(\.[0-9A-Za-z\-~]+)*)))?"
    r"(\+([0-9A-Za-z\-~]+(\.[0-9A-Za-z\-~]+)*))?"
    r"?",
    re.ASCII,
)
_INT64_MAX = 2**63 - 1


class MalformedVersion(ValueError):
    """What go-version's NewVersion answers for a text it refuses, in its words."""


@dataclass(frozen=True)
class GoVersion:
    segments: tuple[int, ...]
    prerelease: str

    def compare(self, other: GoVersion) -> int:
        """-1, 0 or 1 as ``self`` is smaller than, equal to or larger than ``other`` (version.go ``Compare``)."""
        if self.segments == other.segments:
            if self.prerelease == other.prerelease:
                return 0
            if not self.prerelease:
                return 1
            if not other.prerelease:
                return -1
            return _compare_prereleases(self.prerelease, other.prerelease)
        mine, theirs = self.segments, other.segments
        for index in range(max(len(mine), len(theirs))):
            if index >= len(mine):
                return -1 if any(theirs[index:]) else 0
            if index >= len(theirs):
                return 1 if any(mine[index:]) else 0
            if mine[index] != theirs[index]:
                return -1 if mine[index] < theirs[index] else 1
        return 0

    def at_least(self, text: str) -> bool:
        return self.compare(parse_version(text)) >= 0


@lru_cache(maxsize=256)
def parse_version(text: str) -> GoVersion:
    """``version.NewVersion(text)``; MalformedVersion with go-version's message when it refuses it."""
    match = _VERSION.fullmatch(text)
    if match is None:
        raise MalformedVersion(f"malformed version: {text}")
    segments = []
    for part in match.group(1).split("."):
        if int(part) > _INT64_MAX:
            raise MalformedVersion(f'error parsing version: strconv.ParseInt: parsing "{part}": value out of range')
        segments.append(int(part))
    segments += [0] * (3 - len(segments))
    return GoVersion(tuple(segments), match.group(7) or match.group(4) or "")


def _compare_prereleases(mine: str, theirs: str) -> int:
    left, right = mine.split("."), theirs.split(".")
    for index in range(max(len(left), len(right))):
        found = _compare_part(left[index] if index < len(left) else "", right[index] if index < len(right) else "")
        if found:
            return found
    return 0


def _numeric(text: str) -> int | None:
    """``strconv.ParseInt(text, 10, 64)``, None where it fails."""
    try:
        return go_atoi(text)
    except GoSyntaxError:
        return None


def _compare_part(mine: str, theirs: str) -> int:
    """version.go ``comparePart``."""
    if mine == theirs:
        return 0
    mine_number, their_number = _numeric(mine), _numeric(theirs)
    if mine == "":
        return -1 if their_number is not None else 1
    if theirs == "":
        return 1 if mine_number is not None else -1
    if mine_number is not None and their_number is None:
        return -1
    if mine_number is None and their_number is not None:
        return 1
    if mine_number is None and their_number is None:
        return 1 if mine > theirs else -1
    return 1 if mine_number > their_number else -1
