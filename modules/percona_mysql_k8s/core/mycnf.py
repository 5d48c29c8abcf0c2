"""my.cnf fragments as the operators take them, parsed and rendered.

* PXC's ``spec.pxc.configuration`` is a full my.cnf with section headers (``[mysqld]``, ``[sst]`` ...).
* PS's ``spec.mysql.configuration`` is plain ``key=value`` lines under an implied ``[mysqld]``.
* Galera flow control lives inside ``wsrep_provider_options="a=b; c=d"``.

The parser follows mysqld's own option-file rules: ``#`` and ``;`` start comments, keys may use ``-``
or ``_``, a bare key is a boolean ``ON``, values may be quoted, the last occurrence wins, and the
``loose_`` prefix only suppresses unknown-option errors. It never raises on odd input it can skip; it
raises :class:`MyCnfError` only when a line cannot be read at all, so a policy can report it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

MYSQLD = "mysqld"
PROVIDER_OPTIONS = "wsrep_provider_options"


class MyCnfError(ValueError):
    """A configuration string that is not a readable option file."""


_SECTION = re.compile(r"^\[\s*([^\]]+?)\s*\]\s*(?:[#;].*)?$")
_OPTION = re.compile(r"^([A-Za-z0-9_.\-]+)\s*(?:=\s*(.*?))?\s*$")


@lru_cache(maxsize=4096)
def normalize_key(key: str) -> str:
    """``loose-Innodb-Buffer-Pool-Size`` -> ``innodb_buffer_pool_size``: the name mysqld resolves."""
    key = key.strip().lower().replace("-", "_")
    if key.startswith("loose_"):
        key = key[len("loose_"):]
    return key


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    # An unquoted value ends at an inline comment that follows whitespace.
    return re.split(r"\s+[#;]", value, maxsplit=1)[0].strip()


def parse(text: object, default_section: str = MYSQLD) -> dict[str, dict[str, str]]:
    """Sections -> {normalized key -> raw value}. Lines before any header go to ``default_section``."""
    if text is None:
        return {}
    if not isinstance(text, str):
        raise MyCnfError(f"configuration must be a string, got {type(text).__name__}")
    sections: dict[str, dict[str, str]] = {}
    current = default_section
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("!"):  # !include / !includedir: nothing to read here
            continue
        section = _SECTION.match(line)
        if section:
            current = section.group(1).strip().lower()
            continue
        option = _OPTION.match(line)
        if not option:
            raise MyCnfError(f"line {number}: cannot read {raw_line.strip()[:60]!r} as key=value")
        key, value = option.groups()
        sections.setdefault(current, {})[normalize_key(key)] = "ON" if value is None else _unquote(value)
    return sections


def mysqld_options(text: object, default_section: str = MYSQLD) -> dict[str, str]:
    """The options mysqld reads: ``[mysqld]`` merged with ``[server]`` (mysqld reads both)."""
    sections = parse(text, default_section)
    merged = dict(sections.get("server", {}))
    merged.update(sections.get(MYSQLD, {}))
    return merged


def parse_provider_options(value: str | None) -> dict[str, str]:
    """``"gcache.size=1G; gcs.fc_limit=100"`` -> {"gcache.size": "1G", "gcs.fc_limit": "100"}."""
    options: dict[str, str] = {}
    for part in (value or "").split(";"):
        if not part.strip():
            continue
        key, separator, option_value = part.partition("=")
        if not separator:
            raise MyCnfError(f"wsrep_provider_options: {part.strip()!r} is not key=value")
        options[key.strip().lower()] = option_value.strip()
    return options


def render_provider_options(options: Mapping[str, object]) -> str:
    return "; ".join(f"{key}={value}" for key, value in options.items())


def render(options: Mapping[str, object], section: str | None = MYSQLD) -> str:
    """Options as an option-file fragment; values with spaces or ``;`` are double-quoted."""
    lines = [f"[{section}]"] if section else []
    for key, value in options.items():
        text = str(value)
        if re.search(r"[\s;#]", text):
            text = '"' + text.replace('"', '\\"') + '"'
        lines.append(f"{key}={text}")
    return "\n".join(lines) + "\n"
