"""Every rule's "Fix:" followed as a user would follow it: one fixer per rule ID, read by tests/policies/test_fixes.py.

A fixer gets a :class:`Fixing`: the case being changed (its resources, resolved from their bases), the violation's
message and the resource it is about. It changes the case as the fix text says, reading the text itself: the paths,
numbers and values the text names are what it writes (a fixer that knew the answer beforehand would test nothing).
Where a text's first alternative is a change a program cannot make from the text alone ("give spec.pxc.configuration
a valid value" for a file mysqld refuses; "add nodes to the pool"), the fixer raises :class:`Declined` with the
reason, and that case is counted, not fixed; every rule must still fix at least one of its failing cases.

A new rule joins by registering its fixer here (``@fixer("X9")``): test_fixes.py fails naming any rule of the corpus
that has none, and then runs the fixer on each of the rule's failing cases.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from harness import load_base
from percona_mysql_k8s.core.finding_field import split_field
from percona_mysql_k8s.core.haproxy_operator import PS_HAPROXY_GLOBAL, PXC_HAPROXY_GLOBAL
from percona_mysql_k8s.core.mycnf import parse_provider_options, render_provider_options


class Declined(Exception):  # noqa: N818 - what the fixer does: declines, with the reason
    """The fix's first alternative leaves the change to judgement: the case is counted, not fixed."""


@dataclass
class Fixing:
    case: dict  # {"resources": [...resolved entries...], "stack_config": {...}, ...}: changed in place
    rule: str
    message: str
    subject: dict  # the resolved entry the message is about (type, name, props)

    @property
    def fix(self) -> str:
        text, _ = split_field(self.message)  # the field marker the pack appends is not part of the fix
        return text.split("Fix: ", 1)[1].rstrip(".")

    @property
    def props(self) -> dict:
        return self.subject["props"]

    def first(self) -> str:
        """The fix's first alternative (before ", or ")."""
        return self.fix.split(", or ")[0]


FIXERS: dict[str, Callable[[Fixing], None]] = {}


def fixer(*rules: str):
    def register(function: Callable[[Fixing], None]) -> Callable[[Fixing], None]:
        for rule in rules:
            assert rule not in FIXERS, f"two fixers for {rule}"
            FIXERS[rule] = function
        return function

    return register


# ---- paths as the messages write them: spec.a.b[0].c, values.x.y, spec.backup.schedule.0.keep --------------------


def _tokens(path: str) -> list[str | int]:
    tokens: list[str | int] = []
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            tokens.append(int(part[1:-1]))
        else:
            tokens.append(int(part) if part.isdigit() else part)
    return tokens


def get_path(props: dict, path: str, default: Any = None) -> Any:
    node: Any = props
    for token in _tokens(path):
        try:
            node = node[token]
        except (KeyError, IndexError, TypeError):
            return default
    return node


def set_path(props: dict, path: str, value: Any) -> None:
    tokens = _tokens(path)
    node: Any = props
    for token, following in zip(tokens, tokens[1:], strict=False):
        if isinstance(token, int):
            node = node[token]
            continue
        if not isinstance(node.get(token), dict | list):
            node[token] = [] if isinstance(following, int) else {}
        node = node[token]
    node[tokens[-1]] = value


def remove_path(props: dict, path: str) -> None:
    tokens = _tokens(path)
    parent = get_path(props, ".".join(str(t) for t in tokens[:-1])) if len(tokens) > 1 else props
    if isinstance(parent, dict):
        parent.pop(tokens[-1], None)


def _value(text: str) -> Any:
    """A value as the fix writes it (YAML flow: `true`, `3`, `{a: b}`, `[{...}]`)."""
    return yaml.safe_load(text)


# ---- my.cnf: a fix's `set NAME=VALUE` appended as mysqld reads files (the last setting of a variable wins) ----------


def _engine(props: dict) -> str:
    if "values" in props:
        return "pxc" if props.get("chart") == "pxc-db" else "ps"
    return "pxc" if "pxc" in props.get("spec", {}) else "ps"


def config_path(fixing: Fixing) -> str:
    named = re.search(r"\b((?:spec|values)\.(?:pxc|mysql)\.configuration)\b", fixing.message)
    if named:
        return named.group(1)
    root = "values" if "values" in fixing.props else "spec"
    return f"{root}.{'pxc' if _engine(fixing.props) == 'pxc' else 'mysql'}.configuration"


def set_option(fixing: Fixing, name: str, value: str) -> None:
    path = config_path(fixing)
    text = get_path(fixing.props, path) or ""
    if not isinstance(text, str):
        raise Declined(f"{path} is not text")
    if name.startswith(("gcs.", "gcache.", "evs.", "pc.")):  # a provider option: one string, merged
        options = _provider_options(text)
        options[name] = value
        name, value = "wsrep_provider_options", f'"{render_provider_options(options)}"'
    set_path(fixing.props, path, f"{text.rstrip(chr(10))}\n[mysqld]\n{name}={value}\n".lstrip("\n"))


def _provider_options(text: str) -> dict[str, str]:
    found = re.findall(r"^\s*wsrep[-_]provider[-_]options\s*=\s*(.*)$", text, re.MULTILINE)
    if not found:
        return {}
    value = found[-1].strip()
    if value[:1] in "\"'" and value[-1:] == value[:1]:
        value = value[1:-1]
    try:
        return parse_provider_options(value)
    except Exception as error:  # noqa: BLE001 - a string Galera refuses: the fix's "valid value" is judgement
        raise Declined(f"wsrep_provider_options cannot be read: {error}") from None


OPTION = re.compile(r"\bset ((?:[a-z_]+\.)?[a-z_]+)=([A-Za-z0-9_.]+)")


def set_named_options(fixing: Fixing, text: str | None = None) -> None:
    """Every ``set name=value`` of the text (``name=value, name=value`` lists included)."""
    text = fixing.first() if text is None else text
    if text.startswith("give ") and "a valid value" in text:
        raise Declined(f"{text}: which value is the user's to choose")
    pairs = re.findall(r"\b((?:[a-z_]+\.)?[a-z_]+)=([A-Za-z0-9_.]+)", text.split(" in wsrep_provider_options")[0])
    pairs = [(name, value.rstrip(".")) for name, value in pairs if not name.startswith(("config", "max_failover"))]
    if not pairs:
        raise Declined(f"no option to set in {text!r}")
    for name, value in pairs:
        set_option(fixing, name, value)


@fixer("F1", "F2", "F3", "F4", "F6", "F7", "G1", "G3", "G4", "T4", "M5")
def option_fix(fixing: Fixing) -> None:
    set_named_options(fixing)


@fixer("G2")
def galera_factor(fixing: Fixing) -> None:
    set_named_options(fixing)


@fixer("M2")
def explicit_buffer_pool(fixing: Fixing) -> None:
    found = re.search(r"(?:set innodb_buffer_pool_size|explicit value)=(\d+M)", fixing.fix)
    if not found:
        raise Declined(fixing.fix)
    path = config_path(fixing)
    text = get_path(fixing.props, path) or ""
    # "replace the template": the template's line goes, the explicit value comes
    text = "\n".join(line for line in text.splitlines() if "{{" not in line)
    set_path(fixing.props, path, text)
    set_option(fixing, "innodb_buffer_pool_size", found.group(1))


@fixer("M1")
def modeled_peak(fixing: Fixing) -> None:
    first = fixing.first()
    pool = re.match(r"set innodb_buffer_pool_size=(\d+M) or less", first)
    if pool:
        set_option(fixing, "innodb_buffer_pool_size", pool.group(1))
        return
    raised = re.match(
        r"raise ((?:spec|values)\.\S+)\.limits\.memory \(and requests\.memory with it, K2\) to at least (\d+Mi)", first
    )
    if raised:
        set_path(fixing.props, f"{raised.group(1)}.limits.memory", raised.group(2))
        set_path(fixing.props, f"{raised.group(1)}.requests.memory", raised.group(2))
        return
    raise Declined(first)


@fixer("M4")
def message_cache(fixing: Fixing) -> None:
    found = re.match(r"set (group_replication_message_cache_size) to (\d+M) or more", fixing.fix)
    if not found:
        raise Declined(fixing.fix)
    set_option(fixing, found.group(1), found.group(2))


@fixer("M6")
def derived_connections(fixing: Fixing) -> None:
    first = fixing.first()
    if re.match(r"set max_connections=\d+", first):
        set_named_options(fixing, first)
        return
    if first.startswith("set thread_pool_max_threads to max_connections + "):
        options = dict(re.findall(r"(max_connections|thread_pool_size)=(\d+)", fixing.message))
        connections = int(options.get("max_connections", 151))
        size = int(options.get("thread_pool_size", 0)) or 1  # "unset (at least 1)"
        plus = int(re.search(r"max_connections \+ (\d+)", first).group(1))
        set_option(fixing, "thread_pool_max_threads", str(connections + plus + size))
        return
    raise Declined(first)


@fixer("F5")
def brownout(fixing: Fixing) -> None:
    first = fixing.first()
    both = re.match(r"set both thresholds to (\d+)", first)
    if both:
        for name in ("group_replication_flow_control_applier_threshold", "group_replication_flow_control_certifier_threshold"):
            set_option(fixing, name, both.group(1))
        return
    if first.startswith("set gcs.fc_limit="):
        set_named_options(fixing, first)
        return
    raise Declined(first)


# ---- resources and their paths ------------------------------------------------------------------------------------


@fixer("T1")
def cluster_size(fixing: Fixing) -> None:
    found = re.match(r"set ((?:spec|values)\.\S+): (\d+)$", fixing.first())
    if not found:
        raise Declined(fixing.fix)
    set_path(fixing.props, found.group(1), int(found.group(2)))


@fixer("T2")
def proxy_choice(fixing: Fixing) -> None:
    first = fixing.first()
    keep = re.match(
        r"keep ((?:spec|values)\.(?:[a-z.]+\.)?)(haproxy|proxysql|router)\.enabled: true and disable the other", first
    )
    if keep:
        base = keep.group(1)
        for other in ("haproxy", "proxysql", "router"):
            if other != keep.group(2) and isinstance(get_path(fixing.props, base + other), dict):
                set_path(fixing.props, base + other + ".enabled", False)
        return
    sized = re.match(r"set ((?:spec|values)\.[\w.]+?)(?:\.enabled: true with size|\.size): (\d+)$", first)
    if sized:
        if "enabled: true" in first:
            set_path(fixing.props, sized.group(1) + ".enabled", True)
        set_path(fixing.props, sized.group(1) + ".size", int(sized.group(2)))
        return
    raise Declined(first)


@fixer("K2")
def memory_limit(fixing: Fixing) -> None:
    _equal_sides(fixing, "memory")


@fixer("K3")
def cpu_limit(fixing: Fixing) -> None:
    _equal_sides(fixing, "cpu")


def _equal_sides(fixing: Fixing, resource: str) -> None:
    """K2 and K3 name the block and the value: "set spec.pxc.resources.limits.cpu = requests.cpu = 4"."""
    found = re.match(
        rf"set ((?:spec|values)\.\S+)\.(limits|requests)\.{resource} = (requests|limits)\.{resource} = (\S+)$", fixing.first()
    )
    if not found:
        raise Declined(fixing.fix)
    for side in ("limits", "requests"):
        set_path(fixing.props, f"{found.group(1)}.{side}.{resource}", found.group(4))


@fixer("M3")
def sidecar_budget(fixing: Fixing) -> None:
    found = re.match(r"set ((?:spec|values)\.\S+) requests = limits: cpu (\S+), memory (\S+) \(sizing's budget\)$", fixing.fix)
    if not found:
        raise Declined(f"{fixing.fix}: the budget is sizing's to report, the text names none")
    budget = {"cpu": found.group(2), "memory": found.group(3)}
    set_path(fixing.props, found.group(1), {"requests": dict(budget), "limits": dict(budget)})


@fixer("K6")
def probes(fixing: Fixing) -> None:
    found = re.findall(r"(initialDelaySeconds|timeoutSeconds|periodSeconds|failureThreshold)=(\d+)", fixing.fix)
    block = re.match(r"K6: ((?:spec|values)\.\S+) has", fixing.message)
    if not found or not block:
        raise Declined(fixing.fix)
    path = block.group(1)
    probe = dict(get_path(fixing.props, path) or {})
    probe.update({name: int(value) for name, value in found})
    set_path(fixing.props, path, probe)
    # a chart's shortcut key (values.pxc.livenessDelaySec) overrides the block: the message names it
    shortcut = re.search(r"set by ((?:values|spec)\.\S+), which overrides it", fixing.message)
    if shortcut:
        remove_path(fixing.props, shortcut.group(1))


@fixer("S2")
def tls(fixing: Fixing) -> None:
    first = fixing.first()
    root = "values" if "values" in fixing.props else "spec"
    if first == "remove tls.enabled: false":
        remove_path(fixing.props, f"{root}.tls.enabled")
    elif first == "remove unsafeFlags.tls":
        remove_path(fixing.props, f"{root}.unsafeFlags.tls")
    elif first.startswith("remove allowUnsafeConfigurations"):
        remove_path(fixing.props, f"{root}.allowUnsafeConfigurations")
        # "and set the individual unsafeFlags you need": the ones the cluster's own shape needs (T1's size flag)
        size = get_path(fixing.props, f"{root}.pxc.size")
        if isinstance(size, int) and size < 3:
            set_path(fixing.props, f"{root}.unsafeFlags.pxcSize", True)
    elif re.match(r"remove line \d+ \(", first):
        path = config_path(fixing)
        drop = {int(n) for n in re.findall(r"\bline (\d+) \(", first)}
        lines = (get_path(fixing.props, path) or "").splitlines()
        set_path(fixing.props, path, "\n".join(line for n, line in enumerate(lines, 1) if n not in drop) + "\n")
    else:
        raise Declined(first)


@fixer("S4")
def finalizers(fixing: Fixing) -> None:
    found = re.match(r"remove (\S+) from ((?:metadata|values)\.finalizers)$", fixing.fix)
    if found:
        kept = [item for item in get_path(fixing.props, found.group(2)) if item != found.group(1)]
        set_path(fixing.props, found.group(2), kept)
        return
    if fixing.first() == "create it with pulumi.ResourceOptions(protect=True)":
        fixing.subject["protect"] = True
        return
    raise Declined(fixing.fix)


@fixer("S3")
def public_endpoint(fixing: Fixing) -> None:
    found = re.match(r"set ((?:spec|values)(?:\.[\w.]+)?) type ClusterIP", fixing.fix)
    if not found:
        raise Declined(fixing.fix)
    path = found.group(1)
    if path in ("spec", "values"):  # a Service: its own spec
        set_path(fixing.props, "spec.type", "ClusterIP")
        for key in ("loadBalancerSourceRanges", "externalTrafficPolicy"):
            remove_path(fixing.props, f"spec.{key}")
    else:
        set_path(fixing.props, f"{path}.type", "ClusterIP")


@fixer("S5")
def pmm_versions(fixing: Fixing) -> None:
    found = re.match(r"use (percona/pmm-client):(\d)\.x", fixing.first())
    if not found:
        raise Declined(f"{fixing.fix}: a token is the PMM server's to mint")
    image = re.search(r"((?:spec|values)\.pmm\.image)", fixing.message)
    if not image:
        raise Declined(fixing.fix)
    set_path(fixing.props, image.group(1), f"{found.group(1)}:{found.group(2)}.5.0")


@fixer("R1")
def backup_schedule(fixing: Fixing) -> None:
    """ "schedule a backup (a cron expression such as '0 3 * * *') to an s3/gcs storage outside the cluster": the
    backed-up bases' own S3 storage and daily schedule, for the engine the resource runs."""
    if "image is empty" in fixing.first():
        raise Declined(f"{fixing.first()}: the backup image is the user's to choose for their MySQL version")
    found = re.search(
        r"schedule a backup \(a cron expression such as '([^']+)'\) to an s3/gcs storage outside the cluster", fixing.fix
    )
    if (
        not found
        or "values" in fixing.props
        or "spec" not in fixing.props
        or fixing.subject["type"].endswith(("Backup", "Restore"))
    ):
        raise Declined(fixing.fix)
    engine = _engine(fixing.props)
    good = load_base("pxc-backed-up" if engine == "pxc" else "ps-gr-backed-up")["props"]["spec"]["backup"]
    backup = copy.deepcopy(fixing.props["spec"].get("backup") or {})
    backup.pop("enabled", None)
    backup["storages"] = {**copy.deepcopy(good["storages"])}
    backup["schedule"] = [{**copy.deepcopy(good["schedule"][0]), "schedule": found.group(1)}]
    for key in ("image", "pitr"):
        backup.setdefault(key, copy.deepcopy(good.get(key)))
    if engine == "ps":
        backup["enabled"] = True
    fixing.props["spec"]["backup"] = backup


@fixer("R2")
def pitr(fixing: Fixing) -> None:
    secret = re.match(r"set ((?:spec|values)\.\S+\.credentialsSecret) to the Secret that holds its keys", fixing.fix)
    if secret:
        set_path(fixing.props, secret.group(1), f"{fixing.subject.get('name', 'cluster')}-backup-keys")
        return
    found = re.match(r"set ((?:spec|values)\.backup\.pitr)\.enabled: true (and|with) ", fixing.fix)
    if not found:
        raise Declined(fixing.fix)
    engine = _engine(fixing.props)
    good = load_base("pxc-backed-up" if engine == "pxc" else "ps-gr-backed-up")["props"]["spec"]["backup"]
    root = found.group(1).split(".")[0]
    backup = get_path(fixing.props, f"{root}.backup") or {}
    if not backup.get("storages") or not backup.get("schedule"):  # "no base backup": R1's fix first
        backup.update({key: copy.deepcopy(good[key]) for key in ("storages", "schedule", "image") if key in good})
    pitr = copy.deepcopy(good["pitr"])
    if engine == "pxc":  # storageName: "an s3 storage outside the cluster" of its own storages
        pitr["storageName"] = next(name for name, storage in backup["storages"].items() if storage.get("type") == "s3")
    backup["pitr"] = pitr
    if engine == "ps":
        backup["enabled"] = True
    set_path(fixing.props, f"{root}.backup", backup)


@fixer("R3")
def retention(fixing: Fixing) -> None:
    found = re.match(r"set ((?:spec|values)\.\S+) to at least (\d+)", fixing.fix)
    if not found:
        raise Declined(fixing.fix)
    set_path(fixing.props, found.group(1), int(found.group(2)))


@fixer("R7")
def data_volume(fixing: Fixing) -> None:
    first = fixing.first()
    request = re.match(r"set ((?:spec|values)\.\S+\.resources\.requests\.storage) to at least (\S+) \(", first)
    if request:
        set_path(fixing.props, request.group(1), request.group(2))
        return
    persistence = re.match(r"set ((?:spec|values)\.\S+\.persistence)\.enabled: true with \1\.size", first)
    if persistence:
        set_path(fixing.props, persistence.group(1) + ".enabled", True)
        set_path(fixing.props, persistence.group(1) + ".size", "100Gi")
        remove_path(fixing.props, persistence.group(1) + ".hostPath")
        return
    claim = re.match(r"set ((?:spec|values)\.\S+\.volumeSpec)\.persistentVolumeClaim with resources\.requests\.storage", first)
    if claim:
        set_path(fixing.props, claim.group(1), {"persistentVolumeClaim": {"resources": {"requests": {"storage": "100Gi"}}}})
        return
    raise Declined(first)


@fixer("R4")
def cloud_storage(fixing: Fixing) -> None:
    fix = fixing.first()
    removed = re.match(r"remove (\S+) from the stack config", fix)
    if removed:
        fixing.case.get("stack_config", {}).pop(removed.group(1), None)
        return
    flag = re.match(
        r"set (publicAccessPrevention): (\w+)$|set (uniformBucketLevelAccess): (true)$|set (restrictPublicBuckets) (true)$", fix
    )
    if flag:
        name, value = next((flag.group(i), flag.group(i + 1)) for i in (1, 3, 5) if flag.group(i))
        fixing.props[name] = _value(value)
        return
    https = re.match(r"give ((?:spec|values)\.\S+\.endpointUrl) an https:// endpoint", fix)
    if https:
        current = get_path(fixing.props, https.group(1)) or ""
        set_path(fixing.props, https.group(1), "https://" + re.sub(r"^\w+://", "", current))
        return
    tls = re.match(r"remove ((?:spec|values)\.\S+\.verifyTLS) \(it defaults to true\)", fix)
    if tls:
        remove_path(fixing.props, tls.group(1))
        return
    raise Declined(fix)


@fixer("B1")
def load_generator_pool(fixing: Fixing) -> None:
    found = re.match(
        r"set (spec\.\S+)\.nodeSelector (\{.*?\})(?: and remove the toleration of (\S+?)=(\S+?):(\w+))?$", fixing.fix
    )
    if not found:
        raise Declined(fixing.fix)
    pod = found.group(1)
    set_path(fixing.props, f"{pod}.nodeSelector", _value(found.group(2)))
    set_path(fixing.props, f"{pod}.affinity", {})
    if found.group(3):
        key, value, effect = found.group(3), found.group(4), found.group(5)
        kept = [
            toleration
            for toleration in get_path(fixing.props, f"{pod}.tolerations") or []
            if not (toleration.get("key") in (key, None) and toleration.get("value") in (value, None))
            and toleration.get("effect") in (effect, None, "")
            or toleration.get("key") not in (key, None)
        ]
        set_path(fixing.props, f"{pod}.tolerations", kept)


@fixer("K4")
def dedicated_pools(fixing: Fixing) -> None:
    fix = fixing.fix.split(" (or your pool's own")[0]
    pinned = re.match(r"set ((?:spec|values)\.\S+)\.nodeSelector (\{.*?\}) and \1\.tolerations (\[.*\])$", fix)
    if pinned:
        set_path(fixing.props, f"{pinned.group(1)}.nodeSelector", _value(pinned.group(2)))
        set_path(fixing.props, f"{pinned.group(1)}.tolerations", _value(pinned.group(3)))
        return
    taint = re.match(r"add the taint (\{.*\}) to (nodeConfig\.taints)$", fix)
    if taint:
        taints = get_path(fixing.props, taint.group(2)) or []
        set_path(fixing.props, taint.group(2), [*taints, _value(taint.group(1))])
        return
    raise Declined(fix)


@fixer("B2")
def warm_up(fixing: Fixing) -> None:
    found = re.match(r"add (--warmup-time=\d+)", fixing.fix)
    if not found:
        raise Declined(fixing.fix)
    _add_to_sysbench_run(fixing, [found.group(1)])


@fixer("B3")
def reporting(fixing: Fixing) -> None:
    found = re.match(r"add ((?:--[\w-]+=\S+ ?)+) to the run", fixing.fix)
    if not found:
        raise Declined(fixing.fix)
    _add_to_sysbench_run(fixing, found.group(1).split())


def _containers(props: dict) -> list[dict]:
    spec = props.get("spec", {})
    template = spec.get("jobTemplate", {}).get("spec", spec).get("template", {}).get("spec", {})
    return template.get("containers") or spec.get("containers") or []


def _add_to_sysbench_run(fixing: Fixing, options: list[str]) -> None:
    """The options go on the measured run (the sysbench command whose command word is ``run``, in an exec list or a
    shell script): an option it already gives (``--report-interval=10``, or ``--report_interval``) takes the new value,
    the others go before ``run``."""
    for container in _containers(fixing.props):
        for key in ("command", "args"):
            words = container.get(key) or []
            for index, word in enumerate(words):
                if not isinstance(word, str):
                    continue
                if word == "run" and any("sysbench" in str(other) for other in words[:index]):
                    words[index:index] = options
                    return
                runs = [m for m in re.finditer(r"(?<![\w-])run(?![\w-])", word) if "sysbench" in word[: m.start()]]
                if runs:
                    text, rest = word[: runs[-1].start()], word[runs[-1].start() :]
                    start = text.rfind("sysbench")
                    command, added = text[start:], []
                    for option in options:
                        name, _, value = option.partition("=")
                        spelled = re.escape(name[2:]).replace("\\-", "[-_]").replace("-", "[-_]")
                        command, count = re.subn(rf"--{spelled}=\S+", option, command)
                        if not count:
                            added.append(option)
                    words[index] = text[:start] + command + " ".join(added) + (" " if added else "") + rest
                    return
    raise Declined("no sysbench run in the containers")


@fixer("T3")
def writer_endpoint(fixing: Fixing) -> None:
    found = re.match(r"point it at (\S+?):(\d+) \(HAProxy\)", fixing.first())
    wrong = re.search(r"to (\S+?):(\d+), a read-only endpoint", fixing.message)
    if not found or not wrong:
        raise Declined(fixing.fix)
    text = json.dumps(fixing.props)
    text = text.replace(wrong.group(1), found.group(1))
    fixing.subject["props"] = json.loads(text)


@fixer("R5")
def run_requests(fixing: Fixing) -> None:
    """ "remove it": the load generator goes from the stack."""
    if not fixing.fix.startswith("remove it"):
        raise Declined(fixing.fix)
    fixing.case["resources"] = [entry for entry in fixing.case["resources"] if entry is not fixing.subject]


@fixer("R6")
def network_fence(fixing: Fixing) -> None:
    """ "set networkPolicies true in the stack config" needs this project's program, which a corpus case does not
    have: the text's other way is followed, an Ingress NetworkPolicy selecting the pods it names."""
    found = re.search(r"\(labels ([^)]*)\) in namespace (\S+?);", fixing.message)
    if not found or "add an Ingress NetworkPolicy selecting these pods" not in fixing.fix:
        raise Declined(fixing.fix)
    labels = dict(pair.split("=", 1) for pair in found.group(1).split(", "))
    fence = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "database-fence", "namespace": found.group(2)},
        "spec": {
            "podSelector": {"matchLabels": labels},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {}}]}],
        },
    }
    fixing.case["resources"].append(
        {"type": "kubernetes:networking.k8s.io/v1:NetworkPolicy", "name": "database-fence", "props": fence}
    )


@fixer("S1")
def passwords(fixing: Fixing) -> None:
    """ "keep it in a Kubernetes Secret and reference the Secret instead": an env value becomes a secretKeyRef, a
    ConfigMap key moves out (into the Secret). Passwords inside scripts, files and chart values: where the Secret is
    referenced there is the chart's or the workload's."""
    env = re.search(r"sets (\S+) to a literal value in container \S+ \(((?:spec|values)\S+)\.value\)", fixing.message)
    if env:
        entry = get_path(fixing.props, env.group(2))
        entry.pop("value", None)
        entry["valueFrom"] = {"secretKeyRef": {"name": f"{fixing.subject['name']}-passwords", "key": env.group(1).lower()}}
        return
    data = re.search(r"ConfigMap '[^']+' holds a literal password in data\.(\S+?)[ ;]", fixing.message)
    if data:
        fixing.props["data"].pop(data.group(1))
        return
    raise Declined(f"{fixing.fix}: where the Secret is referenced depends on the chart or workload")


@fixer("K5")
def pool_capacity(fixing: Fixing) -> None:
    found = re.match(r"give node pool (\S+) at least (\d+) nodes", fixing.first())
    if not found:
        raise Declined(f"{fixing.first()}: sizing's numbers for the node are not in the text")
    wanted = int(found.group(2))
    for entry in fixing.case["resources"]:
        if entry["name"] == found.group(1) or entry["props"].get("name") == found.group(1):
            counted = False
            for path in (
                "nodeCount",
                "initialNodeCount",
                "autoscaling.maxNodeCount",
                "scalingConfig.desiredSize",
                "scalingConfig.maxSize",
            ):
                current = get_path(entry["props"], path)
                if isinstance(current, int):
                    set_path(entry["props"], path, max(current, wanted))
                    counted = True
            if not counted:
                raise Declined(f"node pool {found.group(1)} declares no node count")
            return
    raise Declined(f"no node pool {found.group(1)}")


@fixer("C1")
def admission(fixing: Fixing) -> None:
    """ "correct X as the API server's reasons say": reasons that name the correct value are followed."""
    unsupported = re.search(r"([\w.\[\]]+): Unsupported value: \"[^\"]*\": supported values: \"([^\"]+)\"", fixing.message)
    if unsupported:
        set_path(fixing.props, unsupported.group(1), unsupported.group(2))
        return
    typed = re.search(r"([\w.\[\]]+): Invalid value: \"(\d+)\": \1 in body must be of type integer", fixing.message)
    if typed:
        set_path(fixing.props, typed.group(1), int(typed.group(2)))
        return
    undeclared = re.search(r"([\w.\[\]]+): field not declared in schema", fixing.message)
    if undeclared:
        remove_path(fixing.props, undeclared.group(1))
        return
    raise Declined(f"{fixing.fix}: the reasons name no value")


@fixer("C2")
def operator_refusal(fixing: Fixing) -> None:
    """The operator's refusals, fixed as the text says: a value to set (``set spec.pxc.size: 5``, with a note in
    parentheses or a bound after it), a claim's size to give a volume that has none or several sources, a storage
    named from the list the text gives, a new name."""
    fix = fixing.first()
    claim = re.match(r"set ((?:spec|values)\.\S+)\.persistentVolumeClaim\.resources\.requests\.storage \(e\.g\. (\S+)\)", fix)
    if claim:  # "... and no other volume source": the claim replaces whatever the volume had
        set_path(
            fixing.props, claim.group(1), {"persistentVolumeClaim": {"resources": {"requests": {"storage": claim.group(2)}}}}
        )
        return
    storage = re.match(r"set ((?:spec|values)\.\S+) to one of the storages of \S+: ([\w-]+)", fix)
    renamed = re.match(r"rename the cluster to at most \d+ characters: (metadata\.name): (\S+)$", fix)
    found = storage or renamed
    if found is None:
        found = re.match(
            r"set ((?:spec|values)\.[^\s:]+): (\S+)(?: \([^)]*\))?(?:,? (?:or longer|above \w+|at least \w+))?$", fix
        )
    if found is None:
        raise Declined(fixing.fix)
    set_path(fixing.props, found.group(1), _value(found.group(2)))


@fixer("K7")
def zone_spread(fixing: Fixing) -> None:
    """ "keep P.affinity.antiAffinityTopologyKey on kubernetes.io/hostname and add {...} to P.topologySpreadConstraints";
    the stack's pool spread over zones is the infrastructure's to change, declined."""
    found = re.match(
        r"keep ((?:spec|values)\.\S+)\.affinity\.antiAffinityTopologyKey on (\S+) and add (\{.*\}) to \1\.topologySpreadConstraints ",
        fixing.first(),
    )
    if not found:
        raise Declined(fixing.fix)
    block = found.group(1)
    set_path(fixing.props, f"{block}.affinity.antiAffinityTopologyKey", found.group(2))
    constraints = list(get_path(fixing.props, f"{block}.topologySpreadConstraints") or [])
    set_path(fixing.props, f"{block}.topologySpreadConstraints", [*constraints, json.loads(found.group(3))])


@fixer("T5")
def backend_connections(fixing: Fixing) -> None:
    fix = fixing.first()
    operator = "PXC" if "the PXC operator's" in fix else "PS"
    default = PXC_HAPROXY_GLOBAL if operator == "PXC" else PS_HAPROXY_GLOBAL
    whole = re.match(
        r"set (\S+\.configuration) to the (?:PXC|PS) operator's default global file .*?`maxconn (\d+)` in place of its `maxconn (\d+)`",
        fix,
    )
    if whole:
        set_path(fixing.props, whole.group(1), default.replace(f"maxconn {whole.group(3)}\n", f"maxconn {whole.group(2)}\n", 1))
        return
    global_maxconn = re.match(r"set `maxconn (\d+)` in the global section of (\S+)", fix)
    if global_maxconn:
        path = global_maxconn.group(2)
        if not path.startswith(("spec.", "values.")):  # "of the HAProxy configuration": the resource's own
            path = "spec.haproxy.configuration" if "pxc" in fixing.props.get("spec", {}) else "spec.proxy.haproxy.configuration"
        text = get_path(fixing.props, path) or "global\n"  # none yet: the user writes the section the text names
        set_path(fixing.props, path, _global_maxconn(text, int(global_maxconn.group(1))))
        return
    addition = re.match(r"add `external-check` and `insecure-fork-wanted` to the global section of (\S+)", fix)
    if addition:
        path = addition.group(1)
        set_path(fixing.props, path, _in_global(get_path(fixing.props, path), ["external-check", "insecure-fork-wanted"]))
        return
    resolvers = re.match(r"add a `resolvers kubernetes` section with `parse-resolv-conf` to (\S+)", fix)
    if resolvers:
        path = resolvers.group(1)
        set_path(fixing.props, path, get_path(fixing.props, path).rstrip("\n") + "\nresolvers kubernetes\n  parse-resolv-conf\n")
        return
    restart = re.match(r"start (\S+\.configuration) from the (?:PXC|PS) operator's default global file", fix)
    if restart:
        set_path(fixing.props, restart.group(1), default)
        return
    scheduler = re.match(r"set (\S+\.scheduler)\.enabled: true and \1\.maxConnections: (\d+)", fix)
    if scheduler:
        set_path(fixing.props, scheduler.group(1) + ".enabled", True)
        set_path(fixing.props, scheduler.group(1) + ".maxConnections", int(scheduler.group(2)))
        return
    router = re.match(
        r"set \[DEFAULT\] max_total_connections=(\d+) and \[connection_pool\] max_idle_server_connections=(\d+) in (\S+)", fix
    )
    if router:
        set_path(
            fixing.props,
            router.group(3),
            f"[DEFAULT]\nmax_total_connections={router.group(1)}\n\n[connection_pool]\nmax_idle_server_connections={router.group(2)}\n",
        )
        return
    raise Declined(fix)


def _global_lines(text: str) -> tuple[list[str], int, int]:
    """The file's lines and the global section's [start, end)."""
    lines = text.splitlines()
    start = next(index for index, line in enumerate(lines) if line.split()[:1] == ["global"])
    end = next(
        (index for index in range(start + 1, len(lines)) if lines[index].strip() and not lines[index][:1].isspace()),
        len(lines),
    )
    return lines, start, end


def _global_maxconn(text: str, maxconn: int) -> str:
    lines, start, end = _global_lines(text)
    body = [line for line in lines[start + 1 : end] if line.split()[:1] != ["maxconn"]]
    return "\n".join([*lines[: start + 1], f"  maxconn {maxconn}", *body, *lines[end:]]) + "\n"


def _in_global(text: str, keywords: list[str]) -> str:
    lines, start, end = _global_lines(text)
    present = {line.split()[0] for line in lines[start + 1 : end] if line.split()}
    added = [f"  {keyword}" for keyword in keywords if keyword not in present]
    return "\n".join([*lines[: start + 1], *added, *lines[start + 1 :]]) + "\n"
