"""my_getopt: how mysqld turns one ``--name[=value]`` from an option file into a variable's value.

Ported from mysql/mysql-server mysys/my_getopt.cc (8.0 at cab4f927, same in 8.4) and mysys/typelib.cc
(083c52a7); the function each part mirrors is named beside it. Input is what my_default hands over
(:mod:`percona_mysql_k8s.core.mycnf`): the name as written and the value, or None for a bare name.

* Names (``findopt``/``getopt_compare_strings``): byte-for-byte, case-sensitive; only ``-`` and ``_``
  are interchangeable; no abbreviations (WL#6978). A name that is not an option is tried without one
  of the special prefixes ``skip- disable- enable- maximum- loose-`` (lower case, then ``-`` or ``_``),
  again and again until one matches; the prefix stripped last decides the meaning.
* ``skip-x``/``disable-x`` give ``x`` the argument ``1`` when the value is exactly ``0`` and ``0``
  otherwise; ``enable-x`` gives ``0`` for exactly ``0`` and ``1`` otherwise, whatever ``x``'s type.
* C library parsing (``strtoll``/``strtoull``/``strtoul``): ASCII digits only, leading blanks and one sign.
"""

from __future__ import annotations

from dataclasses import dataclass

from .mysqld_catalog import SIGNED, TYPE_MAX, Option

SPECIAL_PREFIXES = ("skip", "disable", "enable", "maximum", "loose")  # my_getopt.cc special_opt_prefix[]
_C_SPACE = " \t\n\v\f\r"  # isspace() in the C locale: what strtoll skips
_LATIN1_SPACE = _C_SPACE + "\xa0"  # my_isspace(&my_charset_latin1): is_negative_num()
_SUFFIX_SHIFT = {"k": 10, "m": 20, "g": 30, "t": 40, "p": 50, "e": 60}  # eval_num_suffix()
_DIGITS = "0123456789"


class Refused(ValueError):
    """A value mysqld refuses: it stops at startup (``Error while setting value``)."""


@dataclass(frozen=True)
class Value:
    """What mysqld stores: ``text`` is its canonical form (``SHOW VARIABLES``), ``warning`` what it logs."""

    text: str
    warning: str | None = None


def strip_prefix(name: str) -> tuple[str, str] | None:
    """(prefix, rest) when ``name`` starts with a special prefix followed by ``-`` or ``_``."""
    for prefix in SPECIAL_PREFIXES:
        if name.startswith(prefix) and name[len(prefix) : len(prefix) + 1] in ("-", "_"):
            return prefix, name[len(prefix) + 1 :]
    return None


def c_strtol(text: str, base: int = 10) -> tuple[int, int, bool]:
    """C ``strtoll`` on ``text``: (value, index where parsing stopped, overflowed). Base 10, or 0 (``0x``
    hexadecimal, ``0`` octal) as galerautils calls it. No digits: (0, 0, False), ``endptr`` = start."""
    index = 0
    while index < len(text) and text[index] in _C_SPACE:
        index += 1
    sign = 1
    if index < len(text) and text[index] in "+-":
        sign = -1 if text[index] == "-" else 1
        index += 1
    radix = base
    if base == 0:
        if text[index : index + 2].lower() == "0x" and index + 2 < len(text) and text[index + 2].lower() in "0123456789abcdef":
            radix, index = 16, index + 2
        elif text[index : index + 1] == "0":
            radix = 8
        else:
            radix = 10
    digits = "0123456789abcdef"[:radix]
    start = index
    while index < len(text) and text[index].lower() in digits and text[index].isascii():
        index += 1
    if index == start:
        return 0, 0, False
    return sign * int(text[start:index], radix), index, False


def _strtoll(text: str) -> tuple[int, int, bool]:
    value, end, _ = c_strtol(text)
    if value > (1 << 63) - 1 or value < -(1 << 63):
        return (max(min(value, (1 << 63) - 1), -(1 << 63))), end, True
    return value, end, False


def _strtoull(text: str) -> tuple[int, int, bool]:
    value, end, _ = c_strtol(text)
    if abs(value) > (1 << 64) - 1:
        return (1 << 64) - 1, end, True
    return value % (1 << 64), end, False  # strtoull negates in unsigned arithmetic


def eval_num_suffix(argument: str, signed: bool, name: str) -> int:
    """my_getopt.cc eval_num_suffix<LLorULL>(): digits, then one suffix letter K M G T P E (either case)
    read as a power of 1024; anything after that letter is not looked at (``8Gi`` and ``8GB`` are 8G)."""
    number, end, overflow = _strtoll(argument) if signed else _strtoull(argument)
    if end == len(argument) and not overflow:
        return number
    negative = signed and number < 0
    magnitude = -number if negative else number
    if not overflow:
        suffix = argument[end]
        if suffix.lower() not in _SUFFIX_SHIFT or not suffix.isascii():
            raise Refused(
                f"unknown suffix {suffix!r} used for variable {name!r} (value {argument!r}); "
                "legal suffix characters are K, M, G, T, P, E"
            )
        result = (magnitude << _SUFFIX_SHIFT[suffix.lower()]) & ((1 << 64) - 1)
        if bin(result).count("1") != bin(magnitude).count("1") or (signed and result > (1 << 63) - (0 if negative else 1)):
            overflow = True  # bits lost in the shift, or beyond LLONG_MAX
    if overflow:
        raise Refused(f"incorrect {'integer' if signed else 'unsigned'} value {argument!r} for {name!r} (out of range)")
    return -result if negative else result


def limit(option: Option, number: int) -> Value:
    """getopt_ll_limit_value()/getopt_ull_limit_value(): max, the type's max, block size, min (warns)."""
    old, adjusted = number, False
    if option.maximum and number > option.maximum:
        number, adjusted = option.maximum, True
    if number > TYPE_MAX[option.kind]:
        number, adjusted = TYPE_MAX[option.kind], True
    block = option.block or 1
    number = int(number / block) * block if number < 0 else number // block * block  # C division truncates
    if number < option.minimum:
        number, adjusted = option.minimum, old < option.minimum or adjusted
    warning = f"{option.name}: value {old} adjusted to {number}" if adjusted else None
    return Value(str(number), warning)


def integer(option: Option, argument: str) -> Value:
    """getopt_ll()/getopt_ull(): a negative value for an unsigned option takes the minimum (warning)."""
    if option.kind not in SIGNED and argument.lstrip(_LATIN1_SPACE).startswith("-"):
        return Value(str(option.minimum), f"{option.name}: negative value {argument!r} adjusted to {option.minimum}")
    return limit(option, eval_num_suffix(argument, option.kind in SIGNED, option.name))


def boolean(argument: str) -> tuple[bool, bool]:
    """get_bool_argument(): (value, recognised). ``true``/``on``/``1`` and ``false``/``off``/``0`` in any
    case; any other word is false and logged (``EE_INCORRECT_BOOLEAN_VALUE_FOR_OPTION``)."""
    word = argument.lower() if argument.isascii() else argument
    if word in ("true", "on", "1"):
        return True, True
    return False, word in ("false", "off", "0")


def find_type(text: str, choices: tuple[str, ...], no_prefix: bool = False) -> int:
    """typelib.cc find_type(): 1-based index of the exact (case-insensitive, trailing blanks ignored) or
    unique-prefix match, 0 for none (or empty input), -1 when a prefix matches several."""
    found, position = 0, 0
    upper = text.upper() if text.isascii() else None
    for index, choice in enumerate(choices):
        if upper is None:
            break
        if upper.startswith(choice) and not upper[len(choice) :].strip(" "):
            return index + 1
        if choice.startswith(upper) and (len(upper) == len(choice) or not no_prefix):
            found, position = found + 1, index
    if found == 0 or not text:
        return 0
    if found != 1 or no_prefix:
        return -1
    return position + 1


def enum(option: Option, argument: str) -> Value:
    """setval() GET_ENUM: a name or unique prefix (find_type), else a decimal index (strtoul)."""
    found = find_type(argument, option.choices)
    if found > 0:
        return Value(option.choices[found - 1])
    if found < 0:
        raise Refused(f"{argument!r} is an ambiguous prefix of {', '.join(option.choices)} for {option.name!r}")
    number, end, overflow = _strtoull(argument)
    if end != len(argument) or overflow or number >= len(option.choices):
        raise Refused(
            f"{argument!r} is not one of {', '.join(option.choices)} (or 0..{len(option.choices) - 1}) for {option.name!r}"
        )
    return Value(option.choices[number])


def set_value(option: Option, argument: str | None) -> Value | None:
    """setval(): the value mysqld stores for ``argument``; None when it keeps what it had (a bare string
    option, or a boolean word mysqld does not recognise on a NO_ARG option)."""
    if argument is None:
        if option.arg == "req":
            raise Refused(f"option {option.name!r} requires an argument")
        argument = "1"  # enabled_my_option
        if option.kind == "str":
            return None  # "string options don't use this default of 1"
    if option.kind == "str":
        return Value(argument)
    argument = argument.encode("utf-8", "surrogateescape").decode("latin-1")  # the C functions see bytes
    if not argument and option.kind != "bool":
        raise Refused(f"option {option.name!r} given an empty value")  # EE_OPTION_WITH_EMPTY_VALUE
    if option.kind == "bool":
        value, recognised = boolean(argument)
        warning = None if recognised else f"{option.name}: boolean value {argument!r} not recognised, set to OFF"
        return Value("ON" if value else "OFF", warning)
    if option.kind == "enum":
        return enum(option, argument)
    return integer(option, argument)


def prefixed_argument(prefix: str | None, value: str | None) -> str | None:
    """my_handle_options(): what ``skip-``/``disable-``/``enable-`` make of the value (double negation)."""
    if prefix in ("skip", "disable"):
        return "1" if value == "0" else "0"
    if prefix == "enable":
        return "0" if value == "0" else "1"
    return value


__all__ = [
    "Refused",
    "SPECIAL_PREFIXES",
    "Value",
    "boolean",
    "c_strtol",
    "enum",
    "eval_num_suffix",
    "find_type",
    "integer",
    "limit",
    "prefixed_argument",
    "set_value",
    "strip_prefix",
]
