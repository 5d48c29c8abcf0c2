"""A picture of the memory split (``--plot FILE``): the member budget by group, and the mysqld limit by term.

Colours come in five families a reader can tell apart: blue for the buffer pool, orange for what the
connections hold, grey for mysqld's fixed terms, green for the engine's own terms (gcache, XCom cache,
certification info) and purple for the sidecars and the proxy. Every segment wide enough carries its
value; the legend carries every value, so nothing depends on the segment being readable.
"""

from __future__ import annotations

from pathlib import Path

from percona_mysql_k8s.core.report import instances
from percona_mysql_k8s.core.sizing import SizingResult
from percona_mysql_k8s.core.units import GIB, MIB

BUFFER_POOL, PER_CONNECTION, FIXED, ENGINE, SIDECARS = "buffer pool", "per-connection", "fixed", "engine-specific", "sidecars"
GROUP_COLOURMAPS = {BUFFER_POOL: "Blues", PER_CONNECTION: "Oranges", FIXED: "Greys", ENGINE: "Greens", SIDECARS: "Purples"}
TERM_GROUPS = {
    "buffer_pool": BUFFER_POOL,
    "connections_idle": PER_CONNECTION,
    "connections_active": PER_CONNECTION,
    "connection_threads": PER_CONNECTION,
    "gcache": ENGINE,
    "xcom_cache": ENGINE,
    "certification_info": ENGINE,
}  # every other M1 term is one of mysqld's fixed terms
LABEL_MIN_SHARE = 0.07  # a segment narrower than this share of its bar is labelled in the legend only


def _group(term: str) -> str:
    return TERM_GROUPS.get(term, FIXED)


def _amount(num_bytes: float) -> str:
    return f"{num_bytes / GIB:.2f} GiB" if num_bytes >= GIB else f"{num_bytes / MIB:.0f} MiB"


def _colours(plt, terms: list[tuple[str, int]], sidecars: list[tuple[str, int]]) -> tuple[dict[str, tuple], dict[str, tuple]]:
    """A colour per term and sidecar (shades of its group's colour map), and one per group."""
    # Shades within a family: one per member of the group, darkest first.
    members: dict[str, list[str]] = {}
    for term, _ in terms:
        members.setdefault(_group(term), []).append(term)
    members[SIDECARS] = [key for key, _ in sidecars]
    colour: dict[str, tuple] = {}
    for group, names in members.items():
        cmap = plt.get_cmap(GROUP_COLOURMAPS[group])
        for index, name in enumerate(names):
            colour[name] = cmap(0.75 - 0.45 * index / max(1, len(names) - 1)) if len(names) > 1 else cmap(0.65)
    group_colour = {group: plt.get_cmap(cmap)(0.65) for group, cmap in GROUP_COLOURMAPS.items()}
    return colour, group_colour


def _rows(result: SizingResult, terms, sidecars, colour: dict[str, tuple], group_colour: dict[str, tuple]) -> list[tuple]:
    """The two bars: (label, [(name, amount, fill)], total)."""
    memory = result.memory
    # Row 0: the member budget by group (mysqld's terms grouped, then the sidecars and proxy); row 1: the
    # mysqld limit by term.
    by_group: dict[str, int] = {}
    for term, amount in terms:
        by_group[_group(term)] = by_group.get(_group(term), 0) + amount
    member_parts = [
        (group, by_group[group], group_colour[group])
        for group in (BUFFER_POOL, PER_CONNECTION, FIXED, ENGINE)
        if group in by_group
    ]
    member_parts.append(("mysqld headroom", max(0, memory.headroom_bytes), "white"))
    member_parts.append((SIDECARS, sum(amount for _, amount in sidecars), group_colour[SIDECARS]))
    limit_parts = [(term, amount, colour[term]) for term, amount in terms]
    limit_parts.append(("headroom", max(0, memory.headroom_bytes), "white"))
    return [
        (f"member budget\n{_amount(result.budget_memory_bytes)}", member_parts, result.budget_memory_bytes),
        (f"mysqld limit\n{_amount(memory.limit_bytes)}", limit_parts, memory.limit_bytes),
    ]


def _draw_bars(axes, rows: list[tuple]) -> None:
    """Each row's parts side by side as shares of its total, labelled where wide enough; the unused rest dotted."""
    for row, (_, parts, total) in enumerate(rows):
        left = 0.0
        for name, amount, fill in parts:
            width = amount / total
            hatch = "//" if fill == "white" else None
            axes.barh(row, width, left=left, color=fill, edgecolor="dimgrey", linewidth=0.6, hatch=hatch, height=0.6)
            if width >= LABEL_MIN_SHARE:
                shade = sum(fill[:3]) / 3 if isinstance(fill, tuple) else 1.0
                axes.text(
                    left + width / 2,
                    row,
                    f"{name}\n{_amount(amount)}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if shade < 0.5 else "black",
                )
            left += width
        unused = total - sum(amount for _, amount, _ in parts)
        if unused > 0:
            axes.barh(row, unused / total, left=left, color="white", edgecolor="dimgrey", hatch="..", height=0.6)


def write_plot(result: SizingResult, path: str) -> None:
    suffix = Path(path).suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"{path}: the picture must be .png or .svg")
    try:
        import matplotlib
    except ModuleNotFoundError:  # an optional dependency (the `plot` extra): `pulumi up` never needs it
        raise ValueError(
            "--plot needs matplotlib: pip install 'percona-mysql-k8s[plot]' (in a checkout: pip install -r requirements-dev.txt)"
        ) from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    memory = result.memory
    terms = [(term, amount) for term, amount in memory.terms.items() if amount > 0]
    sidecars = [(key, result.containers[name].memory_bytes) for key, (_, name) in instances(result).items() if name != "mysqld"]

    colour, group_colour = _colours(plt, terms, sidecars)
    rows = _rows(result, terms, sidecars, colour, group_colour)
    figure, axes = plt.subplots(figsize=(12, 4.8))
    _draw_bars(axes, rows)
    axes.set_yticks(range(len(rows)), [label for label, _, _ in rows])
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    axes.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    axes.set_xlabel("share of the bar")
    axes.set_title(
        f"{result.input.engine}, {result.input.load}: mysqld peak {_amount(memory.peak_bytes)} of "
        f"{_amount(memory.limit_bytes)} (M1), {result.connections} connections (M6)"
    )

    handles = [
        Patch(facecolor=colour[term], edgecolor="dimgrey", label=f"{_group(term)}: {term} {_amount(amount)}")
        for term, amount in terms
    ]
    handles += [
        Patch(facecolor=colour[key], edgecolor="dimgrey", label=f"{SIDECARS}: {key} {_amount(amount)}")
        for key, amount in sidecars
    ]
    handles.append(
        Patch(
            facecolor="white", edgecolor="dimgrey", hatch="//", label=f"mysqld headroom {_amount(max(0, memory.headroom_bytes))}"
        )
    )
    axes.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize=8, frameon=False)
    figure.savefig(path, bbox_inches="tight", dpi=110)
    plt.close(figure)
