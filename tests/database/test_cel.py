"""The CEL subset interpreter behaves like Kubernetes on the points the PS rules depend on."""

import pytest

from .cel import CelError, Unsupported, admits, evaluate


def test_missing_key_is_an_error_not_false():
    with pytest.raises(CelError, match="no such key"):
        evaluate("self.a.b", {"a": {}})


def test_or_absorbs_an_error_only_when_the_other_side_decides():
    assert evaluate("self.missing || true", {}) is True
    assert evaluate("true || self.missing", {}) is True
    with pytest.raises(CelError):
        evaluate("self.missing || false", {})
    assert evaluate("self.missing && false", {}) is False
    with pytest.raises(CelError):
        evaluate("true && self.missing", {})


def test_has_size_null_and_arithmetic():
    assert evaluate("has(self.a) && !has(self.b)", {"a": 1}) is True
    assert evaluate("size(self.s) > 0", {"s": "x"}) is True
    assert evaluate("self.a != null", {"a": {}}) is True
    assert evaluate("self.n % 2 == 0 && self.t == 'x'", {"n": 4, "t": "x"}) is True
    assert evaluate("!(self.n >= 9) || self.f", {"n": 3, "f": False}) is True


def test_rejects_on_error_and_on_false():
    assert admits("self.a", {"a": True}) == (True, "")
    assert admits("self.a", {"a": False})[0] is False
    assert admits("self.a", {})[0] is False


def test_unsupported_syntax_is_loud():
    with pytest.raises(Unsupported):
        evaluate("quantity(self.x).compareTo(quantity('1Gi')) >= 0", {"x": "1Gi"})
    with pytest.raises(Unsupported):
        evaluate("self.items.all(i, i > 0)", {"items": [1]})


def test_matches_searches_like_re2_and_needs_strings():
    # RE2's matches() is a search: an unanchored pattern matches inside; the anchored one must match whole
    assert evaluate("self.d.matches('[0-9]{2}')", {"d": "ab12cd"}) is True
    assert evaluate("self.d.matches('^[0-9]{4}-[0-9]{2}$')", {"d": "2026-11"}) is True
    assert evaluate("self.d.matches('^[0-9]{4}-[0-9]{2}$')", {"d": "2026-11x"}) is False
    with pytest.raises(CelError):
        evaluate("self.d.matches('x')", {"d": 3})
