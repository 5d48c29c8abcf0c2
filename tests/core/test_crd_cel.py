"""The CEL half of core.crd: Google's runtime with Kubernetes' bindings behaves as the API server's CEL does.

Each expectation comes from the CEL specification (error semantics of ``||``/``&&``, ``has``, RE2 ``matches``) or
from k8s.io/apiserver pkg/cel/library/quantity.go, whose documented examples are checked here as written there.
"""

from __future__ import annotations

import pytest
from cel_expr_python import cel
from percona_mysql_k8s.core.crd.cel import QUANTITY, cel_errors, cel_value, compiled, re2_search


def evaluate(rule: str, value):
    try:
        result = compiled(rule).eval(data={"self": value})
    except Exception as error:  # noqa: BLE001 - a binding's exception is the rule's error, as core.crd.cel reads it
        return ("error", str(error))
    return ("error", str(result.plain_value())) if result.type() == cel.Type.ERROR else result.plain_value()


def test_a_missing_key_is_an_error_not_false():
    assert evaluate("self.a.b", {"a": {}})[0] == "error"
    assert evaluate("has(self.a.b)", {"a": {}}) is False


def test_or_and_and_absorb_an_error_only_when_the_other_side_decides():
    assert evaluate("self.missing || true", {}) is True
    assert evaluate("true || self.missing", {}) is True
    assert evaluate("self.missing || false", {})[0] == "error"
    assert evaluate("self.missing && false", {}) is False
    assert evaluate("true && self.missing", {})[0] == "error"


def test_has_size_null_and_arithmetic():
    assert evaluate("has(self.a) && !has(self.b)", {"a": 1}) is True
    assert evaluate("size(self.s) > 0", {"s": "é"}) is True
    assert evaluate("self.a != null", {"a": {}}) is True
    assert evaluate("self.n % 2 == 0 && self.t == 'x'", {"n": 4, "t": "x"}) is True


def test_macros_the_crds_use():
    assert evaluate("self.all(c, self.exists_one(d, d.n == c.n))", [{"n": "a"}, {"n": "b"}]) is True
    assert evaluate("self.all(c, self.exists_one(d, d.n == c.n))", [{"n": "a"}, {"n": "a"}]) is False


def test_matches_searches_as_re2_with_dollar_at_the_very_end():
    assert evaluate("self.matches('[0-9]{2}')", "ab12cd") is True  # a search, not a full match
    assert evaluate("self.matches('^[0-9]{4}-[0-9]{2}$')", "2026-11") is True
    assert evaluate("self.matches('^[0-9]{4}-[0-9]{2}$')", "2026-11\n") is False  # Python's re would say yes
    assert re2_search(r"^a$", "a") and not re2_search(r"^a$", "a\n")


@pytest.mark.parametrize(
    ("text", "valid"),
    [
        ("1.5G", True),
        ("200k", True),
        ("1.3Gi", True),
        ("10000k", True),
        ("200K", False),
        ("Three", False),
        ("1,3G", False),
        ("Mi", True),
    ],
)
def test_is_quantity_as_quantity_go_documents_it(text, valid):
    # quantity.go's comment also lists isQuantity('Mi') as false, but resource.ParseQuantity, which isQuantity calls,
    # reads a missing number as 0 and accepts "Mi" (parseQuantityString: "if we stripped all numerator positions,
    # always return 0"); core.quantity transcribes that function, checked against Go itself (tests/core/go_quantity).
    assert evaluate("isQuantity(self)", text) is valid
    outcome = evaluate("sign(quantity(self)) >= 0", text)
    assert outcome is True if valid else outcome[0] == "error"


def test_quantity_comparisons_as_quantity_go_documents_them():
    assert evaluate("quantity(self).compareTo(quantity('50M'))", "50Mi") == 1
    assert evaluate("quantity(self).compareTo(quantity('1Gi')) >= 0", "1073741824") is True
    assert evaluate("quantity(self).compareTo(quantity('1Gi')) >= 0", "1023Mi") is False
    assert evaluate("sign(quantity(self))", "-1Gi") == -1 and evaluate("sign(quantity(self))", "0") == 0


def test_a_quantity_function_on_an_int_or_string_integer_has_no_overload():
    # int-or-string is dyn to the API server's CEL, so isQuantity(2) fails at run time, as the API server reports it
    outcome = evaluate("isQuantity(self)", 2)
    assert outcome[0] == "error" and "No matching overloads" in outcome[1]
    assert evaluate("sign(self)", {QUANTITY: "1", "x": "2"})[0] == "error"  # only quantity()'s carrier is a Quantity
    assert evaluate("sign(self)", {QUANTITY: "1"}) == 1


def test_a_library_function_the_carried_crds_do_not_call_fails_to_compile():
    with pytest.raises(Exception):  # noqa: B017 - the bindings carry only what the CRDs call; isIP is ClusterSet's
        compiled("isIP(self)")


def test_self_is_typed_by_the_schema():
    schema = {"type": "object", "properties": {"n": {"type": "number"}, "i": {"type": "integer"}}}
    assert cel_value({"n": 3, "i": 3.0}, schema) == {"n": 3.0, "i": 3}
    assert isinstance(cel_value({"n": 3}, schema)["n"], float)


def test_rules_run_where_the_value_is_present_and_say_why_in_the_api_servers_words():
    schema = {
        "type": "object",
        "properties": {
            "a": {
                "type": "object",
                "x-kubernetes-validations": [{"rule": "self.x > 1", "message": "x must exceed 1"}, {"rule": "self.y"}],
                "properties": {"x": {"type": "integer"}, "y": {"type": "boolean"}},
            }
        },
    }
    assert cel_errors({}, schema, lambda value: False) == ([], [])  # absent: no rule runs
    errors, _ = cel_errors({"a": {"x": 1}}, schema, lambda value: False)
    assert [str(error) for error in errors] == [
        "a: Invalid value: x must exceed 1",
        'a: Invalid value: "object": no such key: y evaluating rule: self.y',
    ]


def test_a_rule_that_reads_a_value_unknown_at_preview_is_not_judged():
    schema = {"type": "object", "x-kubernetes-validations": [{"rule": "self.x > 1"}], "properties": {"x": {"type": "integer"}}}
    unknown = object()
    errors, unjudged = cel_errors({"x": unknown}, schema, lambda value: value is unknown)
    assert errors == [] and [(item.path, item.rule) for item in unjudged] == [("", "self.x > 1")]
