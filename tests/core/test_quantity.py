"""Kubernetes quantities read as the API server reads them (core.quantity), in other people's notation.

The expected values come from the owner's code (apimachinery pkg/api/resource/quantity.go): each row says
which rule of ParseQuantity or of the CRD's pattern decides it. The Go differential test runs the real
ParseQuantity over generated text; tests/apiserver/test_apiserver_quantities.py asks a real API server.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import oracle_missing
from percona_mysql_k8s.core.quantity import CRD_PATTERN, MAX_INT64, QuantityError, Schema, go_parse_quantity, parse_quantity
from percona_mysql_k8s.core.units import cpu_to_millicores, memory_to_bytes
from reference_material.resolve import reference_path

GO_ORACLE = Path(__file__).resolve().parent / "go_quantity"

# (text, what ParseQuantity makes of it) for odd but legal notation, and why
ACCEPTED = [
    ("1.", Decimal(1), "a point without decimals is a number (<digits>.)"),
    (".5", Decimal("0.5"), ".<digits>"),
    ("+2", Decimal(2), "a leading plus"),
    ("007", Decimal(7), "leading zeros are stripped"),
    ("1E", Decimal(10**18), "E is exa, not an exponent"),
    ("1e3", Decimal(1000), "e<signedNumber> is an exponent"),
    ("1E+3", Decimal(1000), "E followed by digits is an exponent"),
    ("1e-3", Decimal("0.001"), "a negative exponent"),
    ("0.1n", Decimal("1e-9"), "a non-zero amount is rounded up to a whole nano"),
    ("1e-10", Decimal("1e-9"), "the same through the exponent"),
    ("1.5Gi", Decimal(1610612736), "a fraction of a binary suffix"),
    ("9Ei", Decimal(MAX_INT64), "a binary amount is capped at 2^63-1"),
    ("1e4294967297", Decimal(10), "the exponent is read as int64 and cast to int32: it wraps to 1"),
    ("123456789012345678901234567890", Decimal("123456789012345678901234567890"), "decimal amounts are not capped"),
]
# text ParseQuantity refuses, and why
REFUSED = [
    ("", "empty"),
    ("1e", "e alone is no suffix"),
    ("1K", "K is no suffix (k is kilo)"),
    ("1ki", "binary suffixes are Ki Mi Gi Ti Pi Ei"),
    ("8GB", "two suffix letters"),
    ("1KiB", "B is no suffix"),
    ("1e2.5", "the exponent is an integer"),
    ("1.2.3", "one point"),
    ("٣", "an Arabic-Indic digit is no digit to Go"),
    ("３Gi", "nor a full-width one"),
    ("1 Gi", "a blank between number and suffix"),
    ("1Gi\n", "a newline reaches UnmarshalJSON escaped by the JSON encoder, as \\n: not trimmed"),
    ("\t1Gi", "so does a tab"),
    ("\u20281Gi", "and U+2028, which Go's encoder escapes"),
]


@pytest.mark.parametrize(("text", "amount", "why"), ACCEPTED)
def test_odd_but_legal_notation_reads_as_parse_quantity_reads_it(text, amount, why):
    assert go_parse_quantity(text) == amount, why
    assert parse_quantity(text, Schema.BUILTIN) == amount, why


@pytest.mark.parametrize(("text", "why"), REFUSED)
def test_what_parse_quantity_refuses_is_refused(text, why):
    with pytest.raises(QuantityError):
        go_parse_quantity(text)
    for schema in Schema:
        with pytest.raises(QuantityError):
            parse_quantity(text, schema)


@pytest.mark.parametrize(
    ("text", "builtin"),
    [
        (" 1Gi", 2**30),  # UnmarshalJSON trims Go's unicode.IsSpace
        ("1Gi ", 2**30),
        ("\u00a01Gi", 2**30),  # NBSP is a space to Go, and the JSON encoder leaves it as it is
        ("\u30001Gi", 2**30),  # so is the ideographic space
        ("\x851Gi", 2**30),  # and NEL
        ("-", 0),  # a bare sign is zero to ParseQuantity; the pattern wants a digit
        (".", 0),
        ("Gi", 0),  # no digits at all: the numerator defaults to "0"
        ("e3", 0),
    ],
)
def test_a_custom_resource_refuses_what_a_pod_takes(text, builtin):
    assert memory_to_bytes(text, Schema.BUILTIN) == builtin
    with pytest.raises(QuantityError, match="pattern"):
        parse_quantity(text, Schema.CRD)


def test_a_separator_control_character_is_not_a_space_to_go():
    # Python's str.strip() removes U+001F; Go's TrimSpace does not, so the API server refuses it
    with pytest.raises(QuantityError):
        parse_quantity("\x1f1Gi", Schema.BUILTIN)


def test_numbers_follow_each_schema():
    assert parse_quantity(2, Schema.CRD) == 2
    assert parse_quantity(2.0, Schema.CRD) == 2  # numbers cross the engine as floats; JSON writes 2
    with pytest.raises(QuantityError, match="int-or-string"):
        parse_quantity(1.5, Schema.CRD)
    assert cpu_to_millicores(1.5, Schema.BUILTIN) == 1500
    for bad in (True, None, [1], float("nan"), float("inf")):
        for schema in Schema:
            with pytest.raises(QuantityError):
                parse_quantity(bad, schema)


def test_the_int64_bound_is_an_error_not_a_crash():
    with pytest.raises(QuantityError, match="int64"):
        memory_to_bytes("1e999999999")
    with pytest.raises(QuantityError, match="int64"):
        cpu_to_millicores("1e999999999")
    assert memory_to_bytes("8Ei") == MAX_INT64  # capped by ParseQuantity itself


QUANTITY_TEXT = st.text(alphabet=st.sampled_from(list("0123456789.+-eEinumkKMGTPB \n") + ["٣", "３", "\u00a0"]), max_size=12)


@settings(max_examples=400, deadline=None)
@given(QUANTITY_TEXT)
def test_every_text_is_read_or_refused_never_crashes(text):
    results = {}
    for schema in Schema:
        try:
            results[schema] = parse_quantity(text, schema)
        except QuantityError:
            results[schema] = None
    if results[Schema.CRD] is not None:  # what a custom resource takes, a Pod takes too, as the same amount
        assert results[Schema.BUILTIN] == results[Schema.CRD]
    for convert in (cpu_to_millicores, memory_to_bytes):
        try:
            assert 0 <= convert(text) <= MAX_INT64
        except QuantityError:
            pass


def _oracle(tmp_path_factory) -> Path:
    go = shutil.which("go")
    reason = (
        f"the Go differential needs Go and k8s.io/apimachinery v0.36.3 in the module cache (cd {GO_ORACLE} && go mod download)"
    )
    if go is None:
        oracle_missing(reason)
    binary = tmp_path_factory.mktemp("go-quantity") / "oracle"
    built = subprocess.run(
        [go, "build", "-o", str(binary), "."],
        cwd=GO_ORACLE,
        capture_output=True,
        text=True,
        env={**_go_env(), "GOFLAGS": "-mod=mod", "GOPROXY": "off"},
        timeout=600,
    )
    if built.returncode != 0:
        oracle_missing(f"{reason}: {built.stderr.strip()[:200]}")
    return binary


def _go_env() -> dict[str, str]:
    import os

    return dict(os.environ)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory) -> Path:
    return _oracle(tmp_path_factory)


def _owner_reads(oracle: Path, texts: list[str]) -> list[Decimal | None]:
    answer = subprocess.run(
        [str(oracle)], input="".join(json.dumps(t) + "\n" for t in texts), capture_output=True, text=True, timeout=120, check=True
    ).stdout.splitlines()
    amounts: list[Decimal | None] = []
    for line in answer:
        if line == "ERR":
            amounts.append(None)
            continue
        unscaled, scale = line.split()
        sign = 1 if unscaled.startswith("-") else 0
        amounts.append(Decimal((sign, tuple(int(d) for d in unscaled.lstrip("-")), -int(scale))))
    return amounts


PIECES = st.sampled_from(list("0123456789.+-eEinumkKMGTP") + ["Ki", "Ei", "e-", "٣", "9" * 19])
GENERATED = st.lists(st.lists(PIECES, min_size=1, max_size=8).map("".join), min_size=200, max_size=200)


@settings(max_examples=20, deadline=None)
@given(GENERATED)
def test_parse_quantity_agrees_with_the_owners_code(oracle, texts):
    texts = [t for t in texts if "\n" not in t]
    for text, theirs in zip(texts, _owner_reads(oracle, texts), strict=True):
        try:
            ours = go_parse_quantity(text)
        except QuantityError:
            ours = None
        assert ours == theirs, text


def test_the_crd_pattern_is_the_crds_own():
    """The pattern is copied from the CRDs; the reference CRDs carry exactly it."""
    assert f"pattern: {CRD_PATTERN}" in reference_path("ps-operator-v1.2.0-crd.yaml").read_text()
