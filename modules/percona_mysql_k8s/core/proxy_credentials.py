"""The passwords a proxy configuration in a custom resource gives its proxy, and whether each is written in
it (rule S1): read as ProxySQL and HAProxy read their files, after what the operators' entrypoints do.

ProxySQL (``spec.proxysql.configuration``; the PXC operator's build/proxysql-entrypoint.sh at
percona/percona-xtradb-cluster-operator b3b0b10): the custom file replaces proxysql.cnf, then ``sed``
replaces, byte for byte, ``"admin:admin"``, ``cluster_password="admin"`` and ``monitor_password="monitor"``
with the users' passwords from the Secret. Those exact spellings are placeholders; ``monitor_password =
"monitor"`` (with blanks) is not replaced and stays a literal password. ProxySQL then reads the file with
libconfig (core.libconfig) and takes (sysown/proxysql lib/ProxySQL_Config.cpp, 5cc418b):

* every setting of the ``admin_variables`` and ``mysql_variables`` groups as a global variable, as its
  text whatever its type (``Read_Global_Variables_from_configfile``); the names are matched without regard
  to case (``set_variable``: strcasecmp, tolower): ``admin_credentials`` and ``stats_credentials`` are
  ``user:password`` pairs separated by ``;``, ``cluster_password`` and ``monitor_password`` passwords;
* each group of the ``mysql_users`` list that has a string ``username``: its string ``password``
  (``Read_MySQL_Users_from_configfile``; a password that is not a string is not read). A password stored
  hashed (``*`` and 40 hex digits, mysql_native_password) is not plain text.

HAProxy (``spec.haproxy.configuration``, ``spec.proxy.haproxy.configuration``; the operators' entrypoints
substitute nothing, they pass the file to ``haproxy -f``) reads it as core.haproxy_config does: in a
``userlist`` section ``user NAME insecure-password PASSWORD`` is a password in plain text (``password``
takes a crypt(3) hash); in a proxy section ``stats auth USER:PASSWORD``. A value the environment gives
(``"${STATS_PASSWORD}"``, inside double quotes, e.g. from ``envVarsSecret``) is not written in the file.

Nothing else expands a value: ``$VAR`` outside HAProxy's double quotes and ``{{...}}`` are literal text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import haproxy_config, libconfig

# The entrypoint's sed patterns (build/proxysql-entrypoint.sh) and the marker of what they put in.
SECRET = "\ue000"
PROXYSQL_PLACEHOLDERS = (
    ('"admin:admin"', f'"admin:{SECRET}"'),
    ('cluster_password="admin"', f'cluster_password="{SECRET}"'),
    ('monitor_password="monitor"', f'monitor_password="{SECRET}"'),
)
CREDENTIAL_LISTS = ("admin_credentials", "stats_credentials")
PASSWORDS = {"admin_variables": ("cluster_password",), "mysql_variables": ("monitor_password",)}
_NATIVE_HASH = re.compile(r"\*[0-9A-Fa-f]{40}")


@dataclass(frozen=True)
class Credential:
    where: str  # "admin_variables.admin_credentials, user radmin"
    line: int
    literal: bool  # written in the configuration: no Secret substitution, no environment variable


class UnreadableConfiguration(ValueError):
    """The proxy would not read the file; ``line`` is where it stops."""

    def __init__(self, line: int, message: str):
        super().__init__(message)
        self.line = line


def _text(value) -> str:
    """A global variable's value as ProxySQL stores it: bool as true/false, int as digits, a string as is;
    anything else (int64, float, groups, lists) reads as empty."""
    if isinstance(value, libconfig.Scalar):
        if value.kind == "bool":
            return "true" if value.value else "false"
        if value.kind == "int":
            return str(value.value)
        if value.kind == "string":
            return value.value
    return ""


def _written(password: str) -> bool:
    return bool(password) and SECRET not in password


def proxysql_credentials(text: str) -> list[Credential]:
    """Every password ProxySQL takes from ``text`` after the entrypoint's substitutions."""
    for placeholder, secret in PROXYSQL_PLACEHOLDERS:
        text = text.replace(placeholder, secret)
    try:
        root = libconfig.parse(text)
    except libconfig.LibconfigError as error:
        raise UnreadableConfiguration(error.line, f"ProxySQL cannot read it (libconfig: {error}); it exits at start") from None
    found: list[Credential] = []
    for group_name in ("admin_variables", "mysql_variables"):
        group = root.settings.get(group_name)
        if not isinstance(group, libconfig.Group):
            continue
        for name, value in group.settings.items():
            line = getattr(value, "line", group.line)
            if group_name == "admin_variables" and name.lower() in CREDENTIAL_LISTS:
                for pair in _text(value).split(";"):
                    user, _, password = pair.partition(":")
                    found.append(Credential(f"{group_name}.{name}, user {user}", line, _written(password)))
            elif name.lower() in PASSWORDS[group_name]:
                found.append(Credential(f"{group_name}.{name}", line, _written(_text(value))))
    users = root.settings.get("mysql_users")
    for index, entry in enumerate(users.items if isinstance(users, libconfig.Sequence) and users.kind == "list" else []):
        if not isinstance(entry, libconfig.Group):
            continue
        username, password = entry.settings.get("username"), entry.settings.get("password")
        if not (isinstance(username, libconfig.Scalar) and username.kind == "string"):
            continue  # "a mysql_users in config file without a mandatory username": skipped
        if isinstance(password, libconfig.Scalar) and password.kind == "string" and not _NATIVE_HASH.fullmatch(password.value):
            found.append(
                Credential(f"mysql_users[{index}].password, user {username.value}", password.line, _written(password.value))
            )
    return found


def haproxy_credentials(text: str) -> list[Credential]:
    """Every password HAProxy takes from ``text``: userlist insecure-passwords and stats auth."""
    try:
        lines = haproxy_config.parse(text)
    except haproxy_config.HAProxyConfigError as error:
        raise UnreadableConfiguration(
            error.line, f"HAProxy refuses it ({error}); the operator's entrypoint then ignores the whole custom configuration"
        ) from None
    found: list[Credential] = []
    for line in lines:
        words = line.words
        keyword = words[0].text
        if line.section == "userlist" and keyword == "user" and len(words) > 1:
            for option, value in zip(words[2::2], words[3::2], strict=False):
                if option.text == "insecure-password":
                    found.append(Credential(f"userlist user {words[1].text} insecure-password", line.number, value.literal))
        elif line.section in haproxy_config.PROXY_SECTIONS and keyword == "stats" and len(words) > 2 and words[1].text == "auth":
            user, password = words[2].split(":")
            if password is not None:
                found.append(Credential(f"stats auth, user {user.text}", line.number, password.literal))
    return found
