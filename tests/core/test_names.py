"""core.names: label keys and values as apimachinery's IsQualifiedName and IsValidLabelValue read them
(pkg/util/validation/validation.go): a key is [prefix/]name split on every "/", the prefix a non-empty DNS-1123
subdomain (at most 253), the name at most 63 of letters, digits, '-', '_', '.' starting and ending alphanumeric;
a value is "" or such a name. Go's "$" is the end of the text: a trailing newline is refused."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core.names import label_key_problem, label_value_problem

GOOD_KEYS = [
    "app",
    "app.kubernetes.io/name",  # the recommended labels' prefix
    "node-role.kubernetes.io/database",
    "example.com/My_Name.1",  # the name part may hold upper case and '_', the prefix may not
    "x" * 63,
    f"{'a' * 253}/n",  # a prefix of exactly 253
    "1",
]
BAD_KEYS = [
    "",
    "/app",  # empty prefix
    "a/b/c",  # two separators
    "Example.com/name",  # upper case in the prefix
    "example.com/",  # empty name
    "x" * 64,
    f"{'a' * 254}/n",
    "-app",
    "app-",
    "app\n",
    "ａpp",  # a full-width letter: not ASCII
    3,
]


@pytest.mark.parametrize("key", GOOD_KEYS)
def test_keys_the_api_server_takes_are_taken(key):
    assert label_key_problem(key) is None


@pytest.mark.parametrize("key", BAD_KEYS)
def test_keys_the_api_server_refuses_are_refused(key):
    assert label_key_problem(key)


@pytest.mark.parametrize("value", ["", "database", "A_b.c-9", "v" * 63])
def test_values_the_api_server_takes_are_taken(value):
    assert label_value_problem(value) is None


@pytest.mark.parametrize("value", ["v" * 64, "-a", "a.", "a b", "a\n", "a/b", None])
def test_values_the_api_server_refuses_are_refused(value):
    assert label_value_problem(value)
