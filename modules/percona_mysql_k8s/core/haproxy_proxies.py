"""HAProxy's proxies and connection limits, read from the words core.haproxy_config gives, as HAProxy 2.8 (the
operators' ``percona/haproxy:2.8.x`` images) builds them: the one HAProxy reader's meaning layer (T5).

Transcribed from haproxy/haproxy tag v2.8.0 (Debian's 2.6 differs where ``version="2.6"`` says):

* ``global``: ``maxconn`` (src/cfgparse-global.c: one argument; ``strtol`` that must read the whole word, where
  2.6 took ``atol``; a second non-zero value is an alert and the first stays; 0 means "not set"),
  ``fd-hard-limit`` (``atol``). Unset, src/haproxy.c ``compute_ideal_maxconn`` derives it from the descriptor
  limit: at most half of it, at least ``DEFAULT_MAXCONN`` (100). The operators' entrypoints raise
  ``ulimit -n`` to 1048576 (``HA_RLIMIT_NOFILE``) before they start haproxy.
* proxies (src/cfgparse-listen.c ``cfg_parse_listen``): ``defaults [name] [from other]`` starts afresh unless
  ``from``; ``frontend``/``backend``/``listen`` name ``[from defaults]`` copy the last defaults section (named
  or not) or the one named (src/proxy.c ``proxy_defproxy_cpy``): ``maxconn`` and ``default_backend`` for
  frontends, ``fullconn`` for backends, the ``default-server`` settings for all. ``maxconn`` and ``fullconn``
  are ``atol`` (``maxconn 2k`` is 2), last one wins; a frontend left at 0 takes the global maxconn
  (``proxy_adjust_all_maxconn``). Files given with several ``-f`` are one configuration: a ``defaults`` section
  of the first file applies to the proxies of the next.
* servers (src/server.c): a server copies its proxy's ``default-server`` settings as they are at its line
  (``srv_settings_cpy``); ``maxconn`` and ``minconn`` are ``atol``; ``srv_minmax_conn_apply`` (include/haproxy/
  server.h) turns a ``minconn`` above ``maxconn`` into the ``maxconn``; 0 is no limit. The dynamic limit
  (``minconn`` with ``fullconn``) never exceeds that ``maxconn``. ``server-template`` makes several.
* ``bind ... maxconn N`` (src/listener.c ``bind_parse_maxconn``) bounds each listener of the line.
* ``no``/``default`` prefixes are refused except before the keywords src/cfgparse.c lists.
* src/cfgparse.c ``check_config_validity``: a proxy whose health check is ``option external-check`` (the
  operators' backends) needs ``external-check`` in the global section, and an ``external-check command``;
  a ``default_backend`` or ``use_backend`` must name a backend.
* src/resolvers.c ``resolvers_finalize``: a server's ``resolvers <id>`` (set on its line or copied from
  ``default-server``) must name a ``resolvers`` section ("unable to find required resolvers"): the operators'
  backends name ``resolvers kubernetes``, which their default global file declares.

A word the environment gives (``"${MAXCONN}"``) is a value the pack cannot see: the line counts as not set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from . import haproxy_config
from .haproxy_config import HAProxyConfigError, Line, Word
from .mysqld_options import c_strtol

DEFAULT_MAXCONN = 100  # include/haproxy/defaults.h, without SYSTEM_MAXCONN
ENTRYPOINT_NOFILE = 1048576  # both operators' build/haproxy-entrypoint.sh: DEFAULT_RLIMIT_NOFILE
_NEGATABLE = frozenset(
    {"option", "log", "busy-polling", "set-dumpable", "strict-limits", "insecure-fork-wanted", "numa-cpu-mapping"}
)
# The health-check options: the last one a proxy (or its defaults) gives is in force (PR_O2_CHK_ANY).
_CHECK_OPTIONS = frozenset(
    {"httpchk", "ssl-hello-chk", "smtpchk", "pgsql-check", "redis-check", "mysql-check", "ldap-check", "spop-check"}
    | {"tcp-check", "external-check"}
)
_LONG = 1 << 63


def c_atol(text: str) -> int:
    """glibc ``atol`` (``strtol`` base 10, saturating) stored into a C ``int`` (wraps to 32 bits)."""
    return _to_int(*_strtol(text)[:1])


def _strtol(text: str) -> tuple[int, int]:
    """(value, characters read) as ``strtol(text, &end, 10)``, saturating at LONG_MIN/LONG_MAX: nothing read is
    (0, 0). The digits are read by the core's one reader of C numbers (mysqld_options.c_strtol)."""
    value, end, _ = c_strtol(text)
    return max(-_LONG, min(_LONG - 1, value)), end


def _to_int(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


@dataclass(frozen=True)
class ServerSettings:
    maxconn: int = 0
    minconn: int = 0
    resolvers: str | None = None  # the resolvers section it names


@dataclass(frozen=True)
class Server:
    proxy: str
    name: str
    host: str
    port: str | None  # None: no port (the client's destination port)
    settings: ServerSettings
    line: int
    count: int = 1  # server-template

    @property
    def limit(self) -> int | None:
        """Connections it accepts after ``srv_minmax_conn_apply``; None: unlimited."""
        maxconn = self.settings.minconn if self.settings.minconn > self.settings.maxconn else self.settings.maxconn
        return maxconn if maxconn > 0 else None


@dataclass
class Proxy:
    kind: str  # defaults | frontend | backend | listen
    name: str
    line: int
    maxconn: int = 0
    fullconn: int = 0
    default_backend: str | None = None
    routes: list[str] = field(default_factory=list)  # use_backend targets
    dynamic_route: bool = False  # a use_backend name built at run time (log-format)
    bind_limits: list[int | None] = field(default_factory=list)  # per bind line: listeners x maxconn, None unbounded
    servers: list[Server] = field(default_factory=list)
    server_defaults: ServerSettings = ServerSettings()
    check: str | None = None  # the health-check option in force ("external-check", "tcp-check", ...)
    check_command: bool = False  # an 'external-check command' is set

    @property
    def frontend(self) -> bool:
        return self.kind in ("frontend", "listen")

    @property
    def backend(self) -> bool:
        return self.kind in ("backend", "listen")

    def inherit(self, kind: str, name: str, line: int) -> Proxy:
        """A proxy created from this defaults section (``proxy_defproxy_cpy``)."""
        frontend, backend = kind in ("frontend", "listen", "defaults"), kind in ("backend", "listen", "defaults")
        return Proxy(
            kind,
            name,
            line,
            maxconn=self.maxconn if frontend else 0,
            fullconn=self.fullconn if backend else 0,
            default_backend=self.default_backend if frontend else None,
            server_defaults=self.server_defaults,
            check=self.check,
            check_command=self.check_command,
        )


@dataclass
class Config:
    """What HAProxy builds from the files: the global limits and every proxy."""

    global_maxconn: int = 0
    fd_hard_limit: int = 0
    external_check: bool = False  # 'external-check' in the global section
    resolvers: set[str] = field(default_factory=set)  # the resolvers sections declared
    frontends: dict[str, Proxy] = field(default_factory=dict)
    backends: dict[str, Proxy] = field(default_factory=dict)
    from_environment: list[str] = field(default_factory=list)  # "line 4: maxconn": values the pack cannot see

    def effective_global(self) -> tuple[int, bool]:
        """(the process's maxconn, whether HAProxy derived it from the descriptor limit)."""
        if self.global_maxconn:
            return max(0, self.global_maxconn), False
        limit = ENTRYPOINT_NOFILE
        if self.fd_hard_limit > 0:
            limit = min(limit, self.fd_hard_limit)
        return max(limit // 2, DEFAULT_MAXCONN), True

    def frontend_limit(self, proxy: Proxy) -> int:
        """Sessions a frontend accepts: its maxconn (else the global one), and its listeners' when all are bounded."""
        limit = proxy.maxconn if proxy.maxconn else self.effective_global()[0]
        limit = max(0, limit)
        if proxy.bind_limits and all(bound is not None for bound in proxy.bind_limits):
            limit = min(limit, sum(bound for bound in proxy.bind_limits if bound is not None))
        return limit

    def targets(self, proxy: Proxy) -> list[Proxy]:
        """The backends a frontend's sessions can reach."""
        if proxy.dynamic_route:
            return list(self.backends.values())
        names = [*proxy.routes, *([proxy.default_backend] if proxy.default_backend else [])]
        found = [self.backends[name] for name in dict.fromkeys(names) if name in self.backends]
        if proxy.kind == "listen" and not proxy.default_backend:
            found.append(proxy)
        return found


class _Reader:
    def __init__(self, version: str):
        self.version = version
        self.config = Config()
        self.defaults = Proxy("defaults", "", 0)
        self.named: dict[str, list[Proxy]] = {}
        self.current: Proxy | None = None
        self.file = 0

    def refuse(self, line: Line, message: str) -> None:
        raise HAProxyConfigError(line.number, f"{message} (file {self.file + 1})" if self.file else message)

    def number(self, line: Line, word: Word | None, what: str) -> int:
        """An ``atol`` argument; 0 for one the environment gives (noted)."""
        if word is None or not word.text:
            self.refuse(line, f"'{what}' expects an integer argument")
        if any(word.from_environment):
            self.config.from_environment.append(f"line {line.number}: {what}")
            return 0
        return c_atol(word.text)

    def read(self, lines: list[Line]) -> None:
        self.current = None
        for line in lines:
            words = list(line.words)
            if words[0].text in ("no", "default"):
                if len(words) < 2 or words[1].text not in _NEGATABLE:
                    self.refuse(line, "negation/default currently supported only for options, log and a few others")
                continue
            keyword = words[0].text
            if keyword in haproxy_config.SECTIONS:
                self.section(line, words)
            elif line.section == "global":
                self.global_line(line, words)
            elif self.current is not None:
                self.proxy_line(line, words, self.current)

    def section(self, line: Line, words: list[Word]) -> None:
        keyword, texts = words[0].text, [word.text for word in words]
        self.current = None
        if keyword == "resolvers" and len(texts) > 1:
            self.config.resolvers.add(texts[1])
        if keyword not in haproxy_config.PROXY_SECTIONS:
            return
        if keyword == "defaults":
            name, rest = ("", texts[1:]) if texts[1:2] == ["from"] else (texts[1] if len(texts) > 1 else "", texts[2:])
            parent = self.parent(line, rest) if rest[:1] == ["from"] else Proxy("defaults", "", 0)
            proxy = parent.inherit("defaults", name, line.number)
            self.named.setdefault(name, []).append(proxy)
            self.defaults = self.current = proxy
            return
        if len(texts) < 2 or not texts[1]:
            self.refuse(line, f"'{keyword}' expects an <id> argument")
        name = texts[1]
        if len(texts) > 2 and not (texts[2] == "from" and len(texts) == 4):
            self.refuse(line, "please use the 'bind' keyword for listening addresses")
        parent = self.parent(line, texts[2:]) if len(texts) > 2 else self.defaults
        proxy = parent.inherit(keyword, name, line.number)
        if (proxy.frontend and name in self.config.frontends) or (proxy.backend and name in self.config.backends):
            self.refuse(line, f"{keyword} '{name}' has the same name as another proxy")
        if proxy.frontend:
            self.config.frontends[name] = proxy
        if proxy.backend:
            self.config.backends[name] = proxy
        self.current = proxy

    def parent(self, line: Line, rest: list[str]) -> Proxy:
        if len(rest) != 2 or rest[0] != "from":
            self.refuse(line, "a defaults section takes a name and 'from <defaults>' at most")
        found = self.named.get(rest[1], [])
        if not found:
            self.refuse(line, f"defaults section '{rest[1]}' not found")
        if len(found) > 1:
            self.refuse(line, f"ambiguous defaults section name '{rest[1]}'")
        return found[0]

    def global_line(self, line: Line, words: list[Word]) -> None:
        keyword = words[0].text
        if keyword == "maxconn":
            if len(words) > 2 and words[2].text:
                self.refuse(line, "'maxconn' cannot handle unexpected argument")
            if self.config.global_maxconn != 0:
                return  # "already specified. Continuing.": an alert, the first value stays
            self.config.global_maxconn = self.global_maxconn(line, words[1] if len(words) > 1 else None)
        elif keyword == "external-check":
            self.config.external_check = True
        elif keyword == "fd-hard-limit" and self.config.fd_hard_limit == 0:
            self.config.fd_hard_limit = self.number(line, words[1] if len(words) > 1 else None, "fd-hard-limit")

    def global_maxconn(self, line: Line, word: Word | None) -> int:
        if self.version == "2.6" or word is None or not word.text or any(word.from_environment):
            return self.number(line, word, "maxconn")
        value, read = _strtol(word.text)
        if read != len(word.text):
            self.refuse(line, f"cannot parse 'maxconn' value '{word.text}', an integer is expected")
        return _to_int(value)

    def proxy_line(self, line: Line, words: list[Word], proxy: Proxy) -> None:
        keyword = words[0].text
        argument = words[1] if len(words) > 1 else None
        extra = len(words) > 2 and bool(words[2].text)
        if keyword in ("maxconn", "fullconn"):
            value = self.number(line, argument, keyword)
            if extra:
                self.refuse(line, f"'{keyword}' cannot handle unexpected argument")
            setattr(proxy, keyword, value)
        elif keyword == "default_backend":
            if argument is None or not argument.text:
                self.refuse(line, "'default_backend' expects a backend name")
            if extra:
                self.refuse(line, "'default_backend' cannot handle unexpected argument")
            proxy.default_backend = argument.text
        elif keyword == "use_backend":
            self.use_backend(line, words, proxy)
        elif keyword == "bind" and proxy.frontend:
            proxy.bind_limits.append(self.bind(line, words))
        elif keyword in ("server", "server-template", "default-server"):
            self.server(line, words, proxy)
        elif keyword == "option" and argument is not None and argument.text in _CHECK_OPTIONS:
            proxy.check = argument.text
        elif keyword == "external-check" and argument is not None and argument.text == "command":
            proxy.check_command = True

    def use_backend(self, line: Line, words: list[Word], proxy: Proxy) -> None:
        if proxy.kind == "defaults":
            self.refuse(line, "'use_backend' not allowed in 'defaults' section")
        if len(words) < 2 or not words[1].text:
            self.refuse(line, "'use_backend' expects a backend name")
        if len(words) > 2 and words[2].text and words[2].text not in ("if", "unless"):
            self.refuse(line, f"unexpected keyword '{words[2].text}' after switching rule")
        if not proxy.frontend:
            return  # a warning: a backend switches nothing
        if "%" in words[1].text or any(words[1].from_environment):
            proxy.dynamic_route = True
        else:
            proxy.routes.append(words[1].text)

    def bind(self, line: Line, words: list[Word]) -> int | None:
        """listeners x ``maxconn`` of one bind line; None when it sets none (or shards them)."""
        texts = [word.text for word in words]
        if "shards" in texts[2:]:
            return None
        value = None
        for at in range(2, len(texts)):
            if texts[at] == "maxconn":
                if at + 1 >= len(texts) or not texts[at + 1]:
                    self.refuse(line, "'maxconn' : missing value")
                value = self.number(line, words[at + 1], "bind maxconn")
                if value < 0:
                    self.refuse(line, f"'maxconn' : invalid value {value}, must be >= 0")
        if not value:
            return None
        return value * _listeners(texts[1] if len(texts) > 1 else "")

    def server(self, line: Line, words: list[Word], proxy: Proxy) -> None:
        keyword = words[0].text
        if not proxy.backend and (keyword != "default-server" or proxy.kind == "frontend"):
            self.refuse(line, f"'{keyword}' not allowed: {proxy.kind} '{proxy.name}' has no backend capability")
        first = {"default-server": 1, "server": 3, "server-template": 4}[keyword]
        if len(words) < first or not all(word.text for word in words[1:first]):
            self.refuse(line, f"'{keyword}' expects <name> and <addr>[:<port>] as arguments")
        settings = proxy.server_defaults
        for at in range(first, len(words)):
            if words[at].text in ("maxconn", "minconn"):
                if at + 1 >= len(words):
                    self.refuse(line, f"'{words[at].text}' expects an integer argument")
                settings = replace(settings, **{words[at].text: self.number(line, words[at + 1], words[at].text)})
            elif words[at].text == "resolvers" and at + 1 < len(words):
                settings = replace(settings, resolvers=words[at + 1].text)
        if keyword == "default-server":
            proxy.server_defaults = settings
            return
        address = words[first - 1].text
        host, port = _address(address)
        count = _template_count(words[2].text) if keyword == "server-template" else 1
        if count is None:
            self.refuse(line, f"invalid server-template range '{words[2].text}'")
        proxy.servers.append(Server(proxy.name, words[1].text, host, port, settings, line.number, count))


def _address(address: str) -> tuple[str, str | None]:
    """(host, port) of ``host[:port]`` (``ipv4@``/``ipv6@`` prefixes dropped, ``[v6]`` and bare v6 kept whole)."""
    for prefix in ("ipv4@", "ipv6@", "tcp@", "tcp4@", "tcp6@"):
        if address.startswith(prefix):
            address = address[len(prefix) :]
    if address.count(":") > 1 and not address.startswith("["):
        return address, None
    host, colon, port = address.rpartition(":")
    return (host, port) if colon else (address, None)


def _listeners(addresses: str) -> int:
    """Listeners one bind line makes: one per address of its comma list, one per port of a range."""
    total = 0
    for address in addresses.split(","):
        port = address.rpartition(":")[2] if ":" in address and "@" not in address.split(":")[0] else ""
        low, dash, high = port.partition("-")
        total += int(high) - int(low) + 1 if dash and low.isdigit() and high.isdigit() and int(high) >= int(low) else 1
    return max(1, total)


def _template_count(text: str) -> int | None:
    low, dash, high = text.partition("-")
    if not low.isdigit() or (dash and not high.isdigit()):
        return None
    count = int(high) - int(low) + 1 if dash else int(low)
    return count if count > 0 else None


def read(texts: Sequence[str], version: str = "2.8") -> Config:
    """The configuration HAProxy builds from ``-f`` files in this order; HAProxyConfigError where ``haproxy -c``
    would fail on what this reader reads (the lexer's alerts, these keywords' arguments, duplicate or missing
    proxies, no listener at all)."""
    reader = _Reader(version)
    for index, text in enumerate(texts):
        reader.file = index
        reader.read(haproxy_config.parse(text))
    config = reader.config
    for proxy in [*config.frontends.values(), *config.backends.values()]:
        if proxy.check == "external-check" and not (config.external_check and proxy.check_command):
            missing = "external-check command" if config.external_check else "global.external-check"
            raise HAProxyConfigError(
                proxy.line, f"proxy '{proxy.name}': 'option external-check' unable to find required '{missing}'"
            )
    for proxy in config.backends.values():
        for server in proxy.servers:
            if server.settings.resolvers is not None and server.settings.resolvers not in config.resolvers:
                raise HAProxyConfigError(
                    server.line,
                    f"{proxy.kind} '{proxy.name}', server '{server.name}': unable to find required resolvers "
                    f"'{server.settings.resolvers}'",
                )
    for proxy in config.frontends.values():
        for name in [*proxy.routes, *([proxy.default_backend] if proxy.default_backend else [])]:
            if name not in config.backends:
                raise HAProxyConfigError(proxy.line, f"proxy '{proxy.name}': unable to find required backend '{name}'")
    if not any(proxy.bind_limits for proxy in config.frontends.values()):
        raise HAProxyConfigError(0, "no listener: HAProxy will not start (haproxy -c exits 2)")
    return config
