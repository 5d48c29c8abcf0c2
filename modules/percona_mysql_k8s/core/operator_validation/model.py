"""What an operator refusal is, and how a check reads the custom resource (rule C2).

A :class:`Refusal` is one ``return errors...`` of an operator's ``CheckNSetDefaults``/``Validate`` (or a read the
operator cannot make) that stops the whole reconcile: the field it reads, the operator's words, the source line,
and a check. A check reads the custom resource through a :class:`Reader`, which gives Go's zero value for an absent
field (what the operator's typed struct holds), raises :class:`UnknownField` where a value is not known yet (a
preview: only that check waits, every other one is made) and :class:`Unreadable` where a value cannot be what the
operator's struct holds (chart values the API server never saw).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..go_version import MalformedVersion, parse_version

ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "<absent>", "__bool__": lambda self: False})()


class UnknownField(Exception):
    """A check needs ``path``, whose value is not known yet (it comes from another resource's output)."""

    def __init__(self, path: str, value: Any):
        super().__init__(f"{path} is unknown")
        self.path = path
        self.value = value


class Unreadable(Exception):
    """``path`` holds a value the operator's Go struct cannot hold (a string where it reads a number, say)."""

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path} {problem}")
        self.path = path
        self.problem = problem


def join(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key


def describe(value: Any) -> str:
    return "empty" if value in ("", None) else repr(value)


def malformed_cr_version(
    r: Reader, operator_version: str, *, consequence: str = "", logged: str = ""
) -> Iterator[tuple[str, str, str, str]]:
    """A crVersion hashicorp/go-version cannot read (both operators read it so); ``logged`` prefixes its error as the
    operator wraps it, ``consequence`` says what the operator does then."""
    text = r.text("spec.crVersion")
    if not text:
        return
    try:
        parse_version(text)
    except MalformedVersion as error:
        yield (
            "spec.crVersion",
            f"is {text!r}, which is no version{consequence}",
            f"{logged}{error}",
            f"set spec.crVersion: {operator_version} (the operator's version; left out, the operator writes it)",
        )


class Reader:
    """The custom resource (``{"metadata": ..., "spec": ...}``, as the API server stores it) read as the operator's
    Go struct reads it. Paths are the resource's own: ``spec.pxc.volumeSpec``, ``spec.backup.schedule[0].name``."""

    def __init__(
        self,
        resource: dict,
        is_unknown: Callable[[Any], bool],
        examples: Mapping[str, str] | None = None,
        autonamed_from: str | None = None,
        is_opaque: Callable[[Any], bool] | None = None,
    ):
        self.resource = resource
        self.is_unknown = is_unknown
        self.is_opaque = is_opaque or (lambda value: False)  # set, but not to text we can read (a chart's rendering)
        self.examples = examples or {}
        self.autonamed_from = autonamed_from  # no metadata.name: Pulumi names it ``<this>-<8 random characters>``

    def example(self, component: str) -> str:
        """An image of the pinned operator's release for ``component`` (for a fix), or where to find one."""
        return self.examples.get(component) or "an image of the operator's release (its deploy/cr.yaml names them)"

    def get(self, path: str, node: Any = None, base: str = "") -> Any:
        """The value at ``path`` (below ``node`` at ``base``, or from the root), ABSENT where it or a parent is
        absent or null."""
        current, where = (self.resource, "") if node is None else (node, base)
        for key in _keys(path):
            if self.is_unknown(current):
                raise UnknownField(where or "the resource", current)
            if current is ABSENT or current is None:
                return ABSENT
            if isinstance(key, int):
                if not isinstance(current, list):
                    raise Unreadable(where, "is not a list")
                current = current[key] if key < len(current) else ABSENT
            else:
                if not isinstance(current, dict):
                    raise Unreadable(where, "is not an object")
                current = current.get(key, ABSENT)
            where = join(where, key)
        if self.is_unknown(current):
            raise UnknownField(where, current)
        return ABSENT if current is None else current

    def present(self, path: str, node: Any = None, base: str = "") -> bool:
        """Whether the operator's pointer field at ``path`` is set (a JSON object, even an empty one)."""
        value = self.get(path, node, base)
        if value is ABSENT:
            return False
        if not isinstance(value, dict):
            raise Unreadable(join(base, path) if base else path, "is not an object")
        return True

    def text(self, path: str, node: Any = None, base: str = "") -> str:
        value = self.get(path, node, base)
        if value is ABSENT:
            return ""
        if not isinstance(value, str):
            raise Unreadable(join(base, path) if base else path, f"is {value!r}, not a string")
        return value

    def filled(self, path: str, node: Any = None, base: str = "") -> bool:
        """Whether the string field at ``path`` is set to a non-empty value (an opaque value is one)."""
        value = self.get(path, node, base)
        if value is not ABSENT and self.is_opaque(value):
            return True
        return bool(self.text(path, node, base))

    def flag(self, path: str, node: Any = None, base: str = "") -> bool:
        value = self.get(path, node, base)
        if value is ABSENT:
            return False
        if not isinstance(value, bool):
            raise Unreadable(join(base, path) if base else path, f"is {value!r}, not true or false")
        return value

    def number(self, path: str, node: Any = None, base: str = "") -> int:
        value = self.get(path, node, base)
        if value is ABSENT:
            return 0
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise Unreadable(join(base, path) if base else path, f"is {value!r}, not a whole number")
        return int(value)

    def items(self, path: str, node: Any = None, base: str = "") -> list:
        value = self.get(path, node, base)
        if value is ABSENT:
            return []
        if not isinstance(value, list):
            raise Unreadable(join(base, path) if base else path, "is not a list")
        return value

    def mapping(self, path: str, node: Any = None, base: str = "") -> dict:
        value = self.get(path, node, base)
        if value is ABSENT:
            return {}
        if not isinstance(value, dict):
            raise Unreadable(join(base, path) if base else path, "is not an object")
        return value

    def each(self, path: str) -> Iterator[tuple[str, Any]]:
        """(path, item) of every item of the list at ``path``; an unknown item raises when its check reads it."""
        for index, item in enumerate(self.items(path)):
            yield join(path, index), item


def _keys(path: str) -> list[str | int]:
    keys: list[str | int] = []
    for part in path.split("."):
        while "[" in part:
            head, _, rest = part.partition("[")
            if head:
                keys.append(head)
            index, _, part = rest.partition("]")
            keys.append(int(index))
        if part:
            keys.append(part)
    return keys


@dataclass(frozen=True)
class Finding:
    """One refusal of this custom resource: the field, what it holds, the operator's words (what it logs), the fix."""

    refusal: Refusal
    path: str
    found: str
    words: str
    fix: str


Check = Callable[[Reader], Iterator[tuple[str, str, str, str]]]  # yields (path, found, words, fix)


@dataclass(frozen=True)
class Refusal:
    """One refusal of an operator's validation that stops the whole reconcile (nothing is rendered)."""

    id: str
    operator: str  # pxc | ps
    field: str  # the field it reads, as the docs list it
    what: str  # what it refuses, in a few words
    source: str  # file:line in the pinned operator's source
    check: Check = field(repr=False, compare=False)

    @property
    def operator_name(self) -> str:
        return {"pxc": "PXC operator 1.20.0", "ps": "PS operator v1.2.0"}[self.operator]


@dataclass
class Verdict:
    """Every refusal of one custom resource, and each check a value not known yet leaves undecided."""

    findings: list[Finding] = field(default_factory=list)
    unjudged: list[tuple[Refusal, UnknownField]] = field(default_factory=list)
    unreadable: list[tuple[Refusal, Unreadable]] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return bool(self.findings)


def judge(refusals: tuple[Refusal, ...], reader: Reader) -> Verdict:
    """Each check on its own fields: a value unknown at preview leaves that check undecided, the others decide."""
    verdict = Verdict()
    for refusal in refusals:
        try:
            for path, found, words, fix in refusal.check(reader):
                verdict.findings.append(Finding(refusal, path, found, words, fix))
        except UnknownField as unknown:
            verdict.unjudged.append((refusal, unknown))
        except Unreadable as problem:
            verdict.unreadable.append((refusal, problem))
    return verdict
