"""``NAME=VALUE`` threshold overrides as the commands take them (``--threshold``, repeatable): one reader for the
sizing and the grading command. Values are ASCII numbers only: ``float()`` would also take ``'١٫٥'`` and
``'nan'``; a whole number stays exact. Names and ranges are checked later, by ``rules.resolve_thresholds``."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from .errors import InputError
from .rules import THRESHOLD_RULE, THRESHOLDS
from .units import decimal_number, whole_number


def add_threshold_option(parser: argparse.ArgumentParser) -> None:
    """``--threshold NAME=VALUE`` (repeatable) as both commands take it; ``threshold_pairs`` reads what it collects."""
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help=f"override a rule threshold; names: {', '.join(sorted(THRESHOLDS))}",
    )


def threshold_pairs(pairs: Sequence[str]) -> dict[str, float]:
    """The overrides ``pairs`` give, by name; InputError (key ``threshold``) naming the pair's rule otherwise."""
    overrides: dict[str, float] = {}
    for pair in pairs:
        name, separator, value = pair.partition("=")
        name = name.strip()
        if not separator:
            raise InputError("threshold", f"expected NAME=VALUE, got {pair!r}")
        try:
            number = whole_number(value)
        except ValueError:
            try:
                number = decimal_number(value)
            except OverflowError:
                number = math.inf  # refused below, as not finite
            except ValueError:
                raise InputError(
                    "threshold",
                    f"{name}: {value!r} is not a number (ASCII digits; at most the threshold's maximum)",
                    THRESHOLD_RULE.get(name),
                ) from None
        if isinstance(number, float) and not math.isfinite(number):
            raise InputError(
                "threshold", f"threshold {name!r} must be a finite number, got {value.strip()!r}", THRESHOLD_RULE.get(name)
            )
        overrides[name] = number
    return overrides
