"""Terminal report: the my.cnf block, the resources table and the memory split as a bar."""

from __future__ import annotations

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from percona_mysql_k8s.core.connection_cost import describe
from percona_mysql_k8s.core.mycnf import render as render_mycnf
from percona_mysql_k8s.core.sizing import SizingResult
from percona_mysql_k8s.core.units import MIB

_TERM_COLOURS = (
    "green",
    "cyan",
    "magenta",
    "yellow",
    "blue",
    "red",
    "bright_black",
    "bright_green",
    "bright_cyan",
    "bright_magenta",
    "bright_yellow",
    "bright_blue",
    "bright_red",
)


def _mycnf(result: SizingResult) -> Panel:
    section = "mysqld" if result.input.engine == "pxc" else None
    lines = []
    for line in render_mycnf(result.mysqld, section).splitlines():
        key = line.split("=", 1)[0]
        rules = result.rules.get(key, ())
        lines.append(f"{line}  # {', '.join(rules)}" if rules else line)
    target = "spec.pxc.configuration" if result.input.engine == "pxc" else "spec.mysql.configuration"
    return Panel(Text("\n".join(lines)), title=f"my.cnf ({target})", expand=False)


def _cpu(millicores: int) -> str:
    return f"{millicores:,}"


def _mib(num_bytes: int) -> str:
    return f"{num_bytes / MIB:,.1f}"


def _resources(result: SizingResult) -> Table:
    """One unit per column: CPU in millicores, memory in MiB."""
    table = Table(title="Resources (request = limit, K2/M3)")
    table.add_column("pod")
    table.add_column("container")
    table.add_column("cpu (m)", justify="right")
    table.add_column("memory (MiB)", justify="right")
    table.add_column("rules")
    for pod, names in result.pods.items():
        for name in names:
            size = result.containers[name]
            table.add_row(
                pod,
                name,
                _cpu(size.cpu_millicores),
                _mib(size.memory_bytes),
                ", ".join(result.rules.get(f"resources.{name}", ())),
            )
        total = result.pod_total(pod)
        table.add_row(pod, "[bold]pod total[/]", _cpu(total.cpu_millicores), _mib(total.memory_bytes), "K5")
    member = result.member_total
    table.add_row("member", "[bold]total[/]", _cpu(member.cpu_millicores), _mib(member.memory_bytes), "")
    table.add_row("member", "budget", _cpu(result.budget_cpu_millicores), _mib(result.budget_memory_bytes), "K1")
    return table


def _bar(result: SizingResult, width: int = 60) -> Text:
    memory = result.memory
    text = Text()
    legend = Text()
    for index, (term, amount) in enumerate(memory.terms.items()):
        colour = _TERM_COLOURS[index % len(_TERM_COLOURS)]  # every term is drawn, even beyond the palette
        cells = max(1, round(width * amount / memory.limit_bytes)) if amount else 0
        text.append("█" * cells, style=colour)
        legend.append(f"■ {term} {_mib(amount)} MiB  ", style=colour)
    spare = width - len(text.plain)
    if spare > 0:
        text.append("░" * spare, style="white")
    legend.append(f"□ headroom {_mib(memory.headroom_bytes)} MiB")
    heading = Text(f"mysqld memory split (M1): peak {_mib(memory.peak_bytes)} MiB of limit {_mib(memory.limit_bytes)} MiB\n")
    return heading + text + Text("\n") + legend


def _summary(result: SizingResult) -> Text:
    size = result.input.cluster_size
    lines = [
        f"engine {result.input.engine}, load {result.input.load}, proxy {result.input.proxy}, "
        f"{size} member{'s' if size != 1 else ''}, MySQL {result.input.mysql_version}",
        f"max_connections {result.connections} ({'derived, M6' if result.input.connections == 0 else 'as requested'}): "
        f"{size} {result.input.proxy} pod{'s' if size != 1 else ''} x {result.proxy_limits.backend_limit} backend "
        f"connections + {result.connections - size * result.proxy_limits.backend_limit} for mysqld's own users (T5); "
        f"{result.input.proxy} settings: {', '.join(f'{k} {v}' for k, v in result.proxy_limits.settings.items())}",
        f"connections (M1): {describe(result.memory.connections)}",
        f"failover brownout estimate (F5): {result.brownout_seconds:.1f} s = queue bound {result.queue_bound:.0f} / "
        f"apply rate {result.apply_rate_tps:.1f} tps",
    ]
    if result.node is not None:
        node = result.node
        lines.append(
            f"node {result.input.node_type} ({result.input.provider}): usable {node.usable_cpu_millicores}m CPU, "
            f"{_mib(node.usable_memory_bytes)} MiB (K1)"
        )
    lines.extend(f"note: {note}" for note in result.notes)
    return Text("\n".join(lines))


def render_to(console: Console, result: SizingResult) -> None:
    console.print(_summary(result))
    console.print(_mycnf(result))
    console.print(_resources(result))
    console.print(_bar(result))


def render(result: SizingResult) -> None:
    render_to(Console(), result)
