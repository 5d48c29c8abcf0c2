"""What the operators write into ``auto-config.cnf`` (M1, M6, T5): the condition, byte for byte, and the values.

Both operators tune ``innodb_buffer_pool_size`` and ``max_connections`` from the mysqld container's memory, but
each decides whether the user "configured" a key in its own way, and neither reads the text as mysqld does:

* PXC operator 1.20.0 (b3b0b10a7) pkg/pxc/app/config/autotune.go ``getAutoTuneParams``: ``cr.ConfigHasKey("mysqld",
  key)`` (pkg/apis/pxc/v1/pxc_types.go) loads ``spec.pxc.configuration`` with go-ini (core.go_ini) and asks for
  that exact key in the section named exactly ``mysqld``: ``max-connections``, ``loose-max_connections``,
  ``MAX_CONNECTIONS``, ``[server]``, ``[ mysqld ]``, ``[mysqld-8.0]`` or a commented line do not count, so the
  operator still writes its value. The memory is ``resources.limits.memory`` only
  (pkg/controller/pxc/config.go ``reconcileAutotuneConfigMap``: no limit, no auto-config). A text go-ini refuses
  fails the reconcile ("check if ... configured").
* PS operator v1.2.0 pkg/mysql/config.go ``GetAutoTuneParams``: ``strings.Contains(conf, key)`` on the raw
  ``spec.mysql.configuration``: the key anywhere, a comment, another group or a longer name
  (``mysqlx_max_connections``, ``maximum-max_connections``) included, skips it, and then mysqld keeps its own
  default; ``max-connections`` does not contain it. The memory is the limit, else the request
  (pkg/controller/ps/controller.go ``reconcileMySQLAutoConfig``).

Both refuse a memory below 12582880 bytes when they tune ``max_connections`` ("Not enough memory set in
requests"): the reconcile fails. mysqld reads ``auto-config.cnf`` before the user's file in both layouts
(core.mycnf ``operator_files``), so a key the user's file sets wins over the operator's value.
Pure; no Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import go_ini

CONNECTION_BYTES = 12582880  # both operators: max_connections = memory / 12582880
_MIB = 1048576
_CHUNK_DEFAULT = 134217728  # PXC autotune.go chunkSizeDefault
_GIB = 1073741824
_BUFFER_POOL = "innodb_buffer_pool_size"
_CHUNK = "innodb_buffer_pool_chunk_size"
_CONNECTIONS = "max_connections"


class AutotuneRefused(ValueError):
    """The operator cannot auto-tune this resource and stops its reconcile; ``field`` is what to fix."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class AutoConfig:
    """The operator's auto-config: what it writes (key -> value, in its order) and why it skips a key."""

    written: dict[str, str]
    skipped: dict[str, str]  # key -> why the operator leaves it to mysqld

    def why_not(self, key: str) -> str:
        return self.skipped.get(key, "")


def autotune_memory(operator: str, limit: int | None, request: int | None) -> tuple[int | None, str]:
    """The memory each operator tunes from, and its name: PXC the limit only, PS the limit else the request."""
    if limit is not None:
        return limit, "limits.memory"
    if operator == "ps" and request is not None:
        return request, "requests.memory"
    return None, ""


def configured(operator: str, configuration: str | None, key: str) -> bool:
    """Whether the operator takes ``key`` as configured (and leaves it alone). AutotuneRefused when PXC's
    go-ini cannot load the text."""
    text = configuration or ""
    if operator == "ps":
        return key in text  # strings.Contains(conf, key)
    try:
        return go_ini.parse(text).has_key("mysqld", key)
    except go_ini.GoIniError as error:
        raise AutotuneRefused("configuration", f"go-ini cannot load it ({error}), so the PXC operator stops") from None


def _skip_reason(operator: str, key: str) -> str:
    if operator == "ps":
        return (
            f"the text contains '{key}' (a comment, another group or a longer name counts: the PS operator's "
            "GetAutoTuneParams tests strings.Contains)"
        )
    return f"the PXC operator finds '{key}' in [mysqld] (ConfigHasKey)"


def _pxc_buffer_pool(memory: int) -> dict[str, str]:
    """autotune.go: 75 % (50 % when less than 1e9 bytes would be left), rounded up to 128 MiB; above 1 GiB, eight
    chunks each rounded up to the next MiB (a whole MiB more when already round)."""
    pool = memory // 100 * 75
    if memory - pool < 1000000000:
        pool = memory // 100 * 50
    if pool % _CHUNK_DEFAULT:
        pool += _CHUNK_DEFAULT - pool % _CHUNK_DEFAULT
    values = {}
    if pool > _GIB:
        chunk = pool // 8
        chunk = chunk + _MIB - chunk % _MIB
        pool = chunk * 8
        values[_CHUNK] = str(chunk)
    values[_BUFFER_POOL] = str(pool)
    return values


def _ps_buffer_pool(memory: int, configuration: str) -> dict[str, str]:
    """config.go: 50 %; above 1 GiB eight instances with chunks cut to the MiB, else rounded up to 128 MiB."""
    pool, instances, chunk = memory * 50 // 100, 1, _CHUNK_DEFAULT
    if pool > _GIB:
        instances = 8
        chunk = pool // instances
        chunk -= chunk % _MIB
        pool = instances * chunk
    elif pool % (instances * chunk):
        pool += instances * chunk - pool % (instances * chunk)
    values = {_BUFFER_POOL: str(pool)}
    if not configured("ps", configuration, _CHUNK):
        values[_CHUNK] = str(chunk)
    return values


def auto_config(operator: str, configuration: str | None, memory: int | None) -> AutoConfig:
    """What the operator writes for ``configuration`` and the memory it tunes from (None: no auto-config)."""
    if memory is None:
        reason = "no memory limit" if operator == "pxc" else "no memory limit or request"
        return AutoConfig({}, {_BUFFER_POOL: reason, _CONNECTIONS: reason})
    written: dict[str, str] = {}
    skipped: dict[str, str] = {}
    text = configuration or ""
    if configured(operator, text, _BUFFER_POOL):
        skipped[_BUFFER_POOL] = _skip_reason(operator, _BUFFER_POOL)
    else:
        written.update(_pxc_buffer_pool(memory) if operator == "pxc" else _ps_buffer_pool(memory, text))
    if configured(operator, text, _CONNECTIONS):
        skipped[_CONNECTIONS] = _skip_reason(operator, _CONNECTIONS)
    elif memory < CONNECTION_BYTES:
        raise AutotuneRefused(
            "memory", f"is {memory} bytes, below 12582880: the operator refuses to tune max_connections and stops"
        )
    else:
        written[_CONNECTIONS] = str(memory // CONNECTION_BYTES)
    return AutoConfig(written, skipped)


def auto_config_text(operator: str, auto: AutoConfig) -> str:
    """The file as the operator writes it (PXC: ``[mysqld]`` and `` = ``; PS: bare ``key=value`` lines)."""
    if operator == "pxc":
        return "[mysqld]" + "".join(f"\n{key} = {value}" for key, value in auto.written.items())
    return "".join(f"\n{key}={value}" for key, value in auto.written.items())
