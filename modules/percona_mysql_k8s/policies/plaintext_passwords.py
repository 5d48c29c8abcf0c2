"""S1: no password in plain text in a custom resource, a chart value, a ConfigMap or a workload.

Passwords belong in Kubernetes Secrets made from Pulumi secrets (random.RandomPassword), referenced by
name (``secretsName``, ``secretKeyRef``). Found here: password-like keys with a literal value anywhere in
a database custom resource, in pxc-db/ps-db/pmm chart values (``secrets.passwords``, ``passwords``,
``secret.pmm_password``), ``password=`` lines inside configuration strings, ConfigMap keys that name a
password (``DB_PASSWORD``, ``MYSQL_PWD``, ``password.root``), literal ``env`` values of password-like
variables, and on command lines (containers' ``command``/``args``, scripts in ConfigMaps or env values):
``--password=…`` (``--mysql-password=…``), the MySQL clients' ``-pSECRET`` (the password is glued to
``-p``: with a space the next word is the database, MySQL manual "Specifying the password"), shell
assignments ``MYSQL_PWD=…``, and DSNs with a password (``mysql://user:SECRET@host``). The engine hands policies
secrets unwrapped, so whether a value is a Pulumi secret cannot be seen here; ``python -m percona_mysql_k8s.cli.check``
also checks that the stack config keeps such keys ``secure:``. A proxy's configuration (``spec.proxysql.configuration``,
``spec.haproxy.configuration``, ``spec.proxy.haproxy.configuration`` and the chart values rendered into them) is
read as ProxySQL and HAProxy read it, after what the operators' entrypoints substitute
(percona_mysql_k8s.core.proxy_credentials): ProxySQL's admin/stats credentials, cluster and monitor passwords
and mysql_users passwords, HAProxy's userlist insecure-passwords and ``stats auth``. A value is literal unless
something really expands it: neither the operators nor these charts expand ``$VAR`` or ``{{...}}`` in a
custom resource's or chart value's password, and Kubernetes expands only ``$(VAR)`` in an env value.
"""

from __future__ import annotations

import re

from percona_mysql_k8s.core.proxy_credentials import UnreadableConfiguration, haproxy_credentials, proxysql_credentials

from ._framework import Context, Spec, partial, resource_policy
from ._readers.values import UNKNOWN_BOOLEAN_VALUE, UNKNOWN_NUMBER_VALUE, NotKnown, Unknown, join
from ._subjects import any_of, database, database_types, exactly, pmm_values, workload, workload_types

SPEC = Spec(
    name="no-plaintext-passwords",
    rules=("S1",),
    applies_to=any_of(database_types, workload_types, exactly("kubernetes:core/v1:ConfigMap")),
    description="no password in plain text in custom resources, chart values, ConfigMaps or workloads",
    remediation="Generate passwords with random.RandomPassword, keep them in a Kubernetes Secret and reference it.",
)

PASSWORD_KEY = re.compile(r"(password|passwd|pmmserverkey|pmmservertoken|apikey|token)$")
REFERENCE_KEY = re.compile(r"(secretname|secretsname|secret|secretref|ref|keyref|file|path|generationoptions)$")
SECRET_KEYS = {
    "root",
    "xtrabackup",
    "monitor",
    "proxyadmin",
    "operator",
    "replication",
    "orchestrator",
    "heartbeat",
    "clusterset",
    "pmmserver",
    "pmmserverkey",
    "pmmservertoken",
}
IN_TEXT = re.compile(r"(?im)^\s*[\w.\-]*(?:password|passwd)\s*[=:]\s*[\"']?([^\"'\s#;]+)")
ARGUMENT = re.compile(r"--[\w-]*password=([\"']?)([^\s\"']+)")
# Proxy configuration strings, read by their proxy's own grammar (core.proxy_credentials).
# The custom resources' fields, and the file names the operators mount them as (a ConfigMap's data keys).
PROXY_CONFIGURATIONS = (
    ("proxysql.configuration", proxysql_credentials),
    ("haproxy.configuration", haproxy_credentials),
    ("proxysql.cnf", proxysql_credentials),
    ("haproxy.cfg", haproxy_credentials),
    ("haproxy-global.cfg", haproxy_credentials),
)
# Kubernetes' dependent environment variables: $(NAME) in an env value is another variable's value ($$ escapes).
K8S_REFERENCE = re.compile(r"(?<!\$)\$\([A-Za-z_][A-Za-z0-9_.-]*\)")
ENV_NAME = re.compile(r"(PASSWORD|PASSWD|PWD|TOKEN|SECRET|API_?KEY)", re.IGNORECASE)
# The MySQL clients read -pSECRET (no space) as the password; -p alone prompts
# (https://dev.mysql.com/doc/refman/8.4/en/connection-options.html#option_general_password).
CLIENT = re.compile(
    r"(?:^|[\s/;&|(`\"'])(?:mysql|mysqladmin|mysqldump|mysqlsh|mysqlslap|mysqlcheck|mysqlpump|mysqlimport|"
    r"mysqlshow|mysqlbinlog|mariadb|mariadb-admin|mariadb-dump)(?=\s)"
)
CLIENT_EDGES = " /;&|(`\"'"
SHORT_PASSWORD = re.compile(r"(?<!\S)-p(\S+)")
SEGMENT = re.compile(r"&&|\|\||[;\n|]")
ASSIGNMENT = re.compile(r"(?<![\w$-])([A-Za-z_][A-Za-z0-9_]*)=(\S+)")
# scheme://user:password@host (MySQL Shell, Go's DSN-like URLs, JDBC, SQLAlchemy); the password is the
# userinfo after the first colon (RFC 3986 §3.2.1).
DSN = re.compile(r"\b[a-zA-Z][\w+.-]*://[^\s/:@'\"]*:([^@\s/'\"]+)@")


def _literal_word(word: str) -> bool:
    return _literal(word.strip("'\"")) and not word.strip("'\"").startswith("%")


def command_line(text: str) -> list[str]:
    """What gives a password away on a command line or in a script: ``--password=``, a client's
    ``-pSECRET``, ``MYSQL_PWD=`` assignments, DSNs with a password."""
    found = []
    for match in ARGUMENT.finditer(text):
        if _literal(match.group(2)):
            found.append(f"a literal {match.group(0).split('=', 1)[0]}=…")
    for segment in SEGMENT.split(text):
        client = CLIENT.search(segment)
        if client and any(_literal_word(m.group(1)) for m in SHORT_PASSWORD.finditer(segment, client.end())):
            found.append(f"a literal -p<password> after {client.group(0).strip(CLIENT_EDGES)}")
    for match in ASSIGNMENT.finditer(text):
        if ENV_NAME.search(match.group(1)) and _literal_word(match.group(2)):
            found.append(f"a literal {match.group(1)}=…")
    for match in DSN.finditer(text):
        if _literal_word(match.group(1)):
            found.append("a DSN with a literal password (scheme://user:password@host)")
    return found


def _names_a_password(key: str) -> bool:
    """A ConfigMap key that names a password: a word password/passwd/pwd/pass/passphrase in it
    (``DB_PASSWORD``, ``MYSQL_PWD``, ``password.root``, ``rootPassword``), unless it names a reference."""
    words = [w.lower() for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])", key) if w]
    if not words or REFERENCE_KEY.search(_normal(key)):
        return False
    return any(w in ("password", "passwd", "pwd", "pass", "passphrase") or w.endswith(("password", "passwd")) for w in words)


def _normal(key: str) -> str:
    return key.lower().replace("-", "").replace("_", "")


def _literal(value) -> bool:
    """In text a shell or a template may read (scripts, command lines, free-form files): ``$...`` is theirs."""
    return isinstance(value, str) and value.strip() != "" and not value.strip().startswith(("$", "{{"))


def _literal_value(value) -> bool:
    """A password field of a custom resource or chart value: nothing expands it, so any text is the password."""
    return isinstance(value, str) and value.strip() != ""


def _env_literal(value) -> bool:
    """An env value: literal unless Kubernetes replaces all of it with other variables' values ($(NAME))."""
    return _literal_value(value) and K8S_REFERENCE.sub("", value).strip() != ""


def _proxy_configuration(text: str, path: str):
    """(path, what) for the plain-text passwords of a proxy configuration, read as its proxy reads it."""
    for suffix, credentials in PROXY_CONFIGURATIONS:
        if not path.endswith(suffix):
            continue
        try:
            found = credentials(text)
        except UnreadableConfiguration as error:
            proxy = "ProxySQL" if "proxysql" in suffix else "HAProxy"
            return [
                (path, f"has a {proxy} configuration in {path} whose passwords cannot be verified: {error} (line {error.line})")
            ]
        return [
            (path, f"has a password in plain text inside {path} ({credential.where}, line {credential.line})")
            for credential in found
            if credential.literal
        ][:1]
    return None


def scan(value, path: str, parent: str = ""):
    """(path, what) of every plain-text password below ``value``; (path, NotKnown) for a value unknown at
    preview, which any text may turn out to hold (a password, a password line, a DSN)."""
    if isinstance(value, Unknown):
        if _may_be_text(value):
            yield path, value.error(path)
    elif isinstance(value, dict):
        for key, item in value.items():
            normal = _normal(str(key))
            child = join(path, str(key))
            if isinstance(item, Unknown):
                if _may_be_text(item):
                    yield child, item.error(child)
            elif isinstance(item, str):
                is_password = PASSWORD_KEY.search(normal) and not REFERENCE_KEY.search(normal)
                if (is_password or (parent == "passwords" and normal in SECRET_KEYS)) and _literal_value(item):
                    yield child, f"holds a literal password in {child}"
                    continue
                proxy = _proxy_configuration(item, child)
                if proxy is not None:
                    yield from proxy
                    continue
                if "\n" in item:
                    match = next((m for m in IN_TEXT.finditer(item) if _literal(m.group(1))), None)
                    if match:
                        yield child, f"has a password in plain text inside {child} ({match.group(0).strip()[:40]}...)"
                        continue
                if child.endswith("configuration"):
                    continue  # a config file (my.cnf, haproxy.cfg, proxysql.cnf), judged above, not a script
                for what in command_line(item)[:1]:
                    yield child, f"has {what} in {child}"
            elif normal in ("command", "args") and isinstance(item, list) and all(isinstance(i, str | Unknown) for i in item):
                words = [i for i in item if isinstance(i, str)]
                for what in command_line(" ".join(words))[:1]:
                    yield child, f"has {what} on the command line {child}"
                for index, word in enumerate(item):
                    if isinstance(word, Unknown):  # the password may be that word, or follow it
                        yield f"{child}[{index}]", word.error(f"{child}[{index}]")
            else:
                yield from scan(item, child, normal)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from scan(item, f"{path}[{index}]", parent)


def _may_be_text(value: Unknown) -> bool:
    """The engine types its sentinels (pulumi rpc.go marshalUnknownProperty): a number or a boolean holds no text."""
    return value.sentinel not in (UNKNOWN_BOOLEAN_VALUE, UNKNOWN_NUMBER_VALUE)


def _named(value, path: str) -> str:
    """A name for a message: the value, or its placeholder when it is unknown at preview."""
    return value.error(path).placeholder() if isinstance(value, Unknown) else str(value)


def _workload(subject) -> list:
    """(path, what or NotKnown) of the passwords a workload's env values and command lines give away."""
    found: list = []
    for path, entry, container in subject.env():
        name, value = entry.get("name"), entry.get("value")
        if isinstance(value, Unknown):
            found.append((path, value.error(f"{path}.value")))
            continue
        if isinstance(name, Unknown):
            if _env_literal(value):  # a literal value under a name not yet known: a password if the name says so
                found.append((path, name.error(f"{path}.name")))
            continue
        if isinstance(name, str) and ENV_NAME.search(name) and _env_literal(value):
            found.append((path, f"sets {name} to a literal value in container {container} ({path}.value)"))
        elif isinstance(value, str):
            found += [(path, f"has {what} in {name} of container {container} ({path}.value)") for what in command_line(value)[:1]]
    for index, container in enumerate(subject.containers + subject.init_containers):
        where = f"{subject.path}.containers[{index}]"
        if isinstance(container, Unknown):
            found.append((where, container.error(where)))
            continue
        words = []
        for key in ("command", "args"):
            items = container.get(key)
            if isinstance(items, Unknown):
                found.append((where, items.error(f"{where}.{key}")))
            for number, word in enumerate(items if isinstance(items, list) else []):
                if isinstance(word, Unknown):
                    found.append((where, word.error(f"{where}.{key}[{number}]")))
                elif isinstance(word, str | int | float):
                    words.append(str(word))
        for what in command_line(" ".join(words))[:1]:
            who = _named(container.get("name", index), f"{where}.name")
            found.append(
                (
                    subject.path,
                    f"passes {what} on the command line of container {who} of {subject.kind} {partial(lambda: subject.name)}",
                )
            )
    return found


FIX = "generate it with random.RandomPassword, keep it in a Kubernetes Secret and reference the Secret instead"


def check(ctx: Context) -> None:
    resource = ctx.resource
    view = database(ctx, "S1")
    found = []
    values = None
    if view is not None:  # chart values as given: a password in them is in the stack whether the chart renders it or not
        found = list(scan(view.values if view.values is not None else view.root, view.root_path))
    else:
        with ctx.checking("S1"):
            values = pmm_values(ctx, "S1")
            if values is not None:
                found = list(scan(values, "values"))
        if resource.type == "kubernetes:core/v1:ConfigMap":
            data = resource.props.get("data")
            found = list(scan({"data": data}, ""))
            named = {path for path, _ in found}
            for key, value in data.items() if isinstance(data, dict) else []:
                if isinstance(value, Unknown):
                    continue  # scan named it
                if join("data", str(key)) not in named and _names_a_password(str(key)) and _literal(value):
                    found.append((join("data", str(key)), f"holds a literal password in data.{key} (its key names a password)"))
        subject = None if values is not None or found else workload(ctx, "S1")
        if subject is not None:
            with ctx.checking("S1"):
                found += _workload(subject)
    for path, what in found:
        if isinstance(what, NotKnown):
            ctx.not_judged("S1", what)
            continue
        ctx.violation(
            "S1",
            f"{resource.label} {what}",
            "the rule keeps every password a Pulumi secret in a Kubernetes Secret, never in plain text",
            FIX,
            field=path,
        )


POLICY = resource_policy(SPEC, check)
