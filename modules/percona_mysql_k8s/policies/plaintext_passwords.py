"""S1: no password in plain text in a custom resource, a chart value, a ConfigMap or a workload.

Passwords belong in Kubernetes Secrets made from Pulumi secrets (random.RandomPassword), referenced by
name (``secretsName``, ``secretKeyRef``). Found here: password-like keys with a literal value anywhere in
a database custom resource, in pxc-db/ps-db/pmm chart values (``secrets.passwords``, ``passwords``,
``secret.pmm_password``), ``password=`` lines inside configuration strings, ConfigMap data, literal
``env`` values of password-like variables and ``--password=…`` arguments. The engine hands policies
secrets unwrapped, so whether a value is a Pulumi secret cannot be seen here; ``python -m percona_mysql_k8s.policies.check``
also checks that the stack config keeps such keys ``secure:``. The PXC operator's own proxysql.cnf placeholders
(``monitor_password="monitor"``, ``cluster_password="admin"`` in ``spec.proxysql.configuration``), which its
entrypoint replaces with the Secret's passwords, are not passwords.
"""

from __future__ import annotations

import re

from ._framework import Context, Spec, resource_policy
from ._readers.values import join
from ._subjects import any_of, database, database_types, exactly, pmm_values, workload, workload_types

SPEC = Spec(
    name="no-plaintext-passwords",
    rules=("S1",), applies_to=any_of(database_types, workload_types, exactly("kubernetes:core/v1:ConfigMap")),
    description="no password in plain text in custom resources, chart values, ConfigMaps or workloads",
    remediation="Generate passwords with random.RandomPassword, keep them in a Kubernetes Secret and reference it.",
)

PASSWORD_KEY = re.compile(r"(password|passwd|pmmserverkey|pmmservertoken|apikey|token)$")
REFERENCE_KEY = re.compile(r"(secretname|secretsname|secret|secretref|ref|keyref|file|path|generationoptions)$")
SECRET_KEYS = {"root", "xtrabackup", "monitor", "proxyadmin", "operator", "replication", "orchestrator", "heartbeat",
               "clusterset", "pmmserver", "pmmserverkey", "pmmservertoken"}
IN_TEXT = re.compile(r"(?im)^\s*[\w.\-]*(?:password|passwd)\s*[=:]\s*[\"']?([^\"'\s#;]+)")
ARGUMENT = re.compile(r"--(?:mysql-)?password=([\"']?)([^\s\"']+)")
# The PXC operator's proxysql-entrypoint.sh replaces exactly these default lines of proxysql.cnf with the
# users' Secret passwords before ProxySQL starts: placeholders, not passwords (database/proxy_config.py).
PROXYSQL_PLACEHOLDERS = {'monitor_password="monitor"', 'cluster_password="admin"'}
ENV_NAME = re.compile(r"(PASSWORD|PASSWD|PWD|TOKEN|SECRET|API_?KEY)", re.IGNORECASE)


def _normal(key: str) -> str:
    return key.lower().replace("-", "").replace("_", "")


def _literal(value) -> bool:
    return isinstance(value, str) and value.strip() != "" and not value.strip().startswith(("$", "{{"))


def scan(value, path: str, parent: str = ""):
    """(path, what) of every plain-text password below ``value``."""
    if isinstance(value, dict):
        for key, item in value.items():
            normal = _normal(str(key))
            child = join(path, str(key))
            if isinstance(item, str):
                is_password = PASSWORD_KEY.search(normal) and not REFERENCE_KEY.search(normal)
                if (is_password or (parent == "passwords" and normal in SECRET_KEYS)) and _literal(item):
                    yield child, f"holds a literal password in {child}"
                elif "\n" in item:
                    for match in IN_TEXT.finditer(item):
                        placeholder = match.group(0).strip() + '"'  # the pattern stops before the closing quote
                        if placeholder in PROXYSQL_PLACEHOLDERS and child.endswith("proxysql.configuration"):
                            continue
                        if _literal(match.group(1)):
                            yield child, f"has a password in plain text inside {child} ({match.group(0).strip()[:40]}...)"
                            break
            else:
                yield from scan(item, child, normal)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from scan(item, f"{path}[{index}]", parent)


FIX = "generate it with random.RandomPassword, keep it in a Kubernetes Secret and reference the Secret instead"


def check(ctx: Context) -> None:
    resource = ctx.resource
    view = database(ctx, "S1")
    found = []
    values = None
    if view is not None:
        found = list(scan(view.root, view.root_path))
    else:
        with ctx.checking("S1"):
            values = pmm_values(ctx, "S1")
            if values is not None:
                found = list(scan(values, "values"))
        if resource.type == "kubernetes:core/v1:ConfigMap":
            found = list(scan({"data": resource.props.get("data")}, ""))
        subject = None if values is not None or found else workload(ctx, "S1")
        if subject is not None:
            for path, entry, container in subject.env():
                if isinstance(entry.get("name"), str) and ENV_NAME.search(entry["name"]) and _literal(entry.get("value")):
                    found.append((path, f"sets {entry['name']} to a literal value in container {container} ({path}.value)"))
            for match in ARGUMENT.finditer(subject.script()):
                if _literal(match.group(2)):
                    found.append((subject.path, f"passes a literal --password=… on the command line of {subject.kind} {subject.name}"))
    for _path, what in found:
        ctx.violation("S1", f"{resource.label} {what}",
                      "the rule keeps every password a Pulumi secret in a Kubernetes Secret, never in plain text", FIX)


POLICY = resource_policy(SPEC, check)
