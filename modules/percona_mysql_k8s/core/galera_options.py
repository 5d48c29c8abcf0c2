"""``wsrep_provider_options`` read as the Galera 4 provider reads it (codership/galera 4.x at 0bc393fb).

* galerautils/src/gu_config.cpp:21-68 ``Config::parse``: split at ``;`` then at ``=`` with ``gu::tokenize``
  (``\\`` escapes a separator; gu_string_utils.cpp:31-81), blanks trimmed around key and value
  (``gu::trim``, C ``isspace``); an empty item is skipped; a key without ``=`` or with two ``=`` and an
  empty key before ``=`` are errors (the provider, and with it mysqld, does not start).
* gu_config.hpp:93-111 ``Config::set``: keys are looked up exactly (a ``std::map``): ``GCS.FC_LIMIT`` is
  not ``gcs.fc_limit`` but an unrecognised parameter, which stops the provider (gu_config.cpp:71-101).
* Integers (gu_config.hpp:196-211 ``from_config``, gu_utils.c:18-60 ``gu_str2ll``): C ``strtoll`` with base
  0 (``0x10`` is 16, ``010`` is 8, ``08`` is an error), then one optional suffix ``K M G T`` (either case,
  powers of 1024) and nothing after it; overflow is an error.
* Doubles: ``strtod`` over the whole value (gu_utils.c:69-75); booleans: gu_utils.c:77-115
  ``gu_str2bool`` (``1 y yes yep on true sure yeah`` / ``0 n no nope none off false``).
* gcs/src/gcs_params.cpp:215-255: ``gcs.fc_limit`` 0..LONG_MAX, ``gcs.fc_factor`` 0.0..1.0, and
  ``gcs.fc_single_primary`` read only when the deprecated ``gcs.fc_master_slave`` is false.
"""

from __future__ import annotations

import math
import re

from .mysqld_options import c_strtol

SEPARATOR, KEY_VALUE, ESCAPE = ";", "=", "\\"
_C_SPACE = " \t\n\v\f\r"
_KEY_CHARACTERS = re.compile(r"^[a-z0-9_.]+$")  # every parameter Galera registers is spelled so
_SHIFT = {"k": 10, "m": 20, "g": 30, "t": 40}
_TRUE = frozenset({"1", "y", "on", "yes", "yep", "true", "sure", "yeah"})
_FALSE = frozenset({"0", "n", "no", "off", "nope", "none", "false"})
LONG_MAX = (1 << 63) - 1
# strtod's decimal form (ASCII digits); its hexadecimal, inf and nan forms are not taken as numbers here.
_DECIMAL = re.compile(r"^[ \t\n\v\f\r]*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\Z")


class ProviderOptionError(ValueError):
    """A provider option string or value Galera refuses (the node does not start)."""


def tokenize(text: str, separator: str, keep_empty: bool = False) -> list[str]:
    """gu::tokenize: split at ``separator`` unless escaped; an escape before any character is dropped."""
    parts: list[str] = []
    previous = search = 0
    while (position := text.find(separator, search)) >= 0:
        if position > search and text[position - 1] == ESCAPE:
            search = position + 1
            continue
        if position > previous or keep_empty:
            parts.append(_unescape(text[previous:position]))
        previous = search = position + 1
    if len(text) > previous:
        parts.append(text[previous:])  # the tail keeps its escapes, as gu::tokenize does
    elif len(text) == previous and keep_empty:
        parts.append("")
    return parts


def _unescape(token: str) -> str:
    """gu_string_utils.cpp:55-66: drop each escape found after the search point and skip the character it
    protects; an escape found exactly at the search point is never dropped and the loop never ends."""
    chars, search = list(token), 0
    while ESCAPE in chars[search:]:
        position = chars.index(ESCAPE, search)
        if position == search:
            raise ProviderOptionError(f"{token!r}: an escape at this position hangs Galera's tokenizer")
        del chars[position]
        search = position + 1
    return "".join(chars)


def parse(value: str | None) -> dict[str, str]:
    """Config::parse: {key: value}, the last value of a key winning (``Config::set`` overwrites); the
    parameters of ``TYPED`` are checked as Galera reads them at startup (it stops on a bad one)."""
    options: dict[str, str] = {}
    if not value:
        return options
    for index, item in enumerate(tokenize(value, SEPARATOR)):
        parts = tokenize(item, KEY_VALUE, keep_empty=True)
        key = parts[0].strip(_C_SPACE)
        if not key:
            if len(parts) > 1:
                raise ProviderOptionError(f"empty key at {item!r} in wsrep_provider_options")
            continue
        if len(parts) == 1:
            raise ProviderOptionError(f"key without value: {key!r} at position {index} in wsrep_provider_options")
        if len(parts) > 2:
            raise ProviderOptionError(f"more than one value for key {key!r} at {item!r} in wsrep_provider_options")
        if not _KEY_CHARACTERS.match(key):
            raise ProviderOptionError(
                f"unrecognized parameter {key!r} in wsrep_provider_options (keys are exact and "
                "lower case; Galera stops on a parameter it does not know)"
            )
        options[key] = parts[1].strip(_C_SPACE)
    for key, read in TYPED.items():
        if key in options:
            read(key, options[key])
    return options


def integer(key: str, text: str, minimum: int = -(1 << 63), maximum: int = LONG_MAX) -> int:
    """gu_str2ll + check_conversion + params_init_long's range check."""
    number, end, _ = c_strtol(text, 0)
    if not -(1 << 63) <= number <= LONG_MAX:
        raise ProviderOptionError(f"{key}={text!r} is out of range for Galera (strtoll overflows)")
    if end and end < len(text) and text[end].lower() in _SHIFT:
        shift = _SHIFT[text[end].lower()]
        end += 1
        if abs(number) >= 1 << (63 - shift):  # gu_str2ll: bits lost in the shift are ERANGE
            raise ProviderOptionError(f"{key}={text!r} is out of range for Galera")
        number <<= shift
    if end == 0 or end != len(text):
        raise ProviderOptionError(
            f"invalid value {text!r} for integer {key} (Galera reads C integers: digits, "
            "0x hexadecimal or 0 octal, one K/M/G/T suffix)"
        )
    if not minimum <= number <= maximum:
        raise ProviderOptionError(f"{key}={text!r} is outside {minimum}..{maximum}")
    return number


def double(key: str, text: str, minimum: float, maximum: float) -> float:
    """gu_str2dbl over the whole value; NaN and infinities are refused here (no safe reading of them)."""
    number = float(text) if _DECIMAL.match(text) else math.nan
    if not math.isfinite(number) or not minimum <= number <= maximum:
        raise ProviderOptionError(f"invalid value {text!r} for {key} (a number within {minimum:g}..{maximum:g})")
    return number


def boolean(key: str, text: str) -> bool:
    word = text.lower() if text.isascii() else text
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise ProviderOptionError(f"invalid value {text!r} for boolean {key} (Galera takes yes/no, on/off, true/false, 1/0)")


# The parameters the project reads, typed and bounded as Galera reads them at startup.
TYPED = {
    "gcs.fc_limit": lambda key, text: integer(key, text, 0, LONG_MAX),  # gcs_params.cpp:215 params_init_long
    "gcs.fc_factor": lambda key, text: double(key, text, 0.0, 1.0),  # gcs_params.cpp:224 params_init_double
    "gcs.fc_single_primary": boolean,  # gcs_params.cpp:252 params_init_bool
    "gcs.fc_master_slave": boolean,  # gcs_params.cpp:241
    "gcache.size": lambda key, text: integer(key, text, -(1 << 63), LONG_MAX),  # gcache_params.cpp:80 get<size_t>
}


def single_primary(options: dict[str, str]) -> bool:
    """gcs_params.cpp:241-254: ``gcs.fc_master_slave`` if true, else ``gcs.fc_single_primary``."""
    if boolean("gcs.fc_master_slave", options.get("gcs.fc_master_slave", "no")):
        return True
    return boolean("gcs.fc_single_primary", options.get("gcs.fc_single_primary", "no"))


__all__ = ["ProviderOptionError", "boolean", "double", "integer", "parse", "single_primary", "tokenize"]
