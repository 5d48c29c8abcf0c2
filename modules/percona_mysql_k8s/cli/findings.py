"""What the check found: each diagnostic of the pack with the resource it is about, the field it judged and where
that field is written (percona_mysql_k8s.cli.locations). Every output format reads these."""

from __future__ import annotations

from dataclasses import dataclass, field

from percona_mysql_k8s.cli.engine import Diagnostic
from percona_mysql_k8s.core.finding_field import FindingField, split_field

MANDATORY = "mandatory"


@dataclass(frozen=True)
class Location:
    """Where a finding points: a file (as given; ``-`` is stdin) and the 1-based line and column of the field."""

    file: str
    line: int
    column: int = 1
    template: str | None = None  # the chart template helm rendered the object from (its `# Source:` comment)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass
class Finding:
    diagnostic: Diagnostic
    resource_type: str | None
    resource_name: str | None
    urn: str | None = None
    location: Location | None = None

    @property
    def level(self) -> str:
        return self.diagnostic.level

    @property
    def rule(self) -> str:
        return self.diagnostic.rule

    @property
    def field(self) -> FindingField:
        """The field the rule judged, as it named it at the end of its message (core.finding_field)."""
        return split_field(self.diagnostic.message)[1]

    @property
    def text(self) -> str:
        """The message as the rule worded it: the first line (the policy's description, which the SDK puts first)
        and the field marker left out."""
        body = self.diagnostic.message.split("\n", 1)[-1]
        return split_field(body)[0]


@dataclass
class Report:
    pack: str
    version: str
    findings: list[Finding] = field(default_factory=list)
    resources: int = 0  # how many resources were judged

    @property
    def mandatory(self) -> list[Finding]:
        return [f for f in self.findings if f.diagnostic.level == MANDATORY]

    @property
    def advisory(self) -> list[Finding]:
        return [f for f in self.findings if f.diagnostic.level != MANDATORY]

    def ordered(self) -> list[Finding]:
        """Mandatory first, then by policy, file and line: the order every format lists them in."""
        order = {MANDATORY: 0, "advisory": 1}
        return sorted(
            self.findings,
            key=lambda f: (
                order.get(f.diagnostic.level, 2),
                f.diagnostic.policy,
                f.location.file if f.location else "",
                f.location.line if f.location else 0,
            ),
        )
