"""Passwords in proxy configurations, read as ProxySQL (libconfig 1.7.3) and HAProxy 2.8 read them, after the
operators' entrypoints (core.proxy_credentials). Each row says which rule of the owner's code decides it;
both directions: odd but legal syntax that hides a password, and syntax that looks like one and is not."""

from __future__ import annotations

import pytest
from percona_mysql_k8s.core import libconfig
from percona_mysql_k8s.core.haproxy_config import parse_line
from percona_mysql_k8s.core.proxy_credentials import UnreadableConfiguration, haproxy_credentials, proxysql_credentials
from percona_mysql_k8s.plan.database.proxy_config import PS_HAPROXY_GLOBAL, PXC_HAPROXY_GLOBAL, PXC_PROXYSQL_CNF


def _literal(credentials):
    return [(c.where, c.line) for c in credentials if c.literal]


PROXYSQL_WRITTEN = [  # (configuration, the credential ProxySQL takes in plain text, why)
    (
        'mysql_variables=\n{\n  monitor_password = "monitor"\n}\n',
        "mysql_variables.monitor_password",
        "blanks around '=': the entrypoint's sed matches monitor_password=\"monitor\" byte for byte, so this stays",
    ),
    ('mysql_variables:\n{\n  monitor_password: "monitor";\n}\n', "mysql_variables.monitor_password", "':' is '=' to libconfig"),
    (
        'admin_variables={ admin_credentials="admin:admin;radmin:r4dm1n" }',
        "admin_variables.admin_credentials, user admin",
        'two pairs: "admin:admin" with its quotes is not in the text, so no pair is a placeholder',
    ),
    ('admin_variables={ stats_credentials="stats:st4ts" }', "admin_variables.stats_credentials, user stats", "stats credentials"),
    ('admin_variables={ cluster_password = "Tr0" "ub4dor" }', "admin_variables.cluster_password", "adjacent strings concatenate"),
    ('admin_variables={ cluster_password="p\\x41ss" }', "admin_variables.cluster_password", "\\x41 is an escape"),
    ('admin_variables={ cluster_password="$CLUSTER_PASSWORD" }', "admin_variables.cluster_password", "nothing expands $"),
    ('admin_variables={ cluster_password="{{ .Values.pw }}" }', "admin_variables.cluster_password", "nor {{ }}"),
    ('admin_variables={ cluster_password="pa#ss" }', "admin_variables.cluster_password", "# inside a string"),
    ("admin_variables={ cluster_password=12345 }", "admin_variables.cluster_password", "a number is stored as its digits"),
    ('mysql_variables={ MONITOR_PASSWORD="m0n" }', "mysql_variables.MONITOR_PASSWORD", "set_variable ignores case"),
    (
        'mysql_users=\n(\n  { username="app", password="s3cret", default_hostgroup=10 },\n)\n',
        "mysql_users[0].password, user app",
        "a mysql_users entry, trailing comma included",
    ),
    (
        'mysql_users : ( { username = "a" ; password = "b" ; } , { username = "c" , password = "d" } )',
        "mysql_users[0].password, user a",
        "':' and ';' terminators",
    ),
]


@pytest.mark.parametrize(("text", "where", "why"), PROXYSQL_WRITTEN)
def test_a_password_proxysql_reads_from_the_text_is_found(text, where, why):
    found = _literal(proxysql_credentials(text))
    assert found and found[0][0] == where, why


PROXYSQL_NOT_WRITTEN = [
    (PXC_PROXYSQL_CNF, "the operator's own default: every password is a placeholder the entrypoint replaces"),
    ('admin_variables={ admin_credentials="admin:admin" }', "the placeholder, byte for byte"),
    ('# admin_variables={ cluster_password="x" }\n', "a # comment"),
    ('// mysql_variables={ monitor_password="x" }\n', "a // comment"),
    ('/* mysql_variables={\n monitor_password="x" } */\n', "a /* */ comment across lines"),
    ('Admin_Variables={ cluster_password="x" }', "group names are matched byte for byte (root.exists)"),
    ('mysql_users=( { username="app", password="*0123456789ABCDEF0123456789ABCDEF01234567" } )', "a hashed password"),
    ('mysql_users=( { username="app", password=1234 } )', "a password that is not a string is not read"),
    ('mysql_users=( { password="x" } )', "an entry without username is skipped"),
    ('mysql_users={ username="app"; password="x" }', "a group, not a list: ProxySQL reads no user from it"),
    ('mysql_users=( { username="app", Password="x" } )', "member names are matched byte for byte"),
    ('admin_variables={ cluster_password="" }', "an empty password leaks nothing"),
]


@pytest.mark.parametrize(("text", "why"), PROXYSQL_NOT_WRITTEN)
def test_what_proxysql_does_not_take_as_a_written_password_is_not_one(text, why):
    assert _literal(proxysql_credentials(text)) == [], why


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a=1\na=2\n", 2),  # a duplicate setting
        ('admin_variables={\n cluster_password="x\n', 3),  # a string still open at the end of the file
        ("x = 08\n", 1),  # strtoll base 0: 08 is no octal number
        ('x = [1, "a"]\n', 1),  # an array holds one type
        ('@include "/etc/proxysql/more.cnf"\n', 1),
        ("x = $y\n", 1),
    ],
)
def test_what_libconfig_refuses_is_unreadable_with_its_line(text, line):
    with pytest.raises(UnreadableConfiguration) as error:
        proxysql_credentials(text)
    assert error.value.line == line


def test_libconfig_values_in_other_peoples_notation():
    root = libconfig.parse('a = 0x1F; b = 010; c = 5L; d = TRUE; e = .; f = "x" "y"; g = ( 1, "s", { h = [1, 2,] } );')
    values = {name: getattr(value, "value", value) for name, value in root.settings.items()}
    assert values["a"] == 31 and values["b"] == 8 and values["c"] == 5 and values["d"] is True
    assert values["e"] == 0.0 and values["f"] == "xy"
    assert root.settings["g"].items[2].settings["h"].kind == "array"


HAPROXY_WRITTEN = [
    ("listen stats\n    stats auth admin:s3cret\n", "stats auth, user admin", "plain"),
    ("listen stats\n    stats auth admin:$STATS_PASSWORD\n", "stats auth, user admin", "$ outside double quotes is literal"),
    ("listen stats\n    stats auth 'admin:${STATS_PASSWORD}'\n", "stats auth, user admin", "single quotes expand nothing"),
    ('listen stats\n    stats auth "admin:\\$P"\n', "stats auth, user admin", "an escaped dollar is a dollar"),
    ("listen stats\n    stats auth admin:pa\\#ss  # the real one\n", "stats auth, user admin", "\\# is not a comment"),
    ("defaults\n\tstats auth a:b\n", "stats auth, user a", "a defaults section is a proxy section"),
    (
        "userlist ops\n  user alice insecure-password w0nderland groups admins\n",
        "userlist user alice insecure-password",
        "a userlist password in plain text",
    ),
    ('listen s\n  stats auth "admin:{{ .Values.statsPassword }}"\n', "stats auth, user admin", "{{ }} is text to HAProxy"),
]


@pytest.mark.parametrize(("text", "where", "why"), HAPROXY_WRITTEN)
def test_a_password_haproxy_reads_from_the_text_is_found(text, where, why):
    found = _literal(haproxy_credentials(text))
    assert found and found[0][0] == where, why


HAPROXY_NOT_WRITTEN = [
    (PXC_HAPROXY_GLOBAL, "the PXC operator's default"),
    (PS_HAPROXY_GLOBAL, "the PS operator's default"),
    ('listen stats\n    stats auth "admin:${STATS_PASSWORD}"\n', "the environment inside double quotes (envVarsSecret)"),
    ('listen stats\n    stats auth admin:"$STATS_PASSWORD"\n', "quotes may start mid-word"),
    ('listen stats\n    stats auth "admin:${STATS_PASSWORD-}"\n', "with an empty default"),
    ("listen stats\n    # stats auth admin:s3cret\n", "a comment"),
    ("global\n    user haproxy\n    group haproxy\n", "the global user is the process's uid"),
    ("userlist ops\n  user alice password $6$salt$0123456789abcdef\n", "password takes a crypt(3) hash"),
    ("listen stats\n    stats auth admin:\n", "an empty password leaks nothing"),
    ("global\n    stats auth admin:x\n", "stats auth outside a proxy section is not read as one"),
]


@pytest.mark.parametrize(("text", "why"), HAPROXY_NOT_WRITTEN)
def test_what_haproxy_does_not_take_as_a_written_password_is_not_one(text, why):
    assert _literal(haproxy_credentials(text)) == [], why


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('listen s\n  stats auth "admin:x\n', 2),  # unmatched quote
        ('listen s\n  stats auth "admin:${P"\n', 2),  # unmatched brace
        ('listen s\n  stats auth "admin:$1"\n', 2),  # a variable name starts with a letter, _ or .
        ("listen s\n  stats auth admin:\\xZZ\n", 2),  # bad hex escape
    ],
)
def test_what_haproxy_refuses_is_unreadable_with_its_line(text, line):
    with pytest.raises(UnreadableConfiguration) as error:
        haproxy_credentials(text)
    assert error.value.line == line


def test_haproxy_words_in_other_peoples_notation():
    words = parse_line("bind \"*:3306\" 'a b' c\\ d e\\tf # comment")
    assert [w.text for w in words] == ["bind", "*:3306", "a b", "c d", "e\tf"]
    cut = parse_line("stats auth a:b\rignored")  # a carriage return ends the line
    assert [w.text for w in cut] == ["stats", "auth", "a:b"]
    separated = parse_line("a\x1cb")  # \x1c is no blank to C's isspace(), unlike Python's str.isspace()
    assert [w.text for w in separated] == ["a\x1cb"]
